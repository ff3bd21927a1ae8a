// Dynamic parallelism (see child.hpp). CUDA 12 lets no parent wait for its children (a
// device-side cudaDeviceSynchronize does not compile), and a child grid ends before its parent
// grid is complete: so the emulator runs a grid's children right after the grid, before its
// launch returns, one after another in an order fixed by who launched them. A child's children run
// after the child, and so on.
#include "run/runtime/child.hpp"

#include <algorithm>
#include <cstring>
#include <mutex>
#include <tuple>

#include "simt/device_api.hpp"

namespace gpulab::rt {

namespace {

struct Recorded {
  bool tail = false;
  std::uint64_t block = 0, thread = 0, sequence = 0;
  ChildLaunch launch;
};

struct Children {
  std::mutex mutex;
  std::vector<Recorded> launches;
  std::uint64_t sequence = 0;
};
Children& children() {
  static Children* c = new Children;  // never destroyed
  return *c;
}

}  // namespace

void child_record(const LaunchSite& site, const void* kernel, const LaunchConfig& config,
                  void (*run_thread)(const void*), const void* closure, size_t closure_bytes,
                  void (*run_threads)(const void*, simt::detail::ThreadLoop&)) {
  Recorded r;
  r.tail = config.stream == cudaStreamTailLaunch;
  r.block = blockIdx.x + static_cast<std::uint64_t>(gridDim.x) *
                             (blockIdx.y + static_cast<std::uint64_t>(gridDim.y) * blockIdx.z);
  r.thread = threadIdx.x + static_cast<std::uint64_t>(blockDim.x) *
                               (threadIdx.y + static_cast<std::uint64_t>(blockDim.y) * threadIdx.z);
  r.launch.site = site;
  r.launch.kernel = kernel;
  r.launch.config = config;
  r.launch.config.stream = nullptr;
  r.launch.run_thread = run_thread;
  r.launch.run_threads = run_threads;
  const size_t words = (closure_bytes + sizeof(std::max_align_t) - 1) / sizeof(std::max_align_t);
  r.launch.closure = std::shared_ptr<std::max_align_t[]>(new std::max_align_t[words]);
  std::memcpy(r.launch.closure.get(), closure, closure_bytes);
  r.launch.closure_bytes = closure_bytes;
  Children& c = children();
  std::lock_guard lock(c.mutex);
  r.sequence = c.sequence++;
  c.launches.push_back(std::move(r));
}

std::vector<ChildLaunch> child_take() {
  std::vector<Recorded> taken;
  {
    Children& c = children();
    std::lock_guard lock(c.mutex);
    taken.swap(c.launches);
  }
  std::stable_sort(taken.begin(), taken.end(), [](const Recorded& a, const Recorded& b) {
    return std::tie(a.tail, a.block, a.thread, a.sequence) <
           std::tie(b.tail, b.block, b.thread, b.sequence);
  });
  std::vector<ChildLaunch> out;
  out.reserve(taken.size());
  for (Recorded& r : taken) out.push_back(std::move(r.launch));
  return out;
}

}  // namespace gpulab::rt
