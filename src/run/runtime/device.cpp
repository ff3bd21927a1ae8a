// The device and its properties: one device (0), whose properties describe the emulator (an
// H100's 132 SMs and limits, the host's memory; no textures, no caches), every attribute and
// property of CUDA 13 and the fields CUDA 13 removed from cudaDeviceProp (for older books'
// programs; the report names their replacements), device flags, limits, cudaDeviceSynchronize
// (where a fault of an earlier launch surfaces) and cudaDeviceReset, the driver and runtime
// versions, cudaMemGetInfo; and what a kernel reads of the machine: clock() and clock64()
// (nanoseconds of the CPU's monotonic clock: a 1 GHz clock, so that cycles / cudaDevAttrClockRate
// gives milliseconds as on a GPU) and the special registers inline PTX reads (%smid: the number of
// the worker thread running the block, %nsmid: 132, %globaltimer), which gpulab's rewrite turns
// into calls here.
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <string_view>
#include <thread>

#include "run/runtime/heap.hpp"
#include "run/runtime/state.hpp"
#include "simt/scheduler.hpp"
#include "simt/simt.hpp"

namespace gpulab::rt {

namespace {

// An H100 SXM5's streaming multiprocessors (its sheet in src/calc/gpu_models.json): the SM count
// the emulated device reports, so that programs size their grids, cooperative ones too, as they
// do on an H100.
constexpr unsigned kSmCount = 132;

constexpr unsigned kDeviceFlagsValid = cudaDeviceScheduleMask | cudaDeviceMapHost |
                                       cudaDeviceLmemResizeToMax | 0x80;  // cudaDeviceSyncMemops

struct Limits {
  std::mutex mutex;
  unsigned device_flags = 0;
  size_t pending_launches = 2048;
  size_t l2_fetch_granularity = 64;
};
Limits& limits() {
  static Limits* l = new Limits;  // never destroyed: late calls at exit still use it
  return *l;
}

long long nanoseconds() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

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

cudaError_t wait_for_device(bool flush_output) {
  synchronized(flush_output);
  cudaError_t e;
  if (broken(&e)) return e;
  return cudaSuccess;
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
  return gpulab::rt::answer(count, 1);
}
cudaError_t cudaGetDevice(int* device) {
  return gpulab::rt::answer(device, 0);
}
cudaError_t cudaSetDevice(int device) {
  return device == 0 ? cudaSuccess : set_error(cudaErrorInvalidDevice);
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
  // An H100's: programs size grids from it (a cooperative grid of 132 x the occupancy's blocks
  // per SM runs, all its blocks resident on the worker threads).
  p->multiProcessorCount = static_cast<int>(gpulab::rt::kSmCount);
  p->integrated = 1;  // device memory is host memory
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
  p->cooperativeLaunch = 1;  // cudaLaunchCooperativeKernel: every block resident at once
  p->sharedMemPerBlockOptin = 227 * 1024;
  p->maxBlocksPerMultiProcessor = 32;
  p->reservedSharedMemPerBlock = 1024;
  p->texturePitchAlignment = 512;
  p->surfaceAlignment = 512;  // an H100's (deviceQuery prints whether there is one)
  p->streamPrioritiesSupported = 1;
  p->hostNativeAtomicSupported = 1;  // one memory: a kernel's atomics are the CPU's
  p->canUseHostPointerForRegisteredMem = 1;
  p->pageableMemoryAccessUsesHostPageTables = 1;
  p->directManagedMemAccessFromHost = 1;
  p->hostRegisterSupported = 1;
  p->hostRegisterReadOnlySupported = 1;
  p->memoryPoolsSupported = 1;
  p->unifiedFunctionPointers = 1;
  p->deviceNumaId = -1;
  p->hostNumaId = -1;
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
  p->clockRate = 1000000;  // kHz: clock64() counts nanoseconds
  p->memoryClockRate = 0;  // no memory model
  p->deviceOverlap = 0;    // no copy engine: copies and kernels run one after another
  p->kernelExecTimeoutEnabled = 0;
  p->computeMode = cudaComputeModeDefault;
  p->maxTexture1DLinear = 0;  // no textures
  p->singleToDoublePrecisionPerfRatio = 1;
  p->cooperativeMultiDeviceLaunch = 0;
#pragma GCC diagnostic pop
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
      *value = 1000000;  // kHz: clock() and clock64() in a kernel count nanoseconds
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
    case cudaDevAttrMaxPitch:
      *value = 2147483647;
      break;
    case cudaDevAttrTextureAlignment:
      *value = static_cast<int>(p.textureAlignment);
      break;
    case cudaDevAttrTexturePitchAlignment:
      *value = static_cast<int>(p.texturePitchAlignment);
      break;
    case cudaDevAttrSurfaceAlignment:
      *value = static_cast<int>(p.surfaceAlignment);
      break;
    case cudaDevAttrGpuOverlap:
      *value = p.asyncEngineCount > 0;
      break;
    case cudaDevAttrStreamPrioritiesSupported:
      *value = p.streamPrioritiesSupported;
      break;
    case cudaDevAttrHostNativeAtomicSupported:
      *value = p.hostNativeAtomicSupported;
      break;
    case cudaDevAttrSingleToDoublePrecisionPerfRatio:
      *value = 1;
      break;
    case cudaDevAttrPageableMemoryAccess:
      *value = p.pageableMemoryAccess;
      break;
    case cudaDevAttrCanUseHostPointerForRegisteredMem:
      *value = p.canUseHostPointerForRegisteredMem;
      break;
    case cudaDevAttrHostRegisterSupported:
      *value = p.hostRegisterSupported;
      break;
    case cudaDevAttrHostRegisterReadOnlySupported:
      *value = p.hostRegisterReadOnlySupported;
      break;
    case cudaDevAttrPageableMemoryAccessUsesHostPageTables:
      *value = p.pageableMemoryAccessUsesHostPageTables;
      break;
    case cudaDevAttrDirectManagedMemAccessFromHost:
      *value = p.directManagedMemAccessFromHost;
      break;
    case cudaDevAttrReservedSharedMemoryPerBlock:
      *value = static_cast<int>(p.reservedSharedMemPerBlock);
      break;
    case cudaDevAttrMemoryPoolsSupported:
      *value = p.memoryPoolsSupported;
      break;
    case cudaDevAttrMemSyncDomainCount:
      *value = 1;
      break;
    case cudaDevAttrNumaId:
    case cudaDevAttrHostNumaId:
      *value = -1;
      break;
    // What the emulator has none of: textures, surfaces, caches, ECC, PCI, a time limit per
    // kernel, preemption, clusters, IPC, NUMA, GPUDirect, graphics interop.
    case cudaDevAttrKernelExecTimeout:
    case cudaDevAttrMaxTexture1DWidth:
    case cudaDevAttrMaxTexture2DWidth:
    case cudaDevAttrMaxTexture2DHeight:
    case cudaDevAttrMaxTexture3DWidth:
    case cudaDevAttrMaxTexture3DHeight:
    case cudaDevAttrMaxTexture3DDepth:
    case cudaDevAttrMaxTexture2DLayeredWidth:
    case cudaDevAttrMaxTexture2DLayeredHeight:
    case cudaDevAttrMaxTexture2DLayeredLayers:
    case cudaDevAttrEccEnabled:
    case cudaDevAttrPciBusId:
    case cudaDevAttrPciDeviceId:
    case cudaDevAttrTccDriver:
    case cudaDevAttrMaxTexture1DLayeredWidth:
    case cudaDevAttrMaxTexture1DLayeredLayers:
    case cudaDevAttrMaxTexture2DGatherWidth:
    case cudaDevAttrMaxTexture2DGatherHeight:
    case cudaDevAttrMaxTexture3DWidthAlt:
    case cudaDevAttrMaxTexture3DHeightAlt:
    case cudaDevAttrMaxTexture3DDepthAlt:
    case cudaDevAttrPciDomainId:
    case cudaDevAttrMaxTextureCubemapWidth:
    case cudaDevAttrMaxTextureCubemapLayeredWidth:
    case cudaDevAttrMaxTextureCubemapLayeredLayers:
    case cudaDevAttrMaxSurface1DWidth:
    case cudaDevAttrMaxSurface2DWidth:
    case cudaDevAttrMaxSurface2DHeight:
    case cudaDevAttrMaxSurface3DWidth:
    case cudaDevAttrMaxSurface3DHeight:
    case cudaDevAttrMaxSurface3DDepth:
    case cudaDevAttrMaxSurface1DLayeredWidth:
    case cudaDevAttrMaxSurface1DLayeredLayers:
    case cudaDevAttrMaxSurface2DLayeredWidth:
    case cudaDevAttrMaxSurface2DLayeredHeight:
    case cudaDevAttrMaxSurface2DLayeredLayers:
    case cudaDevAttrMaxSurfaceCubemapWidth:
    case cudaDevAttrMaxSurfaceCubemapLayeredWidth:
    case cudaDevAttrMaxSurfaceCubemapLayeredLayers:
    case cudaDevAttrMaxTexture1DLinearWidth:
    case cudaDevAttrMaxTexture2DLinearWidth:
    case cudaDevAttrMaxTexture2DLinearHeight:
    case cudaDevAttrMaxTexture2DLinearPitch:
    case cudaDevAttrMaxTexture2DMipmappedWidth:
    case cudaDevAttrMaxTexture2DMipmappedHeight:
    case cudaDevAttrMaxTexture1DMipmappedWidth:
    case cudaDevAttrGlobalL1CacheSupported:
    case cudaDevAttrLocalL1CacheSupported:
    case cudaDevAttrIsMultiGpuBoard:
    case cudaDevAttrMultiGpuBoardGroupID:
    case cudaDevAttrComputePreemptionSupported:
    case cudaDevAttrCanFlushRemoteWrites:
    case cudaDevAttrMaxPersistingL2CacheSize:
    case cudaDevAttrMaxAccessPolicyWindowSize:
    case cudaDevAttrSparseCudaArraySupported:
    case cudaDevAttrTimelineSemaphoreInteropSupported:
    case cudaDevAttrGPUDirectRDMASupported:
    case cudaDevAttrGPUDirectRDMAFlushWritesOptions:
    case cudaDevAttrGPUDirectRDMAWritesOrdering:
    case cudaDevAttrMemoryPoolSupportedHandleTypes:
    case cudaDevAttrClusterLaunch:
    case cudaDevAttrDeferredMappingCudaArraySupported:
    case cudaDevAttrIpcEventSupport:
    case cudaDevAttrNumaConfig:
    case cudaDevAttrMpsEnabled:
    case cudaDevAttrD3D12CigSupported:
    case cudaDevAttrVulkanCigSupported:
    case cudaDevAttrGpuPciDeviceId:
    case cudaDevAttrGpuPciSubsystemId:
    case cudaDevAttrHostNumaMemoryPoolsSupported:
    case cudaDevAttrHostNumaMultinodeIpcSupported:
    case cudaDevAttrHostMemoryPoolsSupported:
    case cudaDevAttrOnlyPartialHostNativeAtomicSupported:
      *value = 0;
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
        {"cudaDeviceSynchronize() called in a kernel: CUDA 12 and newer have no device-side "
         "cudaDeviceSynchronize (nvcc does not compile it); a child grid ends before its parent "
         "grid, and cudaStreamTailLaunch runs a grid after its parent",
         "在核函数中调用了 cudaDeviceSynchronize()：CUDA 12 及更新版本没有设备端的 "
         "cudaDeviceSynchronize（nvcc 不会编译它）；子网格在父网格之前结束，"
         "cudaStreamTailLaunch 让一个网格在父网格之后运行"},
        0);
  }
  return gpulab::rt::wait_for_device(true);
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
  auto& l = gpulab::rt::limits();
  std::lock_guard lock(l.mutex);
  switch (limit) {
    case cudaLimitDevRuntimeSyncDepth:
      // Only before compute capability 9.0 (no device-side synchronisation since).
      return set_error(cudaErrorUnsupportedLimit);
    case cudaLimitDevRuntimePendingLaunchCount:
      l.pending_launches = value;
      return cudaSuccess;
    case cudaLimitMaxL2FetchGranularity:
      if (value > 128) return set_error(cudaErrorInvalidValue);
      l.l2_fetch_granularity = value;
      return cudaSuccess;
    case cudaLimitPersistingL2CacheSize:
      return cudaSuccess;  // no L2 to set aside: the limit stays 0
    default:
      return set_error(cudaErrorUnsupportedLimit);
  }
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
    case cudaLimitDevRuntimePendingLaunchCount:
    case cudaLimitMaxL2FetchGranularity: {
      auto& l = gpulab::rt::limits();
      std::lock_guard lock(l.mutex);
      *value = limit == cudaLimitDevRuntimePendingLaunchCount ? l.pending_launches
                                                              : l.l2_fetch_granularity;
      return cudaSuccess;
    }
    case cudaLimitPersistingL2CacheSize:
      *value = 0;
      return cudaSuccess;
    default:
      break;
  }
  return set_error(cudaErrorUnsupportedLimit);
}
cudaError_t cudaDeviceSetCacheConfig(cudaFuncCache) {
  return cudaSuccess;
}
cudaError_t cudaDeviceSetSharedMemConfig(cudaSharedMemConfig) {
  return cudaSuccess;
}
cudaError_t cudaDriverGetVersion(int* version) {
  return gpulab::rt::answer(version, CUDART_VERSION);
}
cudaError_t cudaRuntimeGetVersion(int* version) {
  return gpulab::rt::answer(version, CUDART_VERSION);
}
cudaError_t cudaMemGetInfo(size_t* free, size_t* total) {
  if (free == nullptr || total == nullptr) return set_error(cudaErrorInvalidValue);
  *free = gpulab::rt::host_available_bytes();
  *total = gpulab::rt::host_memory_bytes();
  return cudaSuccess;
}

// ---- Device flags, choosing a device

cudaError_t cudaSetDeviceFlags(unsigned int flags) {
  const unsigned schedule = flags & cudaDeviceScheduleMask;
  if ((flags & ~gpulab::rt::kDeviceFlagsValid) != 0 ||
      (schedule != 0 && schedule != cudaDeviceScheduleSpin && schedule != cudaDeviceScheduleYield &&
       schedule != cudaDeviceScheduleBlockingSync)) {
    return set_error(cudaErrorInvalidValue);
  }
  auto& l = gpulab::rt::limits();
  std::lock_guard lock(l.mutex);
  l.device_flags = flags;
  return cudaSuccess;
}

cudaError_t cudaGetDeviceFlags(unsigned int* flags) {
  if (flags == nullptr) return set_error(cudaErrorInvalidValue);
  auto& l = gpulab::rt::limits();
  std::lock_guard lock(l.mutex);
  // Host memory is always mapped (unified addressing).
  *flags = l.device_flags | cudaDeviceMapHost;
  return cudaSuccess;
}

cudaError_t cudaInitDevice(int device, unsigned int device_flags, unsigned int flags) {
  if (device != 0) return set_error(cudaErrorInvalidDevice);
  if (flags != 0) return set_error(cudaErrorInvalidValue);
  return device_flags == 0 ? cudaSuccess : cudaSetDeviceFlags(device_flags);
}

cudaError_t cudaChooseDevice(int* device, const cudaDeviceProp* prop) {
  if (device == nullptr || prop == nullptr) return set_error(cudaErrorInvalidValue);
  *device = 0;  // the one device there is
  return cudaSuccess;
}

cudaError_t cudaDeviceGetCacheConfig(cudaFuncCache* config) {
  return gpulab::rt::answer(config, cudaFuncCachePreferNone);
}

cudaError_t cudaDeviceGetSharedMemConfig(cudaSharedMemConfig* config) {
  return gpulab::rt::answer(config, cudaSharedMemBankSizeFourByte);
}

cudaError_t cudaDeviceGetPCIBusId(char* bus_id, int length, int device) {
  if (bus_id == nullptr || length <= 0) return set_error(cudaErrorInvalidValue);
  if (device != 0) return set_error(cudaErrorInvalidDevice);
  std::snprintf(bus_id, static_cast<size_t>(length), "0000:00:00.0");
  return cudaSuccess;
}

cudaError_t cudaDeviceGetByPCIBusId(int* device, const char* bus_id) {
  if (device == nullptr || bus_id == nullptr) return set_error(cudaErrorInvalidValue);
  if (std::string_view(bus_id) != "0000:00:00.0") return set_error(cudaErrorInvalidDevice);
  *device = 0;
  return cudaSuccess;
}

cudaError_t cudaDeviceCanAccessPeer(int* can_access, int device, int peer_device) {
  if (can_access == nullptr) return set_error(cudaErrorInvalidValue);
  if (device != 0 || peer_device != 0) return set_error(cudaErrorInvalidDevice);
  *can_access = 0;
  return cudaSuccess;
}

// Peer access on the one emulated device, as an H200 host with one GPU answers (measured): no
// other device to reach, the device itself is no peer.
cudaError_t cudaDeviceEnablePeerAccess(int peer_device, unsigned int flags) {
  if (peer_device != 0) return set_error(cudaErrorInvalidDevice);
  if (flags != 0) return set_error(cudaErrorInvalidValue);
  return set_error(cudaErrorPeerAccessUnsupported);
}

cudaError_t cudaDeviceDisablePeerAccess(int peer_device) {
  return set_error(peer_device != 0 ? cudaErrorInvalidDevice : cudaErrorPeerAccessNotEnabled);
}

cudaError_t cudaDeviceGetP2PAttribute(int* value, cudaDeviceP2PAttr, int, int) {
  // A device and itself, or a device that is not there: no pair of devices.
  if (value == nullptr) return set_error(cudaErrorInvalidValue);
  return set_error(cudaErrorInvalidDevice);
}

cudaError_t cudaSetValidDevices(int* devices, int count) {
  if (count < 0 || (count > 0 && devices == nullptr)) return set_error(cudaErrorInvalidValue);
  for (int i = 0; i < count; ++i) {
    if (devices[i] != 0) return set_error(cudaErrorInvalidDevice);
  }
  return cudaSuccess;
}

// ---- What a kernel reads of the machine

#undef clock  // the C library's, here

extern "C" clock_t gpulab_rt_clock(void) {
  // In a kernel: nanoseconds, as clock64(); on the host: the C library's processor time.
  if (gpulab::simt::detail::tl_runner != nullptr)
    return static_cast<clock_t>(gpulab::rt::nanoseconds());
  return ::clock();
}

extern "C" unsigned gpulab_rt_ptx_smid(void) {
  // Each OS thread that runs blocks gets a number (modulo the device's 132 SMs): blocks that give
  // the same number ran on the same worker thread.
  static std::atomic<unsigned> next{0};
  thread_local const unsigned mine = next.fetch_add(1);
  return mine % gpulab::rt::kSmCount;
}

extern "C" unsigned gpulab_rt_ptx_nsmid(void) {
  return gpulab::rt::kSmCount;
}

extern "C" unsigned long long gpulab_rt_ptx_globaltimer(void) {
  return static_cast<unsigned long long>(gpulab::rt::nanoseconds());
}
