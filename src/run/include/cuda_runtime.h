// The CUDA runtime API on gpulab's emulator: what `gpulab run` compiles a student's program
// against.
//
// Types, constants and error codes carry CUDA 13's names and values; the functions are implemented
// by gpulab's runtime (src/run/runtime/) on top of the SIMT emulator. Launches written
// `kernel<<<grid, block, bytes, stream>>>(args)` reach gpulab::rt::launch through gpulab's rewrite.
#pragma once

// nvcc compiles C++17, where there is no std::lerp; the emulator's programs are C++20, whose
// libstdc++ <math.h> brings std::lerp into the global namespace (`using std::lerp;`), and a
// program's own lerp (NVIDIA's helper_math.h) would conflict with it. libstdc++ declares it under
// another name here; std::lerp is given back below, for float, double and long double.
#if !defined(_GLIBCXX_CMATH) && !defined(_GLIBCXX_MATH_H)
#define lerp gpulab_std_lerp
#define GPULAB_RT_LERP_RENAMED 1
#endif

#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <source_location>
#include <tuple>
#include <type_traits>
#include <utility>

// The system headers of the emulator's own headers, read before the fused multiply-add region
// below, so that the host code that uses them keeps its own rounding.
#include <math.h>
#include <atomic>
#include <bit>
#include <chrono>
#include <cmath>
#if defined(GPULAB_RT_LERP_RENAMED)
#undef lerp
namespace std {
constexpr float lerp(float a, float b, float t) noexcept {
  return gpulab_std_lerp(a, b, t);
}
constexpr double lerp(double a, double b, double t) noexcept {
  return gpulab_std_lerp(a, b, t);
}
constexpr long double lerp(long double a, long double b, long double t) noexcept {
  return gpulab_std_lerp(a, b, t);
}
}  // namespace std
#endif
#include <coroutine>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <new>
#include <optional>
#include <string>
#include <vector>

// nvcc compiles device code with --fmad=true (unless -G or --fmad=false): a * b + c becomes one
// fused multiply-add, rounded once. With GPULAB_RT_FMAD (gpulab run's build of a .cu file on a
// CPU with FMA instructions) the emulator does the same where the GPU does: in __global__ and
// __device__ functions and in the loops over a block's threads that they are inlined into (this
// header and the emulator's), while host code, compiled with -ffp-contract=off, rounds each
// operation as the host compiler does. One difference: a __host__ __device__ function has one
// body here, device code's, and fuses when host code calls it too (g++ does not inline it there).
// No loop vectorisation there: g++ would vectorise a short dot product's products and add them
// one by one (an in-order reduction), where nvcc fuses each product into its sum.
#if defined(GPULAB_RT_FMAD)
#pragma GCC push_options
#pragma GCC optimize("fp-contract=fast", "no-tree-loop-vectorize")
#endif

#include "simt/cuda_shim.hpp"
#include "simt/thread_loop.hpp"

// The include guards of CUDA's own headers: code that tests them (NVIDIA's samples' helper_cuda.h)
// sees the runtime API as present.
#define __CUDA_RUNTIME_H__
#define __DRIVER_TYPES_H__
#define __VECTOR_TYPES_H__
#define __CUDA_RUNTIME_API_H__

// ---- Types and constants (CUDA 13's names and values)

enum cudaError {
  cudaSuccess = 0,
  cudaErrorInvalidValue = 1,
  cudaErrorMemoryAllocation = 2,
  cudaErrorInitializationError = 3,
  cudaErrorCudartUnloading = 4,
  cudaErrorInvalidConfiguration = 9,
  cudaErrorInvalidPitchValue = 12,
  cudaErrorInvalidSymbol = 13,
  cudaErrorInvalidHostPointer = 16,
  cudaErrorInvalidDevicePointer = 17,
  cudaErrorInvalidMemcpyDirection = 21,
  cudaErrorInsufficientDriver = 35,
  cudaErrorCallRequiresNewerDriver = 36,
  cudaErrorInvalidDeviceFunction = 98,
  cudaErrorNoDevice = 100,
  cudaErrorInvalidDevice = 101,
  cudaErrorNotMapped = 211,
  cudaErrorUnsupportedLimit = 215,
  cudaErrorPeerAccessUnsupported = 217,
  cudaErrorInvalidResourceHandle = 400,
  cudaErrorIllegalState = 401,
  cudaErrorSymbolNotFound = 500,
  cudaErrorNotReady = 600,
  cudaErrorIllegalAddress = 700,
  cudaErrorLaunchOutOfResources = 701,
  cudaErrorLaunchTimeout = 702,
  cudaErrorPeerAccessAlreadyEnabled = 704,
  cudaErrorPeerAccessNotEnabled = 705,
  cudaErrorAssert = 710,
  cudaErrorHostMemoryAlreadyRegistered = 712,
  cudaErrorHostMemoryNotRegistered = 713,
  cudaErrorIllegalInstruction = 715,
  cudaErrorMisalignedAddress = 716,
  cudaErrorLaunchFailure = 719,
  cudaErrorCooperativeLaunchTooLarge = 720,
  cudaErrorNotPermitted = 800,
  cudaErrorNotSupported = 801,
  cudaErrorStreamCaptureUnsupported = 900,
  cudaErrorStreamCaptureImplicit = 906,
  cudaErrorGraphExecUpdateFailure = 910,
  cudaErrorUnknown = 999,
};
typedef enum cudaError cudaError_t;

enum cudaMemcpyKind {
  cudaMemcpyHostToHost = 0,
  cudaMemcpyHostToDevice = 1,
  cudaMemcpyDeviceToHost = 2,
  cudaMemcpyDeviceToDevice = 3,
  cudaMemcpyDefault = 4,
};

enum cudaDeviceP2PAttr {
  cudaDevP2PAttrPerformanceRank = 1,
  cudaDevP2PAttrAccessSupported = 2,
  cudaDevP2PAttrNativeAtomicSupported = 3,
  cudaDevP2PAttrCudaArrayAccessSupported = 4,
  cudaDevP2PAttrOnlyPartialNativeAtomicSupported = 5,
};

enum cudaFuncAttribute {
  cudaFuncAttributeMaxDynamicSharedMemorySize = 8,
  cudaFuncAttributePreferredSharedMemoryCarveout = 9,
};

enum cudaFuncCache {
  cudaFuncCachePreferNone = 0,
  cudaFuncCachePreferShared = 1,
  cudaFuncCachePreferL1 = 2,
  cudaFuncCachePreferEqual = 3,
};

enum cudaSharedMemConfig {
  cudaSharedMemBankSizeDefault = 0,
  cudaSharedMemBankSizeFourByte = 1,
  cudaSharedMemBankSizeEightByte = 2,
};

enum cudaLimit {
  cudaLimitStackSize = 0x00,
  cudaLimitPrintfFifoSize = 0x01,
  cudaLimitMallocHeapSize = 0x02,
  cudaLimitDevRuntimeSyncDepth = 0x03,
  cudaLimitDevRuntimePendingLaunchCount = 0x04,
  cudaLimitMaxL2FetchGranularity = 0x05,
  cudaLimitPersistingL2CacheSize = 0x06,
};

enum cudaDeviceAttr {
  cudaDevAttrMaxThreadsPerBlock = 1,
  cudaDevAttrMaxBlockDimX = 2,
  cudaDevAttrMaxBlockDimY = 3,
  cudaDevAttrMaxBlockDimZ = 4,
  cudaDevAttrMaxGridDimX = 5,
  cudaDevAttrMaxGridDimY = 6,
  cudaDevAttrMaxGridDimZ = 7,
  cudaDevAttrMaxSharedMemoryPerBlock = 8,
  cudaDevAttrTotalConstantMemory = 9,
  cudaDevAttrWarpSize = 10,
  cudaDevAttrMaxPitch = 11,
  cudaDevAttrMaxRegistersPerBlock = 12,
  cudaDevAttrClockRate = 13,
  cudaDevAttrTextureAlignment = 14,
  cudaDevAttrGpuOverlap = 15,
  cudaDevAttrMultiProcessorCount = 16,
  cudaDevAttrKernelExecTimeout = 17,
  cudaDevAttrIntegrated = 18,
  cudaDevAttrCanMapHostMemory = 19,
  cudaDevAttrComputeMode = 20,
  cudaDevAttrMaxTexture1DWidth = 21,
  cudaDevAttrMaxTexture2DWidth = 22,
  cudaDevAttrMaxTexture2DHeight = 23,
  cudaDevAttrMaxTexture3DWidth = 24,
  cudaDevAttrMaxTexture3DHeight = 25,
  cudaDevAttrMaxTexture3DDepth = 26,
  cudaDevAttrMaxTexture2DLayeredWidth = 27,
  cudaDevAttrMaxTexture2DLayeredHeight = 28,
  cudaDevAttrMaxTexture2DLayeredLayers = 29,
  cudaDevAttrSurfaceAlignment = 30,
  cudaDevAttrConcurrentKernels = 31,
  cudaDevAttrEccEnabled = 32,
  cudaDevAttrPciBusId = 33,
  cudaDevAttrPciDeviceId = 34,
  cudaDevAttrTccDriver = 35,
  cudaDevAttrMemoryClockRate = 36,
  cudaDevAttrGlobalMemoryBusWidth = 37,
  cudaDevAttrL2CacheSize = 38,
  cudaDevAttrMaxThreadsPerMultiProcessor = 39,
  cudaDevAttrAsyncEngineCount = 40,
  cudaDevAttrUnifiedAddressing = 41,
  cudaDevAttrMaxTexture1DLayeredWidth = 42,
  cudaDevAttrMaxTexture1DLayeredLayers = 43,
  cudaDevAttrMaxTexture2DGatherWidth = 45,
  cudaDevAttrMaxTexture2DGatherHeight = 46,
  cudaDevAttrMaxTexture3DWidthAlt = 47,
  cudaDevAttrMaxTexture3DHeightAlt = 48,
  cudaDevAttrMaxTexture3DDepthAlt = 49,
  cudaDevAttrPciDomainId = 50,
  cudaDevAttrTexturePitchAlignment = 51,
  cudaDevAttrMaxTextureCubemapWidth = 52,
  cudaDevAttrMaxTextureCubemapLayeredWidth = 53,
  cudaDevAttrMaxTextureCubemapLayeredLayers = 54,
  cudaDevAttrMaxSurface1DWidth = 55,
  cudaDevAttrMaxSurface2DWidth = 56,
  cudaDevAttrMaxSurface2DHeight = 57,
  cudaDevAttrMaxSurface3DWidth = 58,
  cudaDevAttrMaxSurface3DHeight = 59,
  cudaDevAttrMaxSurface3DDepth = 60,
  cudaDevAttrMaxSurface1DLayeredWidth = 61,
  cudaDevAttrMaxSurface1DLayeredLayers = 62,
  cudaDevAttrMaxSurface2DLayeredWidth = 63,
  cudaDevAttrMaxSurface2DLayeredHeight = 64,
  cudaDevAttrMaxSurface2DLayeredLayers = 65,
  cudaDevAttrMaxSurfaceCubemapWidth = 66,
  cudaDevAttrMaxSurfaceCubemapLayeredWidth = 67,
  cudaDevAttrMaxSurfaceCubemapLayeredLayers = 68,
  cudaDevAttrMaxTexture1DLinearWidth = 69,
  cudaDevAttrMaxTexture2DLinearWidth = 70,
  cudaDevAttrMaxTexture2DLinearHeight = 71,
  cudaDevAttrMaxTexture2DLinearPitch = 72,
  cudaDevAttrMaxTexture2DMipmappedWidth = 73,
  cudaDevAttrMaxTexture2DMipmappedHeight = 74,
  cudaDevAttrComputeCapabilityMajor = 75,
  cudaDevAttrComputeCapabilityMinor = 76,
  cudaDevAttrMaxTexture1DMipmappedWidth = 77,
  cudaDevAttrStreamPrioritiesSupported = 78,
  cudaDevAttrGlobalL1CacheSupported = 79,
  cudaDevAttrLocalL1CacheSupported = 80,
  cudaDevAttrMaxSharedMemoryPerMultiprocessor = 81,
  cudaDevAttrMaxRegistersPerMultiprocessor = 82,
  cudaDevAttrManagedMemory = 83,
  cudaDevAttrIsMultiGpuBoard = 84,
  cudaDevAttrMultiGpuBoardGroupID = 85,
  cudaDevAttrHostNativeAtomicSupported = 86,
  cudaDevAttrSingleToDoublePrecisionPerfRatio = 87,
  cudaDevAttrPageableMemoryAccess = 88,
  cudaDevAttrConcurrentManagedAccess = 89,
  cudaDevAttrComputePreemptionSupported = 90,
  cudaDevAttrCanUseHostPointerForRegisteredMem = 91,
  cudaDevAttrCooperativeLaunch = 95,
  cudaDevAttrMaxSharedMemoryPerBlockOptin = 97,
  cudaDevAttrCanFlushRemoteWrites = 98,
  cudaDevAttrHostRegisterSupported = 99,
  cudaDevAttrPageableMemoryAccessUsesHostPageTables = 100,
  cudaDevAttrDirectManagedMemAccessFromHost = 101,
  cudaDevAttrMaxBlocksPerMultiprocessor = 106,
  cudaDevAttrMaxPersistingL2CacheSize = 108,
  cudaDevAttrMaxAccessPolicyWindowSize = 109,
  cudaDevAttrReservedSharedMemoryPerBlock = 111,
  cudaDevAttrSparseCudaArraySupported = 112,
  cudaDevAttrHostRegisterReadOnlySupported = 113,
  cudaDevAttrTimelineSemaphoreInteropSupported = 114,
  cudaDevAttrMemoryPoolsSupported = 115,
  cudaDevAttrGPUDirectRDMASupported = 116,
  cudaDevAttrGPUDirectRDMAFlushWritesOptions = 117,
  cudaDevAttrGPUDirectRDMAWritesOrdering = 118,
  cudaDevAttrMemoryPoolSupportedHandleTypes = 119,
  cudaDevAttrClusterLaunch = 120,
  cudaDevAttrDeferredMappingCudaArraySupported = 121,
  cudaDevAttrIpcEventSupport = 125,
  cudaDevAttrMemSyncDomainCount = 126,
  cudaDevAttrNumaConfig = 130,
  cudaDevAttrNumaId = 131,
  cudaDevAttrMpsEnabled = 133,
  cudaDevAttrHostNumaId = 134,
  cudaDevAttrD3D12CigSupported = 135,
  cudaDevAttrVulkanCigSupported = 138,
  cudaDevAttrGpuPciDeviceId = 139,
  cudaDevAttrGpuPciSubsystemId = 140,
  cudaDevAttrHostNumaMemoryPoolsSupported = 142,
  cudaDevAttrHostNumaMultinodeIpcSupported = 143,
  cudaDevAttrHostMemoryPoolsSupported = 144,
  cudaDevAttrOnlyPartialHostNativeAtomicSupported = 147,
};

enum cudaComputeMode {
  cudaComputeModeDefault = 0,
  cudaComputeModeExclusive = 1,
  cudaComputeModeProhibited = 2,
  cudaComputeModeExclusiveProcess = 3,
};

#define cudaHostAllocDefault 0x00
#define cudaHostAllocPortable 0x01
#define cudaHostAllocMapped 0x02
#define cudaHostAllocWriteCombined 0x04
#define cudaHostRegisterDefault 0x00
#define cudaHostRegisterPortable 0x01
#define cudaHostRegisterMapped 0x02
#define cudaHostRegisterIoMemory 0x04
#define cudaHostRegisterReadOnly 0x08
#define cudaStreamDefault 0x00
#define cudaStreamNonBlocking 0x01
#define cudaEventDefault 0x00
#define cudaEventBlockingSync 0x01
#define cudaEventDisableTiming 0x02
#define cudaEventInterprocess 0x04
#define cudaEventRecordDefault 0x00
#define cudaEventRecordExternal 0x01
#define cudaEventWaitDefault 0x00
#define cudaEventWaitExternal 0x01
#define cudaDeviceScheduleAuto 0x00
#define cudaDeviceScheduleSpin 0x01
#define cudaDeviceScheduleYield 0x02
#define cudaDeviceScheduleBlockingSync 0x04
#define cudaDeviceBlockingSync 0x04
#define cudaDeviceScheduleMask 0x07
#define cudaDeviceMapHost 0x08
#define cudaDeviceLmemResizeToMax 0x10
#define cudaDeviceMask 0xff
#define cudaMemAttachGlobal 0x01
#define cudaMemAttachHost 0x02
#define cudaMemAttachSingle 0x04
#define cudaOccupancyDefault 0x00
#define cudaOccupancyDisableCachingOverride 0x01
#define cudaCpuDeviceId (-1)
#define cudaInvalidDeviceId (-2)

enum cudaMemoryAdvise {
  cudaMemAdviseSetReadMostly = 1,
  cudaMemAdviseUnsetReadMostly = 2,
  cudaMemAdviseSetPreferredLocation = 3,
  cudaMemAdviseUnsetPreferredLocation = 4,
  cudaMemAdviseSetAccessedBy = 5,
  cudaMemAdviseUnsetAccessedBy = 6,
};
enum cudaMemLocationType {
  cudaMemLocationTypeInvalid = 0,
  cudaMemLocationTypeNone = 0,
  cudaMemLocationTypeDevice = 1,
  cudaMemLocationTypeHost = 2,
  cudaMemLocationTypeHostNuma = 3,
  cudaMemLocationTypeHostNumaCurrent = 4,
};
struct cudaMemLocation {
  enum cudaMemLocationType type;
  int id;
};

// Pitched and 3-D memory (cudaMallocPitch, cudaMalloc3D, cudaMemcpy2D/3D).
struct cudaExtent {
  size_t width, height, depth;
};
struct cudaPos {
  size_t x, y, z;
};
struct cudaPitchedPtr {
  void* ptr;
  size_t pitch;
  size_t xsize;
  size_t ysize;
};
// CUDA arrays belong to textures, which the emulator does not run: only a null one is accepted.
struct cudaArray;
typedef struct cudaArray* cudaArray_t;
struct cudaMemcpy3DParms {
  cudaArray_t srcArray;
  struct cudaPos srcPos;
  struct cudaPitchedPtr srcPtr;
  cudaArray_t dstArray;
  struct cudaPos dstPos;
  struct cudaPitchedPtr dstPtr;
  struct cudaExtent extent;
  enum cudaMemcpyKind kind;
};
inline cudaExtent make_cudaExtent(size_t w, size_t h, size_t d) {
  return {w, h, d};
}
inline cudaPos make_cudaPos(size_t x, size_t y, size_t z) {
  return {x, y, z};
}
inline cudaPitchedPtr make_cudaPitchedPtr(void* d, size_t p, size_t xsz, size_t ysz) {
  return {d, p, xsz, ysz};
}

struct CUstream_st;
typedef struct CUstream_st* cudaStream_t;
struct CUevent_st;
typedef struct CUevent_st* cudaEvent_t;
#define cudaStreamLegacy ((cudaStream_t)0x1)
#define cudaStreamPerThread ((cudaStream_t)0x2)
// Dynamic parallelism's streams of a grid (launches from a kernel only).
#define cudaStreamTailLaunch ((cudaStream_t)0x3)
#define cudaStreamFireAndForget ((cudaStream_t)0x4)

struct cudaUUID_st {
  char bytes[16];
};
typedef struct cudaUUID_st cudaUUID_t;

// Every field of CUDA 13's cudaDeviceProp; values describe the emulator honestly (see
// cudaGetDeviceProperties in src/run/runtime/). The fields CUDA 13 removed are still here for the
// programs of older books, marked so that the report says, once, what replaced each
// (src/run/removed_api.cpp).
#define GPULAB_REMOVED(key) [[deprecated("gpulab-removed:" #key)]]
struct cudaDeviceProp {
  char name[256];
  cudaUUID_t uuid;
  char luid[8];
  unsigned int luidDeviceNodeMask;
  size_t totalGlobalMem;
  size_t sharedMemPerBlock;
  int regsPerBlock;
  int warpSize;
  size_t memPitch;
  int maxThreadsPerBlock;
  int maxThreadsDim[3];
  int maxGridSize[3];
  size_t totalConstMem;
  int major;
  int minor;
  size_t textureAlignment;
  size_t texturePitchAlignment;
  int multiProcessorCount;
  int integrated;
  int canMapHostMemory;
  int maxTexture1D;
  int maxTexture1DMipmap;
  int maxTexture2D[2];
  int maxTexture2DMipmap[2];
  int maxTexture2DLinear[3];
  int maxTexture2DGather[2];
  int maxTexture3D[3];
  int maxTexture3DAlt[3];
  int maxTextureCubemap;
  int maxTexture1DLayered[2];
  int maxTexture2DLayered[3];
  int maxTextureCubemapLayered[2];
  int maxSurface1D;
  int maxSurface2D[2];
  int maxSurface3D[3];
  int maxSurface1DLayered[2];
  int maxSurface2DLayered[3];
  int maxSurfaceCubemap;
  int maxSurfaceCubemapLayered[2];
  size_t surfaceAlignment;
  int concurrentKernels;
  int ECCEnabled;
  int pciBusID;
  int pciDeviceID;
  int pciDomainID;
  int tccDriver;
  int asyncEngineCount;
  int unifiedAddressing;
  int memoryBusWidth;
  int l2CacheSize;
  int persistingL2CacheMaxSize;
  int maxThreadsPerMultiProcessor;
  int streamPrioritiesSupported;
  int globalL1CacheSupported;
  int localL1CacheSupported;
  size_t sharedMemPerMultiprocessor;
  int regsPerMultiprocessor;
  int managedMemory;
  int isMultiGpuBoard;
  int multiGpuBoardGroupID;
  int hostNativeAtomicSupported;
  int pageableMemoryAccess;
  int concurrentManagedAccess;
  int computePreemptionSupported;
  int canUseHostPointerForRegisteredMem;
  int cooperativeLaunch;
  size_t sharedMemPerBlockOptin;
  int pageableMemoryAccessUsesHostPageTables;
  int directManagedMemAccessFromHost;
  int maxBlocksPerMultiProcessor;
  int accessPolicyMaxWindowSize;
  size_t reservedSharedMemPerBlock;
  int hostRegisterSupported;
  int sparseCudaArraySupported;
  int hostRegisterReadOnlySupported;
  int timelineSemaphoreInteropSupported;
  int memoryPoolsSupported;
  int gpuDirectRDMASupported;
  unsigned int gpuDirectRDMAFlushWritesOptions;
  int gpuDirectRDMAWritesOrdering;
  unsigned int memoryPoolSupportedHandleTypes;
  int deferredMappingCudaArraySupported;
  int ipcEventSupported;
  int clusterLaunch;
  int unifiedFunctionPointers;
  int deviceNumaConfig;
  int deviceNumaId;
  int mpsEnabled;
  int hostNumaId;
  unsigned int gpuPciDeviceID;
  unsigned int gpuPciSubsystemID;
  int hostNumaMultinodeIpcSupported;
  int reserved[56];
  // Removed in CUDA 13.
  GPULAB_REMOVED(clockRate) int clockRate;
  GPULAB_REMOVED(memoryClockRate) int memoryClockRate;
  GPULAB_REMOVED(deviceOverlap) int deviceOverlap;
  GPULAB_REMOVED(kernelExecTimeoutEnabled) int kernelExecTimeoutEnabled;
  GPULAB_REMOVED(computeMode) int computeMode;
  GPULAB_REMOVED(maxTexture1DLinear) int maxTexture1DLinear;
  GPULAB_REMOVED(singleToDoublePrecisionPerfRatio) int singleToDoublePrecisionPerfRatio;
  GPULAB_REMOVED(cooperativeMultiDeviceLaunch) int cooperativeMultiDeviceLaunch;
};

struct cudaFuncAttributes {
  size_t sharedSizeBytes;
  size_t constSizeBytes;
  size_t localSizeBytes;
  int maxThreadsPerBlock;
  int numRegs;
  int ptxVersion;
  int binaryVersion;
  int cacheModeCA;
  int maxDynamicSharedSizeBytes;
  int preferredShmemCarveout;
  int clusterDimMustBeSet;
  int requiredClusterWidth;
  int requiredClusterHeight;
  int requiredClusterDepth;
  int clusterSchedulingPolicyPreference;
  int nonPortableClusterSizeAllowed;
  int reserved[16];
};

enum cudaMemoryType {
  cudaMemoryTypeUnregistered = 0,
  cudaMemoryTypeHost = 1,
  cudaMemoryTypeDevice = 2,
  cudaMemoryTypeManaged = 3,
};
struct cudaPointerAttributes {
  enum cudaMemoryType type;
  int device;
  void* devicePointer;
  void* hostPointer;
};

// Host functions a stream calls (cudaStreamAddCallback) are declared with it; no calling convention
// to name on Linux.
#define CUDART_CB

// The version the emulator's API follows (CUDA 13.0).
#define CUDART_VERSION 13000

// ---- The runtime API

cudaError_t cudaGetLastError(void);
cudaError_t cudaPeekAtLastError(void);
const char* cudaGetErrorString(cudaError_t error);
const char* cudaGetErrorName(cudaError_t error);

cudaError_t cudaGetDeviceCount(int* count);
cudaError_t cudaGetDevice(int* device);
cudaError_t cudaSetDevice(int device);
cudaError_t cudaSetDeviceFlags(unsigned int flags);
cudaError_t cudaGetDeviceProperties(cudaDeviceProp* prop, int device);
cudaError_t cudaDeviceGetAttribute(int* value, cudaDeviceAttr attr, int device);
cudaError_t cudaDeviceSynchronize(void);
cudaError_t cudaDeviceReset(void);
cudaError_t cudaDeviceSetLimit(cudaLimit limit, size_t value);
cudaError_t cudaDeviceGetLimit(size_t* value, cudaLimit limit);
cudaError_t cudaDeviceSetCacheConfig(cudaFuncCache config);
cudaError_t cudaDeviceSetSharedMemConfig(cudaSharedMemConfig config);
cudaError_t cudaDriverGetVersion(int* version);
cudaError_t cudaRuntimeGetVersion(int* version);
cudaError_t cudaMemGetInfo(size_t* free, size_t* total);
inline cudaError_t cudaProfilerStart(void) {
  return cudaSuccess;  // no profiler on the emulator
}
inline cudaError_t cudaProfilerStop(void) {
  return cudaSuccess;
}

cudaError_t cudaMalloc(void** ptr, size_t size,
                       std::source_location where = std::source_location::current());
cudaError_t cudaMallocManaged(void** ptr, size_t size, unsigned int flags = cudaMemAttachGlobal,
                              std::source_location where = std::source_location::current());
cudaError_t cudaMallocHost(void** ptr, size_t size,
                           std::source_location where = std::source_location::current());
cudaError_t cudaHostAlloc(void** ptr, size_t size, unsigned int flags,
                          std::source_location where = std::source_location::current());
cudaError_t cudaMallocPitch(void** ptr, size_t* pitch, size_t width, size_t height,
                            std::source_location where = std::source_location::current());
cudaError_t cudaFree(void* ptr);
cudaError_t cudaFreeHost(void* ptr);
cudaError_t cudaHostGetDevicePointer(void** device_ptr, void* host_ptr, unsigned int flags);
cudaError_t cudaPointerGetAttributes(cudaPointerAttributes* attributes, const void* ptr);

cudaError_t cudaMemcpy(void* dst, const void* src, size_t count, cudaMemcpyKind kind,
                       std::source_location where = std::source_location::current());
cudaError_t cudaMemcpyAsync(void* dst, const void* src, size_t count, cudaMemcpyKind kind,
                            cudaStream_t stream = 0,
                            std::source_location where = std::source_location::current());
cudaError_t cudaMemcpyPeer(void* dst, int dst_device, const void* src, int src_device, size_t count,
                           std::source_location where = std::source_location::current());
cudaError_t cudaMemcpyPeerAsync(void* dst, int dst_device, const void* src, int src_device,
                                size_t count, cudaStream_t stream = 0,
                                std::source_location where = std::source_location::current());
cudaError_t cudaMemcpy2D(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width,
                         size_t height, cudaMemcpyKind kind);
cudaError_t cudaMemset(void* ptr, int value, size_t count);
cudaError_t cudaMemsetAsync(void* ptr, int value, size_t count, cudaStream_t stream = 0);
// Unified memory hints: accepted (host memory is the device's); the range must be managed memory.
cudaError_t cudaMemPrefetchAsync(const void* ptr, size_t count, struct cudaMemLocation location,
                                 unsigned int flags, cudaStream_t stream = 0);
cudaError_t cudaMemAdvise(const void* ptr, size_t count, enum cudaMemoryAdvise advice,
                          struct cudaMemLocation location);
GPULAB_REMOVED(cudaMemPrefetchAsyncDevice)
cudaError_t cudaMemPrefetchAsync(const void* ptr, size_t count, int device,
                                 cudaStream_t stream = 0);
GPULAB_REMOVED(cudaMemAdviseDevice)
cudaError_t cudaMemAdvise(const void* ptr, size_t count, enum cudaMemoryAdvise advice, int device);
cudaError_t cudaStreamAttachMemAsync(cudaStream_t stream, void* ptr, size_t length = 0,
                                     unsigned int flags = cudaMemAttachSingle);

// Pitched, 2-D and 3-D memory; stream-ordered allocation.
cudaError_t cudaMemcpy2DAsync(void* dst, size_t dpitch, const void* src, size_t spitch,
                              size_t width, size_t height, cudaMemcpyKind kind,
                              cudaStream_t stream = 0);
cudaError_t cudaMemset2D(void* ptr, size_t pitch, int value, size_t width, size_t height);
cudaError_t cudaMemset2DAsync(void* ptr, size_t pitch, int value, size_t width, size_t height,
                              cudaStream_t stream = 0);
cudaError_t cudaMalloc3D(struct cudaPitchedPtr* pitched, struct cudaExtent extent,
                         std::source_location where = std::source_location::current());
cudaError_t cudaMemcpy3D(const struct cudaMemcpy3DParms* p);
cudaError_t cudaMemcpy3DAsync(const struct cudaMemcpy3DParms* p, cudaStream_t stream = 0);
cudaError_t cudaMemset3D(struct cudaPitchedPtr pitched, int value, struct cudaExtent extent);
cudaError_t cudaMemset3DAsync(struct cudaPitchedPtr pitched, int value, struct cudaExtent extent,
                              cudaStream_t stream = 0);
cudaError_t cudaMallocAsync(void** ptr, size_t size, cudaStream_t stream,
                            std::source_location where = std::source_location::current());
cudaError_t cudaFreeAsync(void* ptr, cudaStream_t stream);

// Stream-ordered memory pools: the device's default pool (what cudaMallocAsync takes from) and
// pools of the program's own. The emulator hands memory back to the host when it is freed, so a
// pool reserves exactly what its allocations use; the release threshold is kept and reported.
typedef struct gpulab_mem_pool* cudaMemPool_t;
enum cudaMemPoolAttr {
  cudaMemPoolReuseFollowEventDependencies = 0x1,
  cudaMemPoolReuseAllowOpportunistic = 0x2,
  cudaMemPoolReuseAllowInternalDependencies = 0x3,
  cudaMemPoolAttrReleaseThreshold = 0x4,
  cudaMemPoolAttrReservedMemCurrent = 0x5,
  cudaMemPoolAttrReservedMemHigh = 0x6,
  cudaMemPoolAttrUsedMemCurrent = 0x7,
  cudaMemPoolAttrUsedMemHigh = 0x8
};
enum cudaMemAllocationType {
  cudaMemAllocationTypeInvalid = 0x0,
  cudaMemAllocationTypePinned = 0x1,
  cudaMemAllocationTypeMax = 0x7FFFFFFF
};
enum cudaMemAllocationHandleType {
  cudaMemHandleTypeNone = 0x0,
  cudaMemHandleTypePosixFileDescriptor = 0x1,
  cudaMemHandleTypeWin32 = 0x2,
  cudaMemHandleTypeWin32Kmt = 0x4,
  cudaMemHandleTypeFabric = 0x8
};
struct cudaMemPoolProps {
  enum cudaMemAllocationType allocType;
  enum cudaMemAllocationHandleType handleTypes;
  struct cudaMemLocation location;
  void* win32SecurityAttributes;
  size_t maxSize;
  unsigned short usage;
  unsigned char reserved[54];
};
cudaError_t cudaDeviceGetDefaultMemPool(cudaMemPool_t* pool, int device);
cudaError_t cudaDeviceGetMemPool(cudaMemPool_t* pool, int device);
cudaError_t cudaDeviceSetMemPool(int device, cudaMemPool_t pool);
cudaError_t cudaMemPoolCreate(cudaMemPool_t* pool, const struct cudaMemPoolProps* props);
cudaError_t cudaMemPoolDestroy(cudaMemPool_t pool);
cudaError_t cudaMemPoolSetAttribute(cudaMemPool_t pool, enum cudaMemPoolAttr attr, void* value);
cudaError_t cudaMemPoolGetAttribute(cudaMemPool_t pool, enum cudaMemPoolAttr attr, void* value);
cudaError_t cudaMemPoolTrimTo(cudaMemPool_t pool, size_t min_bytes_to_keep);
cudaError_t cudaMallocFromPoolAsync(void** ptr, size_t size, cudaMemPool_t pool,
                                    cudaStream_t stream,
                                    std::source_location where = std::source_location::current());

// Host memory the device reaches (zero-copy): the emulator's device memory is host memory, so a
// mapped pointer is the host pointer itself, as with CUDA's unified addressing.
cudaError_t cudaHostRegister(void* ptr, size_t size, unsigned int flags,
                             std::source_location where = std::source_location::current());
cudaError_t cudaHostUnregister(void* ptr);
cudaError_t cudaHostGetFlags(unsigned int* flags, void* host_ptr);

cudaError_t cudaStreamCreate(cudaStream_t* stream);
cudaError_t cudaStreamCreateWithFlags(cudaStream_t* stream, unsigned int flags);
cudaError_t cudaStreamDestroy(cudaStream_t stream);
cudaError_t cudaStreamSynchronize(cudaStream_t stream);
cudaError_t cudaStreamQuery(cudaStream_t stream);
cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event, unsigned int flags = 0);

cudaError_t cudaEventCreate(cudaEvent_t* event);
cudaError_t cudaEventCreateWithFlags(cudaEvent_t* event, unsigned int flags);
cudaError_t cudaEventDestroy(cudaEvent_t event);
cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream = 0);
cudaError_t cudaEventSynchronize(cudaEvent_t event);
cudaError_t cudaEventQuery(cudaEvent_t event);
cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t start, cudaEvent_t end);
cudaError_t cudaEventRecordWithFlags(cudaEvent_t event, cudaStream_t stream = 0,
                                     unsigned int flags = 0);

// Stream priorities and flags (an H100's range: 0 the least, -5 the greatest), callbacks.
cudaError_t cudaDeviceGetStreamPriorityRange(int* least, int* greatest);
cudaError_t cudaStreamCreateWithPriority(cudaStream_t* stream, unsigned int flags, int priority);
cudaError_t cudaStreamGetPriority(cudaStream_t stream, int* priority);
cudaError_t cudaStreamGetFlags(cudaStream_t stream, unsigned int* flags);
cudaError_t cudaStreamGetDevice(cudaStream_t stream, int* device);
cudaError_t cudaStreamGetId(cudaStream_t stream, unsigned long long* id);
typedef void (*cudaStreamCallback_t)(cudaStream_t stream, cudaError_t status, void* user_data);
cudaError_t cudaStreamAddCallback(cudaStream_t stream, cudaStreamCallback_t callback,
                                  void* user_data, unsigned int flags);

// The device, more.
cudaError_t cudaGetDeviceFlags(unsigned int* flags);
cudaError_t cudaInitDevice(int device, unsigned int device_flags, unsigned int flags);
cudaError_t cudaChooseDevice(int* device, const cudaDeviceProp* prop);
cudaError_t cudaDeviceGetCacheConfig(cudaFuncCache* config);
cudaError_t cudaDeviceGetSharedMemConfig(cudaSharedMemConfig* config);
cudaError_t cudaDeviceGetPCIBusId(char* bus_id, int length, int device);
cudaError_t cudaDeviceGetByPCIBusId(int* device, const char* bus_id);
cudaError_t cudaSetValidDevices(int* devices, int count);
// One device: it can reach no peer (the query of deviceQuery and the samples; enabling peer access
// and peer copies are refused by name).
cudaError_t cudaDeviceCanAccessPeer(int* can_access, int device, int peer_device);
// Peer access, as on a machine with one GPU (the emulated device is one): measured on an H200.
cudaError_t cudaDeviceEnablePeerAccess(int peer_device, unsigned int flags);
cudaError_t cudaDeviceDisablePeerAccess(int peer_device);
cudaError_t cudaDeviceGetP2PAttribute(int* value, cudaDeviceP2PAttr attr, int src_device,
                                      int dst_device);

// Launching a kernel named by its address, with an array of pointers to its arguments.
cudaError_t cudaLaunchKernel(const void* kernel, dim3 grid, dim3 block, void** args,
                             size_t shared_bytes = 0, cudaStream_t stream = 0,
                             std::source_location where = std::source_location::current());

// Removed in CUDA 13 (the cudaThread* calls were deprecated since CUDA 4.0): still run here.
cudaError_t cudaDeviceGetCacheConfig(cudaFuncCache* config);
GPULAB_REMOVED(cudaThreadSynchronize) inline cudaError_t cudaThreadSynchronize(void) {
  return cudaDeviceSynchronize();
}
GPULAB_REMOVED(cudaThreadExit) inline cudaError_t cudaThreadExit(void) {
  return cudaDeviceReset();
}
GPULAB_REMOVED(cudaThreadSetLimit)
inline cudaError_t cudaThreadSetLimit(cudaLimit limit, size_t value) {
  return cudaDeviceSetLimit(limit, value);
}
GPULAB_REMOVED(cudaThreadGetLimit)
inline cudaError_t cudaThreadGetLimit(size_t* value, cudaLimit limit) {
  return cudaDeviceGetLimit(value, limit);
}
GPULAB_REMOVED(cudaThreadSetCacheConfig)
inline cudaError_t cudaThreadSetCacheConfig(cudaFuncCache config) {
  return cudaDeviceSetCacheConfig(config);
}
GPULAB_REMOVED(cudaThreadGetCacheConfig)
inline cudaError_t cudaThreadGetCacheConfig(cudaFuncCache* config) {
  return cudaDeviceGetCacheConfig(config);
}

// The warp functions without a mask, which CUDA 9 removed for compute capability 7.0 and newer
// (nvcc 13 refuses them for every GPU it builds for): they act on the lanes that are active
// together, as __activemask() names them. Kernels that call them run on fibers (run/split).
#define GPULAB_LEGACY_SHUFFLES(T)                                                      \
  GPULAB_REMOVED(__shfl)                                                               \
  inline T __shfl(T var, int srcLane, int width = warpSize,                            \
                  std::source_location where = std::source_location::current()) {      \
    return __shfl_sync(__activemask(where), var, srcLane, width, where);               \
  }                                                                                    \
  GPULAB_REMOVED(__shfl_up)                                                            \
  inline T __shfl_up(T var, unsigned int delta, int width = warpSize,                  \
                     std::source_location where = std::source_location::current()) {   \
    return __shfl_up_sync(__activemask(where), var, delta, width, where);              \
  }                                                                                    \
  GPULAB_REMOVED(__shfl_down)                                                          \
  inline T __shfl_down(T var, unsigned int delta, int width = warpSize,                \
                       std::source_location where = std::source_location::current()) { \
    return __shfl_down_sync(__activemask(where), var, delta, width, where);            \
  }                                                                                    \
  GPULAB_REMOVED(__shfl_xor)                                                           \
  inline T __shfl_xor(T var, int laneMask, int width = warpSize,                       \
                      std::source_location where = std::source_location::current()) {  \
    return __shfl_xor_sync(__activemask(where), var, laneMask, width, where);          \
  }
GPULAB_LEGACY_SHUFFLES(int)
GPULAB_LEGACY_SHUFFLES(unsigned int)
GPULAB_LEGACY_SHUFFLES(long)
GPULAB_LEGACY_SHUFFLES(unsigned long)
GPULAB_LEGACY_SHUFFLES(long long)
GPULAB_LEGACY_SHUFFLES(unsigned long long)
GPULAB_LEGACY_SHUFFLES(float)
GPULAB_LEGACY_SHUFFLES(double)
#undef GPULAB_LEGACY_SHUFFLES
GPULAB_REMOVED(__any)
inline int __any(int predicate, std::source_location where = std::source_location::current()) {
  return __any_sync(__activemask(where), predicate, where);
}
GPULAB_REMOVED(__all)
inline int __all(int predicate, std::source_location where = std::source_location::current()) {
  return __all_sync(__activemask(where), predicate, where);
}
GPULAB_REMOVED(__ballot)
inline unsigned __ballot(int predicate,
                         std::source_location where = std::source_location::current()) {
  return __ballot_sync(__activemask(where), predicate, where);
}

// ---- What the templates and the rewritten launches call

namespace gpulab::rt {

// The program's __device__, __constant__ and __managed__ variables, by name ('\n' after each):
// the rewrite registers each file's (run/rewrite.cpp); cudaMemcpy takes their addresses for
// device memory.
bool register_device_variables(const char* names);

struct LaunchSite {
  const char* callee;  // the kernel as written before <<<
  const char* file;
  int line;
};

struct LaunchConfig {
  dim3 grid, block;
  size_t dynamic_shared_bytes = 0;
  cudaStream_t stream = nullptr;
  bool cooperative = false;  // cudaLaunchCooperativeKernel: every block resident at once
};
inline LaunchConfig config(dim3 grid, dim3 block, size_t dynamic_shared_bytes = 0,
                           cudaStream_t stream = nullptr) {
  return {grid, block, dynamic_shared_bytes, stream};
}

// The kernel named without ambiguity, typed (Tag only makes the rewrite's test dependent); a
// launch of an overloaded kernel or a template with deduced arguments gets nullptr instead.
template <class Tag, class F>
requires std::is_function_v<F> F* kernel_address(F* f) {
  return f;
}

// Runs one launch: `run_thread(closure)` runs the kernel body for the current CUDA thread; the
// closure (the kernel's arguments) lives at [closure, closure + closure_bytes).
// run_threads(closure, loop) runs the block's thread loop with the body inlined.
void launch_erased(const LaunchSite& site, const void* kernel, const LaunchConfig& config,
                   void (*run_thread)(const void*), const void* closure, size_t closure_bytes,
                   void (*run_threads)(const void*, ::gpulab::simt::detail::ThreadLoop&) = nullptr);

// A profiled build (gpulab profile) counts every basic block a CUDA thread executes, so there the
// launch glue stays as small as it was when the counts were checked against Nsight Compute: no
// loop over the block's threads compiled with the kernel (simt/thread_loop.hpp) and no typed
// parameter passing (KernelParameters). The cost: a by-value argument with a destructor is
// destroyed per thread again under gpulab profile.
#ifdef GPULAB_RT_PROFILED
inline constexpr bool kProfiledBuild = true;
#else
inline constexpr bool kProfiledBuild = false;
#endif
inline constexpr bool kCompiledThreadLoop = !kProfiledBuild;

// The kernel parameter space of CUDA 12.1 and newer on Volta and newer GPUs (4 KB before).
inline constexpr size_t kMaxParameterBytes = 32764;

// Parameters past the limit are a compile error, as with nvcc ("Formal parameter space overflowed
// (32776 bytes required, max 32764 bytes allowed)"): g++ names this class with both numbers, and
// gpulab run says nvcc's sentence with them (run/program.cpp).
template <size_t Required, size_t Max = kMaxParameterBytes>
struct formal_parameter_space {
  static_assert(Required <= Max,
                "Formal parameter space overflowed: a kernel's parameters take more than 32764 "
                "bytes, CUDA's limit / 内核参数超过 CUDA 的 32764 字节上限");
  static constexpr bool fits = true;
};

template <class... P>
constexpr size_t parameter_bytes() {
  size_t offset = 0;
  ((offset = (offset + alignof(P) - 1) / alignof(P) * alignof(P) + sizeof(P)), ...);
  return offset;
}

// A parameter of class type that the C++ ABI (Itanium's, which g++ follows on Linux) passes by
// invisible reference: one with a non-trivial copy or move constructor or destructor. The caller
// makes the object and passes its address; the callee neither copies nor destroys it.
template <class T>
inline constexpr bool passed_by_reference = std::is_class_v<T>&& std::is_copy_constructible_v<T> &&
                                            (!std::is_trivially_copy_constructible_v<T> ||
                                             !std::is_trivially_move_constructible_v<T> ||
                                             !std::is_trivially_destructible_v<T>);

#if defined(__GXX_ABI_VERSION) && (defined(__x86_64__) || defined(__aarch64__))
inline constexpr bool kItaniumCalls = true;
#else
inline constexpr bool kItaniumCalls = false;
#endif

// One CUDA thread's own bytes of a parameter.
template <class T>
struct ParameterStorage {
  alignas(T) unsigned char bytes[sizeof(T)];
};

template <class K>
struct KernelParameters {
  static constexpr bool known = false;
};
template <class... P>
struct KernelParameters<void (*)(P...)> {
  static constexpr bool known = true;
  using Tuple = std::tuple<std::remove_cv_t<P>...>;
  template <class... Args>
  static constexpr bool takes() {
    if constexpr (sizeof...(Args) != sizeof...(P)) {
      return false;
    } else {
      return (std::is_convertible_v<Args&&, P> && ...) && (!std::is_reference_v<P> && ...);
    }
  }
  static constexpr bool by_bytes = kItaniumCalls && (passed_by_reference<P> || ...);
  static constexpr size_t bytes = parameter_bytes<std::remove_cv_t<P>...>();

  // One CUDA thread's call. On a GPU the arguments are bytes copied into the kernel's parameter
  // space once per launch: no constructor or destructor runs in the kernel (CUDA by Example's
  // lock struct frees its memory in its destructor). A class the ABI passes by reference is
  // therefore copied as bytes into this thread's own storage and passed by its address.
  template <size_t... I>
  GPULAB_RT_NO_TSAN static void call(void (*kernel)(P...), const Tuple& params,
                                     std::index_sequence<I...>) {
    if constexpr (!by_bytes) {
      kernel(std::get<I>(params)...);
    } else {
      std::tuple<ParameterStorage<std::remove_cv_t<P>>...> own;
      ((passed_by_reference<std::remove_cv_t<P>>
            ? static_cast<void>(
                  std::memcpy(std::get<I>(own).bytes, &std::get<I>(params), sizeof(P)))
            : static_cast<void>(0)),
       ...);
      using Bytes = void (*)(std::conditional_t<passed_by_reference<std::remove_cv_t<P>>, void*,
                                                std::remove_cv_t<P>>...);
      const auto as_bytes = reinterpret_cast<Bytes>(reinterpret_cast<void (*)()>(kernel));
      as_bytes(pass<std::remove_cv_t<P>>(std::get<I>(params), std::get<I>(own).bytes)...);
    }
  }
  template <class T>
  static decltype(auto) pass(const T& value, unsigned char* own) {
    if constexpr (passed_by_reference<T>) {
      return static_cast<void*>(own);
    } else {
      return static_cast<const T&>(value);
    }
  }
};

// The body of a launch that calls no kernel by name (a launch by address: cudaLaunchKernel, a
// graph's kernel node): the kernel is called through its address.
struct UnnamedKernel {
  template <class... A>
  void operator()(A&...) const {}
};

template <class Body, class K>
struct Launcher {
  LaunchSite site;
  K kernel;
  Body body;
  LaunchConfig config;

  static const void* address(K k) {
    if constexpr (std::is_same_v<K, std::nullptr_t>) {
      return nullptr;
    } else {
      return reinterpret_cast<const void*>(k);
    }
  }

  template <class... Args>
  void operator()(Args&&... args) const {
    using Params = KernelParameters<K>;
    constexpr bool typed = [] {
      if constexpr (Params::known && !kProfiledBuild) {
        return Params::template takes<Args...>();
      } else {
        return false;
      }
    }();
    if constexpr (typed) {
      static_assert(formal_parameter_space<Params::bytes>::fits);
      // The arguments are converted to the kernel's parameters once, on the host, as a GPU's
      // launch does; each CUDA thread gets its own copy of the parameters.
      struct Closure {
        K kernel;
        [[no_unique_address]] Body body;
        typename Params::Tuple params;
      };
      const Closure closure{kernel, body, typename Params::Tuple(std::forward<Args>(args)...)};
      launch_erased(
          site, address(kernel), config,
          [](const void* c) GPULAB_RT_NO_TSAN {
            const auto& cl = *static_cast<const Closure*>(c);
            Params::call(cl.kernel, cl.params,
                         std::make_index_sequence<std::tuple_size_v<typename Params::Tuple>>{});
          },
          &closure, sizeof closure,
          kCompiledThreadLoop
              ? +[](const void* c, ::gpulab::simt::detail::ThreadLoop& loop) {
                  const auto& cl = *static_cast<const Closure*>(c);
                  ::gpulab::simt::detail::run_thread_loop(loop, [&cl]() GPULAB_RT_NO_TSAN {
                    if constexpr (!Params::by_bytes && !std::is_same_v<Body, UnnamedKernel>) {
                      // The launch's body names the kernel: the compiler may inline it into
                      // the loop (a call through cl.kernel, a pointer it cannot see, it
                      // cannot). The same call with the same parameters.
                      std::apply(cl.body, cl.params);
                    } else {
                      Params::call(
                          cl.kernel, cl.params,
                          std::make_index_sequence<std::tuple_size_v<typename Params::Tuple>>{});
                    }
                  });
                }
              : nullptr);
    } else {
      static_assert(formal_parameter_space<parameter_bytes<std::decay_t<Args>...>()>::fits);
      // The kernel's type is not known here (an overloaded kernel, a template with deduced
      // arguments): the arguments are evaluated once, on the host, and each CUDA thread gets its
      // own copy of the parameters.
      struct Closure {
        Body body;
        std::tuple<std::decay_t<Args>...> args;
      };
      const Closure closure{body, {std::forward<Args>(args)...}};
      launch_erased(
          site, address(kernel), config,
          [](const void* c) GPULAB_RT_NO_TSAN {
            const auto& cl = *static_cast<const Closure*>(c);
            std::apply(cl.body, cl.args);
          },
          &closure, sizeof closure,
          kCompiledThreadLoop
              ? +[](const void* c, ::gpulab::simt::detail::ThreadLoop& loop) {
                  const auto& cl = *static_cast<const Closure*>(c);
                  ::gpulab::simt::detail::run_thread_loop(
                      loop, [&cl]() GPULAB_RT_NO_TSAN { std::apply(cl.body, cl.args); });
                }
              : nullptr);
    }
  }
};

template <class Body, class K>
Launcher<Body, K> launch(LaunchSite site, K kernel, Body body, LaunchConfig config) {
  return {site, kernel, body, config};
}

cudaError_t memcpy_symbol(void* symbol, size_t symbol_bytes, void* host, size_t count,
                          size_t offset, cudaMemcpyKind kind, bool to_symbol);
cudaError_t func_set_attribute(const void* kernel, cudaFuncAttribute attribute, int value);
cudaError_t func_get_attributes(cudaFuncAttributes* attributes, const void* kernel);
// The occupancy API, answered by gpulab's occupancy calculator (src/calc/occupancy) for the
// emulated device (an H100's limits; registers not counted: the emulator has none).
cudaError_t occupancy_max_active_blocks(int* blocks, const void* kernel, int block_size,
                                        size_t dynamic_shared_bytes, unsigned int flags);
cudaError_t occupancy_available_dynamic_shared(size_t* bytes, const void* kernel, int blocks,
                                               int block_size);
// The kernel as a `const void*`, whether the program passes the function or its address.
template <class T>
const void* kernel_pointer(T kernel) {
  if constexpr (std::is_pointer_v<T> && std::is_function_v<std::remove_pointer_t<T>>) {
    return reinterpret_cast<const void*>(kernel);
  } else {
    return static_cast<const void*>(kernel);
  }
}
// cudaOccupancyMaxPotentialBlockSize*: the block size with the most threads per SM, trying each
// multiple of the warp size from the largest down (CUDA's own order), dynamic shared memory from
// `shared_of(block_size)`.
template <class F>
cudaError_t occupancy_best_block(int* min_grid, int* block, const void* kernel, F shared_of,
                                 int block_limit, unsigned int flags) {
  if (min_grid == nullptr || block == nullptr || kernel == nullptr) return cudaErrorInvalidValue;
  cudaFuncAttributes attributes;
  if (const cudaError_t e = func_get_attributes(&attributes, kernel); e != cudaSuccess) return e;
  int per_sm = 0, warp = 0, device_limit = 0, sms = 0;
  cudaDeviceGetAttribute(&per_sm, cudaDevAttrMaxThreadsPerMultiProcessor, 0);
  cudaDeviceGetAttribute(&warp, cudaDevAttrWarpSize, 0);
  cudaDeviceGetAttribute(&device_limit, cudaDevAttrMaxThreadsPerBlock, 0);
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  int limit = block_limit == 0 ? device_limit : block_limit;
  limit = std::min(limit, std::min(device_limit, attributes.maxThreadsPerBlock));
  int best_block = 0, best_blocks = 0, best_threads = 0;
  for (int aligned = (limit + warp - 1) / warp * warp; aligned > 0; aligned -= warp) {
    const int size = std::min(aligned, limit);
    int blocks = 0;
    if (const cudaError_t e = occupancy_max_active_blocks(
            &blocks, kernel, size, static_cast<size_t>(shared_of(size)), flags);
        e != cudaSuccess) {
      return e;
    }
    if (size * blocks > best_threads) {
      best_block = size;
      best_blocks = blocks;
      best_threads = size * blocks;
    }
    if (best_threads == per_sm) break;
  }
  *min_grid = best_blocks * sms;
  *block = best_block;
  return cudaSuccess;
}

}  // namespace gpulab::rt

// Kernel printf: buffered until the host synchronises, as on a GPU; host printf goes straight out.
extern "C" int gpulab_rt_printf(const char* format, ...) __attribute__((format(printf, 1, 2)));
namespace std {
using ::gpulab_rt_printf;
}

// ---- Templates of the runtime API (the typed overloads CUDA's header gives C++ programs)

template <class T>
inline cudaError_t cudaMalloc(T** ptr, size_t size,
                              std::source_location where = std::source_location::current()) {
  return cudaMalloc(reinterpret_cast<void**>(ptr), size, where);
}
template <class T>
inline cudaError_t cudaMallocManaged(T** ptr, size_t size, unsigned int flags = cudaMemAttachGlobal,
                                     std::source_location where = std::source_location::current()) {
  return cudaMallocManaged(reinterpret_cast<void**>(ptr), size, flags, where);
}
template <class T>
inline cudaError_t cudaMallocHost(T** ptr, size_t size,
                                  std::source_location where = std::source_location::current()) {
  return cudaMallocHost(reinterpret_cast<void**>(ptr), size, where);
}
// cudaMallocHost with flags is cudaHostAlloc (CUDA's C++ overloads).
inline cudaError_t cudaMallocHost(void** ptr, size_t size, unsigned int flags,
                                  std::source_location where = std::source_location::current()) {
  return cudaHostAlloc(ptr, size, flags, where);
}
template <class T>
inline cudaError_t cudaMallocHost(T** ptr, size_t size, unsigned int flags,
                                  std::source_location where = std::source_location::current()) {
  return cudaHostAlloc(reinterpret_cast<void**>(ptr), size, flags, where);
}
template <class T>
inline cudaError_t cudaHostGetDevicePointer(T** device_ptr, void* host_ptr, unsigned int flags) {
  return cudaHostGetDevicePointer(reinterpret_cast<void**>(device_ptr), host_ptr, flags);
}
template <class T>
inline cudaError_t cudaMallocAsync(T** ptr, size_t size, cudaStream_t stream,
                                   std::source_location where = std::source_location::current()) {
  return cudaMallocAsync(reinterpret_cast<void**>(ptr), size, stream, where);
}
template <class T>
inline cudaError_t cudaMallocFromPoolAsync(
    T** ptr, size_t size, cudaMemPool_t pool, cudaStream_t stream,
    std::source_location where = std::source_location::current()) {
  return cudaMallocFromPoolAsync(reinterpret_cast<void**>(ptr), size, pool, stream, where);
}
inline cudaError_t cudaEventCreate(cudaEvent_t* event, unsigned int flags) {
  return cudaEventCreateWithFlags(event, flags);
}
template <class T>
inline cudaError_t cudaHostAlloc(T** ptr, size_t size, unsigned int flags,
                                 std::source_location where = std::source_location::current()) {
  return cudaHostAlloc(reinterpret_cast<void**>(ptr), size, flags, where);
}
template <class T>
inline cudaError_t cudaMallocPitch(T** ptr, size_t* pitch, size_t width, size_t height,
                                   std::source_location where = std::source_location::current()) {
  return cudaMallocPitch(reinterpret_cast<void**>(ptr), pitch, width, height, where);
}
template <class T>
inline cudaError_t cudaMemcpyToSymbol(const T& symbol, const void* src, size_t count,
                                      size_t offset = 0,
                                      cudaMemcpyKind kind = cudaMemcpyHostToDevice) {
  return gpulab::rt::memcpy_symbol(const_cast<void*>(static_cast<const void*>(&symbol)), sizeof(T),
                                   const_cast<void*>(src), count, offset, kind, true);
}
template <class T>
inline cudaError_t cudaMemcpyFromSymbol(void* dst, const T& symbol, size_t count, size_t offset = 0,
                                        cudaMemcpyKind kind = cudaMemcpyDeviceToHost) {
  return gpulab::rt::memcpy_symbol(const_cast<void*>(static_cast<const void*>(&symbol)), sizeof(T),
                                   dst, count, offset, kind, false);
}
template <class T>
inline cudaError_t cudaMemcpyToSymbolAsync(const T& symbol, const void* src, size_t count,
                                           size_t offset = 0,
                                           cudaMemcpyKind kind = cudaMemcpyHostToDevice,
                                           cudaStream_t = 0) {
  return cudaMemcpyToSymbol(symbol, src, count, offset, kind);
}
template <class T>
inline cudaError_t cudaMemcpyFromSymbolAsync(void* dst, const T& symbol, size_t count,
                                             size_t offset = 0,
                                             cudaMemcpyKind kind = cudaMemcpyDeviceToHost,
                                             cudaStream_t = 0) {
  return cudaMemcpyFromSymbol(dst, symbol, count, offset, kind);
}
template <class T>
inline cudaError_t cudaGetSymbolAddress(void** ptr, const T& symbol) {
  *ptr = const_cast<void*>(static_cast<const void*>(&symbol));
  return cudaSuccess;
}
template <class T>
inline cudaError_t cudaGetSymbolSize(size_t* size, const T&) {
  *size = sizeof(T);
  return cudaSuccess;
}
template <class T>
inline cudaError_t cudaFuncSetAttribute(T kernel, cudaFuncAttribute attribute, int value) {
  return gpulab::rt::func_set_attribute(gpulab::rt::kernel_pointer(kernel), attribute, value);
}
template <class T>
inline cudaError_t cudaFuncGetAttributes(cudaFuncAttributes* attributes, T kernel) {
  return gpulab::rt::func_get_attributes(attributes, gpulab::rt::kernel_pointer(kernel));
}
template <class... P>
inline cudaError_t cudaFuncSetCacheConfig(void (*)(P...), cudaFuncCache) {
  return cudaSuccess;
}
template <class T>
inline cudaError_t cudaFuncSetSharedMemConfig(T, cudaSharedMemConfig) {
  return cudaSuccess;  // deprecated since CUDA 12.4; the emulator has no banks to configure
}
template <class T>
inline cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int* blocks, T kernel,
                                                                 int block_size,
                                                                 size_t dynamic_shared_bytes) {
  return gpulab::rt::occupancy_max_active_blocks(blocks, gpulab::rt::kernel_pointer(kernel),
                                                 block_size, dynamic_shared_bytes,
                                                 cudaOccupancyDefault);
}
template <class T>
inline cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
    int* blocks, T kernel, int block_size, size_t dynamic_shared_bytes, unsigned int flags) {
  return gpulab::rt::occupancy_max_active_blocks(blocks, gpulab::rt::kernel_pointer(kernel),
                                                 block_size, dynamic_shared_bytes, flags);
}
template <class T, class F>
inline cudaError_t cudaOccupancyMaxPotentialBlockSizeVariableSMemWithFlags(
    int* min_grid, int* block, T kernel, F shared_of, int block_limit = 0,
    unsigned int flags = cudaOccupancyDefault) {
  return gpulab::rt::occupancy_best_block(min_grid, block, gpulab::rt::kernel_pointer(kernel),
                                          shared_of, block_limit, flags);
}
template <class T, class F>
inline cudaError_t cudaOccupancyMaxPotentialBlockSizeVariableSMem(int* min_grid, int* block,
                                                                  T kernel, F shared_of,
                                                                  int block_limit = 0) {
  return gpulab::rt::occupancy_best_block(min_grid, block, gpulab::rt::kernel_pointer(kernel),
                                          shared_of, block_limit, cudaOccupancyDefault);
}
template <class T>
inline cudaError_t cudaOccupancyMaxPotentialBlockSizeWithFlags(int* min_grid, int* block, T kernel,
                                                               size_t dynamic_shared_bytes = 0,
                                                               int block_limit = 0,
                                                               unsigned int flags = 0) {
  return gpulab::rt::occupancy_best_block(
      min_grid, block, gpulab::rt::kernel_pointer(kernel),
      [dynamic_shared_bytes](int) { return dynamic_shared_bytes; }, block_limit, flags);
}
template <class T>
inline cudaError_t cudaOccupancyMaxPotentialBlockSize(int* min_grid, int* block, T kernel,
                                                      size_t dynamic_shared_bytes = 0,
                                                      int block_limit = 0) {
  return cudaOccupancyMaxPotentialBlockSizeWithFlags(min_grid, block, kernel, dynamic_shared_bytes,
                                                     block_limit, cudaOccupancyDefault);
}
template <class T>
inline cudaError_t cudaOccupancyAvailableDynamicSMemPerBlock(size_t* bytes, T kernel, int blocks,
                                                             int block_size) {
  return gpulab::rt::occupancy_available_dynamic_shared(bytes, gpulab::rt::kernel_pointer(kernel),
                                                        blocks, block_size);
}

// thrust (libthrust-dev) runs its "device" algorithms on the CPU, sequentially (the CPP system),
// unless the program's -D chose another of thrust's host systems (OpenMP, TBB).
#ifndef THRUST_DEVICE_SYSTEM
#define THRUST_DEVICE_SYSTEM 4  // THRUST_DEVICE_SYSTEM_CPP
#endif

// nvcc defines these while compiling a .cu file (gpulab run sets GPULAB_RT_CUDA_SOURCE for one;
// a .cpp file that includes this header is host code, as under nvcc); the emulator states an H100
// (sm_90), whose launch limits it enforces. Unlike nvcc's device pass, host code sees
// __CUDA_ARCH__ too.
#ifdef GPULAB_RT_CUDA_SOURCE
#ifndef __CUDACC__
#define __CUDACC__ 1
#endif
#ifndef __CUDA_ARCH__
#define __CUDA_ARCH__ 900
#endif
#ifndef __CUDACC_VER_MAJOR__
#define __CUDACC_VER_MAJOR__ 13
#define __CUDACC_VER_MINOR__ 0
#endif
#endif
#ifndef __NVCC__
#define __NVCC__ 1
#endif

#include "gpulab_cooperative.h"
#include "gpulab_graphs.h"

// The typed form of cudaLaunchKernel (CUDA's C++ overload): the kernel's parameters are known, so
// it needs no registration (a template's instantiation launches too).
template <class... P>
inline cudaError_t cudaLaunchKernel(void (*kernel)(P...), dim3 grid, dim3 block, void** args,
                                    size_t shared_bytes = 0, cudaStream_t stream = 0,
                                    std::source_location where = std::source_location::current()) {
  return gpulab::rt::launch_with_arguments(reinterpret_cast<const void*>(kernel), grid, block, args,
                                           shared_bytes, stream, where,
                                           &gpulab::rt::RegisteredKernel<P...>::launch, false);
}
template <class... P>
inline cudaError_t cudaLaunchCooperativeKernel(
    void (*kernel)(P...), dim3 grid, dim3 block, void** args, size_t shared_bytes = 0,
    cudaStream_t stream = 0, std::source_location where = std::source_location::current()) {
  return gpulab::rt::launch_with_arguments(reinterpret_cast<const void*>(kernel), grid, block, args,
                                           shared_bytes, stream, where,
                                           &gpulab::rt::RegisteredKernel<P...>::launch, true);
}

// The block's dynamic shared memory (extern __shared__ arrays declared in a function are bound to
// it by gpulab's rewrite).
namespace gpulab::simt::detail {
unsigned char* dynamic_shared_buffer() noexcept;
// The window of it the running block was given: its end touches a guard page (simt/guard.hpp).
unsigned char* dynamic_shared_window() noexcept;
}  // namespace gpulab::simt::detail

// What a kernel reads of the machine (src/run/runtime/device.cpp). clock() and clock64() in a
// kernel count nanoseconds of the CPU's monotonic clock: the emulated clock runs at 1 GHz
// (cudaDevAttrClockRate is 1,000,000 kHz), so cycles / clockRate gives milliseconds as on a GPU,
// but of the CPU's time. In host code clock() is the C library's. The special registers of inline
// PTX that gpulab's rewrite recognises (asm("mov.u32 %0, %%smid;" : "=r"(id))) read these: the
// emulated SM is the worker thread that runs the block.
extern "C" clock_t gpulab_rt_clock(void);
extern "C" unsigned gpulab_rt_ptx_smid(void);
extern "C" unsigned gpulab_rt_ptx_nsmid(void);
extern "C" unsigned long long gpulab_rt_ptx_globaltimer(void);
namespace std {
using ::gpulab_rt_clock;
}
#define clock gpulab_rt_clock
namespace gpulab::rt {
inline unsigned ptx_laneid() {
  return (threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z)) % 32u;
}
inline unsigned ptx_warpid() {
  return (threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z)) / 32u;
}
inline unsigned ptx_lanemask_eq() {
  return 1u << ptx_laneid();
}
inline unsigned ptx_lanemask_lt() {
  return (1u << ptx_laneid()) - 1u;
}
inline unsigned ptx_lanemask_le() {
  return (2u << ptx_laneid()) - 1u;
}
inline unsigned ptx_lanemask_gt() {
  return ~ptx_lanemask_le();
}
inline unsigned ptx_lanemask_ge() {
  return ~ptx_lanemask_lt();
}
}  // namespace gpulab::rt

// Kernel printf goes to the device's buffer (see gpulab_rt_printf); std::printf too.
#define printf gpulab_rt_printf

// malloc and free in a kernel use the device heap (cudaLimitMallocHeapSize, nullptr when it is
// exhausted, device memory to --check: src/run/runtime/heap.cpp); in host code they are the C
// library's. std::malloc and std::free too.
void* gpulab_rt_malloc(size_t bytes, std::source_location where = std::source_location::current());
void gpulab_rt_free(void* p);
namespace std {
using ::gpulab_rt_free;
using ::gpulab_rt_malloc;
}  // namespace std
#define malloc gpulab_rt_malloc
#define free gpulab_rt_free

// The math functions a GPU computes with exact arithmetic give its bits in a kernel (CUDA's sinf is
// within 2 ulp, the C library's correctly rounded: a printed error differed in the last digit) and
// the C library's in host code, as with nvcc (src/run/runtime/math.cpp). std:: ones too.
float gpulab_rt_sinf(float x);
float gpulab_rt_cosf(float x);
void gpulab_rt_sincosf(float x, float* s, float* c);
float gpulab_rt_logf(float x);
float gpulab_rt_log2f(float x);
float gpulab_rt_log10f(float x);
float gpulab_rt_log1pf(float x);
float gpulab_rt_atan2f(float y, float x);
float gpulab_rt_hypotf(float a, float b);
namespace std {
using ::gpulab_rt_atan2f;
using ::gpulab_rt_cosf;
using ::gpulab_rt_hypotf;
using ::gpulab_rt_log10f;
using ::gpulab_rt_log1pf;
using ::gpulab_rt_log2f;
using ::gpulab_rt_logf;
using ::gpulab_rt_sincosf;
using ::gpulab_rt_sinf;
}  // namespace std
#define sinf gpulab_rt_sinf
#define cosf gpulab_rt_cosf
#define sincosf gpulab_rt_sincosf
#define logf gpulab_rt_logf
#define log2f gpulab_rt_log2f
#define log10f gpulab_rt_log10f
#define log1pf gpulab_rt_log1pf
#define atan2f gpulab_rt_atan2f
#define hypotf gpulab_rt_hypotf

// Device code's rule, also on a rewritten launch's body, which calls the kernel: so that g++
// inlines the kernel into its thread loop (it keeps a function with an optimize attribute out of
// a caller compiled with other options). A kernel the split makes a coroutine does not fuse: g++
// 12 compiles a coroutine's body with the command line's options, whatever its function's say.
#if defined(GPULAB_RT_FMAD)
#pragma GCC pop_options
// The attribute on a __device__ variable has no meaning; g++ would warn that it ignores it.
#pragma GCC diagnostic ignored "-Wattributes"
#undef GPULAB_RT_DEVICE_CODE
#define GPULAB_RT_DEVICE_CODE \
  __attribute__((optimize("fp-contract=fast", "no-tree-loop-vectorize")))
#undef __global__
#undef __device__
#define __global__ GPULAB_RT_DEVICE_CODE
#define __device__ GPULAB_RT_DEVICE_CODE
#endif
