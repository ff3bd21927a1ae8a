// The run engine: a student's CUDA program (a source file, compiler flags, the program's
// arguments, a backend) built, run in a child process and its report read back into a result
// (exit status, output facts, launches, findings, timings). gpulab run, gpulab exercise and the
// commands to come call run_program; none of them reads the report itself.
#pragma once

#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/output.hpp"
#include "run/contain.hpp"
#include "run/program.hpp"

namespace gpulab {

// The session: what to build and run, and how.
struct RunOptions {
  std::string file;
  std::vector<std::string> more_files;  // the program's other files (.cu, .cpp, .c, ...)
  std::vector<std::string> args;        // after --
  bool check = false;
  // gpulab profile's counters: a "profile" line per launch in other_events (emulator only).
  bool profile = false;
  bool gpu = false;  // the GPU backend (nvcc); else the emulator
  std::string gpu_arch;
  std::vector<std::string> compiler_flags;  // -I, -D, -U, -Xcompiler's
  std::vector<std::string> link_flags;      // -l, -L
  std::vector<std::string> nvcc_flags;      // given to nvcc only (-arch, -rdc, -G, -O, -std, ...)
  // nvcc's --fmad (true unless -G or --fmad=false): the emulator's device code fuses a * b + c.
  bool fmad = true;
  // nvcc's flags the emulator accepts and does not use (said in the report).
  std::vector<std::string> emulator_ignores;
  std::vector<std::string> extra_sources;  // more translation units (gpulab exercise)
  bool capture_output = false;  // keep the program's stdout/stderr in RunResult, not printed
  // Keep every line of the report in RunResult::report, in order (gpulab exercise places each
  // finding and record between its runner's test and step marks).
  bool keep_report = false;
  std::chrono::milliseconds timeout{std::chrono::seconds(120)};
  std::size_t max_output_bytes = 64u << 20;
  bool use_cache = true;
  unsigned workers = 0;
  std::optional<std::uint64_t> shuffle_seed;
  Lang lang = Lang::en;
  // Run the program contained (run/contain.hpp): limits, a private folder, bubblewrap.
  std::optional<run::ContainLimits> contain;
};

// One kernel launched (launches with the same kernel, place and shape are counted together).
struct RunLaunch {
  std::string kernel, site;
  std::uint64_t grid[3] = {1, 1, 1}, block[3] = {1, 1, 1};
  std::uint64_t shared_bytes = 0, count = 0;
  std::uint64_t static_shared_bytes = 0;  // the kernel's __shared__ arrays (emulator)
  std::uint64_t threads = 0, warps = 0, idle_lanes_per_block = 0, barriers = 0, collectives = 0;
  double ms = 0;                 // summed
  std::string error;             // a launch that failed (CUDA error name)
  std::string error_message;     // the emulator's why, with the numbers (English, as CUDA's)
  std::string error_message_zh;  // the same in Chinese
  std::string fault;             // a fault found while it ran
  bool emulated = true;  // false on the GPU: barriers, collectives and times are not counted
  // The program ended inside it (a crash, --timeout): it started and never finished.
  bool unfinished = false;
};

struct RunFinding {
  std::string kind;         // out_of_bounds, host_memory, uninitialized_read, ... (docs/run.md)
  std::string where;        // FILE:LINE of the access or the call
  std::string other_where;  // races: the other access
  nlohmann::json facts;     // the details the report gave
};

struct RunResult {
  std::string file;
  std::vector<std::string> more_files;
  std::vector<std::string> flags_without_effect;  // nvcc flags the emulator accepted, unused
  // API CUDA 13 removed that the program uses (emulator): the key of run/removed_api.hpp and
  // FILE:LINE of the first use, each once; and the first line that reads the clock.
  std::vector<std::pair<std::string, std::string>> removed_api;
  std::string clock_read_at;
  // Files compiled as written because g++ refused gpulab's transformation of them (Build).
  std::vector<run::Build::AsWritten> as_written;
  std::string backend;  // "cpu-emulator" or "cuda"
  std::string compiler;
  std::string program;  // the built program (code addresses in its report: run::source_lines)
  bool cached = false;
  double compile_ms = 0, run_ms = 0;
  bool check = false;
  int exit_code = -1, signal = 0;
  bool timed_out = false, output_capped = false;
  bool output_ends_line = true;
  bool main_returned = false;              // the program's process exited by itself
  int leftover_processes = 0;              // processes it left running, ended by gpulab
  bool leftovers_held_output = false;      // ... and they held its output open
  bool processes_capped = false;           // contained: stopped, too many processes at once
  std::size_t most_processes = 0;          // contained: the most it had at once
  run::Containment containment;            // contained: "bubblewrap" or "limits" (and why)
  int stdout_errno = 0, stderr_errno = 0;  // relaying its output to ours failed
  std::string cache_problem;               // the compile cache could not be written
  std::string output, errors;              // with RunOptions::capture_output
  std::uint64_t timeout_ms = 0, max_output_bytes = 0;
  std::vector<RunLaunch> launches;
  std::uint64_t launches_total = 0;
  // GPU: launches thrust's or CUB's code made (listed nowhere, not in launches_total).
  std::uint64_t library_launches = 0;
  bool launches_truncated = false;
  std::vector<RunFinding> findings;
  std::uint64_t lost_printf_bytes = 0, dropped_printf_bytes = 0;
  std::string lost_printf_first_line;
  std::optional<nlohmann::json> crash;
  bool report_complete = false;  // the program's exit was recorded
  // GPU backend with --check: each compute-sanitizer tool that ran, its error count and output.
  struct SanitizerRun {
    std::string tool;
    int errors = -1;           // -1: unknown
    std::size_t findings = 0;  // read back into RunResult::findings
    std::string output;
  };
  std::vector<SanitizerRun> sanitizer;
  std::string sanitizer_missing;  // why compute-sanitizer did not run
  // Report lines of events run does not read itself, in order (gpulab exercise's harness writes
  // "exercise_*" lines, its recorder "record" lines), from either backend.
  std::vector<nlohmann::json> other_events;
  // With RunOptions::keep_report: every line of the report as the program wrote it (findings
  // unmerged, with their code addresses).
  std::vector<nlohmann::json> report;
};

// Builds (or finds in the cache) and runs o.file, reads its report. Throws UsageError for a
// missing file, RuntimeFailure for a missing compiler or a compile error.
RunResult run_program(const RunOptions& o);
// Findings that --check turns into exit code 1.
std::size_t check_failures(const RunResult& r);

// The sm_XY of this machine's GPU (nvcc's -arch when none is given); nothing without one (or
// without CUDA in this build).
std::optional<std::string> gpu_arch_of_device();

// A kind --check counts as a failure (run/report.hpp: report::kind::all).
bool is_check_kind(const std::string& kind);

// "(1,2,3)" for a report's [1,2,3]; "?" for anything else.
std::string dims_text(const nlohmann::json& d);
// "/abs/dir/prog.cu:12" -> "prog.cu:12" when it is in the folder of the user's `file`.
std::string short_path(const std::string& where, const std::string& file);

}  // namespace gpulab
