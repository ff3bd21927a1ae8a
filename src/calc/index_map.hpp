// How CUDA numbers threads: block and thread coordinates to a global index, and back.
#pragma once

#include <cstdint>

#include "calc/launch_limits.hpp"

namespace gpulab::calc {

using limits::Shape;

struct Coord {
  std::uint64_t x = 0, y = 0, z = 0;
  friend bool operator==(const Coord&, const Coord&) = default;
};

struct ThreadPlace {
  Coord block;                 // blockIdx
  Coord thread;                // threadIdx
  std::uint64_t block_linear;  // blockIdx.x + blockIdx.y*gridDim.x + blockIdx.z*gridDim.x*gridDim.y
  std::uint64_t
      thread_linear;     // threadIdx.x + threadIdx.y*blockDim.x + threadIdx.z*blockDim.x*blockDim.y
  std::uint64_t global;  // block_linear * threads_per_block + thread_linear
  std::uint64_t warp;    // thread_linear / 32: warps are cut from consecutive linear ids
  std::uint64_t lane;    // thread_linear % 32
};

// The place of the thread at (block, thread) in a launch of `grid` blocks of `block_dim` threads.
ThreadPlace place_of(const Shape& grid, const Shape& block_dim, const Coord& block,
                     const Coord& thread);
// The thread whose global index is `index`; index < grid.volume() * block_dim.volume().
ThreadPlace place_of_index(const Shape& grid, const Shape& block_dim, std::uint64_t index);

// Row and column (x, y) of a thread in the whole 2-D grid of threads:
// x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y.
Coord grid_position(const Shape& block_dim, const Coord& block, const Coord& thread);

}  // namespace gpulab::calc
