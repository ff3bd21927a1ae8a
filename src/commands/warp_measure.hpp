// gpulab warp-hiding --measure: latency hiding as an experiment. kernels/latency_probe.cuh runs
// with 1, 2, 3, 4, 6, 8, ... warps on every SM, up to the most an SM holds; the achieved rate of
// work per SM, plotted against the warps, rises while warps are too few to cover the memory
// latency and flattens where the schedulers are always busy. Set beside the calculator's
// prediction from the latency measured in the same run.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "backend/backend.hpp"
#include "calc/warp_hiding.hpp"
#include "core/output.hpp"

namespace gpulab {

inline constexpr int kDefaultProbeOps = 128;
inline constexpr int kMaxProbeOps = 4096;
inline constexpr int kMaxProbeSteps = 2000;  // 2000 x 8448 warps (an H100) fill a 2 GiB table

struct MeasureOptions {
  int ops = kDefaultProbeOps;  // K: FMA instructions per load, a multiple of 4
  int steps = 0;               // loads per warp; 0: 1000 on a GPU, 64 on the emulator
  std::uint64_t seed = 0;      // of the random chain
};

struct MeasurePoint {
  int warps_per_sm = 0;
  int blocks_per_sm = 0, threads_per_block = 0;
  double cycles_per_step = 0;       // per SM, first start to last end, / steps
  double fma_per_cycle_per_sm = 0;  // FMA warp-instructions per cycle per SM
  int min_warps_seen_per_sm = 0, max_warps_seen_per_sm = 0;  // from each warp's %smid
  double kernel_ms = 0;
  bool verified = false;  // every warp's chain ended where the host says
};

struct MeasureResult {
  std::string backend, device;
  int sms = 0;  // SMs the grid covers (1 on the emulator)
  int max_warps_per_sm = 0;
  int schedulers = 0;       // warp schedulers per SM
  int cycles_per_fma = 0;   // C: cycles a scheduler spends issuing one warp FMA
  bool arch_known = false;  // schedulers and C come from the compute capability
  int clock_khz = 0;
  std::uint64_t table_bytes = 0;
  int l2_bytes = 0;
  int steps = 0, ops = 0;
  std::uint64_t seed = 0;
  double latency_cycles = 0;       // 1 warp per SM, no work: cycles per load
  double one_warp_cycles = 0;      // 1 warp per SM with the work: cycles per step
  calc::LatencyHiding prediction;  // the calculator, per scheduler
  int predicted_warps_per_sm = 0;  // schedulers * prediction.warps_needed
  std::vector<MeasurePoint> points;
  int saturation_warps_per_sm = 0;  // first point within 90% of the best rate
  double best_fma_per_cycle = 0;
  bool verified = false;
};

// The warp counts measured: 1, 2, 3, 4, 6, 8, 12, ... up to max_warps (always included).
std::vector<int> probe_warp_counts(int max_warps);

MeasureResult run_warp_measure(const MeasureOptions& o, Backend& backend);
std::string render_warp_measure(const MeasureResult& r, const OutputOptions& out);
nlohmann::json warp_measure_json(const MeasureResult& r);

}  // namespace gpulab
