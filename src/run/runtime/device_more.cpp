// The emulated device, more of it: every attribute and property CUDA 13 has (values that describe
// the emulator: no textures, no caches, host memory shared with the device), the fields CUDA 13
// removed from cudaDeviceProp (for older books' programs; the report names their replacements),
// device flags, the limits beyond printf, heap and stack, and what a kernel reads of the machine:
// clock() and clock64() (nanoseconds of the CPU's monotonic clock: a 1 GHz clock, so that cycles /
// cudaDevAttrClockRate gives milliseconds as on a GPU) and the special registers inline PTX reads
// (%smid: the worker thread running the block, %nsmid, %warpid, %laneid, %lanemask_*,
// %globaltimer, %clock, %clock64), which gpulab's rewrite turns into calls here.
#include <time.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <mutex>
#include <string_view>

#include "cuda_runtime.h"
#include "run/runtime/internal.hpp"
#include "simt/scheduler.hpp"

#undef clock  // the C library's, here

using gpulab::rt::record_error;

namespace gpulab::rt {
namespace {

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

}  // namespace

void more_device_properties(cudaDeviceProp* p) {
  p->texturePitchAlignment = 512;
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
}

bool more_device_attribute(cudaDeviceAttr attr, int* value) {
  cudaDeviceProp p;
  if (cudaGetDeviceProperties(&p, 0) != cudaSuccess) return false;
  switch (attr) {
    case cudaDevAttrMaxPitch:
      *value = 2147483647;
      return true;
    case cudaDevAttrTextureAlignment:
      *value = static_cast<int>(p.textureAlignment);
      return true;
    case cudaDevAttrTexturePitchAlignment:
      *value = static_cast<int>(p.texturePitchAlignment);
      return true;
    case cudaDevAttrGpuOverlap:
      *value = p.asyncEngineCount > 0;
      return true;
    case cudaDevAttrStreamPrioritiesSupported:
      *value = p.streamPrioritiesSupported;
      return true;
    case cudaDevAttrHostNativeAtomicSupported:
      *value = p.hostNativeAtomicSupported;
      return true;
    case cudaDevAttrSingleToDoublePrecisionPerfRatio:
      *value = 1;
      return true;
    case cudaDevAttrPageableMemoryAccess:
      *value = p.pageableMemoryAccess;
      return true;
    case cudaDevAttrCanUseHostPointerForRegisteredMem:
      *value = p.canUseHostPointerForRegisteredMem;
      return true;
    case cudaDevAttrHostRegisterSupported:
      *value = p.hostRegisterSupported;
      return true;
    case cudaDevAttrHostRegisterReadOnlySupported:
      *value = p.hostRegisterReadOnlySupported;
      return true;
    case cudaDevAttrPageableMemoryAccessUsesHostPageTables:
      *value = p.pageableMemoryAccessUsesHostPageTables;
      return true;
    case cudaDevAttrDirectManagedMemAccessFromHost:
      *value = p.directManagedMemAccessFromHost;
      return true;
    case cudaDevAttrReservedSharedMemoryPerBlock:
      *value = static_cast<int>(p.reservedSharedMemPerBlock);
      return true;
    case cudaDevAttrMemoryPoolsSupported:
      *value = p.memoryPoolsSupported;
      return true;
    case cudaDevAttrMemSyncDomainCount:
      *value = 1;
      return true;
    case cudaDevAttrNumaId:
    case cudaDevAttrHostNumaId:
      *value = -1;
      return true;
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
    case cudaDevAttrSurfaceAlignment:
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
      return true;
    default:
      return false;
  }
}

cudaError_t set_more_limit(cudaLimit limit, size_t value) {
  auto& l = limits();
  std::lock_guard lock(l.mutex);
  switch (limit) {
    case cudaLimitDevRuntimeSyncDepth:
      // Only before compute capability 9.0 (no device-side synchronisation since).
      return record_error(cudaErrorUnsupportedLimit);
    case cudaLimitDevRuntimePendingLaunchCount:
      l.pending_launches = value;
      return cudaSuccess;
    case cudaLimitMaxL2FetchGranularity:
      if (value > 128) return record_error(cudaErrorInvalidValue);
      l.l2_fetch_granularity = value;
      return cudaSuccess;
    case cudaLimitPersistingL2CacheSize:
      return cudaSuccess;  // no L2 to set aside: the limit stays 0
    default:
      return record_error(cudaErrorUnsupportedLimit);
  }
}

cudaError_t get_more_limit(cudaLimit limit, size_t* value) {
  auto& l = limits();
  std::lock_guard lock(l.mutex);
  switch (limit) {
    case cudaLimitDevRuntimeSyncDepth:
      return record_error(cudaErrorUnsupportedLimit);
    case cudaLimitDevRuntimePendingLaunchCount:
      *value = l.pending_launches;
      return cudaSuccess;
    case cudaLimitMaxL2FetchGranularity:
      *value = l.l2_fetch_granularity;
      return cudaSuccess;
    case cudaLimitPersistingL2CacheSize:
      *value = 0;
      return cudaSuccess;
    default:
      return record_error(cudaErrorUnsupportedLimit);
  }
}

}  // namespace gpulab::rt

cudaError_t cudaSetDeviceFlags(unsigned int flags) {
  const unsigned schedule = flags & cudaDeviceScheduleMask;
  if ((flags & ~gpulab::rt::kDeviceFlagsValid) != 0 ||
      (schedule != 0 && schedule != cudaDeviceScheduleSpin && schedule != cudaDeviceScheduleYield &&
       schedule != cudaDeviceScheduleBlockingSync)) {
    return record_error(cudaErrorInvalidValue);
  }
  auto& l = gpulab::rt::limits();
  std::lock_guard lock(l.mutex);
  l.device_flags = flags;
  return cudaSuccess;
}

cudaError_t cudaGetDeviceFlags(unsigned int* flags) {
  if (flags == nullptr) return record_error(cudaErrorInvalidValue);
  auto& l = gpulab::rt::limits();
  std::lock_guard lock(l.mutex);
  // Host memory is always mapped (unified addressing).
  *flags = l.device_flags | cudaDeviceMapHost;
  return cudaSuccess;
}

cudaError_t cudaInitDevice(int device, unsigned int device_flags, unsigned int flags) {
  if (device != 0) return record_error(cudaErrorInvalidDevice);
  if (flags != 0) return record_error(cudaErrorInvalidValue);
  return device_flags == 0 ? cudaSuccess : cudaSetDeviceFlags(device_flags);
}

cudaError_t cudaChooseDevice(int* device, const cudaDeviceProp* prop) {
  if (device == nullptr || prop == nullptr) return record_error(cudaErrorInvalidValue);
  *device = 0;  // the one device there is
  return cudaSuccess;
}

cudaError_t cudaDeviceGetCacheConfig(cudaFuncCache* config) {
  if (config == nullptr) return record_error(cudaErrorInvalidValue);
  *config = cudaFuncCachePreferNone;
  return cudaSuccess;
}

cudaError_t cudaDeviceGetSharedMemConfig(cudaSharedMemConfig* config) {
  if (config == nullptr) return record_error(cudaErrorInvalidValue);
  *config = cudaSharedMemBankSizeFourByte;
  return cudaSuccess;
}

cudaError_t cudaDeviceGetPCIBusId(char* bus_id, int length, int device) {
  if (bus_id == nullptr || length <= 0) return record_error(cudaErrorInvalidValue);
  if (device != 0) return record_error(cudaErrorInvalidDevice);
  std::snprintf(bus_id, static_cast<size_t>(length), "0000:00:00.0");
  return cudaSuccess;
}

cudaError_t cudaDeviceGetByPCIBusId(int* device, const char* bus_id) {
  if (device == nullptr || bus_id == nullptr) return record_error(cudaErrorInvalidValue);
  if (std::string_view(bus_id) != "0000:00:00.0") return record_error(cudaErrorInvalidDevice);
  *device = 0;
  return cudaSuccess;
}

cudaError_t cudaSetValidDevices(int* devices, int count) {
  if (count < 0 || (count > 0 && devices == nullptr)) return record_error(cudaErrorInvalidValue);
  for (int i = 0; i < count; ++i) {
    if (devices[i] != 0) return record_error(cudaErrorInvalidDevice);
  }
  return cudaSuccess;
}

// ---- What a kernel reads of the machine

extern "C" clock_t gpulab_rt_clock(void) {
  // In a kernel: nanoseconds, as clock64(); on the host: the C library's processor time.
  if (gpulab::simt::detail::tl_runner != nullptr)
    return static_cast<clock_t>(gpulab::rt::nanoseconds());
  return ::clock();
}

extern "C" unsigned gpulab_rt_ptx_smid(void) {
  // The emulated SMs are the worker threads: each OS thread that runs blocks gets a number.
  static std::atomic<unsigned> next{0};
  thread_local const unsigned mine = next.fetch_add(1);
  const unsigned sms = gpulab::rt::emulated_sms();
  return sms == 0 ? 0 : mine % sms;
}

extern "C" unsigned gpulab_rt_ptx_nsmid(void) {
  return gpulab::rt::emulated_sms();
}

extern "C" unsigned long long gpulab_rt_ptx_globaltimer(void) {
  return static_cast<unsigned long long>(gpulab::rt::nanoseconds());
}
