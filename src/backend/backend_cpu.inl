// The emulator backend, compiled twice: plain (backend_cpu.cpp) and with accesses instrumented
// for race detection (backend_cpu_checked.cpp). The including file defines GPULAB_BACKEND_NS.

#include <chrono>
#include <cstring>

#include "backend/backend.hpp"
#include "kernels/prelude.cuh"
#include "simt/simt.hpp"

#if defined(__linux__)
#include <sys/sysinfo.h>  // free memory
#endif

namespace gpulab::GPULAB_BACKEND_NS {

#include "backend/launchers.inl"

namespace {

dim3 to_dim3(const limits::Shape& s) {
  return dim3(static_cast<unsigned>(s.x), static_cast<unsigned>(s.y), static_cast<unsigned>(s.z));
}

double elapsed_ms(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
      .count();
}

}  // namespace

class EmulatorBackend final : public Launchers<EmulatorBackend> {
 public:
  explicit EmulatorBackend(const EmulatorSettings& s) {
    options_.workers = s.workers;
    options_.shuffle_seed = s.shuffle_seed;
    options_.check = s.check;
  }
  BackendKind kind() const override { return BackendKind::emulator; }
  std::string device_name() const override { return "gpulab SIMT emulator (CPU)"; }

  void* alloc(std::size_t bytes) override { return simt::device_malloc(bytes); }
  void release(void* p) noexcept override { simt::device_free(p); }
  double to_device(void* dst, const void* src, std::size_t bytes) override {
    return copy(dst, src, bytes);
  }
  double to_host(void* dst, const void* src, std::size_t bytes) override {
    return copy(dst, src, bytes);
  }
  double device_copy(void* dst, const void* src, std::size_t bytes) override {
    return copy(dst, src, bytes);
  }
  std::size_t free_memory() const override {
#if defined(__linux__)
    struct sysinfo info {};
    if (sysinfo(&info) == 0) {
      return static_cast<std::size_t>(info.freeram + info.bufferram) * info.mem_unit;
    }
#endif
    return SIZE_MAX;
  }
  DeviceFacts device_facts() const override {
    return {};
  }

  template <class... P, class... A>
  KernelRun launch(const LaunchShape& s, void (*kernel)(P...), A... args) {
    simt::LaunchStats st =
        simt::launch(kernel, to_dim3(s.grid), to_dim3(s.block), s.shared_bytes, options_, args...);
    KernelRun run;
    run.kernel_ms = st.elapsed_ms;
    EmulatorStats e;
    e.barriers_crossed = st.barriers_crossed;
    e.blocks_on_fibers = st.blocks_on_fibers;
    for (const auto& race : st.races) e.races.push_back(race.describe());
    run.emulator = std::move(e);
    return run;
  }

 private:
  static double copy(void* dst, const void* src, std::size_t bytes) {
    auto start = std::chrono::steady_clock::now();
    std::memcpy(dst, src, bytes);
    return elapsed_ms(start);
  }
  simt::RunOptions options_;
};

std::unique_ptr<Backend> make(const EmulatorSettings& s) {
  return std::make_unique<EmulatorBackend>(s);
}

}  // namespace gpulab::GPULAB_BACKEND_NS
