// Counting a launch: threads, warps, and the lanes and threads that have nothing to do.
#pragma once

#include <cstdint>

#include "calc/launch_limits.hpp"

namespace gpulab::calc {

struct LaunchFacts {
  std::uint64_t blocks = 0;
  std::uint64_t threads_per_block = 0;
  std::uint64_t threads = 0;          // blocks * threads_per_block
  std::uint64_t warps_per_block = 0;  // ceil(threads_per_block / 32)
  std::uint64_t warps = 0;
  std::uint64_t idle_lanes_per_block = 0;  // lanes of each block's last warp with no thread
};

LaunchFacts launch_facts(const limits::Shape& grid, const limits::Shape& block);

// Blocks needed for n elements at b threads per block: ceil(n / b) = (n + b - 1) / b.
inline std::uint64_t blocks_for(std::uint64_t n, std::uint64_t b) {
  return (n + b - 1) / b;
}

// A reproducible pseudo-random 64-bit value for element i of a stream (splitmix64 of seed and i):
// inputs of any size are drawn in parallel and redrawn identically from the seed.
inline std::uint64_t random_bits(std::uint64_t seed, std::uint64_t i) {
  std::uint64_t z = seed + (i + 1) * 0x9E3779B97F4A7C15ULL;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

// Uniform in [-1, 1) from random_bits.
inline float random_unit(std::uint64_t seed, std::uint64_t i) {
  return static_cast<float>(static_cast<double>(random_bits(seed, i) >> 40) / 8388608.0 - 1.0);
}

}  // namespace gpulab::calc
