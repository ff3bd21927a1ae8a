// nvcc's flags as a user passes them to gpulab run or gpulab profile (-U, -l, -L, -Xcompiler,
// -std, -arch, -O, -G, ...), sorted into the session's options: what the host compiler takes,
// what the linker takes, what only nvcc takes (--backend gpu) and what the emulator accepts
// without using it (said in the report).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "run/session.hpp"

namespace gpulab::run {

// Adds each flag to o's compiler_flags, link_flags, nvcc_flags (o.gpu) or emulator_ignores (the
// emulator); a flag gpulab does not know is a UsageError naming it and `command` ("run").
void sort_nvcc_flags(const std::vector<std::string>& flags, RunOptions& o,
                     std::string_view command = "run");

}  // namespace gpulab::run
