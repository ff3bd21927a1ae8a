// Dynamic parallelism in gpulab run's runtime (child.cpp): kernels that launch kernels, with
// CUDA 12's semantics.
#pragma once

#include <memory>
#include <vector>

#include "cuda_runtime.h"

namespace gpulab::rt {

struct ChildLaunch {
  LaunchSite site{"", "", 0};
  const void* kernel = nullptr;
  LaunchConfig config;
  void (*run_thread)(const void*) = nullptr;
  void (*run_threads)(const void*, simt::detail::ThreadLoop&) = nullptr;  // see launch_erased
  std::shared_ptr<std::max_align_t[]> closure;  // a byte copy of the arguments
  size_t closure_bytes = 0;
};

// A launch made by a CUDA thread: recorded with a byte copy of its arguments, to run once the
// launching grid has run to its end.
void child_record(const LaunchSite& site, const void* kernel, const LaunchConfig& config,
                  void (*run_thread)(const void*), const void* closure, size_t closure_bytes,
                  void (*run_threads)(const void*, simt::detail::ThreadLoop&));
// The launches the grid that just ended made, in the order they run: the launches into the
// grid's own streams (the default one and cudaStreamFireAndForget) by block, thread and order of
// launching, then those into cudaStreamTailLaunch, which run after the others. Empties the record.
std::vector<ChildLaunch> child_take();

}  // namespace gpulab::rt
