// Memory: cudaMalloc, cudaMallocManaged, cudaMallocHost and their frees, pitched allocations,
// pointer attributes, memset, prefetch. Every allocation is simt's (simt/memory_check), which knows
// its call site for --check.
#include <cstdint>
#include <cstring>

#include "run/runtime/graph.hpp"
#include "run/runtime/state.hpp"

#undef malloc
#undef free

namespace gpulab::rt {

cudaError_t check_device_range(const void* p, size_t count, bool* is_device) {
  *is_device = false;
  const auto a = simt::find_allocation(p);
  if (!a) return cudaSuccess;
  *is_device = true;
  const auto begin = reinterpret_cast<std::uintptr_t>(p);
  if (begin + count > a->begin + a->bytes) return cudaErrorInvalidValue;
  return cudaSuccess;
}

cudaError_t allocate(void** ptr, size_t size, simt::AllocationKind kind,
                     const std::source_location& where) {
  cudaError_t e;
  if (broken(&e)) return e;
  if (ptr == nullptr) return set_error(cudaErrorInvalidValue);
  try {
    *ptr = simt::allocate(size, kind, site_text(where.file_name(), static_cast<int>(where.line())));
  } catch (const CudaError&) {
    *ptr = nullptr;
    return set_error(cudaErrorMemoryAllocation);
  }
  return cudaSuccess;
}

cudaError_t free_kind(void* ptr, simt::AllocationKind kind) {
  cudaError_t e;
  if (broken(&e)) return e;
  if (ptr == nullptr) return cudaSuccess;
  if (!simt::release(ptr, kind)) return set_error(cudaErrorInvalidValue);
  return cudaSuccess;
}

}  // namespace gpulab::rt

using gpulab::rt::broken;
using gpulab::rt::set_error;

cudaError_t cudaMalloc(void** ptr, size_t size, std::source_location where) {
  return gpulab::rt::allocate(ptr, size, gpulab::simt::AllocationKind::device, where);
}
cudaError_t cudaMallocManaged(void** ptr, size_t size, unsigned int flags,
                              std::source_location where) {
  if (flags != cudaMemAttachGlobal && flags != cudaMemAttachHost) {
    return set_error(cudaErrorInvalidValue);
  }
  const cudaError_t e =
      gpulab::rt::allocate(ptr, size, gpulab::simt::AllocationKind::managed, where);
  // The host may write managed memory directly: it counts as written.
  if (e == cudaSuccess && *ptr != nullptr) gpulab::simt::mark_initialized(*ptr, size);
  return e;
}
cudaError_t cudaMallocHost(void** ptr, size_t size, std::source_location where) {
  const cudaError_t e =
      gpulab::rt::allocate(ptr, size, gpulab::simt::AllocationKind::host_pinned, where);
  if (e == cudaSuccess && *ptr != nullptr) gpulab::simt::mark_initialized(*ptr, size);
  return e;
}
cudaError_t cudaHostAlloc(void** ptr, size_t size, unsigned int, std::source_location where) {
  return cudaMallocHost(ptr, size, where);
}
cudaError_t cudaMallocPitch(void** ptr, size_t* pitch, size_t width, size_t height,
                            std::source_location where) {
  if (pitch == nullptr) return set_error(cudaErrorInvalidValue);
  *pitch = (width + 511) / 512 * 512;
  return gpulab::rt::allocate(ptr, *pitch * height, gpulab::simt::AllocationKind::device, where);
}
cudaError_t cudaFree(void* ptr) {
  gpulab::rt::synchronized(false);  // cudaFree waits for the device
  const auto a = gpulab::simt::find_allocation(ptr);
  const bool managed = a && a->begin == reinterpret_cast<std::uintptr_t>(ptr) &&
                       a->kind == gpulab::simt::AllocationKind::managed;
  return gpulab::rt::free_kind(
      ptr, managed ? gpulab::simt::AllocationKind::managed : gpulab::simt::AllocationKind::device);
}
cudaError_t cudaFreeHost(void* ptr) {
  return gpulab::rt::free_kind(ptr, gpulab::simt::AllocationKind::host_pinned);
}
cudaError_t cudaHostGetDevicePointer(void** device_ptr, void* host_ptr, unsigned int) {
  if (device_ptr == nullptr || !gpulab::simt::find_allocation(host_ptr)) {
    return set_error(cudaErrorInvalidValue);
  }
  *device_ptr = host_ptr;
  return cudaSuccess;
}
cudaError_t cudaPointerGetAttributes(cudaPointerAttributes* attributes, const void* ptr) {
  if (attributes == nullptr) return set_error(cudaErrorInvalidValue);
  *attributes = cudaPointerAttributes{};
  attributes->device = 0;
  if (const auto a = gpulab::simt::find_allocation(ptr)) {
    attributes->type = a->kind == gpulab::simt::AllocationKind::device    ? cudaMemoryTypeDevice
                       : a->kind == gpulab::simt::AllocationKind::managed ? cudaMemoryTypeManaged
                                                                          : cudaMemoryTypeHost;
    attributes->devicePointer = const_cast<void*>(ptr);
    attributes->hostPointer =
        a->kind == gpulab::simt::AllocationKind::device ? nullptr : const_cast<void*>(ptr);
  } else {
    attributes->type = cudaMemoryTypeUnregistered;
    attributes->hostPointer = const_cast<void*>(ptr);
  }
  return cudaSuccess;
}

static cudaError_t memset_impl(void* ptr, int value, size_t count) {
  cudaError_t e;
  if (broken(&e)) return e;
  if (count == 0) return cudaSuccess;
  bool device = false;
  if (gpulab::rt::check_device_range(ptr, count, &device) != cudaSuccess || !device) {
    return set_error(cudaErrorInvalidValue);
  }
  std::memset(ptr, value, count);
  gpulab::simt::mark_initialized(ptr, count);
  return cudaSuccess;
}
cudaError_t cudaMemset(void* ptr, int value, size_t count) {
  return memset_impl(ptr, value, count);
}
cudaError_t cudaMemsetAsync(void* ptr, int value, size_t count, cudaStream_t stream) {
  if (gpulab::rt::graph_record_memset(ptr, value, count, stream)) return cudaSuccess;
  return memset_impl(ptr, value, count);
}
cudaError_t cudaMemPrefetchAsync(const void* ptr, size_t, int, cudaStream_t) {
  return gpulab::simt::find_allocation(ptr) ? cudaSuccess : set_error(cudaErrorInvalidValue);
}
