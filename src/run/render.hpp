// gpulab run's report, from the engine's RunResult (run/session.hpp): the explained text for
// stderr (how the program ended, the kernels launched, the findings, en/zh) and the same facts
// as JSON (docs/run.md).
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "core/output.hpp"
#include "run/session.hpp"

namespace gpulab {

std::string render_run(const RunResult& r, const OutputOptions& out);
// "  Accepted, no effect on the emulator: -O3 -arch=sm_90 (...)" and a newline; empty when none
// (gpulab run's and gpulab profile's reports).
std::string flags_without_effect_line(const std::vector<std::string>& flags, Lang l);
nlohmann::json run_json(const RunResult& r);

}  // namespace gpulab
