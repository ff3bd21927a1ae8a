// The launch limits of CUDA GPUs (see launch_limits.hpp).
#include "calc/launch_limits.hpp"

#include <fmt/format.h>

#include "core/i18n_format.hpp"

namespace gpulab::limits {

std::optional<std::string> check_launch(const Shape& grid, const Shape& block) {
  if (auto t = check_launch_text(grid, block)) return t->en;
  return std::nullopt;
}

std::optional<Text> check_launch_text(const Shape& grid, const Shape& block) {
  const char axis[] = {'x', 'y', 'z'};
  const std::uint64_t block_dims[] = {block.x, block.y, block.z};
  const std::uint64_t block_max[] = {kMaxBlockX, kMaxBlockY, kMaxBlockZ};
  const std::uint64_t grid_dims[] = {grid.x, grid.y, grid.z};
  const std::uint64_t grid_max[] = {kMaxGridX, kMaxGridY, kMaxGridZ};
  for (int i = 0; i < 3; ++i) {
    if (block_dims[i] == 0) {
      return both("block {} is 0; every dimension is at least 1",
                  "线程块的 {} 维为 0；每一维都至少为 1", axis[i]);
    }
    if (grid_dims[i] == 0) {
      return both("grid {} is 0; every dimension is at least 1",
                  "网格的 {} 维为 0；每一维都至少为 1", axis[i]);
    }
  }
  if (block.volume() > kMaxThreadsPerBlock) {
    return both("{0}x{1}x{2} = {3} threads per block exceeds the limit {4} ({5})",
                "{0}x{1}x{2} = {3} 个线程每块，超过了上限 {4}（{6}）", block.x, block.y, block.z,
                block.volume(), kMaxThreadsPerBlock, kWhyThreadsPerBlock.en,
                kWhyThreadsPerBlock.zh);
  }
  for (int i = 0; i < 3; ++i) {
    if (block_dims[i] > block_max[i]) {
      return both("block {0} = {1} exceeds the limit {2} ({3})",
                  "线程块的 {0} 维 = {1}，超过了上限 {2}（{4}）", axis[i], block_dims[i],
                  block_max[i], kWhyBlockDims.en, kWhyBlockDims.zh);
    }
  }
  for (int i = 0; i < 3; ++i) {
    if (grid_dims[i] > grid_max[i]) {
      return both("grid {0} = {1} exceeds the limit {2} ({3})",
                  "网格的 {0} 维 = {1}，超过了上限 {2}（{4}）", axis[i], grid_dims[i], grid_max[i],
                  kWhyGridDims.en, kWhyGridDims.zh);
    }
  }
  return std::nullopt;
}

}  // namespace gpulab::limits
