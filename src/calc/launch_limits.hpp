// The launch limits of every CUDA GPU since compute capability 3.0, and why they exist.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "core/i18n.hpp"

namespace gpulab::limits {

inline constexpr std::uint64_t kWarpSize = 32;
inline constexpr std::uint64_t kMaxThreadsPerBlock = 1024;
inline constexpr std::uint64_t kMaxBlockX = 1024, kMaxBlockY = 1024, kMaxBlockZ = 64;
inline constexpr std::uint64_t kMaxGridX = 2147483647ULL, kMaxGridY = 65535, kMaxGridZ = 65535;
inline constexpr std::uint64_t kDefaultSharedPerBlock = 48 * 1024;

// Why each limit exists, in one clause and both languages, for error messages.
struct Why {
  const char* en;
  const char* zh;
};
inline constexpr Why kWhyThreadsPerBlock{
    "all threads of a block live on one SM at once, and CUDA caps a block at 1024 of them",
    "一个线程块的所有线程同时驻留在一个 SM 上，CUDA 规定一个线程块最多 1024 个线程"};
inline constexpr Why kWhyBlockDims{"CUDA limits a block to (1024, 1024, 64) threads along x, y, z",
                                   "CUDA 规定线程块沿 x、y、z 最多 (1024, 1024, 64) 个线程"};
inline constexpr Why kWhyGridDims{
    "CUDA limits a grid to (2^31-1, 65535, 65535) blocks along x, y, z",
    "CUDA 规定网格沿 x、y、z 最多 (2^31-1, 65535, 65535) 个线程块"};
// The reason for the threads-per-block limit, in both languages, for parse_int.
inline Text why_threads_per_block() {
  return {kWhyThreadsPerBlock.en, kWhyThreadsPerBlock.zh};
}

struct Shape {
  std::uint64_t x = 1, y = 1, z = 1;
  std::uint64_t volume() const { return x * y * z; }
};

// The first limit a launch of `grid` blocks of `block` threads breaks, as an error message that
// names the limit and why it exists; nothing when the launch is legal.
std::optional<std::string> check_launch(const Shape& grid, const Shape& block);
// The same message in both languages.
std::optional<Text> check_launch_text(const Shape& grid, const Shape& block);

}  // namespace gpulab::limits
