// gpulab's version line (see version.hpp).
#include "core/version.hpp"

#include <fmt/format.h>

namespace gpulab {

std::string version_text(bool gpu_usable, std::string_view why_not) {
#if GPULAB_HAVE_CUDA
  if (gpu_usable) {
    return "gpulab " GPULAB_VERSION " (backends: cuda " GPULAB_CUDA_VERSION ", cpu-emulator)";
  }
  return fmt::format("gpulab " GPULAB_VERSION
                     " (backends: cpu-emulator; built with CUDA " GPULAB_CUDA_VERSION
                     ", but no GPU is usable here: {})",
                     why_not);
#else
  (void)gpu_usable;
  (void)why_not;
  return "gpulab " GPULAB_VERSION " (backends: cpu-emulator; built without CUDA)";
#endif
}

}  // namespace gpulab
