// The programs gpulab drives (nvcc, the C++ compiler, cuobjdump, addr2line): where they are, their
// version, and what to install when one is missing.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "core/output.hpp"

namespace gpulab::toolchain {

struct Tool {
  std::string name;     // "nvcc"
  std::string path;     // "/usr/local/cuda/bin/nvcc"
  std::string version;  // "13.0.88" ("" when it did not say)
};

// An executable called `name` on PATH; for the CUDA tools (nvcc, cuobjdump, nvdisasm,
// compute-sanitizer, ncu) also in $CUDA_HOME/bin, $CUDA_PATH/bin and /usr/local/cuda/bin.
std::optional<std::string> find_program(std::string_view name);

// nvcc with its release ("13.0.88").
std::optional<Tool> find_nvcc();
// The system C++ compiler: $CXX if set, else g++, else c++ (the emulator's programs need GCC: the
// shim relies on GCC's ThreadSanitizer instrumentation and its TLS model).
std::optional<Tool> find_cxx();
// Another CUDA tool next to nvcc (cuobjdump, nvdisasm, compute-sanitizer) or on PATH.
std::optional<Tool> find_cuda_tool(std::string_view name);

// One line: "<tool> is not installed: install <package> (...)", in the user's language.
std::string missing_message(std::string_view tool, Lang lang);

}  // namespace gpulab::toolchain
