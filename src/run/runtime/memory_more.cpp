// Memory API beyond cudaMalloc and cudaMemcpy, on the emulator: 2-D and 3-D (pitched) copies and
// sets, cudaMalloc3D, stream-ordered allocation (cudaMallocAsync/cudaFreeAsync: every stream runs
// in order, so they allocate and free at once), and unified memory's hints (cudaMemAdvise,
// cudaMemPrefetchAsync in CUDA 13's cudaMemLocation form and the int form CUDA 13 removed), which
// change nothing where the device's memory is the host's but are checked as CUDA checks them.
#include <cstring>

#include "cuda_runtime.h"
#include "run/runtime/internal.hpp"
#include "simt/memory_check.hpp"

#undef malloc
#undef free

using gpulab::rt::record_error;

namespace gpulab::rt {
namespace {

// cudaMallocPitch's row alignment (an H100's texturePitchAlignment).
constexpr size_t kPitchAlignment = 512;

// The rows of a 2-D copy, one copy each; the first waits for the device when `blocking`.
cudaError_t copy_rows(char* dst, size_t dpitch, const char* src, size_t spitch, size_t width,
                      size_t rows, cudaMemcpyKind kind, bool blocking) {
  if (rows == 0 || width == 0) return cudaSuccess;
  if (width > dpitch || width > spitch) return record_error(cudaErrorInvalidPitchValue);
  if (blocking) wait_for_device(false);
  for (size_t row = 0; row < rows; ++row) {
    const cudaError_t e = copy_memory(dst + row * dpitch, src + row * spitch, width, kind, false,
                                      std::source_location::current());
    if (e != cudaSuccess) return e;
  }
  if (blocking) wait_for_device(true);
  return cudaSuccess;
}

cudaError_t set_rows(char* ptr, size_t pitch, int value, size_t width, size_t rows) {
  if (rows == 0 || width == 0) return cudaSuccess;
  if (width > pitch) return record_error(cudaErrorInvalidValue);
  for (size_t row = 0; row < rows; ++row) {
    if (const cudaError_t e = cudaMemset(ptr + row * pitch, value, width); e != cudaSuccess) {
      return e;
    }
  }
  return cudaSuccess;
}

cudaError_t copy_3d(const cudaMemcpy3DParms* p, bool blocking) {
  if (p == nullptr) return record_error(cudaErrorInvalidValue);
  // CUDA arrays are textures' memory, which the emulator does not have.
  if (p->srcArray != nullptr || p->dstArray != nullptr) return record_error(cudaErrorInvalidValue);
  if (p->srcPtr.ptr == nullptr || p->dstPtr.ptr == nullptr) {
    return record_error(cudaErrorInvalidValue);
  }
  const cudaExtent& e = p->extent;  // width in bytes (no array), height and depth in rows
  const size_t src_rows = p->srcPtr.ysize, dst_rows = p->dstPtr.ysize;
  if (e.width > p->srcPtr.pitch || e.width > p->dstPtr.pitch) {
    return record_error(cudaErrorInvalidPitchValue);
  }
  if (e.depth > 1 && (e.height + p->srcPos.y > src_rows || e.height + p->dstPos.y > dst_rows)) {
    return record_error(cudaErrorInvalidValue);
  }
  const auto* src = static_cast<const char*>(p->srcPtr.ptr);
  auto* dst = static_cast<char*>(p->dstPtr.ptr);
  if (blocking) wait_for_device(false);
  for (size_t z = 0; z < e.depth; ++z) {
    const char* s =
        src + ((p->srcPos.z + z) * src_rows + p->srcPos.y) * p->srcPtr.pitch + p->srcPos.x;
    char* d = dst + ((p->dstPos.z + z) * dst_rows + p->dstPos.y) * p->dstPtr.pitch + p->dstPos.x;
    if (const cudaError_t err =
            copy_rows(d, p->dstPtr.pitch, s, p->srcPtr.pitch, e.width, e.height, p->kind, false);
        err != cudaSuccess) {
      return err;
    }
  }
  if (blocking) wait_for_device(true);
  return cudaSuccess;
}

// A unified-memory hint's range: it must lie in one managed allocation (pinned host memory is
// accepted too: a hint about it is legal and does nothing).
cudaError_t hint_range(const void* ptr, size_t count) {
  if (ptr == nullptr || count == 0) return record_error(cudaErrorInvalidValue);
  const auto a = simt::find_allocation(ptr);
  if (!a || reinterpret_cast<std::uintptr_t>(ptr) + count > a->begin + a->bytes ||
      a->kind == simt::AllocationKind::device) {
    return record_error(cudaErrorInvalidValue);
  }
  return cudaSuccess;
}

cudaError_t check_location(const cudaMemLocation& location) {
  switch (location.type) {
    case cudaMemLocationTypeDevice:
      return location.id == 0 ? cudaSuccess : record_error(cudaErrorInvalidDevice);
    case cudaMemLocationTypeHost:
    case cudaMemLocationTypeHostNuma:
    case cudaMemLocationTypeHostNumaCurrent:
      return cudaSuccess;
    default:
      return record_error(cudaErrorInvalidValue);
  }
}

cudaMemLocation location_of_device(int device) {
  if (device == cudaCpuDeviceId) return {cudaMemLocationTypeHost, 0};
  return {cudaMemLocationTypeDevice, device};
}

}  // namespace
}  // namespace gpulab::rt

cudaError_t cudaMemcpy2DAsync(void* dst, size_t dpitch, const void* src, size_t spitch,
                              size_t width, size_t height, cudaMemcpyKind kind, cudaStream_t) {
  return gpulab::rt::copy_rows(static_cast<char*>(dst), dpitch, static_cast<const char*>(src),
                               spitch, width, height, kind, false);
}

cudaError_t cudaMemset2D(void* ptr, size_t pitch, int value, size_t width, size_t height) {
  return gpulab::rt::set_rows(static_cast<char*>(ptr), pitch, value, width, height);
}
cudaError_t cudaMemset2DAsync(void* ptr, size_t pitch, int value, size_t width, size_t height,
                              cudaStream_t) {
  return gpulab::rt::set_rows(static_cast<char*>(ptr), pitch, value, width, height);
}

cudaError_t cudaMalloc3D(cudaPitchedPtr* pitched, cudaExtent extent, std::source_location where) {
  if (pitched == nullptr) return record_error(cudaErrorInvalidValue);
  const size_t pitch = (extent.width + gpulab::rt::kPitchAlignment - 1) /
                       gpulab::rt::kPitchAlignment * gpulab::rt::kPitchAlignment;
  *pitched = cudaPitchedPtr{nullptr, pitch, extent.width, extent.height};
  return gpulab::rt::allocate_memory(&pitched->ptr, pitch * extent.height * extent.depth,
                                     gpulab::simt::AllocationKind::device, where);
}

cudaError_t cudaMemcpy3D(const cudaMemcpy3DParms* p) {
  return gpulab::rt::copy_3d(p, true);
}
cudaError_t cudaMemcpy3DAsync(const cudaMemcpy3DParms* p, cudaStream_t) {
  return gpulab::rt::copy_3d(p, false);
}

cudaError_t cudaMemset3D(cudaPitchedPtr pitched, int value, cudaExtent extent) {
  if (pitched.ptr == nullptr) return record_error(cudaErrorInvalidValue);
  for (size_t z = 0; z < extent.depth; ++z) {
    char* slice = static_cast<char*>(pitched.ptr) + z * pitched.pitch * pitched.ysize;
    if (const cudaError_t e =
            gpulab::rt::set_rows(slice, pitched.pitch, value, extent.width, extent.height);
        e != cudaSuccess) {
      return e;
    }
  }
  return cudaSuccess;
}
cudaError_t cudaMemset3DAsync(cudaPitchedPtr pitched, int value, cudaExtent extent, cudaStream_t) {
  return cudaMemset3D(pitched, value, extent);
}

cudaError_t cudaMallocAsync(void** ptr, size_t size, cudaStream_t, std::source_location where) {
  return gpulab::rt::allocate_memory(ptr, size, gpulab::simt::AllocationKind::device, where);
}
cudaError_t cudaFreeAsync(void* ptr, cudaStream_t) {
  return gpulab::rt::free_memory(ptr, gpulab::simt::AllocationKind::device);
}

cudaError_t cudaMemPrefetchAsync(const void* ptr, size_t count, cudaMemLocation location,
                                 unsigned int flags, cudaStream_t) {
  if (flags != 0) return record_error(cudaErrorInvalidValue);
  if (const cudaError_t e = gpulab::rt::hint_range(ptr, count); e != cudaSuccess) return e;
  return gpulab::rt::check_location(location);
}
cudaError_t cudaMemPrefetchAsync(const void* ptr, size_t count, int device, cudaStream_t stream) {
  return cudaMemPrefetchAsync(ptr, count, gpulab::rt::location_of_device(device), 0, stream);
}

cudaError_t cudaMemAdvise(const void* ptr, size_t count, cudaMemoryAdvise advice,
                          cudaMemLocation location) {
  if (advice < cudaMemAdviseSetReadMostly || advice > cudaMemAdviseUnsetAccessedBy) {
    return record_error(cudaErrorInvalidValue);
  }
  if (const cudaError_t e = gpulab::rt::hint_range(ptr, count); e != cudaSuccess) return e;
  // Read-mostly takes no location; the others name one.
  if (advice == cudaMemAdviseSetReadMostly || advice == cudaMemAdviseUnsetReadMostly) {
    return cudaSuccess;
  }
  return gpulab::rt::check_location(location);
}
cudaError_t cudaMemAdvise(const void* ptr, size_t count, cudaMemoryAdvise advice, int device) {
  return cudaMemAdvise(ptr, count, advice, gpulab::rt::location_of_device(device));
}

cudaError_t cudaStreamAttachMemAsync(cudaStream_t stream, void* ptr, size_t length,
                                     unsigned int flags) {
  if (flags != cudaMemAttachGlobal && flags != cudaMemAttachHost && flags != cudaMemAttachSingle) {
    return record_error(cudaErrorInvalidValue);
  }
  if (stream != nullptr && !gpulab::rt::stream_known(stream)) {
    return record_error(cudaErrorInvalidResourceHandle);
  }
  const auto a = gpulab::simt::find_allocation(ptr);
  if (!a || a->kind != gpulab::simt::AllocationKind::managed ||
      (length != 0 && reinterpret_cast<std::uintptr_t>(ptr) + length > a->begin + a->bytes)) {
    return record_error(cudaErrorInvalidValue);
  }
  return cudaSuccess;
}
