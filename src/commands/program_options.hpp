// The options of the commands that build and run a user's CUDA program (gpulab run, gpulab
// profile), declared once: nvcc's spellings (-I -D -U -l -L -std -Xcompiler -arch ... and the
// program's arguments after --), --timeout, --max-output, --arch, --report, --no-cache; read into
// the session's options, and the report delivered to stderr or --report FILE.
#pragma once

#include <CLI/CLI.hpp>

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "commands/common.hpp"
#include "core/parse.hpp"

namespace gpulab {

// The shared options as typed.
struct ProgramArgs {
  std::vector<std::string> nvcc_flags;  // --nvcc-flag: nvcc's flags, one each (run/nvcc_flags)
  std::vector<std::string> args;        // --program-arg: the words after --
  std::vector<std::string> includes, defines;
  std::string timeout = "120", max_output = "67108864", arch, report;
  bool no_cache = false;
};

// The help of the options whose meaning differs between the commands.
struct ProgramHelp {
  std::string_view arch_en, arch_zh;
  std::string_view report_en, report_zh;
};

// Adds the shared options to `sub`, bound to `raw`.
void add_program_options(CLI::App& sub, const GlobalOptions& g, ProgramArgs& raw,
                         const ProgramHelp& help);

// The shared options, checked, into a session's options (RunOptions, ProfileOptions): the
// language, --timeout, --max-output, --no-cache, the emulator's workers, -I and -D, --arch.
template <class Options>
void take_program_options(const ProgramArgs& raw, const GlobalOptions& g, Options& o) {
  o.lang = g.out.lang;
  o.timeout = std::chrono::milliseconds(
      parse_int("--timeout", raw.timeout, 1, 86400, {"seconds", "秒"}) * 1000);
  o.max_output_bytes =
      static_cast<std::size_t>(parse_int("--max-output", raw.max_output, 1024, INT64_MAX));
  o.use_cache = !raw.no_cache;
  o.workers = g.emu.workers;
  o.compiler_flags = include_define_flags(raw.includes, raw.defines);
  o.gpu_arch = checked_gpu_arch(raw.arch);
}

// Writes the report to --report FILE (a RuntimeFailure when it cannot) or, when none was given,
// to stderr laid out for its width (JSON as it is), on a line of its own after output that did
// not end one. False when stderr could not take it.
bool deliver_report(const std::string& report, const std::string& report_file,
                    bool output_ends_line, const GlobalOptions& g);

// The arguments of `gpulab run` and `gpulab profile` (argv without the program's name) with
// nvcc's spellings made gpulab's: -IDIR and --include-path DIR become --include=DIR, -arch=sm_90
// or -lineinfo one --nvcc-flag each, and every word after `--` a --program-arg, so that the
// program's own options (-hA=64) reach it untouched. Other commands' arguments are returned as
// they are.
std::vector<std::string> normalize_run_arguments(const std::vector<std::string>& args);

}  // namespace gpulab
