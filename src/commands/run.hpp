// gpulab run FILE.cu: a student's own, unmodified CUDA program, on a GPU or on the emulator, with
// the bugs a GPU hides (--check) and a report of every kernel launched.
#pragma once

#include <CLI/CLI.hpp>

#include "commands/common.hpp"
#include "commands/program_options.hpp"  // normalize_run_arguments
#include "run/render.hpp"                // render_run, run_json
#include "run/session.hpp"

namespace gpulab {

// gpulab run's options as typed: the files (sources, then the program's arguments) and the
// options it shares with gpulab profile.
struct RunArgs {
  std::vector<std::string> files;
  ProgramArgs program;
};

// The options checked, the backend chosen (its notice on stderr), into the engine's options.
RunOptions run_options(const RunArgs& raw, GlobalOptions& g);
void setup_run(CLI::App& app, GlobalOptions& g);

}  // namespace gpulab
