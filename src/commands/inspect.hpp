// gpulab inspect FILE.cu: compiles a student's file with nvcc and shows, per kernel, its
// registers, shared, local and constant memory, the occupancy that follows, and (--ptx, --sass)
// its code with the source lines interleaved and the key instructions explained. The engine is
// src/inspect/ (run_inspect); this file parses the options and renders the result.
#pragma once

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <string>

#include "commands/common.hpp"
#include "inspect/inspect.hpp"

namespace gpulab {

std::string render_inspect(const InspectResult& r, const OutputOptions& out);
nlohmann::json inspect_json(const InspectResult& r);
void setup_inspect(CLI::App& app, GlobalOptions& g);

}  // namespace gpulab
