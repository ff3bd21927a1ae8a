// Cooperative launches on the emulator: cudaLaunchCooperativeKernel's limits (cooperative.hpp) and
// the launches by address (gpulab_cooperative.h). The blocks themselves are all resident on the
// emulator's worker threads, with a grid barrier between them (simt/cooperative_launch.hpp).
#include "run/runtime/cooperative.hpp"

#include <algorithm>
#include <string>

#include "core/error.hpp"
#include "simt/simt.hpp"

namespace gpulab::rt {

int blocks_per_sm(const void* kernel, int block_threads, size_t dynamic_shared_bytes) {
  int blocks = 0;
  if (kernel == nullptr || block_threads <= 0) return 0;
  if (occupancy_max_active_blocks(&blocks, kernel, block_threads, dynamic_shared_bytes, 0) !=
      cudaSuccess) {
    return 0;
  }
  return blocks;
}

void check_cooperative_fits(const void* kernel, const LaunchConfig& config) {
  const unsigned long long blocks =
      static_cast<unsigned long long>(config.grid.x) * config.grid.y * config.grid.z;
  const unsigned long long threads =
      static_cast<unsigned long long>(config.block.x) * config.block.y * config.block.z;
  int sms = 0;
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  const int per_sm = threads > 1024 ? 0
                                    : blocks_per_sm(kernel, static_cast<int>(threads),
                                                    config.dynamic_shared_bytes);
  const unsigned long long most = static_cast<unsigned long long>(per_sm) * std::max(sms, 1);
  if (blocks <= most) return;
  const std::string why =
      "a cooperative launch of " + std::to_string(blocks) + " blocks of " +
      std::to_string(threads) + " threads: at most " + std::to_string(most) +
      " can be resident at once (" + std::to_string(per_sm) + " per SM by the occupancy " +
      "calculator's rules for compute capability 9.0, x " + std::to_string(sms) +
      " SMs of an H100); size the grid with "
      "cudaOccupancyMaxActiveBlocksPerMultiprocessor x multiProcessorCount";
  const std::string why_zh =
      "协作启动了 " + std::to_string(blocks) + " 个线程块，每块 " + std::to_string(threads) +
      " 个线程：同时驻留的最多只能有 " + std::to_string(most) + " 个（按占用率计算器对计算能力 " +
      "9.0 的规则每个 SM " + std::to_string(per_sm) + " 个，乘以 " + std::to_string(sms) +
      " 个 SM，即 H100 的 SM 数）；请用 cudaOccupancyMaxActiveBlocksPerMultiprocessor 乘以 "
      "multiProcessorCount 来确定网格大小";
  throw CudaError("cudaErrorCooperativeLaunchTooLarge", {why, why_zh});
}

}  // namespace gpulab::rt
