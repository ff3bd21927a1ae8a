// Thread index mapping (see index_map.hpp).
#include "calc/index_map.hpp"

namespace gpulab::calc {

ThreadPlace place_of(const Shape& grid, const Shape& block_dim, const Coord& block,
                     const Coord& thread) {
  ThreadPlace p{};
  p.block = block;
  p.thread = thread;
  p.block_linear = block.x + block.y * grid.x + block.z * grid.x * grid.y;
  p.thread_linear = thread.x + thread.y * block_dim.x + thread.z * block_dim.x * block_dim.y;
  p.global = p.block_linear * block_dim.volume() + p.thread_linear;
  p.warp = p.thread_linear / limits::kWarpSize;
  p.lane = p.thread_linear % limits::kWarpSize;
  return p;
}

ThreadPlace place_of_index(const Shape& grid, const Shape& block_dim, std::uint64_t index) {
  const std::uint64_t per_block = block_dim.volume();
  const std::uint64_t b = index / per_block;
  const std::uint64_t t = index % per_block;
  Coord block{b % grid.x, (b / grid.x) % grid.y, b / (grid.x * grid.y)};
  Coord thread{t % block_dim.x, (t / block_dim.x) % block_dim.y, t / (block_dim.x * block_dim.y)};
  return place_of(grid, block_dim, block, thread);
}

Coord grid_position(const Shape& block_dim, const Coord& block, const Coord& thread) {
  return {block.x * block_dim.x + thread.x, block.y * block_dim.y + thread.y,
          block.z * block_dim.z + thread.z};
}

}  // namespace gpulab::calc
