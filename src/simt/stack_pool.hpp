// Fiber stacks for parked CUDA threads: mmap'd with a guard page (in large numbers, carved from
// chunks), and recycled.
//
// Recycled so that a block with barriers costs no system call once its worker has warmed up.
#pragma once

#include <cstddef>
#include <memory>
#include <utility>
#include <vector>

#include <boost/context/stack_context.hpp>

namespace gpulab::simt::detail {

// Where a stack lies, for AddressSanitizer's fiber-switch annotations.
struct StackBounds {
  const void* bottom = nullptr;
  std::size_t size = 0;
};

class StackPool {
 public:
  StackPool();
  ~StackPool();
  StackPool(const StackPool&) = delete;
  StackPool& operator=(const StackPool&) = delete;

  boost::context::stack_context allocate();
  void deallocate(const boost::context::stack_context& stack) noexcept;
  static std::size_t stack_bytes();

  // One pool per worker; pools outlive launches, so later launches find their stacks ready.
  static std::unique_ptr<StackPool> lease();
  static void give_back(std::unique_ptr<StackPool> pool) noexcept;

 private:
  // Stacks with a guard page of their own, per pool (a block of 1024 threads and a few idle
  // fibers); later ones come kStacksPerChunk to a mapping, without guard pages.
  static constexpr std::size_t kGuardedStacks = 1024 + 32;
  static constexpr std::size_t kStacksPerChunk = 64;

  std::vector<boost::context::stack_context> free_;
  std::vector<std::pair<void*, std::size_t>> owned_;  // mappings: base, bytes
  std::size_t made_ = 0;
};

// A boost::context StackAllocator that hands out a stack taken from the pool beforehand (so that
// the caller knows its bounds) and returns it to the pool when the fiber ends.
class PooledStack {
 public:
  PooledStack(StackPool* pool, boost::context::stack_context stack) : pool_(pool), stack_(stack) {}
  boost::context::stack_context allocate() { return stack_; }
  void deallocate(boost::context::stack_context& stack) noexcept { pool_->deallocate(stack); }

 private:
  StackPool* pool_;
  boost::context::stack_context stack_;
};

inline StackBounds bounds_of(const boost::context::stack_context& s) {
  return {static_cast<const char*>(s.sp) - s.size, s.size};
}

}  // namespace gpulab::simt::detail
