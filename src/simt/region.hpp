// Kernels split at their barriers into region loops: the emulator's fast path for barrier kernels
// whose barriers every thread provably reaches together (see docs/simt.md, "Region loops").
//
// gpulab run turns such a kernel (src/run/split.cpp) into
//
//   __global__ void k(P p) { if (auto* gpulab_rl_ = ::gpulab::simt::region::begin()) {
//     ::gpulab::simt::region::Block gpulab_rb_(*gpulab_rl_); __shared__ ... (hoisted)
//     T* gpulab_rs0_ = ::gpulab::simt::region::store<T>(gpulab_rb_.threads());
//     for (unsigned gpulab_rt_ = 0, gpulab_rn_ = gpulab_rb_.threads(); gpulab_rt_ < gpulab_rn_;
//          ++gpulab_rt_) { gpulab_rb_.thread(gpulab_rt_); T& x = gpulab_rs0_[gpulab_rt_]; try {
//       ... region 1 of the thread ...
//     } catch (const ThreadEnded&) { if (gpulab_rb_.ended_thread(gpulab_rn_)) break; } }
//     if (gpulab_rb_.barrier()) return;
//     for (...) { region 2 } ... } }
//
// The block's first thread's call runs the whole block: each region (the code between two
// barriers) as a loop over the block's threads in order 0..n-1, as the fiber and coroutine paths
// resume them, inside the kernel's own code, so that the compiler sees each region's thread loop
// as a plain loop. A barrier loop (whose header every thread evaluates alike) runs once for the
// block around its regions' thread loops. The locals that live across a barrier are kept per
// thread in the block's arena. Every thread of the block arrives at the same barrier, which the
// transformation proves.
#pragma once

#include <algorithm>
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
// Speculative: region loops that hold only if the block's threads agree on a condition, with the
// kernel's code as written after them (below, Block::fall_back); nullptr once the block fell back.
inline ThreadLoop* begin(bool speculative = false) {
  return gpulab::simt::detail::region_begin(speculative);
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

// The block that the first thread's call runs: its region loops set the thread (thread()), and
// cross each barrier through barrier().
class Block {
 public:
  const std::uint32_t dx, dy, dz;  // blockDim

  explicit Block(ThreadLoop& loop)
      : dx(blockDim.x), dy(blockDim.y), dz(blockDim.z), loop_(loop), all_(loop.threads) {}
  Block(const Block&) = delete;
  Block& operator=(const Block&) = delete;
  // However the block ends, the thread loop's later calls of the kernel start nothing (a failed
  // assert may have shortened loop.threads: the scheduler then fails the block).
  ~Block() {
    if (fallen_) return;
    loop_.region = false;
    loop_.next = all_;
  }

  std::uint32_t threads() const { return loop_.threads; }
  // The first thread of row y of layer z, and the end (one past the last x) of its threads that
  // run: those below n.
  std::uint32_t row(std::uint32_t y, std::uint32_t z) const { return (z * dy + y) * dx; }
  std::uint32_t row_end(std::uint32_t first, std::uint32_t n) const {
    return n > first ? std::min(dx, n - first) : 0;
  }

  // Thread t, at (x, y, z), runs (threadIdx, and the scheduler's current thread, which faults
  // name).
  void thread(std::uint32_t t, std::uint32_t x, std::uint32_t y, std::uint32_t z) {
    // Volatile: a fault (a signal) reads it, so the compiler may neither sink it out of the loop
    // nor drop it.
    *static_cast<volatile std::uint32_t*>(&loop_.current) = t;
    threadIdx = uint3{x, y, z};
  }

  // The thread failed an assert: as on the other paths, the rest of its warp runs the first region
  // (loop.threads, into n, now ends the loops after it); once threads have waited, the block stops
  // (n 0: no more threads). x_end: the end of the row that starts at thread `first`.
  void ended_thread(std::uint32_t& n, std::uint32_t& x_end, std::uint32_t first) {
    ended_ = true;
    n = first_ ? loop_.threads : 0;
    x_end = std::min(x_end, row_end(first, n));
  }
  // Whether a thread ended (the block stops before its next region).
  bool ended() const { return ended_; }

  // The block's threads disagree on the condition of a barrier's `if` (or of an early return):
  // region loops cannot run it. Nothing the threads did so far can be seen by another (the
  // transformation proves it), so the first thread's call goes on with the kernel's code as
  // written, as thread 0, and the others follow it there; barriers then wait on fibers, and a
  // barrier not every thread reaches is reported as on that path.
  void fall_back() {
    fallen_ = true;
    gpulab::simt::detail::region_fall_back();
  }

  // Every thread reached the barrier; true: a thread ended, the block stops here.
  bool barrier() {
    if (ended_) return true;
    gpulab::simt::detail::region_barrier(first_);
    first_ = false;
    return false;
  }

 private:
  ThreadLoop& loop_;
  std::uint32_t all_;
  bool first_ = true;
  bool ended_ = false;
  bool fallen_ = false;
};

}  // namespace gpulab::simt::region
