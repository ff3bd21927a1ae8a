// Warps and latency (see warp_hiding.hpp).
#include "calc/warp_hiding.hpp"

#include "calc/launch_limits.hpp"

namespace gpulab::calc {

LatencyHiding warps_to_hide_latency(std::int64_t latency, std::int64_t ops,
                                    std::int64_t cycles_per_op) {
  LatencyHiding r;
  r.latency_cycles = latency;
  r.ops = ops;
  r.cycles_per_op = cycles_per_op;
  r.work_cycles = ops * cycles_per_op;
  r.ratio = static_cast<double>(latency) / static_cast<double>(r.work_cycles);
  r.warps_needed = (latency + r.work_cycles - 1) / r.work_cycles;
  return r;
}

ResidentWarps warps_on_sm(std::int64_t blocks, std::int64_t threads_per_block) {
  const auto warp = static_cast<std::int64_t>(limits::kWarpSize);
  ResidentWarps r;
  r.blocks = blocks;
  r.threads_per_block = threads_per_block;
  r.warps_per_block = (threads_per_block + warp - 1) / warp;
  r.idle_lanes_per_block = r.warps_per_block * warp - threads_per_block;
  r.warps = blocks * r.warps_per_block;
  r.threads = blocks * threads_per_block;
  return r;
}

}  // namespace gpulab::calc
