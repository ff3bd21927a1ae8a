// A kernel's attributes (cudaFuncSetAttribute, cudaFuncGetAttributes) and the occupancy API on the
// emulator, answered by gpulab's occupancy calculator (src/calc/occupancy) for the emulated device:
// an H100's limits (compute capability 9.0), as `gpulab occupancy --cc 9.0` gives them. The
// emulator's kernels have no registers: they are not counted (numRegs is 0).
#include <map>
#include <mutex>
#include <stdexcept>

#include "calc/gpu_specs.hpp"
#include "calc/occupancy.hpp"
#include "core/error.hpp"
#include "cuda_runtime.h"
#include "run/runtime/internal.hpp"
#include "simt/simt.hpp"

namespace gpulab::rt {
namespace {

constexpr int kDefaultSharedPerBlock = 48 * 1024;

// What the program set with cudaFuncSetAttribute, per kernel.
struct Attributes {
  std::mutex mutex;
  std::map<const void*, int> max_dynamic;  // cudaFuncAttributeMaxDynamicSharedMemorySize
  std::map<const void*, int> carveout;     // cudaFuncAttributePreferredSharedMemoryCarveout
};
Attributes& attributes() {
  static Attributes* a = new Attributes;  // never destroyed: late calls at exit still use it
  return *a;
}

const calc::ArchInfo& emulated_arch() {
  static const calc::ArchInfo arch = *calc::arch_info(9, 0);
  return arch;
}

std::optional<int> carveout_of(const void* kernel) {
  auto& a = attributes();
  std::lock_guard lock(a.mutex);
  const auto it = a.carveout.find(kernel);
  if (it == a.carveout.end() || it->second < 0) return std::nullopt;
  return it->second;
}

}  // namespace

cudaError_t func_set_attribute(const void* kernel, cudaFuncAttribute attribute, int value) {
  cudaError_t e;
  if (context_broken(&e)) return e;
  if (kernel == nullptr) return record_error(cudaErrorInvalidDeviceFunction);
  if (attribute == cudaFuncAttributeMaxDynamicSharedMemorySize) {
    if (value < 0) return record_error(cudaErrorInvalidValue);
    try {
      simt::detail::set_max_dynamic_shared_erased(kernel, static_cast<std::size_t>(value));
    } catch (const CudaError&) {
      return record_error(cudaErrorInvalidValue);  // past the 227 KiB a block may opt in to
    }
    auto& a = attributes();
    std::lock_guard lock(a.mutex);
    a.max_dynamic[kernel] = value;
    return cudaSuccess;
  }
  if (attribute == cudaFuncAttributePreferredSharedMemoryCarveout) {
    if (value < -1 || value > 100) return record_error(cudaErrorInvalidValue);
    auto& a = attributes();
    std::lock_guard lock(a.mutex);
    a.carveout[kernel] = value;
    return cudaSuccess;
  }
  return record_error(cudaErrorInvalidValue);
}

cudaError_t func_get_attributes(cudaFuncAttributes* a, const void* kernel) {
  if (a == nullptr) return record_error(cudaErrorInvalidValue);
  if (kernel == nullptr) return record_error(cudaErrorInvalidDeviceFunction);
  *a = cudaFuncAttributes{};
  a->sharedSizeBytes = simt::detail::static_shared_erased(kernel);
  a->maxThreadsPerBlock = 1024;
  a->numRegs = 0;
  a->ptxVersion = 90;
  a->binaryVersion = 90;
  a->maxDynamicSharedSizeBytes = static_cast<int>(
      kDefaultSharedPerBlock - std::min<std::size_t>(a->sharedSizeBytes, kDefaultSharedPerBlock));
  a->preferredShmemCarveout = -1;
  auto& at = attributes();
  std::lock_guard lock(at.mutex);
  if (const auto it = at.max_dynamic.find(kernel); it != at.max_dynamic.end()) {
    a->maxDynamicSharedSizeBytes = it->second;
  }
  if (const auto it = at.carveout.find(kernel); it != at.carveout.end()) {
    a->preferredShmemCarveout = it->second;
  }
  return cudaSuccess;
}

cudaError_t occupancy_max_active_blocks(int* blocks, const void* kernel, int block_size,
                                        size_t dynamic_shared_bytes, unsigned int flags) {
  if (blocks == nullptr || (flags & ~cudaOccupancyDisableCachingOverride) != 0) {
    return record_error(cudaErrorInvalidValue);
  }
  if (kernel == nullptr) return record_error(cudaErrorInvalidDeviceFunction);
  if (block_size <= 0) return record_error(cudaErrorInvalidValue);
  calc::OccupancyInput in;
  in.threads = block_size;
  in.registers = 0;
  in.static_shared = static_cast<std::int64_t>(simt::detail::static_shared_erased(kernel));
  in.dynamic_shared = static_cast<std::int64_t>(dynamic_shared_bytes);
  in.carveout_percent = carveout_of(kernel);
  try {
    *blocks = calc::occupancy(emulated_arch(), in).blocks;
  } catch (const std::invalid_argument&) {
    return record_error(cudaErrorInvalidValue);
  }
  return cudaSuccess;
}

// cuda_occupancy.h's rule (cudaOccAvailableDynamicSMemPerBlock): the shared memory an SM gives
// `blocks` blocks, each rounded down to the allocation unit and capped by a block's limit, less
// the static shared memory and at most the kernel's dynamic limit.
cudaError_t occupancy_available_dynamic_shared(size_t* bytes, const void* kernel, int blocks,
                                               int block_size) {
  if (bytes == nullptr || blocks <= 0) return record_error(cudaErrorInvalidValue);
  if (kernel == nullptr) return record_error(cudaErrorInvalidDeviceFunction);
  int fit = 0;
  if (const cudaError_t e = occupancy_max_active_blocks(&fit, kernel, block_size, 0, 0);
      e != cudaSuccess) {
    return e;
  }
  if (fit < blocks) return record_error(cudaErrorInvalidValue);
  cudaFuncAttributes a;
  func_get_attributes(&a, kernel);
  const calc::ArchInfo& arch = emulated_arch();
  const std::int64_t unit = arch.shared_alloc_unit;
  // The opt-in limit applies once the kernel asked for more than the default.
  const bool opted_in = static_cast<std::int64_t>(a.sharedSizeBytes) + a.maxDynamicSharedSizeBytes >
                        kDefaultSharedPerBlock;
  const std::int64_t per_block_limit =
      (opted_in ? arch.max_shared_per_block_kib * 1024 : kDefaultSharedPerBlock) +
      arch.reserved_shared_per_block;
  const std::int64_t per_sm =
      blocks == 1 ? per_block_limit : calc::shared_for_carveout(arch, carveout_of(kernel));
  std::int64_t available = per_sm / blocks / unit * unit;
  available = std::min(available, per_block_limit);
  available -= static_cast<std::int64_t>(a.sharedSizeBytes);
  available = std::min<std::int64_t>(available, a.maxDynamicSharedSizeBytes);
  *bytes = static_cast<size_t>(std::max<std::int64_t>(available, 0));
  return cudaSuccess;
}

}  // namespace gpulab::rt
