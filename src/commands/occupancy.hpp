// gpulab occupancy: blocks per SM limited by warps, blocks, registers and shared memory, with
// every formula and granularity shown, and occupancy charted against each input.
#pragma once

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "calc/gpu_specs.hpp"
#include "calc/occupancy.hpp"
#include "commands/common.hpp"

namespace gpulab {

// The GPU the calculation is for: a compute capability, a spec sheet, or this machine's device.
struct OccupancyTarget {
  calc::ArchInfo arch;
  std::string name;    // "NVIDIA H100 SXM5 80GB", or "" for a bare compute capability
  std::string source;  // "cc", "model" or "device"
};
// From --cc X.Y, --model NAME or --device N as typed (at most one non-empty; none is an error
// naming the three). --device asks the CUDA driver; the others never load it.
OccupancyTarget resolve_occupancy_target(const std::string& cc, const std::string& model,
                                         const std::string& device);
// "48K", "48KiB", "1M" or a number of bytes, in [0, max]; errors name the option.
std::int64_t parse_bytes(std::string_view option, std::string_view text, std::int64_t max,
                         const Text& why = {});

struct OccupancyOptions {
  OccupancyTarget target;
  calc::OccupancyInput in;
  bool charts = true;
};

struct OccupancyCurve {
  std::vector<double> x, occupancy_pct;
};

struct OccupancyResult {
  OccupancyTarget target;
  calc::Occupancy occ;
  OccupancyCurve by_threads, by_registers, by_shared;  // each varies one input, the rest as given
  bool charts = true;
};

OccupancyResult run_occupancy(const OccupancyOptions& o);
std::string render_occupancy(const OccupancyResult& r, const OutputOptions& out);
nlohmann::json occupancy_json(const OccupancyResult& r);
// The calculation alone (no charts), as `inspect` embeds it.
nlohmann::json occupancy_facts_json(const calc::Occupancy& o);
// The explained calculation alone (no heading, no charts), as `inspect` embeds it.
std::string render_occupancy_steps(const calc::Occupancy& o, const Style& st, Lang l);
void setup_occupancy(CLI::App& app, GlobalOptions& g);

}  // namespace gpulab
