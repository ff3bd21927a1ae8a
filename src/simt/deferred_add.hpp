// Integer atomic adds whose result no one reads, combined per OS thread until its block's thread
// loop ends (docs/simt.md, "Deferred atomic adds").
//
// gpulab run (src/run/split.cpp) calls deferred_add instead of atomicAdd for a statement
// `atomicAdd(p, v);` that is the last thing its thread does, in a kernel that waits for nothing
// and reads no memory through volatile or after a fence. No later operation of the thread can see
// the add, and no other thread is ordered after it; the add lands before the block's loop ends,
// so before the launch does: what every thread could see is what a GPU could show. On a CPU the
// 10^8 adds of a histogram's 7 bins become a few per block instead of a cache line that every
// core fights for.
#pragma once

#include <atomic>
#include <cstdint>
#include <type_traits>

#include "simt/device_api.hpp"
#include "simt/thread_loop.hpp"

namespace gpulab::simt::detail {
template <class T>
void apply_deferred_add(void* p, unsigned long long v) {
  std::atomic_ref<T>(*static_cast<T*>(p)).fetch_add(static_cast<T>(v), std::memory_order_relaxed);
}

// CUDA's integer atomicAdd (int, unsigned int, unsigned long long: sums modulo 2^n, in any
// grouping the same); any other type is atomicAdd itself (a float sum depends on its order).
template <class T, class V>
inline void deferred_add(T* p, V v) {
  if constexpr (std::is_same_v<T, int> || std::is_same_v<T, unsigned> ||
                std::is_same_v<T, unsigned long long>) {
    DeferredAdds& d = deferred_adds;
    const auto add = static_cast<unsigned long long>(static_cast<T>(v));
    const unsigned slot = (reinterpret_cast<std::uintptr_t>(p) / sizeof(T)) % DeferredAdds::kSlots;
    if (d.address[slot] == p) {
      d.sum[slot] += add;
      return;
    }
    // The address's first add of the block is made at once, by this thread (an add of 0): a
    // wild pointer faults here, at the thread and line that wrote it, as atomicAdd would.
    std::atomic_ref<T>(*p).fetch_add(T{0}, std::memory_order_relaxed);
    if (d.address[slot] != nullptr) {
      d.apply[slot](d.address[slot], d.sum[slot]);
    } else {
      ++d.used;
    }
    d.address[slot] = p;
    d.sum[slot] = add;
    d.apply[slot] = &apply_deferred_add<T>;
  } else {
    ::atomicAdd(p, v);
  }
}

}  // namespace gpulab::simt::detail
