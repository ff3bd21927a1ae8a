// Warp-synchronous `volatile` code run as a GPU's warp runs it: the lanes take each access
// together (docs/simt.md, "Warp-synchronous volatile code").
//
// Code written before Volta reduces the last 64 values of a block without a barrier, relying on
// the 32 lanes of a warp executing each instruction together:
//
//   __device__ void warpReduce(volatile int* s, int t) { s[t] += s[t + 32]; s[t] += s[t + 16]; ...
//   }
//
// On a GPU every lane reads s[t + 16] before any lane writes s[t]; the emulator runs a block's
// threads one after another, so lane 0 would finish all six steps before lane 16 had made its
// first. gpulab run (src/run/split.cpp) therefore reads and writes such a pointer, where no barrier
// or warp collective orders the accesses, through lockstep(p): each access first lets the other
// threads of the block run up to their own next access (the yield of a spinning thread), so that
// the lanes of a warp take the accesses in rounds, each round in thread order, as a converged warp
// would. The race checker still sees a race there (CUDA's memory model since Volta promises no
// such order without __syncwarp()): --check names it, a plain run gives the GPU's result.
#pragma once

#include <cstddef>

#include "simt/device_api.hpp"

namespace gpulab::simt {

// One round: the other threads of the block run up to their next access (or barrier, or end).
inline void lockstep_round() {
  detail::spin(nullptr);
}

// `p[i]` or `*p` of a volatile pointer: a read or a write, each its own round.
template <class T>
class LockstepRef {
 public:
  explicit LockstepRef(volatile T* p) : p_(p) {}
  // Not trivially copyable: g++ refuses to pass one through printf's `...` (the program is then
  // built without the transformation) instead of printing the pointer.
  LockstepRef(const LockstepRef& other) : p_(other.p_) {}

  operator T() const {
    lockstep_round();
    return *p_;
  }
  const LockstepRef& operator=(T v) const {
    lockstep_round();
    *p_ = v;
    return *this;
  }
  const LockstepRef& operator=(const LockstepRef& other) const { return *this = T(other); }
  volatile T* operator&() const { return p_; }

#define GPULAB_LOCKSTEP_COMPOUND(op)             \
  const LockstepRef& operator op##=(T v) const { \
    const T old = T(*this);                      \
    return *this = static_cast<T>(old op v);     \
  }
  GPULAB_LOCKSTEP_COMPOUND(+)
  GPULAB_LOCKSTEP_COMPOUND(-)
  GPULAB_LOCKSTEP_COMPOUND(*)
  GPULAB_LOCKSTEP_COMPOUND(/)
  GPULAB_LOCKSTEP_COMPOUND(%)
  GPULAB_LOCKSTEP_COMPOUND(&)
  GPULAB_LOCKSTEP_COMPOUND(|)
  GPULAB_LOCKSTEP_COMPOUND(^)
  GPULAB_LOCKSTEP_COMPOUND(<<)
  GPULAB_LOCKSTEP_COMPOUND(>>)
#undef GPULAB_LOCKSTEP_COMPOUND

  const LockstepRef& operator++() const {
    return *this += T(1);
  }
  const LockstepRef& operator--() const {
    return *this -= T(1);
  }
  T operator++(int) const {
    const T old = T(*this);
    *this = static_cast<T>(old + T(1));
    return old;
  }
  T operator--(int) const {
    const T old = T(*this);
    *this = static_cast<T>(old - T(1));
    return old;
  }

 private:
  volatile T* p_;
};

// A volatile pointer whose element accesses are rounds; converts back to the pointer itself.
template <class T>
class LockstepPtr {
 public:
  explicit LockstepPtr(volatile T* p) : p_(p) {}
  LockstepRef<T> operator[](std::ptrdiff_t i) const { return LockstepRef<T>(p_ + i); }
  LockstepRef<T> operator*() const { return LockstepRef<T>(p_); }
  LockstepPtr operator+(std::ptrdiff_t i) const { return LockstepPtr(p_ + i); }
  LockstepPtr operator-(std::ptrdiff_t i) const { return LockstepPtr(p_ - i); }
  operator volatile T*() const { return p_; }

 private:
  volatile T* p_;
};

template <class T>
LockstepPtr<T> lockstep(volatile T* p) {
  return LockstepPtr<T>(p);
}

}  // namespace gpulab::simt
