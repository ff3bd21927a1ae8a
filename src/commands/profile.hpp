// gpulab profile FILE.cu: Nsight Compute's memory and divergence counters for every kernel launch
// of the student's own program, counted on the emulator (no GPU needed), per line, explained; with
// --backend gpu, ncu's numbers beside them.
#pragma once

#include <CLI/CLI.hpp>

#include "commands/common.hpp"
#include "run/profile_render.hpp"   // render_profile, profile_json
#include "run/profile_session.hpp"  // ProfileOptions -> run_profile -> ProfileResult

namespace gpulab {

void setup_profile(CLI::App& app, GlobalOptions& g);

}  // namespace gpulab
