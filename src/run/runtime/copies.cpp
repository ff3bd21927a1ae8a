// Copies and symbols: cudaMemcpy, cudaMemcpyAsync, cudaMemcpy2D(Async) and cudaMemcpy3D(Async)
// between pitched pointers (CUDA arrays, textures' memory, are not run), and copies to and from
// __device__ variables (cudaMemcpyToSymbol/FromSymbol call memcpy_symbol). A copy back of bytes
// no one wrote is an "uninitialized_copy" finding under --check.
#include <cstdint>
#include <cstring>

#include "run/runtime/graph.hpp"
#include "run/runtime/state.hpp"

namespace gpulab::rt {

cudaError_t copy(void* dst, const void* src, size_t count, cudaMemcpyKind kind, bool blocking,
                 const std::source_location& where) {
  cudaError_t e;
  if (blocking) synchronized(false);  // a blocking copy waits for the launches before it
  if (broken(&e)) return e;
  if (count == 0) return cudaSuccess;
  if (dst == nullptr || src == nullptr) return set_error(cudaErrorInvalidValue);
  if (kind < cudaMemcpyHostToHost || kind > cudaMemcpyDefault) {
    return set_error(cudaErrorInvalidMemcpyDirection);
  }
  bool dst_device = false, src_device = false;
  if (check_device_range(dst, count, &dst_device) != cudaSuccess ||
      check_device_range(src, count, &src_device) != cudaSuccess) {
    return set_error(cudaErrorInvalidValue);
  }
  const bool dst_should = kind == cudaMemcpyHostToDevice || kind == cudaMemcpyDeviceToDevice;
  const bool src_should = kind == cudaMemcpyDeviceToHost || kind == cudaMemcpyDeviceToDevice;
  if ((dst_should && !dst_device) || (src_should && !src_device)) {
    return set_error(cudaErrorInvalidValue);
  }
  if (src_device && simt::memory_checks_enabled() && !dst_device) {
    std::size_t first = 0;
    if (const std::size_t n = simt::count_uninitialized(src, count, &first); n > 0) {
      const auto a = simt::find_allocation(src);
      write_line({{report::kEventField, report::event::finding},
                  {report::kKindField, report::kind::uninitialized_copy},
                  {"bytes", n},
                  {"first_offset", reinterpret_cast<std::uintptr_t>(src) - a->begin + first},
                  {"copied", count},
                  {"allocation_bytes", a->bytes},
                  {"allocation_site", a->site},
                  {"site", site_text(where.file_name(), static_cast<int>(where.line()))}});
    }
  }
  std::memmove(dst, src, count);
  if (dst_device) simt::copy_initialized(dst, src, count);
  if (blocking) synchronized(true);
  return cudaSuccess;
}

cudaError_t memcpy_symbol(void* symbol, size_t symbol_bytes, void* host, size_t count,
                          size_t offset, cudaMemcpyKind kind, bool to_symbol) {
  cudaError_t e;
  synchronized(false);  // a synchronous copy: launches before it are waited for
  if (broken(&e)) return e;
  if (offset > symbol_bytes || count > symbol_bytes - offset) {
    return set_error(cudaErrorInvalidValue);
  }
  auto* at = static_cast<unsigned char*>(symbol) + offset;
  if (to_symbol) {
    if (kind != cudaMemcpyHostToDevice && kind != cudaMemcpyDeviceToDevice &&
        kind != cudaMemcpyDefault) {
      return set_error(cudaErrorInvalidMemcpyDirection);
    }
    std::memmove(at, host, count);
  } else {
    if (kind != cudaMemcpyDeviceToHost && kind != cudaMemcpyDeviceToDevice &&
        kind != cudaMemcpyDefault) {
      return set_error(cudaErrorInvalidMemcpyDirection);
    }
    std::memmove(host, at, count);
  }
  synchronized(true);
  return cudaSuccess;
}

namespace {

// The rows of a 2-D copy, one copy each; the first waits for the device when `blocking`.
cudaError_t copy_rows(char* dst, size_t dpitch, const char* src, size_t spitch, size_t width,
                      size_t rows, cudaMemcpyKind kind, bool blocking) {
  if (rows == 0 || width == 0) return cudaSuccess;
  if (width > dpitch || width > spitch) return set_error(cudaErrorInvalidPitchValue);
  if (blocking) synchronized(false);
  for (size_t row = 0; row < rows; ++row) {
    const cudaError_t e = copy(dst + row * dpitch, src + row * spitch, width, kind, false,
                               std::source_location::current());
    if (e != cudaSuccess) return e;
  }
  if (blocking) synchronized(true);
  return cudaSuccess;
}

cudaError_t copy_3d(const cudaMemcpy3DParms* p, bool blocking) {
  if (p == nullptr) return set_error(cudaErrorInvalidValue);
  // CUDA arrays are textures' memory, which the emulator does not have.
  if (p->srcArray != nullptr || p->dstArray != nullptr) return set_error(cudaErrorInvalidValue);
  if (p->srcPtr.ptr == nullptr || p->dstPtr.ptr == nullptr) {
    return set_error(cudaErrorInvalidValue);
  }
  const cudaExtent& e = p->extent;  // width in bytes (no array), height and depth in rows
  const size_t src_rows = p->srcPtr.ysize, dst_rows = p->dstPtr.ysize;
  if (e.width > p->srcPtr.pitch || e.width > p->dstPtr.pitch) {
    return set_error(cudaErrorInvalidPitchValue);
  }
  if (e.depth > 1 && (e.height + p->srcPos.y > src_rows || e.height + p->dstPos.y > dst_rows)) {
    return set_error(cudaErrorInvalidValue);
  }
  const auto* src = static_cast<const char*>(p->srcPtr.ptr);
  auto* dst = static_cast<char*>(p->dstPtr.ptr);
  if (blocking) synchronized(false);
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
  if (blocking) synchronized(true);
  return cudaSuccess;
}

}  // namespace

}  // namespace gpulab::rt

using gpulab::rt::set_error;

cudaError_t cudaMemcpy(void* dst, const void* src, size_t count, cudaMemcpyKind kind,
                       std::source_location where) {
  return gpulab::rt::copy(dst, src, count, kind, true, where);
}
// Between devices: on the one emulated device, device 0 to device 0 is a device-to-device copy
// (as on a one-GPU machine); any other device does not exist.
cudaError_t cudaMemcpyPeer(void* dst, int dst_device, const void* src, int src_device, size_t count,
                           std::source_location where) {
  if (dst_device != 0 || src_device != 0) return set_error(cudaErrorInvalidDevice);
  return cudaMemcpy(dst, src, count, cudaMemcpyDeviceToDevice, where);
}
cudaError_t cudaMemcpyPeerAsync(void* dst, int dst_device, const void* src, int src_device,
                                size_t count, cudaStream_t stream, std::source_location where) {
  if (dst_device != 0 || src_device != 0) return set_error(cudaErrorInvalidDevice);
  return cudaMemcpyAsync(dst, src, count, cudaMemcpyDeviceToDevice, stream, where);
}
cudaError_t cudaMemcpyAsync(void* dst, const void* src, size_t count, cudaMemcpyKind kind,
                            cudaStream_t stream, std::source_location where) {
  if (gpulab::rt::graph_record_copy(dst, src, count, kind, stream)) return cudaSuccess;
  return gpulab::rt::copy(dst, src, count, kind, false, where);
}
cudaError_t cudaMemcpy2D(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width,
                         size_t height, cudaMemcpyKind kind) {
  return gpulab::rt::copy_rows(static_cast<char*>(dst), dpitch, static_cast<const char*>(src),
                               spitch, width, height, kind, true);
}
cudaError_t cudaMemcpy2DAsync(void* dst, size_t dpitch, const void* src, size_t spitch,
                              size_t width, size_t height, cudaMemcpyKind kind, cudaStream_t) {
  return gpulab::rt::copy_rows(static_cast<char*>(dst), dpitch, static_cast<const char*>(src),
                               spitch, width, height, kind, false);
}

cudaError_t cudaMemcpy3D(const cudaMemcpy3DParms* p) {
  return gpulab::rt::copy_3d(p, true);
}
cudaError_t cudaMemcpy3DAsync(const cudaMemcpy3DParms* p, cudaStream_t stream) {
  if (p != nullptr && gpulab::rt::graph_record_copy_3d(*p, stream)) return cudaSuccess;
  return gpulab::rt::copy_3d(p, false);
}
