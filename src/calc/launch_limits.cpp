// The launch limits of CUDA GPUs (see launch_limits.hpp).
#include "calc/launch_limits.hpp"

#include <fmt/format.h>

namespace gpulab::limits {

std::optional<std::string> check_launch(const Shape& grid, const Shape& block) {
  const char axis[] = {'x', 'y', 'z'};
  const std::uint64_t block_dims[] = {block.x, block.y, block.z};
  const std::uint64_t block_max[] = {kMaxBlockX, kMaxBlockY, kMaxBlockZ};
  const std::uint64_t grid_dims[] = {grid.x, grid.y, grid.z};
  const std::uint64_t grid_max[] = {kMaxGridX, kMaxGridY, kMaxGridZ};
  for (int i = 0; i < 3; ++i) {
    if (block_dims[i] == 0)
      return fmt::format("block {} is 0; every dimension is at least 1", axis[i]);
    if (grid_dims[i] == 0)
      return fmt::format("grid {} is 0; every dimension is at least 1", axis[i]);
  }
  if (block.volume() > kMaxThreadsPerBlock) {
    return fmt::format("{}x{}x{} = {} threads per block exceeds the limit {} ({})", block.x,
                       block.y, block.z, block.volume(), kMaxThreadsPerBlock, kWhyThreadsPerBlock);
  }
  for (int i = 0; i < 3; ++i) {
    if (block_dims[i] > block_max[i]) {
      return fmt::format("block {} = {} exceeds the limit {} ({})", axis[i], block_dims[i],
                         block_max[i], kWhyBlockDims);
    }
  }
  for (int i = 0; i < 3; ++i) {
    if (grid_dims[i] > grid_max[i]) {
      return fmt::format("grid {} = {} exceeds the limit {} ({})", axis[i], grid_dims[i],
                         grid_max[i], kWhyGridDims);
    }
  }
  return std::nullopt;
}

}  // namespace gpulab::limits
