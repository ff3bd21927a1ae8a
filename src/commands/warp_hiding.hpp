// gpulab warp-hiding: warps needed to hide a memory latency, and warps resident on an SM.
#pragma once

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <optional>
#include <string>

#include "calc/warp_hiding.hpp"
#include "commands/common.hpp"

namespace gpulab {

struct WarpHidingOptions {
  std::optional<calc::LatencyHiding> latency_inputs;  // latency, ops, cycles_per_op set
  std::optional<std::int64_t> blocks_per_sm, threads_per_block;
  std::string model;  // --model: check against a spec sheet
};

struct SmLimits {
  std::string device;  // whose limits
  int max_warps = 0, max_blocks = 0, max_threads = 0;
  bool fits_warps = false, fits_blocks = false, fits_threads = false;
};

struct WarpHidingResult {
  std::optional<calc::LatencyHiding> latency;
  std::optional<calc::ResidentWarps> resident;
  std::optional<SmLimits> limits;
};

WarpHidingResult run_warp_hiding(const WarpHidingOptions& o);
std::string render_warp_hiding(const WarpHidingResult& r, const OutputOptions& out);
nlohmann::json warp_hiding_json(const WarpHidingResult& r);
void setup_warp_hiding(CLI::App& app, GlobalOptions& g);

}  // namespace gpulab
