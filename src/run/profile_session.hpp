// gpulab profile's engine: the student's program built with the counters and run by the run
// engine (run/session.hpp), its "profile" lines read back per kernel and per source line
// (profile/report.hpp); with --backend gpu, the same program under ncu on the GPU.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "core/i18n.hpp"
#include "profile/ncu.hpp"
#include "profile/report.hpp"
#include "profile/rules.hpp"

namespace gpulab {

struct ProfileOptions {
  std::string file;
  std::vector<std::string> args;            // after --
  std::vector<std::string> compiler_flags;  // the emulator's g++: -I, -D, -U, -Xcompiler's items
  std::vector<std::string> link_flags;      // -l, -L
  // --backend gpu's nvcc build: -I, -D, -U, and nvcc's own flags (-Xcompiler=A,B kept whole for
  // nvcc to hand to its host compiler, -O, -std=, -arch=, ...).
  std::vector<std::string> gpu_compiler_flags, nvcc_flags;
  std::vector<std::string> flags_without_effect;  // nvcc's flags the emulator accepts, unused
  bool fmad = true;                               // as RunOptions::fmad
  std::chrono::milliseconds timeout{std::chrono::seconds(120)};
  std::size_t max_output_bytes = 64u << 20;
  bool use_cache = true;
  unsigned workers = 0;
  bool gpu = false;  // also measure with ncu on the GPU
  std::string gpu_arch;
  std::vector<profile::CounterRule> rules;  // --require: checked on the emulator's counts
  Lang lang = Lang::en;
};

struct ProfileResult {
  std::string file;
  std::string backend = "cpu-emulator";
  std::string compiler;
  bool cached = false;
  double compile_ms = 0, run_ms = 0;
  int exit_code = -1, signal = 0;
  bool timed_out = false, output_capped = false;
  bool output_ends_line = true;
  std::vector<std::string> flags_without_effect;  // as gpulab run states them
  std::vector<profile::KernelProfile> kernels;
  std::vector<std::string> faults;  // a launch that faulted: its counts stop there
  std::string crash;                // the program crashed: where (its counts stop there)
  std::vector<std::string> source;  // the file's lines, for the annotated listing
  // --backend gpu
  bool gpu_asked = false;
  std::string gpu_compiler;
  std::vector<profile::NcuLaunch> gpu;
  std::string gpu_why_not;                        // ncu missing, not permitted, failed
  std::vector<profile::CounterRuleResult> rules;  // --require, in order
};

// nvcc's flags as typed (-U, -l, -L, -Xcompiler=A,B, -O3, -arch=, ...) sorted as gpulab run sorts
// them (run/nvcc_flags.hpp), once for the emulator's build (-U and -Xcompiler's items for g++, -l
// and -L for the linker, the rest accepted without effect: flags_without_effect) and once for
// --backend gpu's nvcc build (-Xcompiler=A,B whole, nvcc's own flags); a flag gpulab does not
// know is a UsageError naming it. Added to what o holds (-I and -D).
void take_nvcc_flags(const std::vector<std::string>& flags, ProfileOptions& o);

ProfileResult run_profile(const ProfileOptions& o);
// --backend gpu's part (run_profile calls it when o.gpu): builds o.file with nvcc -O3 -lineinfo
// (unless o.nvcc_flags give -O, -G or -lineinfo themselves) and o.nvcc_flags,
// runs it under ncu with the same metrics and fills r.gpu, or r.gpu_why_not (nvcc refused the
// program, ncu is missing, not permitted, or measured nothing).
void measure_on_gpu(const ProfileOptions& o, ProfileResult& r);

}  // namespace gpulab
