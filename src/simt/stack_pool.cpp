// Fiber stacks: guard-paged mmap regions, recycled per worker and across launches.
#include "simt/stack_pool.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <mutex>
#include <new>

#include "simt/sanitizers.hpp"

namespace gpulab::simt::detail {

namespace {

std::size_t page_bytes() {
  static const std::size_t page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  return page;
}

std::mutex& pools_mutex() {
  static std::mutex m;
  return m;
}

std::vector<std::unique_ptr<StackPool>>& idle_pools() {
  static std::vector<std::unique_ptr<StackPool>> pools;
  return pools;
}

}  // namespace

std::size_t StackPool::stack_bytes() {
  // Kernels are small, but a thread may call printf (a few KiB of glibc frames), and sanitizers
  // and -O0 builds make frames several times larger. Untouched pages cost no memory.
  return kAsanEnabled ? 512 * 1024 : 128 * 1024;
}

StackPool::StackPool() = default;

StackPool::~StackPool() {
  for (const auto& [base, bytes] : owned_) ::munmap(base, bytes);
}

boost::context::stack_context StackPool::allocate() {
  if (free_.empty()) {
    const std::size_t size = stack_bytes();
    const std::size_t guard = page_bytes();
    // The first stacks of a pool (every block's threads, whatever a launch but a cooperative one
    // needs) each get a mapping of their own with a guard page: two mappings per stack. A
    // cooperative grid keeps every thread of every block parked at once (a grid of 264 blocks of
    // 1024 threads: 270,336 stacks), more than the system's mappings allow (vm.max_map_count,
    // 65,530 by default), so the stacks past those are carved from chunks, one mapping each.
    const bool guarded = made_ < kGuardedStacks;
    const std::size_t count = guarded ? 1 : kStacksPerChunk;
    const std::size_t bytes = guarded ? size + guard : size * count;
    void* base = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE,
                        MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK | MAP_NORESERVE, -1, 0);
    if (base == MAP_FAILED) throw std::bad_alloc();
    owned_.emplace_back(base, bytes);
    char* bottom = static_cast<char*>(base);
    if (guarded) {
      // The lowest page stays inaccessible: a runaway recursion faults instead of silently
      // overwriting the neighbouring stack.
      ::mprotect(base, guard, PROT_NONE);
      bottom += guard;
    }
    for (std::size_t i = 0; i < count; ++i, bottom += size) {
      // Stagger the stack tops: parked threads all sit in the same few frames, and with tops at
      // the same address modulo the page size those frames would fight over the same cache sets
      // (and a switch's stores and loads alias). Carved stacks (a cooperative grid's hundreds of
      // thousands of parked threads) are staggered in 64-byte steps rather than 256, so that more
      // of the parked frames fit in one page: reductionMultiBlockCG (--n=524288) peaked at 1.3 GB
      // instead of 1.7-1.9 GB, for about 10% more CPU time (tops at a page's end: 1.3 GB too, but
      // 25% more CPU time).
      ++made_;
      const std::size_t color = (made_ % 16) * (guarded ? 256 : 64) + (made_ / 16 % 4) * 4096;
      boost::context::stack_context s;
      s.size = size - color;
      s.sp = bottom + size - color;
      free_.push_back(s);
    }
  }
  boost::context::stack_context s = free_.back();
  free_.pop_back();
  asan_unpoison(static_cast<char*>(s.sp) - s.size, s.size);
  return s;
}

void StackPool::deallocate(const boost::context::stack_context& stack) noexcept {
  free_.push_back(stack);
}

std::unique_ptr<StackPool> StackPool::lease() {
  std::lock_guard lock(pools_mutex());
  auto& pools = idle_pools();
  if (pools.empty()) return std::make_unique<StackPool>();
  auto pool = std::move(pools.back());
  pools.pop_back();
  return pool;
}

void StackPool::give_back(std::unique_ptr<StackPool> pool) noexcept {
  try {
    std::lock_guard lock(pools_mutex());
    idle_pools().push_back(std::move(pool));
  } catch (...) {
    // Losing a pool only costs its stacks being mapped again later.
  }
}

}  // namespace gpulab::simt::detail
