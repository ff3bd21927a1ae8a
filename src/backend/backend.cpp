// Choosing the backend: the GPU when one is usable, otherwise the emulator (see backend.hpp).
#include "backend/backend.hpp"

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/i18n_format.hpp"
#if GPULAB_HAVE_CUDA
#include "cuda/runtime.hpp"
#endif

namespace gpulab {

namespace emulator_backend {
std::unique_ptr<Backend> make(const EmulatorSettings& s);
}
namespace emulator_checked_backend {
std::unique_ptr<Backend> make(const EmulatorSettings& s);
}

std::string_view backend_name(BackendKind kind) {
  return kind == BackendKind::cuda ? "cuda" : "cpu-emulator";
}

GpuProbe probe_gpu() {
  GpuProbe p;
#if GPULAB_HAVE_CUDA
  p.device_count = cuda::count_devices(&p.reason);
  p.usable = p.device_count > 0;
#else
  p.reason = {"this gpulab was built without CUDA (no nvcc at build time)",
              "这个 gpulab 构建时没有 CUDA（构建时没有 nvcc）"};
#endif
  return p;
}

std::unique_ptr<Backend> make_emulator_backend(const EmulatorSettings& emu) {
  return emu.check ? emulator_checked_backend::make(emu) : emulator_backend::make(emu);
}

bool gpu_chosen(BackendChoice choice, std::string* notice, Lang lang) {
  if (choice == BackendChoice::cpu) return false;
  const GpuProbe probe = probe_gpu();
  if (probe.usable) return true;
  if (choice == BackendChoice::gpu) {
    throw RuntimeFailure(both("--backend gpu: no GPU is usable: {0}",
                              "--backend gpu：没有可用的 GPU：{1}", probe.reason.en,
                              probe.reason.zh));
  }
  if (notice != nullptr) {
    *notice =
        say(lang, "no GPU is usable ({}); running on gpulab's CPU emulator of the SIMT model",
            "没有可用的 GPU（{}）；在 gpulab 的 SIMT 模型 CPU 模拟器上运行", probe.reason.in(lang));
  }
  return false;
}

std::unique_ptr<Backend> make_backend(BackendChoice choice, const EmulatorSettings& emu,
                                      std::string* notice, Lang lang) {
#if GPULAB_HAVE_CUDA
  if (gpu_chosen(choice, notice, lang)) return make_cuda_backend(0);
#else
  gpu_chosen(choice, notice, lang);  // throws for --backend gpu; says why there is no GPU
#endif
  return make_emulator_backend(emu);
}

}  // namespace gpulab
