// Counting a launch (see launch_facts.hpp).
#include "calc/launch_facts.hpp"

namespace gpulab::calc {

LaunchFacts launch_facts(const limits::Shape& grid, const limits::Shape& block) {
  LaunchFacts f;
  f.blocks = grid.volume();
  f.threads_per_block = block.volume();
  f.threads = f.blocks * f.threads_per_block;
  f.warps_per_block = (f.threads_per_block + limits::kWarpSize - 1) / limits::kWarpSize;
  f.warps = f.blocks * f.warps_per_block;
  f.idle_lanes_per_block = f.warps_per_block * limits::kWarpSize - f.threads_per_block;
  return f;
}

}  // namespace gpulab::calc
