// The small interface every command runs its kernels through: the CUDA GPU or the SIMT emulator.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "calc/launch_limits.hpp"
#include "core/i18n.hpp"
#include "core/output.hpp"

namespace gpulab {

enum class BackendKind { cuda, emulator };
enum class BackendChoice { automatic, gpu, cpu };

// The name a result records: "cuda" or "cpu-emulator".
std::string_view backend_name(BackendKind kind);

struct LaunchShape {
  limits::Shape grid;
  limits::Shape block;
  std::size_t shared_bytes = 0;  // dynamic shared memory per block
};

// What the emulator can say about a launch that a GPU cannot.
struct EmulatorStats {
  std::uint64_t barriers_crossed = 0;  // __syncthreads() episodes, summed over blocks
  std::uint64_t blocks_on_fibers = 0;  // blocks that met a barrier or a warp collective
  std::vector<Text> races;             // --check: the first shared-memory races found
};

struct KernelRun {
  double kernel_ms = 0;  // CUDA events on the GPU, the wall clock on the emulator
  std::optional<EmulatorStats> emulator;
};

// Settings of the emulator (ignored by the GPU).
struct EmulatorSettings {
  std::optional<std::uint64_t> shuffle_seed;  // --shuffle-blocks SEED
  bool check = false;                         // --check: race detection
  unsigned workers = 0;                       // 0: one per CPU core
};

// What a bandwidth benchmark needs to know about the device; 0 where it is not known.
struct DeviceFacts {
  int sm_count = 0;                // streaming multiprocessors (0 on the emulator)
  double theoretical_gbs = 0;      // 2 * memory clock * bus width / 8, in GB/s (10^9 bytes)
  int cc_major = 0, cc_minor = 0;  // compute capability
  int max_threads_per_sm = 0;      // resident threads per SM (warps: / 32)
  int clock_khz = 0;               // peak SM clock
  int l2_bytes = 0;                // L2 cache size
};

// The steps of the reduction ladder before the grid-stride kernel (kernels/twonorm_ladder.cuh).
enum class LadderStep { interleaved, sequential, first_add, warp_shuffle };

// The arguments of kernels/latency_probe.cuh, all device pointers but steps and ops.
struct LatencyProbeArgs {
  const unsigned* next = nullptr;    // the random cycle
  const unsigned* starts = nullptr;  // one start per warp
  int steps = 0, ops = 0;
  unsigned* ends = nullptr;     // per warp: where its chain ended
  long long* clocks = nullptr;  // per warp: clock64() before and after its loop (2 each)
  unsigned* sms = nullptr;      // per warp: the SM it ran on
};

class Backend {
 public:
  virtual ~Backend() = default;
  virtual BackendKind kind() const = 0;
  virtual std::string device_name() const = 0;

  // Device memory. Copies return their time in milliseconds (CUDA events on the GPU).
  virtual void* alloc(std::size_t bytes) = 0;
  virtual void release(void* p) noexcept = 0;
  virtual double to_device(void* dst, const void* src, std::size_t bytes) = 0;
  virtual double to_host(void* dst, const void* src, std::size_t bytes) = 0;
  virtual double device_copy(void* dst, const void* src, std::size_t bytes) = 0;
  // Bytes of device memory free now (host memory on the emulator).
  virtual std::size_t free_memory() const = 0;
  // SM count and theoretical memory bandwidth (all 0 on the emulator: not known).
  virtual DeviceFacts device_facts() const { return {}; }

  // The kernels of src/kernels/, one method each; implemented once in launchers.inl.
  virtual KernelRun hello(const LaunchShape& s) = 0;
  virtual KernelRun vector_add(const LaunchShape& s, const int* a, const int* b, int* c, int n) = 0;
  virtual KernelRun two_norm_course(const LaunchShape& s, const float* a, const float* b, float* c,
                                    int n, int m) = 0;
  virtual KernelRun two_norm_partials(const LaunchShape& s, const float* a, const float* b,
                                      double* partials, long long count) = 0;
  virtual KernelRun two_norm_finish(const LaunchShape& s, const double* partials, int count,
                                    double* result) = 0;
  virtual KernelRun two_norm_ladder(LadderStep step, const LaunchShape& s, const float* a,
                                    const float* b, double* partials, long long count) = 0;
  virtual KernelRun write_indices(const LaunchShape& s, unsigned* records) = 0;
  virtual KernelRun latency_probe(const LaunchShape& s, const LatencyProbeArgs& p) = 0;
};

// Device memory owned for the lifetime of a scope.
template <class T>
class DeviceBuffer {
 public:
  DeviceBuffer(Backend& b, std::size_t count)
      : backend_(&b), count_(count), ptr_(static_cast<T*>(b.alloc(count * sizeof(T)))) {}
  ~DeviceBuffer() { backend_->release(ptr_); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  T* get() const { return ptr_; }
  std::size_t count() const { return count_; }
  std::size_t bytes() const { return count_ * sizeof(T); }

 private:
  Backend* backend_;
  std::size_t count_;
  T* ptr_;
};

// Whether a CUDA GPU can be used, and if not, why (no driver, no device, built without CUDA).
struct GpuProbe {
  bool usable = false;
  int device_count = 0;
  Text reason;  // empty when usable
};
GpuProbe probe_gpu();

// Whether --backend means the GPU: true when `choice` is not `cpu` and a GPU is usable. With
// `automatic` and no usable GPU it returns false and sets `notice` to one line saying so and why;
// `gpu` without a usable GPU throws RuntimeFailure.
bool gpu_chosen(BackendChoice choice, std::string* notice, Lang lang = Lang::en);

// The backend that --backend asks for (gpu_chosen decides).
std::unique_ptr<Backend> make_backend(BackendChoice choice, const EmulatorSettings& emu,
                                      std::string* notice, Lang lang = Lang::en);

std::unique_ptr<Backend> make_emulator_backend(const EmulatorSettings& emu);
#if GPULAB_HAVE_CUDA
std::unique_ptr<Backend> make_cuda_backend(int device);
#endif

}  // namespace gpulab
