// The device heap: malloc, free, new and delete called in a kernel (cuda_runtime.h maps malloc and
// free to these; new and delete are replaced below). As on a GPU, the heap holds
// cudaLimitMallocHeapSize bytes (8 MiB by default) in one arena, and malloc and new return nullptr
// when it is exhausted. Each block is an allocation of the emulator's device memory
// (AllocationKind::device_heap), so that --check takes it for device memory: out-of-bounds and
// uninitialized reads are found in it as in cudaMalloc's. In host code they are the C library's.
#include "run/runtime/heap.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <mutex>
#include <new>
#include <string>
#include <vector>

#include "cuda_runtime.h"
#include "simt/kernel_code.hpp"
#include "simt/memory_check.hpp"
#include "simt/scheduler.hpp"

#undef malloc
#undef free

namespace gpulab::rt {

namespace {

// A GPU's heap hands out blocks of 16-byte granules.
constexpr std::size_t kGranule = 16;
// Under --check, blocks keep this much space between them, so that an access just past one is
// told from the next block's own (a GPU's blocks are side by side).
constexpr std::size_t kCheckedGap = 64;

// The heap is one arena of its own, reserved at the first allocation with the limit of that time,
// so that delete (and free) tell its blocks from the host's by their address alone, with no lock:
// an operator delete runs everywhere, also inside the emulator's own bookkeeping.
struct Heap {
  std::mutex mutex;
  std::size_t limit = 8u << 20;
  std::size_t used = 0;
  bool used_once = false;                   // a kernel allocated: the limit can no longer change
  std::vector<void*> freed;                 // freed by the running launch, released when it ends
  std::map<std::size_t, std::size_t> gaps;  // offset -> bytes: the arena's free ranges
  std::map<std::size_t, std::size_t> live;  // offset -> bytes asked for: the blocks in use
  std::size_t capacity = 0;
  bool checked = false;
};
Heap& heap() {
  static Heap* h = new Heap;  // never destroyed: late frees still use it
  return *h;
}
std::atomic<std::uintptr_t> g_base{0}, g_end{0};  // the arena, read without the lock
std::atomic<std::uint64_t> g_live{0};             // blocks on the heap now

std::size_t rounded(std::size_t bytes) {
  return (bytes + kGranule - 1) / kGranule * kGranule;
}

bool in_arena(const void* p) {
  const auto a = reinterpret_cast<std::uintptr_t>(p);
  return a >= g_base.load(std::memory_order_acquire) && a < g_end.load(std::memory_order_acquire);
}

// The arena, made at the first allocation (lock held): twice the limit, because the blocks a
// running launch frees keep their addresses until it ends while their bytes count as free at once;
// checked runs leave gaps between blocks, so theirs is larger still. The limit itself is kept by
// counting (Heap::used); untouched pages cost nothing.
bool make_arena(Heap& h) {
  if (h.capacity != 0) return true;
  h.checked = simt::memory_checks_enabled();
  const std::size_t page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  const std::size_t want = 2 * h.limit * (h.checked ? 1 + kCheckedGap / kGranule : 1);
  const std::size_t bytes = std::max(page, (want + page - 1) / page * page);
  void* m = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (m == MAP_FAILED) return false;
  h.capacity = bytes;
  h.gaps = {{0, bytes}};
  g_end.store(reinterpret_cast<std::uintptr_t>(m) + bytes, std::memory_order_release);
  g_base.store(reinterpret_cast<std::uintptr_t>(m), std::memory_order_release);
  return true;
}

// First fit of `size` bytes aligned to `align` (lock held); SIZE_MAX when nothing fits.
std::size_t take(Heap& h, std::size_t size, std::size_t align) {
  const std::uintptr_t base = g_base.load(std::memory_order_relaxed);
  for (auto it = h.gaps.begin(); it != h.gaps.end(); ++it) {
    const auto [offset, length] = *it;
    const std::size_t start = ((base + offset + align - 1) / align * align) - base;
    if (start - offset + size > length) continue;
    h.gaps.erase(it);
    if (start > offset) h.gaps.emplace(offset, start - offset);
    if (start + size < offset + length)
      h.gaps.emplace(start + size, offset + length - start - size);
    return start;
  }
  return SIZE_MAX;
}

// Gives a range back, merged with its neighbours (lock held).
void give(Heap& h, std::size_t offset, std::size_t size) {
  auto next = h.gaps.lower_bound(offset);
  if (next != h.gaps.end() && offset + size == next->first) {
    size += next->second;
    next = h.gaps.erase(next);
  }
  if (next != h.gaps.begin()) {
    auto before = std::prev(next);
    if (before->first + before->second == offset) {
      before->second += size;
      return;
    }
  }
  h.gaps.emplace(offset, size);
}

std::size_t footprint(const Heap& h, std::size_t bytes) {
  return rounded(bytes) + (h.checked ? kCheckedGap : 0);
}

// The block at `p` goes back to the arena and is no allocation any more.
void release_block(void* p) {
  Heap& h = heap();
  {
    std::lock_guard lock(h.mutex);
    const std::size_t offset = reinterpret_cast<std::uintptr_t>(p) - g_base.load();
    const auto it = h.live.find(offset);
    if (it == h.live.end()) return;
    give(h, offset, footprint(h, it->second));
    h.live.erase(it);
  }
  simt::release(p, simt::AllocationKind::device_heap);
  g_live.fetch_sub(1, std::memory_order_relaxed);
}

// A block of the device heap for a kernel (its malloc or its new): nullptr when the heap is full.
void* heap_block(size_t bytes, std::string site, std::size_t align = kGranule) {
  const simt::detail::EmulatorCode emulator;  // the heap's own bookkeeping is the host's
  if (bytes == 0) return nullptr;
  Heap& h = heap();
  void* p = nullptr;
  {
    std::lock_guard lock(h.mutex);
    h.used_once = true;
    if (rounded(bytes) > h.limit - std::min(h.used, h.limit)) return nullptr;  // full: null
    if (!make_arena(h)) return nullptr;
    const std::size_t offset = take(h, footprint(h, bytes), std::max(align, kGranule));
    if (offset == SIZE_MAX) return nullptr;  // no range left in one piece
    h.used += rounded(bytes);
    h.live.emplace(offset, bytes);
    p = reinterpret_cast<void*>(g_base.load() + offset);
  }
  simt::register_allocation(p, bytes, simt::AllocationKind::device_heap, std::move(site));
  g_live.fetch_add(1, std::memory_order_relaxed);
  return p;
}

// A kernel's free or delete of a heap block: its bytes count as free at once, the block itself
// goes back when the launch ends (until then its address is not handed out again, so that
// --check never takes two threads' blocks for one); on the host, at once.
void heap_free(void* p) {
  Heap& h = heap();
  {
    std::lock_guard lock(h.mutex);
    const auto it = h.live.find(reinterpret_cast<std::uintptr_t>(p) - g_base.load());
    if (it == h.live.end()) return;  // not a block's start, or freed twice: nothing to do
    if (std::find(h.freed.begin(), h.freed.end(), p) != h.freed.end()) return;  // twice
    h.used -= rounded(it->second);
    if (simt::detail::tl_runner != nullptr) {
      h.freed.push_back(p);
      return;
    }
  }
  release_block(p);
}

}  // namespace

std::size_t heap_limit() {
  Heap& h = heap();
  std::lock_guard lock(h.mutex);
  return h.limit;
}

bool set_heap_limit(std::size_t bytes) {
  Heap& h = heap();
  std::lock_guard lock(h.mutex);
  if (h.used_once) return false;
  h.limit = bytes;
  return true;
}

void heap_launch_ended() {
  if (g_live.load(std::memory_order_relaxed) == 0) return;
  std::vector<void*> freed;
  {
    Heap& h = heap();
    std::lock_guard lock(h.mutex);
    freed.swap(h.freed);
  }
  for (void* p : freed) release_block(p);
}

void reset_heap() {
  Heap& h = heap();
  std::lock_guard lock(h.mutex);
  // cudaDeviceReset has released every allocation, the heap's blocks too.
  if (h.capacity != 0) {
    ::munmap(reinterpret_cast<void*>(g_base.load()), h.capacity);
    g_base.store(0);
    g_end.store(0);
  }
  h.capacity = 0;
  h.gaps.clear();
  h.live.clear();
  h.freed.clear();
  h.limit = 8u << 20;
  h.used = 0;
  h.used_once = false;
  g_live.store(0, std::memory_order_relaxed);
}

}  // namespace gpulab::rt

void* gpulab_rt_malloc(size_t bytes, std::source_location where) {
  if (gpulab::simt::detail::tl_runner == nullptr) return std::malloc(bytes);
  const gpulab::simt::detail::EmulatorCode emulator;  // the site's text is the host's memory
  return gpulab::rt::heap_block(
      bytes, std::string(where.file_name()) + ":" + std::to_string(where.line()));
}

void gpulab_rt_free(void* p) {
  if (p == nullptr) return;
  if (gpulab::rt::in_arena(p)) {
    const gpulab::simt::detail::EmulatorCode emulator;
    gpulab::rt::heap_free(p);
    return;
  }
  std::free(p);
}

// ---- new and delete: one heap for malloc and new, as on a GPU. A `new` in a kernel's own code
// takes its block from the device heap (nullptr when the heap is full, as a GPU's device-side new;
// gpulab run compiles with -fcheck-new so that a test of the pointer stays); elsewhere, the host's
// malloc. delete gives either back.

namespace {
void* new_block(std::size_t bytes, std::size_t align = 0) {
  if (gpulab::simt::detail::tl_kernel_code) {
    return gpulab::rt::heap_block(bytes == 0 ? 1 : bytes, "new in a kernel",
                                  std::max<std::size_t>(align, 16));
  }
  if (align <= alignof(std::max_align_t)) return std::malloc(bytes == 0 ? 1 : bytes);
  const std::size_t rounded = ((bytes == 0 ? 1 : bytes) + align - 1) / align * align;
  return std::aligned_alloc(align, rounded);
}
}  // namespace

void* operator new(std::size_t bytes) {
  void* p = new_block(bytes);
  if (p == nullptr && !gpulab::simt::detail::tl_kernel_code) throw std::bad_alloc();
  return p;
}
void* operator new[](std::size_t bytes) {
  return operator new(bytes);
}
void* operator new(std::size_t bytes, const std::nothrow_t&) noexcept {
  return new_block(bytes);
}
void* operator new[](std::size_t bytes, const std::nothrow_t&) noexcept {
  return new_block(bytes);
}
void* operator new(std::size_t bytes, std::align_val_t alignment) {
  void* p = new_block(bytes, static_cast<std::size_t>(alignment));
  if (p == nullptr && !gpulab::simt::detail::tl_kernel_code) throw std::bad_alloc();
  return p;
}
void* operator new[](std::size_t bytes, std::align_val_t alignment) {
  return operator new(bytes, alignment);
}
void operator delete(void* p) noexcept {
  gpulab_rt_free(p);
}
void operator delete[](void* p) noexcept {
  gpulab_rt_free(p);
}
void operator delete(void* p, std::size_t) noexcept {
  gpulab_rt_free(p);
}
void operator delete[](void* p, std::size_t) noexcept {
  gpulab_rt_free(p);
}
void operator delete(void* p, std::align_val_t) noexcept {
  gpulab_rt_free(p);
}
void operator delete[](void* p, std::align_val_t) noexcept {
  gpulab_rt_free(p);
}
void operator delete(void* p, std::size_t, std::align_val_t) noexcept {
  gpulab_rt_free(p);
}
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept {
  gpulab_rt_free(p);
}
