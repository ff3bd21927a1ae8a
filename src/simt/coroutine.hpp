// Kernels as C++20 coroutines: the emulator's fast path for kernels with barriers and warp
// collectives (see docs/simt.md, "Coroutine threads").
//
// gpulab run turns a kernel whose body calls __syncthreads() or a warp collective into
//
//   __global__ void k(P p) { ::gpulab::simt::co::start([](P p) -> ::gpulab::simt::co::Thread {
//     ... co_await ::gpulab::simt::co::syncthreads() ... }(p)); }
//
// (src/run/split.cpp). Each CUDA thread's call of k starts a coroutine; at a barrier it is
// suspended (a return to whoever resumed it) instead of parking the thread on a fiber, and the
// scheduler resumes it with a call once the barrier is released. The arrival is booked by the very
// code the fibers use (BlockRunner), so the results, the order in which threads run and every
// diagnostic are those of the fiber path. A barrier reached in code that is no coroutine (a
// device function from a header) parks the thread on a fiber as before.
#pragma once

#include <bit>
#include <coroutine>
#include <cstdint>
#include <cstring>
#include <new>
#include <source_location>
#include <type_traits>
#include <utility>

#include "simt/device_api.hpp"

namespace gpulab::simt::co {

// One CUDA thread's coroutine. It runs at once when the kernel is called (initial_suspend never
// suspends) and stays suspended at its end until the scheduler destroys it.
struct Thread {
  struct promise_type {
    Thread get_return_object() noexcept {
      return Thread{std::coroutine_handle<promise_type>::from_promise(*this).address()};
    }
    std::suspend_never initial_suspend() noexcept { return {}; }
    std::suspend_always final_suspend() noexcept { return {}; }
    void return_void() noexcept {}
    // A kernel's exception goes to whoever started or resumed the thread, as it would from a
    // plain call.
    void unhandled_exception() { throw; }
    static void* operator new(std::size_t bytes) { return detail::co_frame_allocate(bytes); }
    static void operator delete(void* frame) noexcept { detail::co_frame_free(frame); }
  };
  void* handle;
};

// A kernel argument as CUDA passes it: its bytes, copied without a constructor and never
// destroyed (a by-value struct whose destructor frees memory must not run it once per thread).
template <class T>
class Arg {
 public:
  Arg(const T& value) noexcept {  // NOLINT: converts at the coroutine's call, as a parameter would
    std::memcpy(static_cast<void*>(bytes_), static_cast<const void*>(&value), sizeof(T));
  }
  T& get() noexcept { return *std::launder(reinterpret_cast<T*>(bytes_)); }

 private:
  alignas(T) unsigned char bytes_[sizeof(T)];
};

// The kernel's call: the thread's coroutine has ended or is suspended.
inline void start(Thread thread) {
  detail::co_started(thread.handle);
}

namespace detail {

using gpulab::simt::detail::BlockOp;
using gpulab::simt::detail::CoArrival;
using gpulab::simt::detail::WarpOp;

// A value's bits as the intrinsics pass them (to_bits in device_api.hpp; __half's 16 bits).
template <class T>
std::uint64_t bits_of(const T& v) {
  static_assert(std::is_trivially_copyable_v<T> && sizeof(T) <= 8);
  if constexpr (sizeof(T) == 8) {
    return std::bit_cast<std::uint64_t>(v);
  } else if constexpr (sizeof(T) == 4) {
    return std::bit_cast<std::uint32_t>(v);
  } else if constexpr (sizeof(T) == 2) {
    return std::bit_cast<std::uint16_t>(v);
  } else {
    std::uint64_t b = 0;
    std::memcpy(&b, &v, sizeof(T));
    return b;
  }
}

template <class T>
T from_bits(std::uint64_t b) {
  if constexpr (sizeof(T) == 8) {
    return std::bit_cast<T>(b);
  } else if constexpr (sizeof(T) == 4) {
    return std::bit_cast<T>(static_cast<std::uint32_t>(b));
  } else if constexpr (sizeof(T) == 2) {
    return std::bit_cast<T>(static_cast<std::uint16_t>(b));
  } else {
    T v;
    std::memcpy(&v, &b, sizeof(T));
    return v;
  }
}

struct BarrierAwait {
  BlockOp op;
  int predicate;
  std::source_location where;
  const std::uint64_t* result = nullptr;
  bool await_ready() const noexcept { return false; }
  bool await_suspend(std::coroutine_handle<> h) {
    if (gpulab::simt::detail::BarrierGather* g = gpulab::simt::detail::tl_gather;
        g != nullptr && g->arrive_like_first(op, predicate, where, h.address())) {
      result = &g->result[*g->current];
      return true;
    }
    const CoArrival a = gpulab::simt::detail::co_block_barrier(op, predicate, where, h.address());
    result = a.result;
    return a.suspend;
  }
  int await_resume() const noexcept { return static_cast<int>(*result); }
};

// __syncthreads(): no result, and the smallest awaiter (it lives in the frame of every thread).
struct SyncAwait {
  std::source_location where;
  bool await_ready() const noexcept { return false; }
  bool await_suspend(std::coroutine_handle<> h) {
    if (gpulab::simt::detail::BarrierGather* g = gpulab::simt::detail::tl_gather;
        g != nullptr && g->arrive_like_first(BlockOp::sync, 1, where, h.address())) {
      return true;
    }
    return gpulab::simt::detail::co_block_barrier(BlockOp::sync, 1, where, h.address()).suspend;
  }
  void await_resume() const noexcept {}
};

// R: the value the intrinsic returns (void for __syncwarp).
template <class R>
struct WarpAwait {
  WarpOp op;
  unsigned mask;
  std::uint64_t value;
  int arg;
  int width;
  std::source_location where;
  int* pred = nullptr;  // __match_all_sync's
  const std::uint64_t* result = nullptr;
  bool await_ready() const noexcept { return false; }
  bool await_suspend(std::coroutine_handle<> h) {
    const CoArrival a =
        gpulab::simt::detail::co_warp_collective(op, mask, value, arg, width, where, h.address());
    result = a.result;
    return a.suspend;
  }
  R await_resume() const noexcept {
    if (pred != nullptr) *pred = *result != 0;
    if constexpr (!std::is_void_v<R>) return from_bits<R>(*result);
  }
};

// The type the intrinsic itself returns for an argument of type T (int for a short, say).
template <class T>
using ShflType = decltype(__shfl_sync(0u, std::declval<T>(), 0));

// A shuffle of var, sent as the intrinsic's own type R: arg is the source lane, delta or lane mask.
template <class R, class T>
WarpAwait<R> shuffle(WarpOp op, unsigned mask, T var, int arg, int width,
                     std::source_location where) {
  return {op, mask, bits_of(static_cast<R>(var)), arg, width, where};
}

}  // namespace detail

using Here = std::source_location;

// ---- Block barriers

inline detail::SyncAwait syncthreads(Here where = Here::current()) {
  return {where};
}
inline detail::BarrierAwait syncthreads_count(int predicate, Here where = Here::current()) {
  return {detail::BlockOp::count, predicate, where};
}
inline detail::BarrierAwait syncthreads_and(int predicate, Here where = Here::current()) {
  return {detail::BlockOp::all, predicate, where};
}
inline detail::BarrierAwait syncthreads_or(int predicate, Here where = Here::current()) {
  return {detail::BlockOp::any, predicate, where};
}

// ---- Warp collectives

inline detail::WarpAwait<void> syncwarp(unsigned mask = 0xffffffffu, Here where = Here::current()) {
  return {detail::WarpOp::sync, mask, 0, 0, warpSize, where};
}
inline detail::WarpAwait<unsigned> ballot_sync(unsigned mask, int predicate,
                                               Here where = Here::current()) {
  return {detail::WarpOp::ballot, mask, predicate != 0, 0, warpSize, where};
}
inline detail::WarpAwait<int> any_sync(unsigned mask, int predicate, Here where = Here::current()) {
  return {detail::WarpOp::any, mask, predicate != 0, 0, warpSize, where};
}
inline detail::WarpAwait<int> all_sync(unsigned mask, int predicate, Here where = Here::current()) {
  return {detail::WarpOp::all, mask, predicate != 0, 0, warpSize, where};
}
inline detail::WarpAwait<unsigned> activemask(Here where = Here::current()) {
  return {detail::WarpOp::activemask, 0xffffffffu, 0, 0, warpSize, where};
}

template <class T, class R = detail::ShflType<T>>
detail::WarpAwait<R> shfl_sync(unsigned mask, T var, int src_lane, int width = warpSize,
                               Here where = Here::current()) {
  return detail::shuffle<R>(detail::WarpOp::shfl_idx, mask, var, src_lane, width, where);
}
template <class T, class R = detail::ShflType<T>>
detail::WarpAwait<R> shfl_up_sync(unsigned mask, T var, unsigned int delta, int width = warpSize,
                                  Here where = Here::current()) {
  return detail::shuffle<R>(detail::WarpOp::shfl_up, mask, var, static_cast<int>(delta & 31u),
                            width, where);
}
template <class T, class R = detail::ShflType<T>>
detail::WarpAwait<R> shfl_down_sync(unsigned mask, T var, unsigned int delta, int width = warpSize,
                                    Here where = Here::current()) {
  return detail::shuffle<R>(detail::WarpOp::shfl_down, mask, var, static_cast<int>(delta & 31u),
                            width, where);
}
template <class T, class R = detail::ShflType<T>>
detail::WarpAwait<R> shfl_xor_sync(unsigned mask, T var, int lane_mask, int width = warpSize,
                                   Here where = Here::current()) {
  return detail::shuffle<R>(detail::WarpOp::shfl_xor, mask, var, lane_mask, width, where);
}
template <class T, class R = detail::ShflType<T>>
detail::WarpAwait<unsigned> match_any_sync(unsigned mask, T value, Here where = Here::current()) {
  return {
      detail::WarpOp::match_any, mask, detail::bits_of(static_cast<R>(value)), 0, warpSize, where};
}
template <class T, class R = detail::ShflType<T>>
detail::WarpAwait<unsigned> match_all_sync(unsigned mask, T value, int* pred,
                                           Here where = Here::current()) {
  return {detail::WarpOp::match_all,
          mask,
          detail::bits_of(static_cast<R>(value)),
          0,
          warpSize,
          where,
          pred};
}

// sm_80 warp reductions: the intrinsic's own overload decides the type (and signedness).
#define GPULAB_SIMT_CO_REDUCE(name, intrinsic, op)                                        \
  template <class T, class R = decltype(intrinsic(0u, std::declval<T>()))>                \
  detail::WarpAwait<R> name(unsigned mask, T value, Here where = Here::current()) {       \
    return {detail::WarpOp::op,                                                           \
            mask,                                                                         \
            static_cast<std::uint64_t>(static_cast<std::int64_t>(static_cast<R>(value))), \
            std::is_signed_v<R> ? 1 : 0,                                                  \
            warpSize,                                                                     \
            where};                                                                       \
  }
GPULAB_SIMT_CO_REDUCE(reduce_add_sync, __reduce_add_sync, reduce_add)
GPULAB_SIMT_CO_REDUCE(reduce_min_sync, __reduce_min_sync, reduce_min)
GPULAB_SIMT_CO_REDUCE(reduce_max_sync, __reduce_max_sync, reduce_max)
GPULAB_SIMT_CO_REDUCE(reduce_and_sync, __reduce_and_sync, reduce_and)
GPULAB_SIMT_CO_REDUCE(reduce_or_sync, __reduce_or_sync, reduce_or)
GPULAB_SIMT_CO_REDUCE(reduce_xor_sync, __reduce_xor_sync, reduce_xor)
#undef GPULAB_SIMT_CO_REDUCE

}  // namespace gpulab::simt::co
