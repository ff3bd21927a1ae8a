// How a check's result is shown (gpulab exercise check): the explained text a student reads, and
// the JSON that carries the same facts.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

#include "core/output.hpp"
#include "exercise/check.hpp"

namespace gpulab::exercise {

std::string render_check(const CheckResult& c, const OutputOptions& out);
nlohmann::json check_json(const CheckResult& c);

}  // namespace gpulab::exercise
