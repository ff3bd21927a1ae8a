// Host memory the device reaches, on the emulator: cudaHostAlloc and its flags, cudaHostRegister /
// Unregister / GetFlags, cudaHostGetDevicePointer. The emulated device's memory is host memory, so
// a mapped pointer is the host pointer itself, as under CUDA's unified addressing, where every
// pinned or registered allocation is reachable from the device whatever its flags say.
#include <map>
#include <mutex>

#include "cuda_runtime.h"
#include "run/runtime/internal.hpp"
#include "simt/memory_check.hpp"

#undef malloc
#undef free

namespace gpulab::rt {
namespace {

constexpr unsigned kHostAllocFlags =
    cudaHostAllocPortable | cudaHostAllocMapped | cudaHostAllocWriteCombined;
constexpr unsigned kHostRegisterFlags = cudaHostRegisterPortable | cudaHostRegisterMapped |
                                        cudaHostRegisterIoMemory | cudaHostRegisterReadOnly;

// The flags each pinned or registered allocation was made with, by its start.
struct Flags {
  std::mutex mutex;
  std::map<const void*, unsigned> by_start;
};
Flags& flags() {
  static Flags* f = new Flags;  // never destroyed: late calls at exit still use it
  return *f;
}

bool pinned_or_registered(const simt::Allocation& a) {
  return a.kind == simt::AllocationKind::host_pinned ||
         a.kind == simt::AllocationKind::host_registered;
}

std::string site_of(const std::source_location& where) {
  return std::string(where.file_name()) + ":" + std::to_string(where.line());
}

}  // namespace

bool host_registered(const void* p) {
  const auto a = simt::find_allocation(p);
  return a && a->kind == simt::AllocationKind::host_registered;
}

}  // namespace gpulab::rt

using gpulab::rt::record_error;

cudaError_t cudaHostAlloc(void** ptr, size_t size, unsigned int flags, std::source_location where) {
  if ((flags & ~gpulab::rt::kHostAllocFlags) != 0) return record_error(cudaErrorInvalidValue);
  const cudaError_t e = cudaMallocHost(ptr, size, where);
  if (e == cudaSuccess && *ptr != nullptr) {
    auto& f = gpulab::rt::flags();
    std::lock_guard lock(f.mutex);
    f.by_start[*ptr] = flags;
  }
  return e;
}

cudaError_t cudaHostRegister(void* ptr, size_t size, unsigned int flags,
                             std::source_location where) {
  cudaError_t e;
  if (gpulab::rt::context_broken(&e)) return e;
  if (ptr == nullptr || size == 0 || (flags & ~gpulab::rt::kHostRegisterFlags) != 0) {
    return record_error(cudaErrorInvalidValue);
  }
  // Memory-mapped I/O is a device's registers, which the emulator has none of.
  if ((flags & cudaHostRegisterIoMemory) != 0) return record_error(cudaErrorNotSupported);
  // No byte of the range may belong to an allocation already (pinned, registered or device).
  const auto begin = reinterpret_cast<std::uintptr_t>(ptr);
  for (const gpulab::simt::Allocation& a : gpulab::simt::live_allocations()) {
    if (a.begin < begin + size && begin < a.begin + a.bytes) {
      return record_error(gpulab::rt::pinned_or_registered(a) ? cudaErrorHostMemoryAlreadyRegistered
                                                              : cudaErrorInvalidValue);
    }
  }
  gpulab::simt::adopt(ptr, size, gpulab::simt::AllocationKind::host_registered,
                      gpulab::rt::site_of(where));
  auto& f = gpulab::rt::flags();
  std::lock_guard lock(f.mutex);
  f.by_start[ptr] = flags;
  return cudaSuccess;
}

cudaError_t cudaHostUnregister(void* ptr) {
  cudaError_t e;
  if (gpulab::rt::context_broken(&e)) return e;
  if (ptr == nullptr) return record_error(cudaErrorInvalidValue);
  if (!gpulab::simt::release(ptr, gpulab::simt::AllocationKind::host_registered)) {
    return record_error(cudaErrorHostMemoryNotRegistered);
  }
  auto& f = gpulab::rt::flags();
  std::lock_guard lock(f.mutex);
  f.by_start.erase(ptr);
  return cudaSuccess;
}

cudaError_t cudaHostGetFlags(unsigned int* flags, void* host_ptr) {
  if (flags == nullptr) return record_error(cudaErrorInvalidValue);
  const auto a = gpulab::simt::find_allocation(host_ptr);
  if (!a || !gpulab::rt::pinned_or_registered(*a)) return record_error(cudaErrorInvalidValue);
  auto& f = gpulab::rt::flags();
  std::lock_guard lock(f.mutex);
  const auto it = f.by_start.find(reinterpret_cast<const void*>(a->begin));
  // Unified addressing maps every pinned allocation: cudaMallocHost's too.
  *flags = (it == f.by_start.end() ? 0u : it->second) | cudaHostAllocMapped;
  return cudaSuccess;
}

cudaError_t cudaHostGetDevicePointer(void** device_ptr, void* host_ptr, unsigned int flags) {
  if (device_ptr == nullptr || flags != 0) return record_error(cudaErrorInvalidValue);
  const auto a = gpulab::simt::find_allocation(host_ptr);
  // Only pinned or registered host memory has a device address (cudaMalloc's is device memory).
  if (!a || !gpulab::rt::pinned_or_registered(*a)) return record_error(cudaErrorInvalidValue);
  *device_ptr = host_ptr;
  return cudaSuccess;
}
