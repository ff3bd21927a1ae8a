// Findings in words: one finding of the report (what, who, where, the usual fix) in English or
// Chinese, its kind's short title, and the small text helpers of the report.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

#include "core/output.hpp"
#include "run/session.hpp"

namespace gpulab {

// One finding in words (what, who, where, the usual fix), and its kind's short title.
std::string describe_finding(const RunFinding& f, Lang l);
std::string finding_title(const std::string& kind, Lang l);
// A kind --check counts as a failure (run/report.hpp: report::kind::all).
bool is_check_kind(const std::string& kind);

// "(1,2,3)" for a report's [1,2,3]; "?" for anything else.
std::string dims_text(const nlohmann::json& d);
// "/abs/dir/prog.cu:12" -> "prog.cu:12" when it is in the folder of the user's `file`.
std::string short_path(const std::string& where, const std::string& file);

}  // namespace gpulab
