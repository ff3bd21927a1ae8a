// gpulab exercise: graded kernel-writing exercises (list, start, check, hint, solution), from a
// map to a tiled matrix multiply, checked on the emulator with gpulab run --check's diagnostics.
#pragma once

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <string>

#include "commands/common.hpp"
#include "core/state.hpp"
#include "exercise/check.hpp"
#include "exercise/feedback.hpp"
#include "exercise/grade.hpp"

namespace gpulab {

// The list: every exercise with its saved status.
std::string render_exercise_list(const SavedProgress& p, const OutputOptions& out);
nlohmann::json exercise_list_json(const SavedProgress& p);

void setup_exercise(CLI::App& app, GlobalOptions& g);

// gpulab exercise grade (commands/exercise_grade.cpp): the table, and the subcommand under
// `exercise`.
std::string render_exercise_grade(const exercise::GradeResult& r, const OutputOptions& out);
void setup_exercise_grade(CLI::App& exercise_app, GlobalOptions& g);

}  // namespace gpulab
