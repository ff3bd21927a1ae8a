// The CUDA runtime API by name (CUDA 13's headers, src/run/cuda_api_names.inc): a name the
// emulator's kit does not declare is refused by gpulab run in one line instead of the compiler's
// "was not declared", and docs/run.md's list of what runs and what does not is checked against it.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "core/output.hpp"

namespace gpulab::run {

// The runtime API's functions, sorted.
std::span<const std::string_view> cuda_runtime_functions();
// Any name of the runtime API (functions, types, enumerators, macros).
bool is_cuda_api_name(std::string_view name);

// g++'s diagnostics of a failed emulator build: when they say a name of the CUDA runtime API was
// not declared, or that a header of the CUDA toolkit (<cuda/barrier>, <mma.h>) is missing, one
// line naming it, where it stands, and what to do; nothing otherwise.
std::optional<std::string> missing_cuda_api(std::string_view gxx_diagnostics, Lang lang);

}  // namespace gpulab::run
