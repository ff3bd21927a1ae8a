// gpulab's version line: the release and what it can run on, here and now.
#pragma once

#include <string>
#include <string_view>

namespace gpulab {

// "gpulab X (backends: ...)": CUDA is listed as a backend only when `gpu_usable`; otherwise the
// line says the build has CUDA but names why no GPU can be used (`why_not`). A build without CUDA
// says so. Pure: the caller probes (only for --version, so that nothing else loads the driver).
std::string version_text(bool gpu_usable, std::string_view why_not);

}  // namespace gpulab
