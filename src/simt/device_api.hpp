// The device-side CUDA API of the emulator: built-in variables, barriers, warp intrinsics, atomics.
//
// And device math; all in the global namespace, as in CUDA. No macros here (those are in
// cuda_shim.hpp), so the emulator's own sources may include it too.
#pragma once

#include <math.h>
#include <algorithm>
#include <atomic>
#include <bit>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <source_location>
#include <type_traits>
#include <utility>

#include "simt/builtin_vars.hpp"
#include "simt/vector_types.hpp"

inline constexpr int warpSize = 32;

namespace gpulab::simt::detail {

// The per-OS-thread buffer behind every extern __shared__ array: 227 KiB, the most a block may opt
// in to on an H100.
inline constexpr std::size_t kDynamicSharedCapacity = 227 * 1024;

enum class BlockOp : std::uint8_t { sync, count, all, any };

enum class WarpOp : std::uint8_t {
  sync,
  shfl_idx,
  shfl_up,
  shfl_down,
  shfl_xor,
  ballot,
  any,
  all,
  activemask,
  match_any,
  match_all,
  reduce_add,
  reduce_min,
  reduce_max,
  reduce_and,
  reduce_or,
  reduce_xor,
};

// Entry points into the scheduler. They are out of line on purpose: a call into them is where the
// calling CUDA thread may be parked on its fiber, so the compiler must not keep threadIdx in a
// register across it.
int block_barrier(BlockOp op, int predicate, const std::source_location& where);
std::uint64_t warp_collective(WarpOp op, unsigned mask, std::uint64_t value, int arg, int width,
                              const std::source_location& where);
[[noreturn]] void trap(const std::source_location& where);

// Kernels that gpulab run turned into coroutines (simt/coroutine.hpp) arrive at the same barriers
// and collectives without a fiber: `handle` is the calling thread's suspended coroutine; `suspend`
// says whether it must stay suspended (false: it goes on at once, e.g. the lane that completes a
// shuffle); `result` is where its result will be once it goes on.
struct CoArrival {
  const std::uint64_t* result;
  bool suspend;
};
CoArrival co_block_barrier(BlockOp op, int predicate, const std::source_location& where,
                           void* handle);

// The block barrier being gathered on this OS thread, as far as a coroutine thread's arrival needs
// it: an arrival like the first (same call, same kind, no __activemask() pending in its warp) is
// booked inline by the awaitable (simt/coroutine.hpp) without a call; any other goes through
// co_block_barrier. Owned by the block's runner (BlockRunner::gather_), which books the first
// arrival and releases the barrier; null in check mode, where every arrival is a call.
struct BarrierGather {
  void** co = nullptr;                             // per thread: its suspended coroutine
  std::uint32_t* block_wait = nullptr;             // per warp: lanes waiting at a block barrier
  const std::uint32_t* activemask_wait = nullptr;  // per warp
  std::uint64_t* result = nullptr;                 // per thread
  const std::uint32_t* current = nullptr;          // the thread that runs now
  std::uint32_t arrived = 0, first = 0;
  std::uint64_t count = 0;  // predicates that were true
  bool mixed = false;       // an arrival at another call or kind than the first
  std::uint8_t first_op = 0;
  std::source_location first_where;

  // Books the current thread's arrival if it is like the first; false: call co_block_barrier.
  bool arrive_like_first(BlockOp op, int predicate, const std::source_location& where,
                         void* handle) {
    const std::uint32_t t = *current;
    const std::uint32_t w = t >> 5;
    if (arrived == 0 || mixed || activemask_wait[w] != 0 ||
        first_op != static_cast<std::uint8_t>(op) ||
        std::memcmp(&first_where, &where, sizeof where) != 0) {
      return false;
    }
    co[t] = handle;
    block_wait[w] |= 1u << (t & 31);
    ++arrived;
    count += predicate != 0 ? 1 : 0;
    return true;
  }
};
inline thread_local BarrierGather* tl_gather = nullptr;
CoArrival co_warp_collective(WarpOp op, unsigned mask, std::uint64_t value, int arg, int width,
                             const std::source_location& where, void* handle);
void co_started(void* handle);
void* co_frame_allocate(std::size_t bytes);
void co_frame_free(void* frame) noexcept;

// Kernels that gpulab run split into region loops (simt/region.hpp). region_begin: the block's
// thread loop, for the call of its first thread, which then runs every thread of the block;
// region_storage: per-thread slots for locals that live across a barrier, freed with the block;
// region_barrier: the block's threads crossed a barrier together (first: its first one).
// A kernel whose region loops wait for its threads to agree on a condition (speculative: see
// region.hpp) may give the block back to its own code as written (region_fall_back): its later
// calls then get no loop.
struct ThreadLoop;
ThreadLoop* region_begin(bool speculative = false);
void region_fall_back();
// Fresh memory (malloc): the compiler may assume it aliases no other object of the kernel.
[[gnu::malloc]] void* region_storage(std::size_t bytes);
void region_barrier(bool first);

// A thread that spins on an atomic (a compare-and-swap that failed, an exchange that changed
// nothing) or sleeps (__nanosleep) waits for another thread: after a few tries in a row on the same
// address it lets the other threads of its block run, as Volta's independent thread scheduling
// guarantees. Outside a launch it does nothing.
void spin(const void* address);
// The bytes [first, second) of an n-byte copy that the thread of rank `rank` among `threads`
// makes when a group copies together (memcpy_async's group forms).
inline std::pair<std::size_t, std::size_t> group_share(std::size_t n, std::size_t rank,
                                                       std::size_t threads) {
  return {n * rank / threads, n * (rank + 1) / threads};
}
// A thread waited for other threads of its block outside a barrier (a cuda::pipeline's stage):
// the race checker orders every access before the wait with every access after it.
void handoff();
// An empty loop in device code (`while (!flag);` on a volatile flag): gpulab run puts this call
// in its body (src/run/split.cpp), so that the thread yields every few rounds.
void spin_wait();
// An invalid argument to a device-side library call (a tile size CUDA rejects at run time): a
// KernelFault naming the calling thread, `what` (in English and Chinese) and the call site.
[[noreturn]] void invalid_device_call(const char* what, const char* what_zh,
                                      const std::source_location& where);

__extension__ typedef __int128 int128;
__extension__ typedef unsigned __int128 uint128;

template <class T>
constexpr std::uint64_t to_bits(T v) {
  if constexpr (sizeof(T) == 8) {
    return std::bit_cast<std::uint64_t>(v);
  } else {
    return std::bit_cast<std::uint32_t>(v);
  }
}

template <class T>
constexpr T from_bits(std::uint64_t v) {
  if constexpr (sizeof(T) == 8) {
    return std::bit_cast<T>(v);
  } else {
    return std::bit_cast<T>(static_cast<std::uint32_t>(v));
  }
}

// A shuffle of a scalar `var` over the warp: its bits travel, the receiving lane reads them back as
// a T.
template <class T>
T shuffle_scalar(WarpOp op, unsigned mask, T var, int arg, int width, std::source_location where) {
  return from_bits<T>(warp_collective(op, mask, to_bits(var), arg, width, where));
}

// Memory that only this OS thread touches while it runs a block: the executable's thread-local
// block, where __shared__ arrays live (cuda_shim.hpp), and the running block's window of dynamic
// shared memory (guard.cpp). No other block can reach a block's shared memory, and the threads of
// a block run on one OS thread, switching only where they wait: an atomic operation there is done
// as a plain read and write (a lock-prefixed add costs about 20 cycles; a privatized histogram
// makes one per input element). Set by the scheduler for the OS threads that run blocks.
struct PrivateMemory {
  std::uintptr_t tls_begin = 0, tls_bytes = 0;
  std::uintptr_t window_begin = 0, window_bytes = 0;
};
inline thread_local PrivateMemory tl_private;

// Empty while a launch is checked or profiled (guard.cpp): the hooks must see each atomic as one.
inline bool block_private(const void* p) {
  const auto a = reinterpret_cast<std::uintptr_t>(p);
  const PrivateMemory& m = tl_private;
  return a - m.tls_begin < m.tls_bytes || a - m.window_begin < m.window_bytes;
}

// CUDA's atomics are relaxed at device scope; blocks of one launch run on several OS threads, so
// the operations must be real atomics, but for a block's shared memory (above). Exotic cases
// (min/max, inc/dec, float CAS loops) use a CAS loop.
template <class T, class F>
T atomic_update(T* address, F next) {
  if (block_private(address)) {
    const T old = *address;
    *address = next(old);
    return old;
  }
  std::atomic_ref<T> ref(*address);
  T old = ref.load(std::memory_order_relaxed);
  while (!ref.compare_exchange_weak(old, next(old), std::memory_order_relaxed)) {
  }
  return old;
}

}  // namespace gpulab::simt::detail

// ---- Block barriers
// -------------------------------------------------------------------------------- The
// source_location defaults identify each barrier's call site, so that threads waiting at two
// different __syncthreads() are told apart and reported.

inline void __syncthreads(std::source_location where = std::source_location::current()) {
  gpulab::simt::detail::block_barrier(gpulab::simt::detail::BlockOp::sync, 1, where);
}
inline int __syncthreads_count(int predicate,
                               std::source_location where = std::source_location::current()) {
  return gpulab::simt::detail::block_barrier(gpulab::simt::detail::BlockOp::count, predicate,
                                             where);
}
inline int __syncthreads_and(int predicate,
                             std::source_location where = std::source_location::current()) {
  return gpulab::simt::detail::block_barrier(gpulab::simt::detail::BlockOp::all, predicate, where);
}
inline int __syncthreads_or(int predicate,
                            std::source_location where = std::source_location::current()) {
  return gpulab::simt::detail::block_barrier(gpulab::simt::detail::BlockOp::any, predicate, where);
}

// ---- Warp collectives
// ------------------------------------------------------------------------------

inline void __syncwarp(unsigned mask = 0xffffffffu,
                       std::source_location where = std::source_location::current()) {
  gpulab::simt::detail::warp_collective(gpulab::simt::detail::WarpOp::sync, mask, 0, 0, warpSize,
                                        where);
}

inline unsigned __ballot_sync(unsigned mask, int predicate,
                              std::source_location where = std::source_location::current()) {
  return static_cast<unsigned>(gpulab::simt::detail::warp_collective(
      gpulab::simt::detail::WarpOp::ballot, mask, predicate != 0, 0, warpSize, where));
}
inline int __any_sync(unsigned mask, int predicate,
                      std::source_location where = std::source_location::current()) {
  return static_cast<int>(gpulab::simt::detail::warp_collective(
      gpulab::simt::detail::WarpOp::any, mask, predicate != 0, 0, warpSize, where));
}
inline int __all_sync(unsigned mask, int predicate,
                      std::source_location where = std::source_location::current()) {
  return static_cast<int>(gpulab::simt::detail::warp_collective(
      gpulab::simt::detail::WarpOp::all, mask, predicate != 0, 0, warpSize, where));
}
inline unsigned __activemask(std::source_location where = std::source_location::current()) {
  return static_cast<unsigned>(gpulab::simt::detail::warp_collective(
      gpulab::simt::detail::WarpOp::activemask, 0xffffffffu, 0, 0, warpSize, where));
}

// Shuffles take the value's bits; 64-bit types move in one piece (a GPU moves two 32-bit halves,
// with the same result).
#define GPULAB_SIMT_SHUFFLES(T)                                                                    \
  inline T __shfl_sync(unsigned mask, T var, int srcLane, int width = warpSize,                    \
                       std::source_location where = std::source_location::current()) {             \
    return gpulab::simt::detail::shuffle_scalar(gpulab::simt::detail::WarpOp::shfl_idx, mask, var, \
                                                srcLane, width, where);                            \
  }                                                                                                \
  inline T __shfl_up_sync(unsigned mask, T var, unsigned int delta, int width = warpSize,          \
                          std::source_location where = std::source_location::current()) {          \
    return gpulab::simt::detail::shuffle_scalar(gpulab::simt::detail::WarpOp::shfl_up, mask, var,  \
                                                static_cast<int>(delta & 31u), width, where);      \
  }                                                                                                \
  inline T __shfl_down_sync(unsigned mask, T var, unsigned int delta, int width = warpSize,        \
                            std::source_location where = std::source_location::current()) {        \
    return gpulab::simt::detail::shuffle_scalar(gpulab::simt::detail::WarpOp::shfl_down, mask,     \
                                                var, static_cast<int>(delta & 31u), width, where); \
  }                                                                                                \
  inline T __shfl_xor_sync(unsigned mask, T var, int laneMask, int width = warpSize,               \
                           std::source_location where = std::source_location::current()) {         \
    return gpulab::simt::detail::shuffle_scalar(gpulab::simt::detail::WarpOp::shfl_xor, mask, var, \
                                                laneMask, width, where);                           \
  }                                                                                                \
  inline unsigned __match_any_sync(unsigned mask, T value,                                         \
                                   std::source_location where = std::source_location::current()) { \
    return static_cast<unsigned>(gpulab::simt::detail::warp_collective(                            \
        gpulab::simt::detail::WarpOp::match_any, mask, gpulab::simt::detail::to_bits(value), 0,    \
        warpSize, where));                                                                         \
  }                                                                                                \
  inline unsigned __match_all_sync(unsigned mask, T value, int* pred,                              \
                                   std::source_location where = std::source_location::current()) { \
    const auto r = static_cast<unsigned>(gpulab::simt::detail::warp_collective(                    \
        gpulab::simt::detail::WarpOp::match_all, mask, gpulab::simt::detail::to_bits(value), 0,    \
        warpSize, where));                                                                         \
    *pred = r != 0;                                                                                \
    return r;                                                                                      \
  }

GPULAB_SIMT_SHUFFLES(int)
GPULAB_SIMT_SHUFFLES(unsigned int)
GPULAB_SIMT_SHUFFLES(long)
GPULAB_SIMT_SHUFFLES(unsigned long)
GPULAB_SIMT_SHUFFLES(long long)
GPULAB_SIMT_SHUFFLES(unsigned long long)
GPULAB_SIMT_SHUFFLES(float)
GPULAB_SIMT_SHUFFLES(double)
#undef GPULAB_SIMT_SHUFFLES

// sm_80 warp reductions; arg = 1 marks the signed overloads of min/max.
#define GPULAB_SIMT_REDUCE(name, op, T, is_signed)                                         \
  inline T name(unsigned mask, T value,                                                    \
                std::source_location where = std::source_location::current()) {            \
    return static_cast<T>(gpulab::simt::detail::warp_collective(                           \
        gpulab::simt::detail::WarpOp::op, mask,                                            \
        static_cast<std::uint64_t>(static_cast<std::int64_t>(value)), is_signed, warpSize, \
        where));                                                                           \
  }
GPULAB_SIMT_REDUCE(__reduce_add_sync, reduce_add, unsigned, 0)
GPULAB_SIMT_REDUCE(__reduce_add_sync, reduce_add, int, 1)
GPULAB_SIMT_REDUCE(__reduce_min_sync, reduce_min, unsigned, 0)
GPULAB_SIMT_REDUCE(__reduce_min_sync, reduce_min, int, 1)
GPULAB_SIMT_REDUCE(__reduce_max_sync, reduce_max, unsigned, 0)
GPULAB_SIMT_REDUCE(__reduce_max_sync, reduce_max, int, 1)
GPULAB_SIMT_REDUCE(__reduce_and_sync, reduce_and, unsigned, 0)
GPULAB_SIMT_REDUCE(__reduce_or_sync, reduce_or, unsigned, 0)
GPULAB_SIMT_REDUCE(__reduce_xor_sync, reduce_xor, unsigned, 0)
#undef GPULAB_SIMT_REDUCE

// ---- Memory fences and misc
// ------------------------------------------------------------------------

inline void __threadfence() {
  std::atomic_thread_fence(std::memory_order_seq_cst);
}
inline void __threadfence_block() {
  std::atomic_thread_fence(std::memory_order_seq_cst);
}
inline void __threadfence_system() {
  std::atomic_thread_fence(std::memory_order_seq_cst);
}
[[noreturn]] inline void __trap(std::source_location where = std::source_location::current()) {
  gpulab::simt::detail::trap(where);
}
// A thread that sleeps waits for another: the others run meanwhile.
inline void __nanosleep(unsigned) {
  gpulab::simt::detail::spin(nullptr);
}
inline long long clock64() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// The cache-hinted loads and stores: plain ones here (the hints name GPU caches).
#define GPULAB_SIMT_LOAD(name) \
  template <class T>           \
  inline T name(const T* p) {  \
    return *p;                 \
  }
#define GPULAB_SIMT_STORE(name) \
  template <class T>            \
  inline void name(T* p, T v) { \
    *p = v;                     \
  }
GPULAB_SIMT_LOAD(__ldg)
GPULAB_SIMT_LOAD(__ldcg)
GPULAB_SIMT_LOAD(__ldca)
GPULAB_SIMT_LOAD(__ldcs)
GPULAB_SIMT_STORE(__stcg)
GPULAB_SIMT_STORE(__stcs)
GPULAB_SIMT_STORE(__stwt)
#undef GPULAB_SIMT_LOAD
#undef GPULAB_SIMT_STORE

// ---- Atomics
// ---------------------------------------------------------------------------------------

#define GPULAB_SIMT_ATOMIC_FETCH(name, T, fn, op)                           \
  inline T name(T* address, T val) {                                        \
    if (gpulab::simt::detail::block_private(address)) {                     \
      const T old = *address;                                               \
      *address = static_cast<T>(old op val);                                \
      return old;                                                           \
    }                                                                       \
    return std::atomic_ref<T>(*address).fn(val, std::memory_order_relaxed); \
  }

GPULAB_SIMT_ATOMIC_FETCH(atomicAdd, int, fetch_add, +)
GPULAB_SIMT_ATOMIC_FETCH(atomicAdd, unsigned int, fetch_add, +)
GPULAB_SIMT_ATOMIC_FETCH(atomicAdd, unsigned long long, fetch_add, +)
GPULAB_SIMT_ATOMIC_FETCH(atomicAdd, float, fetch_add, +)
GPULAB_SIMT_ATOMIC_FETCH(atomicAdd, double, fetch_add, +)
GPULAB_SIMT_ATOMIC_FETCH(atomicSub, int, fetch_sub, -)
GPULAB_SIMT_ATOMIC_FETCH(atomicSub, unsigned int, fetch_sub, -)
GPULAB_SIMT_ATOMIC_FETCH(atomicAnd, int, fetch_and, &)
GPULAB_SIMT_ATOMIC_FETCH(atomicAnd, unsigned int, fetch_and, &)
GPULAB_SIMT_ATOMIC_FETCH(atomicAnd, unsigned long long, fetch_and, &)
GPULAB_SIMT_ATOMIC_FETCH(atomicOr, int, fetch_or, |)
GPULAB_SIMT_ATOMIC_FETCH(atomicOr, unsigned int, fetch_or, |)
GPULAB_SIMT_ATOMIC_FETCH(atomicOr, unsigned long long, fetch_or, |)
GPULAB_SIMT_ATOMIC_FETCH(atomicXor, int, fetch_xor, ^)
GPULAB_SIMT_ATOMIC_FETCH(atomicXor, unsigned int, fetch_xor, ^)
GPULAB_SIMT_ATOMIC_FETCH(atomicXor, unsigned long long, fetch_xor, ^)
#undef GPULAB_SIMT_ATOMIC_FETCH

// An exchange that changed nothing (a lock taken with atomicExch(&lock, 1) while it is held) and
// a compare-and-swap that failed are how a thread spins: gpulab::simt::detail::spin lets the other
// threads of the block run after a few in a row, so that the one it waits for can go on.
#define GPULAB_SIMT_ATOMIC_EXCH(T)                                                       \
  inline T atomicExch(T* address, T val) {                                               \
    const T old = std::atomic_ref<T>(*address).exchange(val, std::memory_order_relaxed); \
    if (std::memcmp(&old, &val, sizeof(T)) == 0) gpulab::simt::detail::spin(address);    \
    return old;                                                                          \
  }
GPULAB_SIMT_ATOMIC_EXCH(int)
GPULAB_SIMT_ATOMIC_EXCH(unsigned int)
GPULAB_SIMT_ATOMIC_EXCH(unsigned long long)
GPULAB_SIMT_ATOMIC_EXCH(float)
#undef GPULAB_SIMT_ATOMIC_EXCH

#define GPULAB_SIMT_ATOMIC_MINMAX(T)                                                            \
  inline T atomicMin(T* address, T val) {                                                       \
    return gpulab::simt::detail::atomic_update(address,                                         \
                                               [val](T old) { return val < old ? val : old; }); \
  }                                                                                             \
  inline T atomicMax(T* address, T val) {                                                       \
    return gpulab::simt::detail::atomic_update(address,                                         \
                                               [val](T old) { return val > old ? val : old; }); \
  }
GPULAB_SIMT_ATOMIC_MINMAX(int)
GPULAB_SIMT_ATOMIC_MINMAX(unsigned int)
GPULAB_SIMT_ATOMIC_MINMAX(long long)
GPULAB_SIMT_ATOMIC_MINMAX(unsigned long long)
#undef GPULAB_SIMT_ATOMIC_MINMAX

#define GPULAB_SIMT_ATOMIC_CAS(T)                                                         \
  inline T atomicCAS(T* address, T compare, T val) {                                      \
    if (!std::atomic_ref<T>(*address).compare_exchange_strong(compare, val,               \
                                                              std::memory_order_relaxed)) \
      gpulab::simt::detail::spin(address);                                                \
    return compare;                                                                       \
  }
GPULAB_SIMT_ATOMIC_CAS(int)
GPULAB_SIMT_ATOMIC_CAS(unsigned int)
GPULAB_SIMT_ATOMIC_CAS(unsigned long long)
GPULAB_SIMT_ATOMIC_CAS(unsigned short)
#undef GPULAB_SIMT_ATOMIC_CAS

inline unsigned int atomicInc(unsigned int* address, unsigned int val) {
  return gpulab::simt::detail::atomic_update(
      address, [val](unsigned int old) { return old >= val ? 0u : old + 1u; });
}
inline unsigned int atomicDec(unsigned int* address, unsigned int val) {
  return gpulab::simt::detail::atomic_update(
      address, [val](unsigned int old) { return (old == 0u || old > val) ? val : old - 1u; });
}

// Block- and system-scoped variants: one address space on a CPU, so they are the device-scoped
// ones.
#define GPULAB_SIMT_ATOMIC_SCOPED(name, scope) \
  template <class T, class... U>               \
  inline auto name##scope(T* a, U... v) {      \
    return name(a, v...);                      \
  }
GPULAB_SIMT_ATOMIC_SCOPED(atomicAdd, _block)
GPULAB_SIMT_ATOMIC_SCOPED(atomicAdd, _system)
GPULAB_SIMT_ATOMIC_SCOPED(atomicCAS, _block)
GPULAB_SIMT_ATOMIC_SCOPED(atomicCAS, _system)
GPULAB_SIMT_ATOMIC_SCOPED(atomicExch, _block)
GPULAB_SIMT_ATOMIC_SCOPED(atomicMax, _block)
GPULAB_SIMT_ATOMIC_SCOPED(atomicMin, _block)
#undef GPULAB_SIMT_ATOMIC_SCOPED

// Most of what follows is one expression each: GPULAB_SIMT_FN(result, name, (parameters),
// (expression)) defines `inline result name(parameters) { return (expression); }`, and
// GPULAB_SIMT_LIBC_FN the same as a template (for names a C library may declare: see Float math).
#define GPULAB_SIMT_FN(R, name, params, expr) \
  inline R name params {                      \
    return expr;                              \
  }
#define GPULAB_SIMT_LIBC_FN(R, name, params, expr) \
  template <class = void>                          \
  GPULAB_SIMT_FN(R, name, params, expr)

// ---- Integer intrinsics
// ----------------------------------------------------------------------------

// sm_61's dot products of packed integers: __dp4a adds the four products of srcA's and srcB's
// bytes to c, __dp2a_lo/_hi the two products of srcA's 16-bit halves with srcB's low (high) two
// bytes; signed or unsigned as the overload says (int arithmetic wraps, as the GPU's does).
namespace gpulab::simt::detail {
template <class Part, class Word>
Part part_of(Word w, int k) {
  return static_cast<Part>(static_cast<unsigned int>(w) >> (8 * sizeof(Part) * k));
}
template <class Byte, class Word>
Word dot4(Word a, Word b, Word c) {
  unsigned int sum = static_cast<unsigned int>(c);
  for (int k = 0; k < 4; ++k) {
    sum += static_cast<unsigned int>(static_cast<int>(part_of<Byte>(a, k)) *
                                     static_cast<int>(part_of<Byte>(b, k)));
  }
  return static_cast<Word>(sum);
}
template <class Half, class Byte, class Word>
Word dot2(Word a, Word b, Word c, int high) {
  unsigned int sum = static_cast<unsigned int>(c);
  for (int k = 0; k < 2; ++k) {
    sum += static_cast<unsigned int>(static_cast<int>(part_of<Half>(a, k)) *
                                     static_cast<int>(part_of<Byte>(b, 2 * high + k)));
  }
  return static_cast<Word>(sum);
}
template <class V>
unsigned int packed(V v) {
  unsigned int w;
  std::memcpy(&w, &v, sizeof w);
  return w;
}
}  // namespace gpulab::simt::detail
GPULAB_SIMT_FN(int, __dp4a, (int a, int b, int c),
               (gpulab::simt::detail::dot4<signed char>(a, b, c)))
GPULAB_SIMT_FN(unsigned int, __dp4a, (unsigned int a, unsigned int b, unsigned int c),
               (gpulab::simt::detail::dot4<unsigned char>(a, b, c)))
GPULAB_SIMT_FN(int, __dp4a, (char4 a, char4 b, int c),
               (__dp4a(static_cast<int>(gpulab::simt::detail::packed(a)),
                       static_cast<int>(gpulab::simt::detail::packed(b)), c)))
GPULAB_SIMT_FN(unsigned int, __dp4a, (uchar4 a, uchar4 b, unsigned int c),
               (__dp4a(gpulab::simt::detail::packed(a), gpulab::simt::detail::packed(b), c)))
GPULAB_SIMT_FN(int, __dp2a_lo, (int a, int b, int c),
               (gpulab::simt::detail::dot2<short, signed char>(a, b, c, 0)))
GPULAB_SIMT_FN(unsigned int, __dp2a_lo, (unsigned int a, unsigned int b, unsigned int c),
               (gpulab::simt::detail::dot2<unsigned short, unsigned char>(a, b, c, 0)))
GPULAB_SIMT_FN(int, __dp2a_hi, (int a, int b, int c),
               (gpulab::simt::detail::dot2<short, signed char>(a, b, c, 1)))
GPULAB_SIMT_FN(unsigned int, __dp2a_hi, (unsigned int a, unsigned int b, unsigned int c),
               (gpulab::simt::detail::dot2<unsigned short, unsigned char>(a, b, c, 1)))
GPULAB_SIMT_FN(int, __dp2a_lo, (short2 a, char4 b, int c),
               (__dp2a_lo(static_cast<int>(gpulab::simt::detail::packed(a)),
                          static_cast<int>(gpulab::simt::detail::packed(b)), c)))
GPULAB_SIMT_FN(unsigned int, __dp2a_lo, (ushort2 a, uchar4 b, unsigned int c),
               (__dp2a_lo(gpulab::simt::detail::packed(a), gpulab::simt::detail::packed(b), c)))
GPULAB_SIMT_FN(int, __dp2a_hi, (short2 a, char4 b, int c),
               (__dp2a_hi(static_cast<int>(gpulab::simt::detail::packed(a)),
                          static_cast<int>(gpulab::simt::detail::packed(b)), c)))
GPULAB_SIMT_FN(unsigned int, __dp2a_hi, (ushort2 a, uchar4 b, unsigned int c),
               (__dp2a_hi(gpulab::simt::detail::packed(a), gpulab::simt::detail::packed(b), c)))
GPULAB_SIMT_FN(int, __popc, (unsigned int x), (std::popcount(x)))
GPULAB_SIMT_FN(int, __popcll, (unsigned long long x), (std::popcount(x)))
GPULAB_SIMT_FN(int, __clz, (int x), (std::countl_zero(static_cast<unsigned int>(x))))
GPULAB_SIMT_FN(int, __clzll, (long long x), (std::countl_zero(static_cast<unsigned long long>(x))))
GPULAB_SIMT_FN(int, __ffs, (int x),
               (x == 0 ? 0 : std::countr_zero(static_cast<unsigned int>(x)) + 1))
GPULAB_SIMT_FN(int, __ffsll, (long long x),
               (x == 0 ? 0 : std::countr_zero(static_cast<unsigned long long>(x)) + 1))
inline unsigned int __brev(unsigned int x) {
  x = ((x >> 1) & 0x55555555u) | ((x & 0x55555555u) << 1);
  x = ((x >> 2) & 0x33333333u) | ((x & 0x33333333u) << 2);
  x = ((x >> 4) & 0x0f0f0f0fu) | ((x & 0x0f0f0f0fu) << 4);
  x = ((x >> 8) & 0x00ff00ffu) | ((x & 0x00ff00ffu) << 8);
  return (x >> 16) | (x << 16);
}
inline unsigned long long __brevll(unsigned long long x) {
  return (static_cast<unsigned long long>(__brev(static_cast<unsigned int>(x))) << 32) |
         __brev(static_cast<unsigned int>(x >> 32));
}
inline int __mul24(int x, int y) {
  // Sign-extend the low 24 bits of each operand, as the hardware does.
  const auto s = [](int v) { return static_cast<int>(static_cast<unsigned int>(v) << 8) >> 8; };
  return static_cast<int>(static_cast<long long>(s(x)) * s(y));
}
GPULAB_SIMT_FN(unsigned int, __umul24, (unsigned int x, unsigned int y),
               ((x & 0xffffffu) * (y & 0xffffffu)))
GPULAB_SIMT_FN(int, __mulhi, (int x, int y),
               (static_cast<int>((static_cast<long long>(x) * y) >> 32)))
GPULAB_SIMT_FN(unsigned int, __umulhi, (unsigned int x, unsigned int y),
               (static_cast<unsigned int>((static_cast<unsigned long long>(x) * y) >> 32)))
GPULAB_SIMT_FN(long long, __mul64hi, (long long x, long long y),
               (static_cast<long long>((static_cast<gpulab::simt::detail::int128>(x) * y) >> 64)))
GPULAB_SIMT_FN(
    unsigned long long, __umul64hi, (unsigned long long x, unsigned long long y),
    (static_cast<unsigned long long>((static_cast<gpulab::simt::detail::uint128>(x) * y) >> 64)))
GPULAB_SIMT_FN(int, __hadd, (int x, int y),
               (static_cast<int>((static_cast<long long>(x) + y) >> 1)))
GPULAB_SIMT_FN(int, __rhadd, (int x, int y),
               (static_cast<int>((static_cast<long long>(x) + y + 1) >> 1)))
GPULAB_SIMT_FN(unsigned int, __uhadd, (unsigned int x, unsigned int y),
               (static_cast<unsigned int>((static_cast<unsigned long long>(x) + y) >> 1)))
GPULAB_SIMT_FN(unsigned int, __urhadd, (unsigned int x, unsigned int y),
               (static_cast<unsigned int>((static_cast<unsigned long long>(x) + y + 1) >> 1)))
inline unsigned int __sad(int x, int y, unsigned int z) {
  return z + static_cast<unsigned int>(x > y ? static_cast<long long>(x) - y
                                             : static_cast<long long>(y) - x);
}
GPULAB_SIMT_FN(unsigned int, __usad, (unsigned int x, unsigned int y, unsigned int z),
               (z + (x > y ? x - y : y - x)))
inline unsigned int __byte_perm(unsigned int x, unsigned int y, unsigned int s) {
  const unsigned long long v = (static_cast<unsigned long long>(y) << 32) | x;
  unsigned int r = 0;
  for (unsigned int i = 0; i < 4; ++i) {
    const unsigned int sel = (s >> (4 * i)) & 7u;
    r |= static_cast<unsigned int>((v >> (8 * sel)) & 0xffu) << (8 * i);
  }
  return r;
}
inline unsigned int __funnelshift_l(unsigned int lo, unsigned int hi, unsigned int shift) {
  const unsigned long long v = (static_cast<unsigned long long>(hi) << 32) | lo;
  return static_cast<unsigned int>((v << (shift & 31u)) >> 32);
}
inline unsigned int __funnelshift_r(unsigned int lo, unsigned int hi, unsigned int shift) {
  const unsigned long long v = (static_cast<unsigned long long>(hi) << 32) | lo;
  return static_cast<unsigned int>(v >> (shift & 31u));
}

namespace gpulab::simt::detail {
// CUDA's min (Max false) and max (Max true) work on integers and floats alike in device code.
// Mixed signed/unsigned arguments follow the usual arithmetic conversions, as CUDA's overloads do;
// floats compare as fmin/fmax do (a NaN loses to a number).
template <bool Max, class A, class B>
constexpr std::common_type_t<A, B> min_or_max(A a, B b) {
  using C = std::common_type_t<A, B>;
  const C x = static_cast<C>(a), y = static_cast<C>(b);
  if constexpr (std::is_floating_point_v<C>) {
    return Max ? std::fmax(x, y) : std::fmin(x, y);
  } else {
    return (Max ? x < y : y < x) ? y : x;
  }
}
}  // namespace gpulab::simt::detail

template <class A, class B>
requires std::is_arithmetic_v<A> && std::is_arithmetic_v<B>
constexpr std::common_type_t<A, B> min(A a, B b) {
  return gpulab::simt::detail::min_or_max<false>(a, b);
}
template <class A, class B>
requires std::is_arithmetic_v<A> && std::is_arithmetic_v<B>
constexpr std::common_type_t<A, B> max(A a, B b) {
  return gpulab::simt::detail::min_or_max<true>(a, b);
}
GPULAB_SIMT_FN(unsigned int, umin, (unsigned int a, unsigned int b), (a < b ? a : b))
GPULAB_SIMT_FN(unsigned int, umax, (unsigned int a, unsigned int b), (a < b ? b : a))
GPULAB_SIMT_FN(long long, llmin, (long long a, long long b), (a < b ? a : b))
GPULAB_SIMT_FN(long long, llmax, (long long a, long long b), (a < b ? b : a))
GPULAB_SIMT_FN(unsigned long long, ullmin, (unsigned long long a, unsigned long long b),
               (a < b ? a : b))
GPULAB_SIMT_FN(unsigned long long, ullmax, (unsigned long long a, unsigned long long b),
               (a < b ? b : a))

// ---- Reinterpretations and conversions
// -------------------------------------------------------------

GPULAB_SIMT_FN(int, __float_as_int, (float x), (std::bit_cast<int>(x)))
GPULAB_SIMT_FN(unsigned int, __float_as_uint, (float x), (std::bit_cast<unsigned int>(x)))
GPULAB_SIMT_FN(float, __int_as_float, (int x), (std::bit_cast<float>(x)))
GPULAB_SIMT_FN(float, __uint_as_float, (unsigned int x), (std::bit_cast<float>(x)))
GPULAB_SIMT_FN(long long, __double_as_longlong, (double x), (std::bit_cast<long long>(x)))
GPULAB_SIMT_FN(double, __longlong_as_double, (long long x), (std::bit_cast<double>(x)))
GPULAB_SIMT_FN(int, __double2hiint, (double x),
               (static_cast<int>(static_cast<unsigned long long>(__double_as_longlong(x)) >> 32)))
GPULAB_SIMT_FN(int, __double2loint, (double x),
               (static_cast<int>(static_cast<unsigned int>(__double_as_longlong(x)))))
inline double __hiloint2double(int hi, int lo) {
  return __longlong_as_double(static_cast<long long>(
      (static_cast<unsigned long long>(static_cast<unsigned int>(hi)) << 32) |
      static_cast<unsigned int>(lo)));
}

// A conversion to an integer as the GPU's cvt does it (measured on an H100): a value outside the
// type's range gives the nearest end of it; NaN gives 0 from a float to a 32-bit type and only the
// top bit set (0x80000000, 0x8000000000000000) otherwise, for unsigned types too. C++ leaves both
// undefined (x86 gives the top bit for any signed type). The value is already rounded; at the top,
// the float of max() is max() + 1 for the wider types, and every value at or above it is out of
// range.
template <class Int, class F>
inline Int gpulab_saturating_cast(F rounded) {
  if (rounded != rounded) {
    if (std::is_same_v<F, float> && sizeof(Int) == 4) return 0;
    return static_cast<Int>(std::make_unsigned_t<Int>{1} << (8 * sizeof(Int) - 1));
  }
  if (rounded <= static_cast<F>(std::numeric_limits<Int>::min()))
    return std::numeric_limits<Int>::min();
  if (rounded >= static_cast<F>(std::numeric_limits<Int>::max()))
    return std::numeric_limits<Int>::max();
  return static_cast<Int>(rounded);
}
// Each rounding mode of __float2int_rn and its family: _rn to nearest even, _rz toward zero, _ru
// up, _rd down.
#define GPULAB_SIMT_CVT_TO_INT(R, from, F, type)                                                   \
  GPULAB_SIMT_FN(R, __##from##2##type##_rn, (F x), (gpulab_saturating_cast<R>(std::nearbyint(x)))) \
  GPULAB_SIMT_FN(R, __##from##2##type##_rz, (F x), (gpulab_saturating_cast<R>(std::trunc(x))))     \
  GPULAB_SIMT_FN(R, __##from##2##type##_ru, (F x), (gpulab_saturating_cast<R>(std::ceil(x))))      \
  GPULAB_SIMT_FN(R, __##from##2##type##_rd, (F x), (gpulab_saturating_cast<R>(std::floor(x))))
GPULAB_SIMT_CVT_TO_INT(int, float, float, int)
GPULAB_SIMT_CVT_TO_INT(unsigned int, float, float, uint)
GPULAB_SIMT_CVT_TO_INT(long long, float, float, ll)
GPULAB_SIMT_CVT_TO_INT(unsigned long long, float, float, ull)
GPULAB_SIMT_CVT_TO_INT(int, double, double, int)
GPULAB_SIMT_CVT_TO_INT(unsigned int, double, double, uint)
GPULAB_SIMT_CVT_TO_INT(long long, double, double, ll)
GPULAB_SIMT_CVT_TO_INT(unsigned long long, double, double, ull)
#undef GPULAB_SIMT_CVT_TO_INT
GPULAB_SIMT_FN(float, __double2float_rn, (double x), (static_cast<float>(x)))
GPULAB_SIMT_FN(float, __int2float_rn, (int x), (static_cast<float>(x)))
GPULAB_SIMT_FN(float, __uint2float_rn, (unsigned int x), (static_cast<float>(x)))
GPULAB_SIMT_FN(float, __ll2float_rn, (long long x), (static_cast<float>(x)))
GPULAB_SIMT_FN(double, __int2double_rn, (int x), (x))

// ---- Float math
// ------------------------------------------------------------------------------------ The fast
// intrinsics (__expf, __fdividef, ...) compute the accurate result here: a CPU has no
// special-function unit, so results may differ from a GPU's in the last bits.

// Names that a C library may one day declare itself (C23 has rsqrt, sinpi, ...) are templates
// with a defaulted parameter: a libc declaration, if present, is preferred by overload resolution
// instead of clashing with this one.
GPULAB_SIMT_LIBC_FN(float, rsqrtf, (float x), (1.0f / std::sqrt(x)))
GPULAB_SIMT_LIBC_FN(double, rsqrt, (double x), (1.0 / std::sqrt(x)))
GPULAB_SIMT_LIBC_FN(float, rcbrtf, (float x), (1.0f / std::cbrt(x)))
GPULAB_SIMT_LIBC_FN(double, rcbrt, (double x), (1.0 / std::cbrt(x)))
GPULAB_SIMT_LIBC_FN(float, fdividef, (float a, float b), (a / b))
GPULAB_SIMT_FN(float, __fdividef, (float a, float b), (a / b))
GPULAB_SIMT_FN(float, __expf, (float x), (std::exp(x)))
GPULAB_SIMT_FN(float, __exp10f, (float x), (std::pow(10.0f, x)))
GPULAB_SIMT_FN(float, __logf, (float x), (std::log(x)))
GPULAB_SIMT_FN(float, __log2f, (float x), (std::log2(x)))
GPULAB_SIMT_FN(float, __log10f, (float x), (std::log10(x)))
GPULAB_SIMT_FN(float, __sinf, (float x), (std::sin(x)))
GPULAB_SIMT_FN(float, __cosf, (float x), (std::cos(x)))
GPULAB_SIMT_FN(float, __tanf, (float x), (std::tan(x)))
inline void __sincosf(float x, float* s, float* c) {
  *s = std::sin(x);
  *c = std::cos(x);
}
GPULAB_SIMT_FN(float, __powf, (float x, float y), (std::pow(x, y)))
// -0 gives +0, NaN +0 (measured on an H100).
GPULAB_SIMT_FN(float, __saturatef, (float x), (x > 0.0f ? (x > 1.0f ? 1.0f : x) : 0.0f))
// A float NaN that the GPU's arithmetic makes or passes on is always 0x7fffffff (measured on an
// H100: 0/0, sqrt(-1), an input NaN's payload); x86 makes 0xffc00000, which printf shows as
// "-nan", and passes payloads on. The correctly rounded intrinsics below return the GPU's.
inline float gpulab_gpu_nan(float x) {
  return x != x ? std::bit_cast<float>(0x7fffffffu) : x;
}
GPULAB_SIMT_FN(float, __fsqrt_rn, (float x), (gpulab_gpu_nan(std::sqrt(x))))
// 1/sqrt(x) rounded once: the double's quotient is within a float's half step of the answer
// except near a midpoint between two floats; which side of the midpoint m it lies on is the sign of
// m*m*x - 1, exact with an fma (m has 25 bits, m*m 50).
inline float __frsqrt_rn(float x) {
  if (!(x > 0.0f) || std::isinf(x)) return gpulab_gpu_nan(1.0f / std::sqrt(x));
  float y = static_cast<float>(1.0 / std::sqrt(static_cast<double>(x)));
  const auto beyond = [x](float a, float b) {  // the sign of m*m*x - 1 for m between a and b
    const double m = (static_cast<double>(a) + b) / 2, mm = m * m, p = mm * x;
    const double e = std::fma(mm, static_cast<double>(x), -p);
    return p != 1.0 ? (p > 1.0 ? 1 : -1) : (e > 0 ? 1 : (e < 0 ? -1 : 0));
  };
  const float up = std::nextafter(y, INFINITY), down = std::nextafter(y, 0.0f);
  const int above = beyond(y, up), below = beyond(down, y);
  const bool y_even = (std::bit_cast<unsigned>(y) & 1u) == 0;
  if (above < 0 || (above == 0 && !y_even)) return up;    // 1/sqrt(x) past the midpoint above
  if (below > 0 || (below == 0 && !y_even)) return down;  // or before the one below
  return y;
}
GPULAB_SIMT_FN(float, __frcp_rn, (float x), (gpulab_gpu_nan(1.0f / x)))
GPULAB_SIMT_FN(float, __fadd_rn, (float a, float b), (gpulab_gpu_nan(a + b)))
// The directed roundings of the _rz, _rd and _ru intrinsics, from the nearest result and the sign
// of its error (the exact value minus it, exact by TwoSum or an fma): one step toward zero, down or
// up where the exact value lies that way. A finite overflow is the largest float where the
// direction says so, not infinity.
enum class GpulabRound { zero, down, up };
template <class T>
inline T gpulab_directed(T nearest, int error_sign, GpulabRound mode, bool finite_inputs) {
  constexpr T kInf = std::numeric_limits<T>::infinity();
  if (std::isinf(nearest)) {
    if (!finite_inputs) return nearest;
    const T max = std::copysign(std::numeric_limits<T>::max(), nearest);
    const bool keep =
        mode == GpulabRound::up ? nearest > 0 : mode == GpulabRound::down && nearest < 0;
    return keep ? nearest : max;
  }
  if (error_sign == 0 || std::isnan(nearest)) return nearest;
  switch (mode) {
    case GpulabRound::zero:
      if (nearest == 0) return nearest;
      return (nearest > 0) != (error_sign > 0) ? std::nextafter(nearest, T(0)) : nearest;
    case GpulabRound::down:
      return error_sign < 0 ? std::nextafter(nearest, -kInf) : nearest;
    case GpulabRound::up:
      return error_sign > 0 ? std::nextafter(nearest, kInf) : nearest;
  }
  return nearest;
}
inline int gpulab_sign(double e) {
  return e > 0 ? 1 : e < 0 ? -1 : 0;
}
template <class T>
inline T gpulab_nan_of(T x) {
  if constexpr (std::is_same_v<T, float>) {
    return gpulab_gpu_nan(x);
  } else {
    return x;
  }
}
// a + b rounded as asked: TwoSum gives the error; an exact zero sum is -0 when rounding down,
// unless both are +0 (IEEE 754).
template <class T>
inline T gpulab_add_directed(T a, T b, GpulabRound mode) {
  const T s = a + b;
  const T b_part = s - a;
  const T error = (a - (s - b_part)) + (b - b_part);
  if (s == 0 && error == 0 && mode == GpulabRound::down) {
    return a == 0 && b == 0 && !std::signbit(a) && !std::signbit(b) ? T(0) : -T(0);
  }
  return gpulab_nan_of(gpulab_directed(s, gpulab_sign(static_cast<double>(error)), mode,
                                       std::isfinite(a) && std::isfinite(b)));
}
// Below this, a double's error (an fma's remainder) may itself underflow and lose its sign: the
// operands are scaled by a power of two first, which changes no sign.
inline constexpr double kGpulabTinyDouble = 0x1p-968;
template <class T>
inline T gpulab_mul_directed(T a, T b, GpulabRound mode) {
  const T p = a * b;
  const bool finite = std::isfinite(a) && std::isfinite(b);
  int sign = 0;
  if constexpr (std::is_same_v<T, float>) {
    sign = gpulab_sign(static_cast<double>(a) * static_cast<double>(b) - p);  // exact in double
  } else if (finite && a != 0 && b != 0 && std::fabs(p) < kGpulabTinyDouble) {
    // Both mantissas in [0.5, 1): their product a normal double hi + lo, against p scaled alike.
    int ea = 0, eb = 0;
    const double x = std::frexp(double(a), &ea), y = std::frexp(double(b), &eb);
    const double hi = x * y, lo = std::fma(x, y, -hi), scaled = std::ldexp(double(p), -(ea + eb));
    sign = hi != scaled ? gpulab_sign(hi - scaled) : gpulab_sign(lo);
  } else {
    sign = gpulab_sign(std::fma(a, b, -p));
  }
  return gpulab_nan_of(gpulab_directed(p, sign, mode, finite));
}
// a / b: the remainder a - q * b (exact by an fma, in double for floats) has the sign of the
// error times the sign of b.
template <class T>
inline T gpulab_div_directed(T a, T b, GpulabRound mode) {
  const T q = a / b;
  if (!std::isfinite(q) || b == 0 || !std::isfinite(b)) {
    const bool finite = std::isfinite(a) && std::isfinite(b) && b != 0;
    if (std::isinf(q) && finite) return gpulab_nan_of(gpulab_directed(q, 1, mode, true));
    return gpulab_nan_of(q);
  }
  if (a == 0) return q;
  double r = 0;
  if (std::is_same_v<T, double> && std::fabs(q) < kGpulabTinyDouble) {
    r = std::fma(-std::ldexp(double(q), 600), double(b), std::ldexp(double(a), 600));
  } else if (std::is_same_v<T, double> && std::fabs(a) < kGpulabTinyDouble) {
    // a / b = (a 2^600) / (b 2^600), and |b| <= 1 here, so neither scaled operand overflows.
    r = std::fma(-double(q), std::ldexp(double(b), 600), std::ldexp(double(a), 600));
  } else {
    r = std::fma(-static_cast<double>(q), static_cast<double>(b), static_cast<double>(a));
  }
  return gpulab_nan_of(gpulab_directed(q, gpulab_sign(r) * (b > 0 ? 1 : -1), mode, true));
}
template <class T>
inline T gpulab_sqrt_directed(T x, GpulabRound mode) {
  const T s = std::sqrt(x);
  if (!(s > 0) || std::isinf(s)) return gpulab_nan_of(s);
  double r = 0;
  if (std::is_same_v<T, double> && x < kGpulabTinyDouble) {
    const double scaled = std::ldexp(double(s), 300);
    r = std::fma(-scaled, scaled, std::ldexp(double(x), 600));
  } else {
    r = std::fma(-static_cast<double>(s), static_cast<double>(s), static_cast<double>(x));
  }
  return gpulab_nan_of(gpulab_directed(s, gpulab_sign(r), mode, true));
}
#define GPULAB_SIMT_DIRECTED(T, f, d, mode)    \
  inline T __##f##add_##d(T a, T b) {          \
    return gpulab_add_directed(a, b, mode);    \
  }                                            \
  inline T __##f##sub_##d(T a, T b) {          \
    return gpulab_add_directed(a, -b, mode);   \
  }                                            \
  inline T __##f##mul_##d(T a, T b) {          \
    return gpulab_mul_directed(a, b, mode);    \
  }                                            \
  inline T __##f##div_##d(T a, T b) {          \
    return gpulab_div_directed(a, b, mode);    \
  }                                            \
  inline T __##f##sqrt_##d(T x) {              \
    return gpulab_sqrt_directed(x, mode);      \
  }                                            \
  inline T __##f##rcp_##d(T x) {               \
    return gpulab_div_directed(T(1), x, mode); \
  }
GPULAB_SIMT_DIRECTED(float, f, rz, GpulabRound::zero)
GPULAB_SIMT_DIRECTED(float, f, rd, GpulabRound::down)
GPULAB_SIMT_DIRECTED(float, f, ru, GpulabRound::up)
GPULAB_SIMT_DIRECTED(double, d, rz, GpulabRound::zero)
GPULAB_SIMT_DIRECTED(double, d, rd, GpulabRound::down)
GPULAB_SIMT_DIRECTED(double, d, ru, GpulabRound::up)
#undef GPULAB_SIMT_DIRECTED
GPULAB_SIMT_FN(float, __fsub_rn, (float a, float b), (gpulab_gpu_nan(a - b)))
GPULAB_SIMT_FN(float, __fmul_rn, (float a, float b), (gpulab_gpu_nan(a * b)))
GPULAB_SIMT_FN(double, __dsub_rn, (double a, double b), (a - b))
GPULAB_SIMT_FN(double, __ddiv_rn, (double a, double b), (a / b))
GPULAB_SIMT_FN(float, __fdiv_rn, (float a, float b), (gpulab_gpu_nan(a / b)))
GPULAB_SIMT_FN(float, __fmaf_rn, (float a, float b, float c), (gpulab_gpu_nan(std::fma(a, b, c))))
GPULAB_SIMT_FN(double, __dadd_rn, (double a, double b), (a + b))
GPULAB_SIMT_FN(double, __dmul_rn, (double a, double b), (a * b))
GPULAB_SIMT_FN(double, __fma_rn, (double a, double b, double c), (std::fma(a, b, c)))
GPULAB_SIMT_FN(double, __drcp_rn, (double x), (1.0 / x))
GPULAB_SIMT_FN(double, __dsqrt_rn, (double x), (std::sqrt(x)))
GPULAB_SIMT_LIBC_FN(float, sinpif, (float x), (std::sin(3.14159265358979323846f * x)))
GPULAB_SIMT_LIBC_FN(float, cospif, (float x), (std::cos(3.14159265358979323846f * x)))
GPULAB_SIMT_LIBC_FN(double, sinpi, (double x), (std::sin(3.14159265358979323846 * x)))
GPULAB_SIMT_LIBC_FN(double, cospi, (double x), (std::cos(3.14159265358979323846 * x)))
template <class = void>
inline void sincospif(float x, float* s, float* c) {
  *s = std::sin(3.14159265358979323846f * x);
  *c = std::cos(3.14159265358979323846f * x);
}
GPULAB_SIMT_LIBC_FN(float, norm3df, (float a, float b, float c), (std::sqrt(a * a + b * b + c * c)))
GPULAB_SIMT_LIBC_FN(float, rnorm3df, (float a, float b, float c),
                    (1.0f / std::sqrt(a * a + b * b + c * c)))
GPULAB_SIMT_LIBC_FN(float, norm4df, (float a, float b, float c, float d),
                    (std::sqrt(a * a + b * b + c * c + d * d)))
GPULAB_SIMT_LIBC_FN(float, rhypotf, (float a, float b), (1.0f / std::hypot(a, b)))
GPULAB_SIMT_LIBC_FN(double, norm3d, (double a, double b, double c),
                    (std::sqrt(a * a + b * b + c * c)))
GPULAB_SIMT_LIBC_FN(double, rnorm3d, (double a, double b, double c),
                    (1.0 / std::sqrt(a * a + b * b + c * c)))
GPULAB_SIMT_LIBC_FN(double, rhypot, (double a, double b), (1.0 / std::hypot(a, b)))

#undef GPULAB_SIMT_FN
#undef GPULAB_SIMT_LIBC_FN
