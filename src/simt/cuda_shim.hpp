// Makes CUDA kernel source compile with g++ for the SIMT emulator (via kernels/prelude.cuh).
//
// Include it (through kernels/prelude.cuh) at global scope, before opening the namespace that holds
// the kernels: it declares global names (threadIdx, __syncthreads, atomicAdd, dim3, ...) as CUDA
// does.
//
// Storage:
// - `__shared__ T a[N];` becomes a thread_local variable: one copy per OS thread, and an OS thread
//   runs one block at a time, from start to end, so it is one copy per block.
// - `extern __shared__ T a[];` needs GPULAB_SIMT_DYNAMIC_SHARED(T, a); at the namespace scope where
//   the kernel lives, before it. Every such array names the same per-thread buffer, used up to the
//   size given at launch: as in CUDA, all extern shared arrays of a block alias.
// - `__device__` and `__constant__` variables are plain globals: global memory, seen by all blocks.
#pragma once

// Headers that spell __attribute__((__noinline__)) must be read before the __noinline__ macro below
// exists; later includes of them are no-ops thanks to their include guards.
#include <math.h>
#include <algorithm>
#include <cstdio>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "simt/coroutine.hpp"
#include "simt/deferred_add.hpp"
#include "simt/device_api.hpp"
#include "simt/lockstep.hpp"
#include "simt/region.hpp"

#define __global__
#define __device__
#define __host__
#define __constant__
#define __managed__
#define __shared__ thread_local
#define __forceinline__ __inline__ __attribute__((always_inline))
#define __noinline__ __attribute__((noinline))
#define __launch_bounds__(...)
#define __align__(n) __attribute__((aligned(n)))
#define __grid_constant__
// What gpulab run's rewrite puts on the device code it makes (a launch's body): nothing here;
// device code's floating-point rule under gpulab run (cuda_runtime.h).
#define GPULAB_RT_DEVICE_CODE
// What it puts on a launch's body, which calls the kernel with the launch's parameters: device
// code's rule and, in check mode (-fsanitize=thread), no instrumentation. Its reads are of the
// launch's own copy of the parameters, which the checks never look at: uninstrumented, they cost
// no hook per CUDA thread. Not in gpulab profile's builds, whose basic blocks it would change.
#if defined(__SANITIZE_THREAD__) && !defined(GPULAB_RT_PROFILED)
#define GPULAB_RT_NO_TSAN __attribute__((no_sanitize("thread")))
#else
#define GPULAB_RT_NO_TSAN
#endif
#define GPULAB_RT_LAUNCH_CODE GPULAB_RT_DEVICE_CODE GPULAB_RT_NO_TSAN

// Declares the storage of `extern __shared__ T name[];` for the kernels that follow it in the
// current namespace. Write it as a declaration: GPULAB_SIMT_DYNAMIC_SHARED(float, sdata);
// The array is bound by its assembler name to one per-OS-thread buffer of
// gpulab::simt::detail::kDynamicSharedCapacity bytes, so that several names (in any namespaces)
// start at the same address, as in CUDA. In one namespace a name has one element type; give kernels
// that disagree their own namespace.
#define GPULAB_SIMT_DYNAMIC_SHARED(T, name) \
  extern __thread T name[] __asm__("gpulab_simt_dynamic_shared")
