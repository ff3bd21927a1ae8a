// The CUDA runtime API on gpulab's emulator: what `gpulab run` compiles a student's program
// against.
//
// Types, constants and error codes carry CUDA 13's names and values; the functions are implemented
// by gpulab's runtime (src/run/runtime/) on top of the SIMT emulator. Launches written
// `kernel<<<grid, block, bytes, stream>>>(args)` reach gpulab::rt::launch through gpulab's rewrite.
#pragma once

#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <source_location>
#include <tuple>
#include <type_traits>
#include <utility>

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
  cudaErrorInvalidDeviceFunction = 98,
  cudaErrorNoDevice = 100,
  cudaErrorInvalidDevice = 101,
  cudaErrorInvalidResourceHandle = 400,
  cudaErrorIllegalState = 401,
  cudaErrorSymbolNotFound = 500,
  cudaErrorNotReady = 600,
  cudaErrorIllegalAddress = 700,
  cudaErrorLaunchOutOfResources = 701,
  cudaErrorLaunchTimeout = 702,
  cudaErrorAssert = 710,
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
  cudaDevAttrMaxRegistersPerBlock = 12,
  cudaDevAttrClockRate = 13,
  cudaDevAttrMultiProcessorCount = 16,
  cudaDevAttrIntegrated = 18,
  cudaDevAttrCanMapHostMemory = 19,
  cudaDevAttrComputeMode = 20,
  cudaDevAttrConcurrentKernels = 31,
  cudaDevAttrMemoryClockRate = 36,
  cudaDevAttrGlobalMemoryBusWidth = 37,
  cudaDevAttrL2CacheSize = 38,
  cudaDevAttrMaxThreadsPerMultiProcessor = 39,
  cudaDevAttrAsyncEngineCount = 40,
  cudaDevAttrUnifiedAddressing = 41,
  cudaDevAttrComputeCapabilityMajor = 75,
  cudaDevAttrComputeCapabilityMinor = 76,
  cudaDevAttrMaxSharedMemoryPerMultiprocessor = 81,
  cudaDevAttrMaxRegistersPerMultiprocessor = 82,
  cudaDevAttrManagedMemory = 83,
  cudaDevAttrConcurrentManagedAccess = 89,
  cudaDevAttrCooperativeLaunch = 95,
  cudaDevAttrMaxSharedMemoryPerBlockOptin = 97,
  cudaDevAttrMaxBlocksPerMultiprocessor = 106,
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
#define cudaStreamDefault 0x00
#define cudaStreamNonBlocking 0x01
#define cudaEventDefault 0x00
#define cudaEventBlockingSync 0x01
#define cudaEventDisableTiming 0x02
#define cudaDeviceScheduleAuto 0x00
#define cudaDeviceMapHost 0x08
#define cudaMemAttachGlobal 0x01
#define cudaMemAttachHost 0x02
#define cudaCpuDeviceId (-1)

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

// The fields teaching programs and NVIDIA's samples read; values describe the emulator honestly
// (see gpulab::rt::emulated_device_properties).
struct cudaDeviceProp {
  char name[256];
  cudaUUID_t uuid;
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
  int multiProcessorCount;
  int integrated;
  int canMapHostMemory;
  int concurrentKernels;
  int ECCEnabled;
  int pciBusID;
  int pciDeviceID;
  int pciDomainID;
  int asyncEngineCount;
  int unifiedAddressing;
  int memoryBusWidth;
  int l2CacheSize;
  int maxThreadsPerMultiProcessor;
  size_t sharedMemPerMultiprocessor;
  int regsPerMultiprocessor;
  int managedMemory;
  int pageableMemoryAccess;
  int concurrentManagedAccess;
  int cooperativeLaunch;
  size_t sharedMemPerBlockOptin;
  int maxBlocksPerMultiProcessor;
  size_t reservedSharedMemPerBlock;
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
cudaError_t cudaMemcpy2D(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width,
                         size_t height, cudaMemcpyKind kind);
cudaError_t cudaMemset(void* ptr, int value, size_t count);
cudaError_t cudaMemsetAsync(void* ptr, int value, size_t count, cudaStream_t stream = 0);
cudaError_t cudaMemPrefetchAsync(const void* ptr, size_t count, int device,
                                 cudaStream_t stream = 0);

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

// ---- What the templates and the rewritten launches call

namespace gpulab::rt {

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
  static void call(void (*kernel)(P...), const Tuple& params, std::index_sequence<I...>) {
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
        typename Params::Tuple params;
      };
      const Closure closure{kernel, typename Params::Tuple(std::forward<Args>(args)...)};
      launch_erased(
          site, address(kernel), config,
          [](const void* c) {
            const auto& cl = *static_cast<const Closure*>(c);
            Params::call(cl.kernel, cl.params,
                         std::make_index_sequence<std::tuple_size_v<typename Params::Tuple>>{});
          },
          &closure, sizeof closure,
          kCompiledThreadLoop
              ? +[](const void* c, ::gpulab::simt::detail::ThreadLoop& loop) {
                  const auto& cl = *static_cast<const Closure*>(c);
                  ::gpulab::simt::detail::run_thread_loop(loop, [&cl] {
                    Params::call(
                        cl.kernel, cl.params,
                        std::make_index_sequence<std::tuple_size_v<typename Params::Tuple>>{});
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
          [](const void* c) {
            const auto& cl = *static_cast<const Closure*>(c);
            std::apply(cl.body, cl.args);
          },
          &closure, sizeof closure,
          kCompiledThreadLoop
              ? +[](const void* c, ::gpulab::simt::detail::ThreadLoop& loop) {
                  const auto& cl = *static_cast<const Closure*>(c);
                  ::gpulab::simt::detail::run_thread_loop(loop,
                                                          [&cl] { std::apply(cl.body, cl.args); });
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
cudaError_t occupancy_max_active_blocks(int* blocks, const void* kernel, int block_size,
                                        size_t dynamic_shared_bytes);

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
inline cudaError_t cudaGetSymbolAddress(void** ptr, const T& symbol) {
  *ptr = const_cast<void*>(static_cast<const void*>(&symbol));
  return cudaSuccess;
}
template <class T>
inline cudaError_t cudaGetSymbolSize(size_t* size, const T&) {
  *size = sizeof(T);
  return cudaSuccess;
}
template <class... P>
inline cudaError_t cudaFuncSetAttribute(void (*kernel)(P...), cudaFuncAttribute attribute,
                                        int value) {
  return gpulab::rt::func_set_attribute(reinterpret_cast<const void*>(kernel), attribute, value);
}
template <class... P>
inline cudaError_t cudaFuncGetAttributes(cudaFuncAttributes* attributes, void (*kernel)(P...)) {
  return gpulab::rt::func_get_attributes(attributes, reinterpret_cast<const void*>(kernel));
}
template <class... P>
inline cudaError_t cudaFuncSetCacheConfig(void (*)(P...), cudaFuncCache) {
  return cudaSuccess;
}
template <class... P>
inline cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int* blocks, void (*kernel)(P...),
                                                                 int block_size,
                                                                 size_t dynamic_shared_bytes) {
  return gpulab::rt::occupancy_max_active_blocks(blocks, reinterpret_cast<const void*>(kernel),
                                                 block_size, dynamic_shared_bytes);
}

// thrust (libthrust-dev) runs its "device" algorithms on the CPU, sequentially (the CPP system),
// unless the program's -D chose another of thrust's host systems (OpenMP, TBB).
#ifndef THRUST_DEVICE_SYSTEM
#define THRUST_DEVICE_SYSTEM 4  // THRUST_DEVICE_SYSTEM_CPP
#endif

// nvcc defines these while compiling a .cu file; the emulator states an H100 (sm_90), whose
// launch limits it enforces. Unlike nvcc's device pass, host code sees __CUDA_ARCH__ too.
#ifndef __CUDACC__
#define __CUDACC__ 1
#endif
#ifndef __NVCC__
#define __NVCC__ 1
#endif
#ifndef __CUDA_ARCH__
#define __CUDA_ARCH__ 900
#endif
#ifndef __CUDACC_VER_MAJOR__
#define __CUDACC_VER_MAJOR__ 13
#define __CUDACC_VER_MINOR__ 0
#endif

#include "gpulab_cooperative.h"
#include "gpulab_graphs.h"

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
