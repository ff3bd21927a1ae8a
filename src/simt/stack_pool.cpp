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
  for (void* base : owned_) ::munmap(base, stack_bytes() + page_bytes());
}

boost::context::stack_context StackPool::allocate() {
  if (free_.empty()) {
    const std::size_t size = stack_bytes();
    const std::size_t guard = page_bytes();
    void* base = ::mmap(nullptr, size + guard, PROT_READ | PROT_WRITE,
                        MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK | MAP_NORESERVE, -1, 0);
    if (base == MAP_FAILED) throw std::bad_alloc();
    // The lowest page stays inaccessible: a runaway recursion faults instead of silently
    // overwriting the neighbouring stack.
    ::mprotect(base, guard, PROT_NONE);
    owned_.push_back(base);
    // Stagger the stack tops: parked threads all sit in the same few frames, and with tops at
    // the same address modulo the page size those frames would fight over the same cache sets.
    const std::size_t n = owned_.size();
    const std::size_t color = (n % 16) * 256 + (n / 16 % 4) * 4096;
    boost::context::stack_context s;
    s.size = size - color;
    s.sp = static_cast<char*>(base) + guard + size - color;
    free_.push_back(s);
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
