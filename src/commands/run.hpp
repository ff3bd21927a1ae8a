// gpulab run FILE.cu: a student's own, unmodified CUDA program, on a GPU or on the emulator, with
// the bugs a GPU hides (--check) and a report of every kernel launched.
#pragma once

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <string>

#include "commands/common.hpp"
#include "run/session.hpp"

namespace gpulab {

std::string render_run(const RunResult& r, const OutputOptions& out);
nlohmann::json run_json(const RunResult& r);
void setup_run(CLI::App& app, GlobalOptions& g);

}  // namespace gpulab
