// gpulab profile's report, from the engine's ProfileResult (run/profile_session.hpp): per kernel
// the counters as Nsight Compute names them, the worst lines explained and the annotated source
// (en/zh); the same facts as JSON (docs/profile.md).
#pragma once

#include <nlohmann/json.hpp>

#include <string>

#include "core/output.hpp"
#include "run/profile_session.hpp"

namespace gpulab {

std::string render_profile(const ProfileResult& r, const OutputOptions& out);
nlohmann::json profile_json(const ProfileResult& r);

}  // namespace gpulab
