// CUDA runtime glue, compiled by the host compiler: error checks, the probe, memory, event timing.
// Only this folder includes cuda_runtime.h; nothing here is built without CUDA.
#pragma once

#include <cstddef>
#include <string>

#include "core/i18n.hpp"
#include "core/noncopyable.hpp"

namespace gpulab::cuda {

// Throws CudaError naming the CUDA error when `status` (a cudaError_t) is not cudaSuccess.
void check(int status, const char* what);

// Number of usable devices; on failure 0 and `reason` says why (no driver, no device, ...).
int count_devices(Text* reason);

std::string device_name(int device);
void set_device(int device);
void* malloc_device(std::size_t bytes);
void free_device(void* p) noexcept;
std::size_t free_device_memory();
void synchronize();

enum class CopyKind { to_device, to_host, device_to_device };
// A copy timed with CUDA events, in milliseconds.
double timed_copy(void* dst, const void* src, std::size_t bytes, CopyKind kind);

// A pair of CUDA events around a region of GPU work.
class EventTimer : NonCopyable {
 public:
  EventTimer();
  ~EventTimer();
  void start();
  // Records the stop event, waits for the GPU, and returns the time between the two events.
  double stop_ms();

 private:
  void* start_ = nullptr;
  void* stop_ = nullptr;
};

// Right after a kernel launch: the launch's own error (cudaGetLastError), e.g. a bad
// configuration, before the launch is timed or waited for.
void check_launch();

}  // namespace gpulab::cuda
