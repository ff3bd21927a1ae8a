// A student's CUDA program: built (nvcc for a GPU, g++ against the emulator kit), cached by
// content, run in a child process with a time limit, and what it left in its report read back.
#pragma once

#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/output.hpp"
#include "run/contain.hpp"
#include "run/removed_api.hpp"

namespace gpulab::run {

// emulator_profiled: emulator_checked plus a hook at every basic block (gpulab profile's branches).
enum class Target { emulator, emulator_checked, gpu, emulator_profiled };

struct BuildRequest {
  std::filesystem::path source;  // absolute
  Target target = Target::emulator;
  std::string gpu_arch;                  // "sm_90" for Target::gpu
  std::vector<std::string> extra_flags;  // -I, -D, -U, -Xcompiler's: passed to every compile
  // More files of the same program (.cu, .cpp, .cc, .cxx, .c), compiled and linked with `source`.
  std::vector<std::filesystem::path> more_sources;  // absolute
  // `source` and then `more_sources` as the user typed them: __FILE__ expands to these, as with
  // nvcc (the emulator compiles copies). Missing ones keep their absolute path.
  std::vector<std::string> as_typed;
  std::vector<std::string> link_flags;  // -l, -L (both backends)
  std::vector<std::string> nvcc_flags;  // -arch, -rdc, -G, -O, -std, ...: --backend gpu only
  // The emulator's device code fuses a * b + c into one fma as nvcc's --fmad=true does (its
  // default); false for -G and --fmad=false.
  bool fmad = true;
  bool use_cache = true;
  Lang lang = Lang::en;
};

// A folder removed when the last copy of its handle goes.
struct TemporaryFolder {
  std::filesystem::path dir;
  explicit TemporaryFolder(std::filesystem::path d) : dir(std::move(d)) {}
  ~TemporaryFolder();
  TemporaryFolder(const TemporaryFolder&) = delete;
  TemporaryFolder& operator=(const TemporaryFolder&) = delete;
};

struct Build {
  std::filesystem::path program;
  std::string compiler;  // "g++ 12.2.0", "nvcc 13.0.88"
  bool cached = false;
  double compile_ms = 0;
  // The cache could not be written ("cannot write the compile cache at DIR: No space left on
  // device"): the program was built in a temporary folder, which lives as long as `temporary`.
  std::string cache_problem;
  std::shared_ptr<TemporaryFolder> temporary;
  // What the emulator build noticed, for the report to say once (kept with a cached build too):
  // API CUDA 13 removed, each with its first use (removed_api.hpp), and the first line that reads
  // the clock (FILE:LINE, "" when none).
  std::vector<RemovedUse> removed_api;
  std::string clock_read_at;
  // Files whose emulator transformation (split_kernels) g++ refused, compiled as written instead:
  // the file, whether the transformation also changed what the program does (spin loops that
  // yield, warp-synchronous accesses in rounds, deferred adds) rather than only its speed, and
  // g++'s first error line, for a report to gpulab's developers.
  struct AsWritten {
    std::string file;
    bool behaviour = false;
    std::string error;
  };
  std::vector<AsWritten> as_written;
  // --backend gpu: ptxas's own lines from a compile that succeeded (each kernel's registers,
  // spills and memory with -Xptxas -v), as nvcc printed them; kept with a cached build too.
  std::vector<std::string> ptxas_lines;
};

// Builds the program or finds it in the cache. Throws UsageError for a missing file, RuntimeFailure
// for a missing compiler or a compile error (the message then holds the compiler's diagnostics,
// which point at the user's own file and lines).
Build build_program(const BuildRequest& request);

// The CUDA libraries whose host API the source includes ("curand", "cublas"): --backend gpu links
// them as `nvcc -lcurand` would; on the emulator gpulab's own versions are always there.
std::vector<std::string> libraries_used(std::string_view source);

// The whole file (binary-safe), or "" when it cannot be read.
std::string read_file(const std::filesystem::path& p);

// Where gpulab run keeps compiled programs: $XDG_CACHE_HOME/gpulab/run or ~/.cache/gpulab/run.
std::filesystem::path cache_dir();

// cache_dir(), made 0700 when new and checked to be the user's own (a folder another user owns
// is refused: RuntimeFailure). Programs are built and run only from there.
std::filesystem::path private_cache_dir();

// The emulator kit (headers, libraries) next to this gpulab: <bin>/../lib/gpulab/run.
std::optional<std::filesystem::path> kit_dir();

struct Execution {
  int exit_code = -1;
  int signal = 0;
  bool timed_out = false;
  bool output_capped = false;
  bool output_ends_line = true;  // the program's stdout ended with a newline (or was empty)
  bool main_returned = false;    // its own process exited by itself (not stopped by gpulab)
  int leftover_processes = 0;    // processes it left running, ended by gpulab
  bool leftovers_held_output = false;
  bool processes_capped = false;  // stopped: more processes at once than contained runs allow
  std::size_t most_processes = 0;
  Containment containment;                 // with ExecRequest::contain: the one it ran in
  int stdout_errno = 0, stderr_errno = 0;  // writing its output to ours failed
  double run_ms = 0;
  std::vector<nlohmann::json> report;  // the report's lines, in order
  std::string out, err;                // with ExecRequest::capture: what the program printed
};

struct ExecRequest {
  std::filesystem::path program;
  std::vector<std::string> args;
  std::string argv0;  // what the program sees as argv[0] (report::kEnvArgv0); empty: its path
  bool check = false;
  bool profile = false;  // gpulab profile's counters (a Target::emulator_profiled build)
  unsigned workers = 0;
  std::optional<std::uint64_t> shuffle_seed;
  std::chrono::milliseconds timeout{0};
  std::size_t max_output_bytes = 0;
  // Capture stdout and stderr (and give the program /dev/null as stdin, a process group of its
  // own) instead of passing them through: gpulab exercise keeps the kernel's printf apart.
  bool capture = false;
  // Run contained (run/contain.hpp): gpulab exercise grade's students' programs.
  std::optional<ContainLimits> contain;
};

Execution execute(const ExecRequest& request);

// FILE:LINE (and the function) of code addresses in `program`, via addr2line: the innermost frame
// in a file that is not one of gpulab's own headers. Empty strings where unknown.
// `source` is the user's file, `more_sources` the program's other files in the order they were
// built: lines of the rewritten copies the emulator compiled (main.cpp, main_1.cpp, ...) are
// mapped back to them.
std::vector<std::string> source_lines(const std::filesystem::path& program,
                                      const std::filesystem::path& source,
                                      const std::vector<std::uint64_t>& addresses,
                                      const std::vector<std::string>& more_sources = {});

// A kernel launch on the GPU, from the frames the launch log wrote (src/run/gpu/launch_log.cpp):
// the kernel's name ("fill<3>") and FILE:LINE of the launch. Empty where unknown.
struct GpuLaunchSite {
  std::string kernel, site;
  // Launched by a library's code compiled into the program (thrust and CUB, from the toolkit's
  // headers), not by the program's own <<<>>>: the emulator runs thrust on the CPU instead.
  bool library = false;
};
std::vector<GpuLaunchSite> gpu_launch_sites(const std::filesystem::path& program,
                                            const std::vector<std::vector<std::uint64_t>>& frames);

}  // namespace gpulab::run
