// The launch limits of every CUDA GPU since compute capability 3.0, and why they exist.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace gpulab::limits {

inline constexpr std::uint64_t kWarpSize = 32;
inline constexpr std::uint64_t kMaxThreadsPerBlock = 1024;
inline constexpr std::uint64_t kMaxBlockX = 1024, kMaxBlockY = 1024, kMaxBlockZ = 64;
inline constexpr std::uint64_t kMaxGridX = 2147483647ULL, kMaxGridY = 65535, kMaxGridZ = 65535;
inline constexpr std::uint64_t kDefaultSharedPerBlock = 48 * 1024;

// Why each limit exists, in one clause, for error messages.
inline constexpr const char* kWhyThreadsPerBlock =
    "all threads of a block live on one SM at once, and CUDA caps a block at 1024 of them";
inline constexpr const char* kWhyBlockDims =
    "CUDA limits a block to (1024, 1024, 64) threads along x, y, z";
inline constexpr const char* kWhyGridDims =
    "CUDA limits a grid to (2^31-1, 65535, 65535) blocks along x, y, z";

struct Shape {
  std::uint64_t x = 1, y = 1, z = 1;
  std::uint64_t volume() const { return x * y * z; }
};

// The first limit a launch of `grid` blocks of `block` threads breaks, as an error message that
// names the limit and why it exists; nothing when the launch is legal.
std::optional<std::string> check_launch(const Shape& grid, const Shape& block);

}  // namespace gpulab::limits
