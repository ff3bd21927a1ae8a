// Kernels split at their barriers into region loops: the emulator's fast path for barrier kernels
// whose barriers every thread provably reaches together (see docs/simt.md, "Region loops").
//
// gpulab run turns such a kernel (src/run/split.cpp) into
//
//   __global__ void k(P p) { if (auto* gpulab_rl_ = ::gpulab::simt::region::begin()) {
//     T* gpulab_rs0_ = ::gpulab::simt::region::store<T>(gpulab_rl_->threads);
//     ::gpulab::simt::region::run(*gpulab_rl_, [&](unsigned gpulab_rt_, int gpulab_rpc_) -> int {
//     T& x = gpulab_rs0_[gpulab_rt_]; switch (gpulab_rpc_) { case 1: goto gpulab_rl1_; }
//     ... ::gpulab::simt::region::construct(x, init); ... return 1; gpulab_rl1_: (void)0; ...
//     return 0; }); } }
//
// The block's first thread's call runs the whole block: each region (the code between two
// barriers) as a loop over the block's threads in order 0..n-1, as the fiber and coroutine paths
// resume them; a barrier is the thread's return from the region with the barrier's number, and the
// next region resumes each thread just after it. The locals that live across a barrier are kept
// per thread in the block's arena. Every thread of the block must arrive at the same barrier,
// which the transformation proves; the loop checks it and fails the block if not (never a wrong
// answer).
#pragma once

#include <cstdint>
#include <new>
#include <type_traits>
#include <utility>

#include "simt/builtin_vars.hpp"
#include "simt/device_api.hpp"
#include "simt/thread_loop.hpp"

namespace gpulab::simt::region {

using gpulab::simt::detail::ThreadLoop;

// The block's thread loop, for the call of its first thread (which runs the whole block).
inline ThreadLoop* begin() {
  return gpulab::simt::detail::region_begin();
}

// Per-thread storage for a local of type T that lives across a barrier: n slots, unconstructed,
// freed with the block.
template <class T>
[[gnu::malloc]] std::remove_cv_t<T>* store(std::uint32_t n) {
  static_assert(alignof(T) <= 16, "the block arena aligns to 16 bytes");
  return static_cast<std::remove_cv_t<T>*>(gpulab::simt::detail::region_storage(sizeof(T) * n));
}

// `T x = init;` (or `T x;`) of the kernel, in the thread's slot that x names.
template <class T, class... A>
void construct(T& slot, A&&... init) {
  ::new (const_cast<void*>(static_cast<const volatile void*>(&slot)))
      std::remove_cv_t<T>(std::forward<A>(init)...);
}
template <class T>
void construct(T& slot) {
  ::new (const_cast<void*>(static_cast<const volatile void*>(&slot))) std::remove_cv_t<T>;
}

// Runs the block: region after region, each over the threads in order. body(t, pc) runs thread t
// from barrier pc (0: the kernel's start) to its next barrier, whose number it returns (0: the
// thread ended).
template <class Body>
void run(ThreadLoop& loop, const Body& body) {
  // However the block ends, the thread loop's later calls of the kernel start nothing (a failed
  // assert may have shortened loop.threads: the scheduler then fails the block).
  struct Done {
    ThreadLoop& loop;
    std::uint32_t all;
    ~Done() {
      loop.region = false;
      loop.next = all;
    }
  } done{loop, loop.threads};
  int pc = 0;
  bool first_region = true;
  // A one-dimensional block: threadIdx.x is the thread (y and z stay 0).
  const bool linear = loop.linear;
  if (linear) threadIdx = uint3{0, 0, 0};
  for (;;) {
    int at = -1;
    bool ended = false;
    for (std::uint32_t t = 0; t < loop.threads; ++t) {
      loop.current = t;
      if (linear) {
        threadIdx.x = t;
      } else {
        threadIdx = loop.coords[t];
      }
      int reached;
      try {
        reached = body(t, pc);
      } catch (const gpulab::simt::detail::ThreadEnded&) {
        // A failed assert: as on the other paths, the rest of its warp runs the first region
        // (loop.threads now ends the loop after it); once threads have waited, the block stops.
        ended = true;
        if (!first_region) break;
        continue;
      }
      if (at < 0) {
        at = reached;
      } else if (reached != at) [[unlikely]] {
        gpulab::simt::detail::region_diverged(t, reached, at);
      }
    }
    if (ended || at <= 0) {
      return;  // the block ended, or a thread failed an assert
    }
    gpulab::simt::detail::region_barrier(first_region);
    pc = at;
    first_region = false;
  }
}

}  // namespace gpulab::simt::region
