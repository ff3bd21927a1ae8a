// The loop over a block's threads, compiled with the kernel: see docs/simt.md, "The plain loop".
#pragma once

#include <cstdint>
#include <optional>

#include "simt/builtin_vars.hpp"
#include "simt/vector_types.hpp"

namespace gpulab::simt::detail {

// A block's loop over its threads, whose state the scheduler owns (scheduler.cpp). The loop itself
// is compiled with the kernel (run_thread_loop below), so that a CUDA thread costs no type-erased
// call and the compiler sees the kernel's body where it can.
struct ThreadLoop {
  std::uint32_t next = 0;      // first thread not started
  std::uint32_t threads = 0;   // in the block
  std::uint32_t current = 0;   // the thread that runs now
  std::uint32_t finished = 0;  // threads that returned
  bool faulted = false;        // start no more threads
  // The scheduler must see every start and end (check mode, or the block is on fibers): enter and
  // exit are called. Until then the loop keeps no books: a thread that starts before any has
  // waited ends before the next starts, which the scheduler counts when the block first waits.
  bool hooks = false;
  bool linear = false;  // a one-dimensional block: threadIdx is {t, 0, 0}
  // The block's first thread runs the whole block as region loops (simt/region.hpp): no thread
  // may wait on a fiber meanwhile.
  bool region = false;
  const uint3* coords = nullptr;  // threadIdx of each linear thread id
  uint3* thread_index = nullptr;  // &threadIdx of this OS thread
  void* runner = nullptr;
  void (*enter)(void* runner, std::uint32_t t) = nullptr;
  void (*exit)(void* runner, std::uint32_t t) = nullptr;
};

// Integer atomic adds of this OS thread's block whose result no one reads, not yet made
// (simt/deferred_add.hpp): made when the block's loop ends.
struct DeferredAdds {
  // Direct-mapped by the address (a histogram's bins, side by side, take a slot each).
  static constexpr unsigned kSlots = 16;
  void* address[kSlots] = {};
  unsigned long long sum[kSlots] = {};
  void (*apply[kSlots])(void*, unsigned long long) = {};
  unsigned used = 0;  // slots taken

  void flush() {
    for (unsigned i = 0; i < kSlots; ++i) {
      if (address[i] != nullptr) apply[i](address[i], sum[i]);
      address[i] = nullptr;
    }
    used = 0;
  }
  void drop() {
    for (void*& a : address) a = nullptr;
    used = 0;
  }
};

inline thread_local DeferredAdds deferred_adds;

// Thrown by a thread that ends where it stands while its warp's other lanes go on (a failed
// device-side assert: on a GPU every lane of the warp that fails it prints its line before the
// launch stops). The loop goes on with the next thread; the scheduler ends the block after the
// warp (BlockRunner::end_thread_in_warp).
struct ThreadEnded {};

// Runs the block's threads one after another from loop.next, each through body(). A thread that
// parks (a barrier) keeps this frame on its fiber; another fiber calls this again to go on with the
// next thread, and the parked one, once it returns, goes on with whichever thread is next.
//
// Not instrumented in check mode: the loop's own reads (loop.hooks after a thread's body, with the
// thread's recording still on) are the emulator's, not the kernel's. The body is then called, not
// inlined, which check mode can afford.
template <class Body>
__attribute__((no_sanitize("thread"))) void run_thread_loop(ThreadLoop& loop, const Body& body) {
  // This loop's deferred adds are made when it ends, however it ends but by a fault's jump. Adds
  // pending when it starts are an enclosing loop's (a launch from device code runs its blocks
  // here): kept aside and given back at its end, for that loop to make. A block that faulted
  // (siglongjmp: no destructor ran) left its adds pending too: set aside by every loop after it,
  // they are never made (the launch failed; its memory may be freed since).
  struct Flush {
    std::optional<DeferredAdds> outer;
    Flush() {
      if (deferred_adds.used != 0) {
        outer = deferred_adds;
        deferred_adds.drop();
      }
    }
    Flush(const Flush&) = delete;
    Flush& operator=(const Flush&) = delete;
    ~Flush() {
      if (deferred_adds.used != 0) deferred_adds.flush();
      if (outer) deferred_adds = *outer;
    }
  } flush;
  // The common case, a one-dimensional block whose threads have not waited yet: the loop's books
  // are plain stores the body cannot see, threadIdx.x is the loop variable, and the compiler may
  // keep all of it in registers around an inlined body that calls nothing. A thread that parks
  // (its block goes on fibers: hooks) or faults ends this path; the general loop below goes on.
  if (loop.linear && !loop.hooks && loop.thread_index == &threadIdx) {
    const std::uint32_t n = loop.threads;
    threadIdx = uint3{0, 0, 0};
    // loop.next is read again after each thread: a kernel split into region loops runs the whole
    // block in its first thread's call (simt/region.hpp) and moves it to the end.
    for (std::uint32_t t = loop.next; t < n; t = loop.next) {
      loop.next = t + 1;
      loop.current = t;
      threadIdx.x = t;
      try {
        body();
      } catch (const ThreadEnded&) {
        // As below; loop.threads may have changed, so the general loop goes on.
        if (loop.hooks) loop.exit(loop.runner, t);
        break;
      }
      if (loop.hooks || loop.faulted) [[unlikely]] {
        // This thread parked and was resumed (the scheduler now keeps the books of every end),
        // or it faulted.
        if (loop.hooks) loop.exit(loop.runner, t);
        break;
      }
    }
  }
  while (loop.next < loop.threads && !loop.faulted) {
    const std::uint32_t t = loop.next++;
    *loop.thread_index = loop.coords[t];
    loop.current = t;
    if (loop.hooks) loop.enter(loop.runner, t);
    try {
      body();
    } catch (const ThreadEnded&) {
      // The thread ended early; loop.threads now stops the loop after its warp.
    }
    if (loop.hooks) loop.exit(loop.runner, t);
  }
}

}  // namespace gpulab::simt::detail
