// The device and its properties: one device (0), whose properties describe the emulator (its
// workers as SMs, the host's memory), its attributes and limits, cudaDeviceSynchronize (where a
// fault of an earlier launch surfaces) and cudaDeviceReset, the driver and runtime versions,
// cudaMemGetInfo.
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <thread>

#include "run/runtime/heap.hpp"
#include "run/runtime/state.hpp"
#include "simt/scheduler.hpp"
#include "simt/simt.hpp"

namespace gpulab::rt {

namespace {

// The host waits for the device: a fault of an earlier launch surfaces now and becomes sticky.
void surface_locked(State& s) {
  if (!s.pending_stderr.empty()) {
    std::fflush(stdout);
    std::fwrite(s.pending_stderr.data(), 1, s.pending_stderr.size(), stderr);
    std::fflush(stderr);
    s.pending_stderr.clear();
  }
  if (s.pending == cudaSuccess) return;
  if (s.sticky == cudaSuccess) s.sticky = s.pending;
  s.pending = cudaSuccess;
}

}  // namespace

// The host waited for the device: kernel output is printed, nothing is pending.
void synchronized(bool flush_output) {
  State& s = state();
  std::lock_guard lock(s.mutex);
  s.unsynchronized = false;
  if (flush_output) flush_printf_locked(s);
  surface_locked(s);
}

std::size_t host_memory_bytes() {
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
  return pages > 0 && page > 0 ? static_cast<std::size_t>(pages) * static_cast<std::size_t>(page)
                               : 0;
}
std::size_t host_available_bytes() {
  const long pages = sysconf(_SC_AVPHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
  return pages > 0 && page > 0 ? static_cast<std::size_t>(pages) * static_cast<std::size_t>(page)
                               : 0;
}

unsigned worker_count() {
  const unsigned w = state().settings.workers;
  return w != 0 ? w : std::max(1u, std::thread::hardware_concurrency());
}

}  // namespace gpulab::rt

using gpulab::rt::broken;
using gpulab::rt::set_error;
using gpulab::rt::state;

cudaError_t cudaGetDeviceCount(int* count) {
  if (count == nullptr) return set_error(cudaErrorInvalidValue);
  *count = 1;
  return cudaSuccess;
}
cudaError_t cudaGetDevice(int* device) {
  if (device == nullptr) return set_error(cudaErrorInvalidValue);
  *device = 0;
  return cudaSuccess;
}
cudaError_t cudaSetDevice(int device) {
  return device == 0 ? cudaSuccess : set_error(cudaErrorInvalidDevice);
}
cudaError_t cudaSetDeviceFlags(unsigned int) {
  return cudaSuccess;
}

cudaError_t cudaGetDeviceProperties(cudaDeviceProp* p, int device) {
  if (p == nullptr) return set_error(cudaErrorInvalidValue);
  if (device != 0) return set_error(cudaErrorInvalidDevice);
  *p = cudaDeviceProp{};
  const unsigned workers = gpulab::rt::worker_count();
  std::snprintf(p->name, sizeof p->name, "gpulab emulator (CPU, %u worker threads)", workers);
  std::memcpy(p->uuid.bytes, "gpulab-emulator", 16);
  p->totalGlobalMem = gpulab::rt::host_memory_bytes();
  p->sharedMemPerBlock = 48 * 1024;
  p->regsPerBlock = 65536;
  p->warpSize = 32;
  p->memPitch = SIZE_MAX / 2;
  p->maxThreadsPerBlock = 1024;
  p->maxThreadsDim[0] = 1024;
  p->maxThreadsDim[1] = 1024;
  p->maxThreadsDim[2] = 64;
  p->maxGridSize[0] = 2147483647;
  p->maxGridSize[1] = 65535;
  p->maxGridSize[2] = 65535;
  p->totalConstMem = 64 * 1024;
  // The launch limits the emulator enforces are an H100's (compute capability 9.0).
  p->major = 9;
  p->minor = 0;
  p->textureAlignment = 512;
  p->multiProcessorCount = static_cast<int>(workers);  // one "SM" per worker thread
  p->integrated = 1;                                   // device memory is host memory
  p->canMapHostMemory = 1;
  p->concurrentKernels = 0;  // launches run one after another
  p->asyncEngineCount = 0;
  p->unifiedAddressing = 1;
  p->memoryBusWidth = 0;  // no memory model: no bus, no L2
  p->l2CacheSize = 0;
  p->maxThreadsPerMultiProcessor = 2048;
  p->sharedMemPerMultiprocessor = 228 * 1024;
  p->regsPerMultiprocessor = 65536;
  p->managedMemory = 1;
  p->pageableMemoryAccess = 1;
  p->concurrentManagedAccess = 1;
  p->cooperativeLaunch = 0;
  p->sharedMemPerBlockOptin = 227 * 1024;
  p->maxBlocksPerMultiProcessor = 32;
  p->reservedSharedMemPerBlock = 1024;
  return cudaSuccess;
}

cudaError_t cudaDeviceGetAttribute(int* value, cudaDeviceAttr attr, int device) {
  if (value == nullptr) return set_error(cudaErrorInvalidValue);
  cudaDeviceProp p;
  if (const cudaError_t e = cudaGetDeviceProperties(&p, device); e != cudaSuccess) return e;
  switch (attr) {
    case cudaDevAttrMaxThreadsPerBlock:
      *value = p.maxThreadsPerBlock;
      break;
    case cudaDevAttrMaxBlockDimX:
      *value = p.maxThreadsDim[0];
      break;
    case cudaDevAttrMaxBlockDimY:
      *value = p.maxThreadsDim[1];
      break;
    case cudaDevAttrMaxBlockDimZ:
      *value = p.maxThreadsDim[2];
      break;
    case cudaDevAttrMaxGridDimX:
      *value = p.maxGridSize[0];
      break;
    case cudaDevAttrMaxGridDimY:
      *value = p.maxGridSize[1];
      break;
    case cudaDevAttrMaxGridDimZ:
      *value = p.maxGridSize[2];
      break;
    case cudaDevAttrMaxSharedMemoryPerBlock:
      *value = static_cast<int>(p.sharedMemPerBlock);
      break;
    case cudaDevAttrTotalConstantMemory:
      *value = static_cast<int>(p.totalConstMem);
      break;
    case cudaDevAttrWarpSize:
      *value = p.warpSize;
      break;
    case cudaDevAttrMaxRegistersPerBlock:
      *value = p.regsPerBlock;
      break;
    case cudaDevAttrClockRate:
      *value = 0;
      break;
    case cudaDevAttrMultiProcessorCount:
      *value = p.multiProcessorCount;
      break;
    case cudaDevAttrIntegrated:
      *value = p.integrated;
      break;
    case cudaDevAttrCanMapHostMemory:
      *value = p.canMapHostMemory;
      break;
    case cudaDevAttrComputeMode:
      *value = cudaComputeModeDefault;
      break;
    case cudaDevAttrConcurrentKernels:
      *value = p.concurrentKernels;
      break;
    case cudaDevAttrMemoryClockRate:
      *value = 0;
      break;
    case cudaDevAttrGlobalMemoryBusWidth:
      *value = p.memoryBusWidth;
      break;
    case cudaDevAttrL2CacheSize:
      *value = p.l2CacheSize;
      break;
    case cudaDevAttrMaxThreadsPerMultiProcessor:
      *value = p.maxThreadsPerMultiProcessor;
      break;
    case cudaDevAttrAsyncEngineCount:
      *value = p.asyncEngineCount;
      break;
    case cudaDevAttrUnifiedAddressing:
      *value = p.unifiedAddressing;
      break;
    case cudaDevAttrComputeCapabilityMajor:
      *value = p.major;
      break;
    case cudaDevAttrComputeCapabilityMinor:
      *value = p.minor;
      break;
    case cudaDevAttrMaxSharedMemoryPerMultiprocessor:
      *value = static_cast<int>(p.sharedMemPerMultiprocessor);
      break;
    case cudaDevAttrMaxRegistersPerMultiprocessor:
      *value = p.regsPerMultiprocessor;
      break;
    case cudaDevAttrManagedMemory:
      *value = p.managedMemory;
      break;
    case cudaDevAttrConcurrentManagedAccess:
      *value = p.concurrentManagedAccess;
      break;
    case cudaDevAttrCooperativeLaunch:
      *value = p.cooperativeLaunch;
      break;
    case cudaDevAttrMaxSharedMemoryPerBlockOptin:
      *value = static_cast<int>(p.sharedMemPerBlockOptin);
      break;
    case cudaDevAttrMaxBlocksPerMultiprocessor:
      *value = p.maxBlocksPerMultiProcessor;
      break;
    default:
      return set_error(cudaErrorInvalidValue);
  }
  return cudaSuccess;
}

cudaError_t cudaDeviceSynchronize(void) {
  if (gpulab::simt::detail::tl_runner != nullptr) {
    // CUDA 12 removed the device-side cudaDeviceSynchronize (nvcc refuses to compile it): a parent
    // grid cannot wait for its children, which run after it.
    throw gpulab::simt::KernelFault(
        gpulab::simt::KernelFault::Kind::invalid_argument,
        "cudaDeviceSynchronize() called in a kernel: CUDA 12 and newer have no device-side "
        "cudaDeviceSynchronize (nvcc does not compile it); a child grid ends before its parent "
        "grid, and cudaStreamTailLaunch runs a grid after its parent");
  }
  cudaError_t e;
  gpulab::rt::synchronized(true);
  if (broken(&e)) return e;
  return cudaSuccess;
}

cudaError_t cudaDeviceReset(void) {
  gpulab::rt::synchronized(true);
  // As compute-sanitizer's leak check does, memory still allocated when the context goes away is
  // reported; then it is freed.
  gpulab::rt::report_leaks("cudaDeviceReset");
  for (const gpulab::simt::Allocation& a : gpulab::simt::live_allocations()) {
    gpulab::simt::release(reinterpret_cast<void*>(a.begin), a.kind);
  }
  gpulab::rt::reset_heap();
  auto& s = state();
  std::lock_guard lock(s.mutex);
  s.sticky = cudaSuccess;
  s.pending = cudaSuccess;
  s.streams.clear();
  s.events.clear();
  return cudaSuccess;
}

cudaError_t cudaDeviceSetLimit(cudaLimit limit, size_t value) {
  if (limit == cudaLimitPrintfFifoSize) {
    auto& s = state();
    std::lock_guard lock(s.mutex);
    s.printf_limit = value;
    return cudaSuccess;
  }
  if (limit == cudaLimitMallocHeapSize) {
    // As CUDA: the heap's size is fixed once a kernel has used it.
    return gpulab::rt::set_heap_limit(value) ? cudaSuccess : set_error(cudaErrorInvalidValue);
  }
  if (limit == cudaLimitStackSize) return cudaSuccess;
  return set_error(cudaErrorInvalidValue);
}
cudaError_t cudaDeviceGetLimit(size_t* value, cudaLimit limit) {
  if (value == nullptr) return set_error(cudaErrorInvalidValue);
  switch (limit) {
    case cudaLimitPrintfFifoSize: {
      auto& s = state();
      std::lock_guard lock(s.mutex);
      *value = s.printf_limit;
      return cudaSuccess;
    }
    case cudaLimitStackSize:
      *value = 1024;
      return cudaSuccess;
    case cudaLimitMallocHeapSize:
      *value = gpulab::rt::heap_limit();
      return cudaSuccess;
  }
  return set_error(cudaErrorInvalidValue);
}
cudaError_t cudaDeviceSetCacheConfig(cudaFuncCache) {
  return cudaSuccess;
}
cudaError_t cudaDeviceSetSharedMemConfig(cudaSharedMemConfig) {
  return cudaSuccess;
}
cudaError_t cudaDriverGetVersion(int* version) {
  if (version == nullptr) return set_error(cudaErrorInvalidValue);
  *version = CUDART_VERSION;
  return cudaSuccess;
}
cudaError_t cudaRuntimeGetVersion(int* version) {
  if (version == nullptr) return set_error(cudaErrorInvalidValue);
  *version = CUDART_VERSION;
  return cudaSuccess;
}
cudaError_t cudaMemGetInfo(size_t* free, size_t* total) {
  if (free == nullptr || total == nullptr) return set_error(cudaErrorInvalidValue);
  *free = gpulab::rt::host_available_bytes();
  *total = gpulab::rt::host_memory_bytes();
  return cudaSuccess;
}
