// The CUDA backend: gpulab's kernels compiled by nvcc, launched with <<<grid, block, shared>>>.
#include <memory>
#include <optional>

#include "backend/backend.hpp"
#include "cuda/device_query.hpp"
#include "cuda/runtime.hpp"
#include "kernels/prelude.cuh"

#define GPULAB_BACKEND_NS cuda_backend
namespace gpulab::cuda_backend {

#include "backend/launchers.inl"

namespace {
dim3 to_dim3(const limits::Shape& s) {
  return dim3(static_cast<unsigned>(s.x), static_cast<unsigned>(s.y), static_cast<unsigned>(s.z));
}
}  // namespace

class CudaBackend final : public Launchers<CudaBackend> {
 public:
  explicit CudaBackend(int device) : device_(device) { cuda::set_device(device); }
  BackendKind kind() const override { return BackendKind::cuda; }
  std::string device_name() const override { return cuda::device_name(device_); }

  void* alloc(std::size_t bytes) override { return cuda::malloc_device(bytes); }
  void release(void* p) noexcept override { cuda::free_device(p); }
  double to_device(void* dst, const void* src, std::size_t bytes) override {
    return cuda::timed_copy(dst, src, bytes, cuda::CopyKind::to_device);
  }
  double to_host(void* dst, const void* src, std::size_t bytes) override {
    return cuda::timed_copy(dst, src, bytes, cuda::CopyKind::to_host);
  }
  double device_copy(void* dst, const void* src, std::size_t bytes) override {
    return cuda::timed_copy(dst, src, bytes, cuda::CopyKind::device_to_device);
  }
  std::size_t free_memory() const override { return cuda::free_device_memory(); }
  DeviceFacts device_facts() const override {
    if (!facts_) {
      const cuda::DeviceProperties p = cuda::query_device(device_);
      DeviceFacts f;
      f.sm_count = p.multiprocessors;
      // Double data rate: two transfers per memory clock, bus_bits / 8 bytes each.
      f.theoretical_gbs = 2.0 * p.memory_clock_khz * 1e3 * (p.memory_bus_bits / 8.0) / 1e9;
      f.cc_major = p.cc_major;
      f.cc_minor = p.cc_minor;
      f.max_threads_per_sm = p.max_threads_per_sm;
      f.clock_khz = p.clock_khz;
      f.l2_bytes = p.l2_bytes;
      facts_ = f;
    }
    return *facts_;
  }

  template <class... P, class... A>
  KernelRun launch(const LaunchShape& s, void (*kernel)(P...), A... args) {
    cuda::EventTimer timer;
    timer.start();
    kernel<<<to_dim3(s.grid), to_dim3(s.block), s.shared_bytes>>>(args...);
    cuda::check_launch();  // a bad configuration fails here, before anything runs
    KernelRun run;
    run.kernel_ms = timer.stop_ms();
    cuda::synchronize();  // an error the kernel raised while it ran surfaces here
    return run;
  }

 private:
  int device_;
  mutable std::optional<DeviceFacts> facts_;
};

}  // namespace gpulab::cuda_backend

namespace gpulab {
std::unique_ptr<Backend> make_cuda_backend(int device) {
  return std::make_unique<cuda_backend::CudaBackend>(device);
}
}  // namespace gpulab
