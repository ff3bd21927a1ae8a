// gpulab run FILE.cu: a student's own, unmodified CUDA program, on a GPU or on the emulator, with
// the bugs a GPU hides (--check) and a report of every kernel launched.
#pragma once

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "commands/common.hpp"
#include "run/session.hpp"

namespace gpulab {

std::string render_run(const RunResult& r, const OutputOptions& out);
nlohmann::json run_json(const RunResult& r);
void setup_run(CLI::App& app, GlobalOptions& g);

// `gpulab run`'s arguments (argv without the program's name) with nvcc's spellings made gpulab's:
// -IDIR and --include-path DIR become --include=DIR, -arch=sm_90 or -lineinfo one --nvcc-flag
// each, and every word after `--` a --program-arg, so that the program's own options
// (-hA=64) reach it untouched. Other commands' arguments are returned as they are.
std::vector<std::string> normalize_run_arguments(const std::vector<std::string>& args);

}  // namespace gpulab
