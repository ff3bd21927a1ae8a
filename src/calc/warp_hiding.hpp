// Warps and latency: how many warps hide a memory latency, and how many warps an SM holds.
#pragma once

#include <cstdint>

namespace gpulab::calc {

struct LatencyHiding {
  std::int64_t latency_cycles = 0;  // L: cycles one global-memory access takes
  std::int64_t ops = 0;             // K: independent arithmetic instructions per warp per access
  std::int64_t cycles_per_op = 0;   // C: cycles each of them keeps the warp busy
  std::int64_t work_cycles = 0;     // K * C: cycles of work one warp offers while others wait
  double ratio = 0;                 // L / (K * C)
  std::int64_t warps_needed = 0;    // ceil(L / (K * C))
};
LatencyHiding warps_to_hide_latency(std::int64_t latency, std::int64_t ops,
                                    std::int64_t cycles_per_op);

struct ResidentWarps {
  std::int64_t blocks = 0;
  std::int64_t threads_per_block = 0;
  std::int64_t warps_per_block = 0;  // ceil(T / 32): a partial warp still takes a whole warp
  std::int64_t idle_lanes_per_block = 0;
  std::int64_t warps = 0;  // blocks * warps_per_block
  std::int64_t threads = 0;
};
ResidentWarps warps_on_sm(std::int64_t blocks, std::int64_t threads_per_block);

}  // namespace gpulab::calc
