// Findings in words: one finding of the report (what, who, where, the usual fix) in English or
// Chinese, and its kind's short title.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

#include "core/output.hpp"
#include "run/session.hpp"

namespace gpulab {

// One finding in words (what, who, where, the usual fix), and its kind's short title.
std::string describe_finding(const RunFinding& f, Lang l);
std::string finding_title(const std::string& kind, Lang l);

}  // namespace gpulab
