// The device heap: malloc and free called in a kernel (declared in cuda_runtime.h, which maps
// malloc and free to these). As on a GPU, the heap holds cudaLimitMallocHeapSize bytes (8 MiB by
// default) and malloc returns nullptr when it is exhausted. Each block is an allocation of the
// emulator's device memory (AllocationKind::device_heap), so that --check takes it for device
// memory: out-of-bounds and uninitialized reads are found in it as in cudaMalloc's.
// In host code malloc and free are the C library's.
#include "run/runtime/heap.hpp"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <mutex>
#include <string>
#include <vector>

#include "cuda_runtime.h"
#include "simt/memory_check.hpp"
#include "simt/scheduler.hpp"

#undef malloc
#undef free

namespace gpulab::rt {

namespace {

// A GPU's heap hands out blocks of 16-byte granules.
constexpr std::size_t kGranule = 16;

struct Heap {
  std::mutex mutex;
  std::size_t limit = 8u << 20;
  std::size_t used = 0;
  bool used_once = false;    // a kernel allocated: the limit can no longer change
  std::vector<void*> freed;  // freed by the running launch, released when it ends
};
Heap& heap() {
  static Heap* h = new Heap;  // never destroyed: late frees still use it
  return *h;
}
std::atomic<std::uint64_t> g_live{0};  // blocks on the heap now: host free's fast path

std::size_t rounded(std::size_t bytes) {
  return (bytes + kGranule - 1) / kGranule * kGranule;
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
  for (void* p : freed) {
    if (gpulab::simt::release(p, gpulab::simt::AllocationKind::device_heap)) {
      g_live.fetch_sub(1, std::memory_order_relaxed);
    }
  }
}

void reset_heap() {
  Heap& h = heap();
  std::lock_guard lock(h.mutex);
  h.freed.clear();
  h.limit = 8u << 20;
  h.used = 0;
  h.used_once = false;
  g_live.store(0, std::memory_order_relaxed);
}

}  // namespace gpulab::rt

void* gpulab_rt_malloc(size_t bytes, std::source_location where) {
  if (gpulab::simt::detail::tl_runner == nullptr) return std::malloc(bytes);
  using namespace gpulab::rt;
  if (bytes == 0) return nullptr;
  Heap& h = heap();
  {
    std::lock_guard lock(h.mutex);
    h.used_once = true;
    if (rounded(bytes) > h.limit - h.used) return nullptr;  // exhausted: null, as on a GPU
    h.used += rounded(bytes);
  }
  void* p = nullptr;
  try {
    p = gpulab::simt::allocate(bytes, gpulab::simt::AllocationKind::device_heap,
                               std::string(where.file_name()) + ":" + std::to_string(where.line()));
  } catch (const std::exception&) {
    p = nullptr;
  }
  if (p == nullptr) {
    std::lock_guard lock(h.mutex);
    h.used -= rounded(bytes);
    return nullptr;
  }
  g_live.fetch_add(1, std::memory_order_relaxed);
  return p;
}

void gpulab_rt_free(void* p) {
  using namespace gpulab::rt;
  if (p == nullptr) return;
  if (g_live.load(std::memory_order_relaxed) != 0) {
    if (const auto a = gpulab::simt::find_allocation(p);
        a && a->kind == gpulab::simt::AllocationKind::device_heap &&
        a->begin == reinterpret_cast<std::uintptr_t>(p)) {
      Heap& h = heap();
      std::lock_guard lock(h.mutex);
      if (std::find(h.freed.begin(), h.freed.end(), p) != h.freed.end()) return;  // twice
      h.used -= rounded(a->bytes);
      if (gpulab::simt::detail::tl_runner != nullptr) {
        h.freed.push_back(p);  // released when the launch ends
        return;
      }
      gpulab::simt::release(p, gpulab::simt::AllocationKind::device_heap);
      g_live.fetch_sub(1, std::memory_order_relaxed);
      return;
    }
  }
  std::free(p);
}
