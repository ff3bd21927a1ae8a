// nvcc's flags sorted into a session's options (see nvcc_flags.hpp).
#include "run/nvcc_flags.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "core/error.hpp"

namespace gpulab::run {

namespace {

// nvcc's flags for a GPU build: given to nvcc, accepted and unused by the emulator.
bool gpu_only(const std::string& f) {
  return f == "-dc" || f == "-rdc" || f.starts_with("-rdc=") || f.starts_with("-std=") ||
         f.starts_with("-arch=") || f.starts_with("-gencode=") || f.starts_with("-code=") ||
         f.starts_with("-O") || f == "-g" || f == "-G" || f == "--debug" || f == "--device-debug" ||
         f == "-lineinfo" || f == "--generate-line-info" || f == "-use_fast_math" ||
         f == "--use_fast_math" || f == "-m64" || f == "-w" || f == "-Wno-deprecated-gpu-targets" ||
         f.starts_with("-Xptxas=") || f.starts_with("-maxrregcount=") || f.starts_with("-fmad=") ||
         f.starts_with("-Xnvlink=") || f.starts_with("-ccbin=") || f.starts_with("-cudart=") ||
         f == "--expt-relaxed-constexpr" || f == "--expt-extended-lambda" ||
         f == "--extended-lambda" || f == "-res-usage" || f == "--resource-usage";
}

}  // namespace

void sort_nvcc_flags(const std::vector<std::string>& flags, RunOptions& o,
                     std::string_view command) {
  for (const std::string& f : flags) {
    if (f.starts_with("-U")) {
      o.compiler_flags.push_back(f);
    } else if ((f.starts_with("-l") && f != "-lineinfo") || f.starts_with("-L")) {
      o.link_flags.push_back(f);
    } else if (f.starts_with("-Xcompiler=")) {
      if (o.gpu) {
        o.nvcc_flags.push_back(f);
      } else {
        // nvcc's -Xcompiler takes a comma-separated list for the host compiler: here, g++.
        std::string list = f.substr(11);
        for (std::size_t at = 0; at <= list.size();) {
          const std::size_t comma = std::min(list.find(',', at), list.size());
          if (comma > at) o.compiler_flags.push_back(list.substr(at, comma - at));
          at = comma + 1;
        }
      }
    } else if (f.starts_with("-o=")) {
      // gpulab keeps the program in its cache; nvcc's output name has no use here.
      o.emulator_ignores.push_back(f);
    } else if (f.starts_with("-fmad=") && f != "-fmad=true" && f != "-fmad=false") {
      throw UsageError(
          fmt::format("{}: --fmad takes true or false (gpulab help {})", f, command),
          fmt::format("{}：--fmad 的值是 true 或 false（见 gpulab help {}）", f, command));
    } else if (gpu_only(f)) {
      if (o.gpu) {
        // -dc compiles without linking; a program to run needs both: relocatable device code.
        o.nvcc_flags.push_back(f == "-dc" || f == "-rdc" ? "-rdc=true" : f);
      } else if (f == "-G" || f == "--device-debug" || f.starts_with("-fmad=")) {
        // Device code with or without fused multiply-adds, as nvcc compiles it: none for -G
        // and --fmad=false (the last of them counts).
        o.fmad = f == "-fmad=true";
      } else {
        o.emulator_ignores.push_back(f);
      }
    } else {
      throw UsageError(
          fmt::format("{}: an nvcc flag gpulab {} does not know; it takes -I -D -U -l -L "
                      "-std -O -g -G -lineinfo -rdc -dc -Xcompiler -Xptxas -maxrregcount "
                      "-arch -gencode -code --use_fast_math --fmad (gpulab help {})",
                      f, command, command),
          fmt::format("{}：gpulab {} 不认识的 nvcc 选项（见 gpulab help {}）；它接受 -I -D -U -l "
                      "-L -std -O -g -G -lineinfo -rdc -dc -Xcompiler -Xptxas -maxrregcount -arch "
                      "-gencode -code --use_fast_math --fmad",
                      f, command, command));
    }
  }
}

}  // namespace gpulab::run
