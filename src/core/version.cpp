// gpulab's version line (see version.hpp).
#include "core/version.hpp"

namespace gpulab {

std::string_view version_text() {
#if GPULAB_HAVE_CUDA
  return "gpulab " GPULAB_VERSION " (backends: cuda " GPULAB_CUDA_VERSION ", cpu-emulator)";
#else
  return "gpulab " GPULAB_VERSION " (backends: cpu-emulator; built without CUDA)";
#endif
}

}  // namespace gpulab
