// The drawing of gpulab exercise check --draw: for the small test, which thread read and wrote
// each element of every buffer (global memory) and of every __shared__ array, as tables.
#pragma once

#include <string>

#include "core/output.hpp"
#include "exercise/check.hpp"

namespace gpulab::exercise {

std::string render_drawing(const CheckResult& c, const OutputOptions& out);
nlohmann::json drawing_json(const CheckResult& c);

}  // namespace gpulab::exercise
