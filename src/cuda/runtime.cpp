// CUDA runtime glue (see runtime.hpp).
#include "cuda/runtime.hpp"

#include <cuda_runtime.h>
#include <fmt/format.h>

#include "core/error.hpp"
#include "core/i18n_format.hpp"

namespace gpulab::cuda {

void check(int status, const char* what) {
  auto e = static_cast<cudaError_t>(status);
  if (e == cudaSuccess) return;
  // cudaGetErrorString is CUDA's own English; the error name is what a search finds.
  throw CudaError(cudaGetErrorName(e), both("{} failed: {} ({})", "{} 失败：{}（{}）", what,
                                            cudaGetErrorString(e), cudaGetErrorName(e)));
}

int count_devices(Text* reason) {
  int n = 0;
  cudaError_t e = cudaGetDeviceCount(&n);
  if (e == cudaSuccess && n > 0) return n;
  if (reason != nullptr) {
    switch (e) {
      case cudaSuccess:
      case cudaErrorNoDevice:
        *reason = {"no CUDA device was found (the NVIDIA driver is there, but no GPU)",
                   "没有找到 CUDA 设备（NVIDIA 驱动在，但没有 GPU）"};
        break;
      case cudaErrorInsufficientDriver:
        *reason = {"no NVIDIA driver is installed (or it is older than this CUDA runtime needs)",
                   "没有安装 NVIDIA 驱动（或驱动比这个 CUDA 运行时所需的旧）"};
        break;
      default:
        *reason =
            both("the CUDA runtime cannot use a GPU: {} ({})", "CUDA 运行时无法使用 GPU：{}（{}）",
                 cudaGetErrorString(e), cudaGetErrorName(e));
    }
  }
  (void)cudaGetLastError();  // clear the sticky-free error state left by the probe
  return 0;
}

std::string device_name(int device) {
  cudaDeviceProp prop{};
  check(cudaGetDeviceProperties(&prop, device), "cudaGetDeviceProperties");
  return prop.name;
}

void set_device(int device) {
  check(cudaSetDevice(device), "cudaSetDevice");
}

void* malloc_device(std::size_t bytes) {
  void* p = nullptr;
  check(cudaMalloc(&p, bytes == 0 ? 1 : bytes), "cudaMalloc");
  return p;
}

void free_device(void* p) noexcept {
  (void)cudaFree(p);
}

std::size_t free_device_memory() {
  std::size_t free_bytes = 0, total = 0;
  check(cudaMemGetInfo(&free_bytes, &total), "cudaMemGetInfo");
  return free_bytes;
}

void synchronize() {
  check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
}

double timed_copy(void* dst, const void* src, std::size_t bytes, CopyKind kind) {
  const cudaMemcpyKind k = kind == CopyKind::to_device ? cudaMemcpyHostToDevice
                           : kind == CopyKind::to_host ? cudaMemcpyDeviceToHost
                                                       : cudaMemcpyDeviceToDevice;
  EventTimer t;
  t.start();
  check(cudaMemcpy(dst, src, bytes, k), "cudaMemcpy");
  return t.stop_ms();
}

EventTimer::EventTimer() {
  cudaEvent_t a = nullptr, b = nullptr;
  check(cudaEventCreate(&a), "cudaEventCreate");
  start_ = a;
  check(cudaEventCreate(&b), "cudaEventCreate");
  stop_ = b;
}

EventTimer::~EventTimer() {
  (void)cudaEventDestroy(static_cast<cudaEvent_t>(start_));
  (void)cudaEventDestroy(static_cast<cudaEvent_t>(stop_));
}

void EventTimer::start() {
  check(cudaEventRecord(static_cast<cudaEvent_t>(start_)), "cudaEventRecord");
}

double EventTimer::stop_ms() {
  check(cudaEventRecord(static_cast<cudaEvent_t>(stop_)), "cudaEventRecord");
  check(cudaEventSynchronize(static_cast<cudaEvent_t>(stop_)), "cudaEventSynchronize");
  float ms = 0;
  check(
      cudaEventElapsedTime(&ms, static_cast<cudaEvent_t>(start_), static_cast<cudaEvent_t>(stop_)),
      "cudaEventElapsedTime");
  return ms;
}

// cudaGetLastError, not Peek: a bad configuration is not sticky, and must not be reported again
// by the next launch.
void check_launch() {
  check(cudaGetLastError(), "kernel launch");
}

}  // namespace gpulab::cuda
