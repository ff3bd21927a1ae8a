// gpulab run (see run.hpp): options -> the run engine (run/session.hpp) -> the report in words
// or JSON (run/render.hpp).
#include "commands/run.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <set>

#include "core/error.hpp"
#include "core/file_check.hpp"
#include "core/i18n_format.hpp"
#include "core/input.hpp"
#include "core/parse.hpp"
#include "core/process.hpp"
#include "run/nvcc_flags.hpp"

namespace gpulab {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// The source files nvcc builds into one program.
bool source_file(const std::string& name) {
  static const std::set<std::string> kSources = {".cu", ".cpp", ".cc", ".cxx", ".c", ".C"};
  return kSources.count(fs::path(name).extension().string()) != 0;
}

}  // namespace

RunOptions run_options(const RunArgs& raw, GlobalOptions& g) {
  // --check means the emulator's checks unless --backend gpu asks for compute-sanitizer.
  const bool check = g.emu.check;
  const bool gpu_asked = g.backend_text == "gpu";
  g.emu.check = false;
  finish_global_options(g);
  RunOptions o;
  // Files are the sources; without a "--", words that name no source after the first file are
  // the program's arguments (gpulab run prog.cu 64).
  for (const std::string& f : raw.files) {
    if (source_file(f)) {
      (o.file.empty() ? o.file : o.more_files.emplace_back()) = f;
    } else if (!o.file.empty() && raw.program.args.empty()) {
      o.args.push_back(f);
    } else {
      // An empty path, a folder, a device: said as such, not as a wrong kind of file.
      std::error_code ec;
      if (f.empty() || (fs::exists(f, ec) && !fs::is_regular_file(f, ec))) {
        require_readable_file(f);
      }
      bad_value("FILE", f,
                {"expected a CUDA or C/C++ source (.cu, .cpp, .cc, .cxx, .c); the program's "
                 "own arguments go after --",
                 "应为 CUDA 或 C/C++ 源文件（.cu、.cpp、.cc、.cxx、.c）；程序自己的参数写在 -- "
                 "之后"});
    }
  }
  o.args.insert(o.args.end(), raw.program.args.begin(), raw.program.args.end());
  o.check = check;
  take_program_options(raw.program, g, o);
  o.shuffle_seed = g.emu.shuffle_seed;
  // After the options, before the backend's notice.
  require_readable_file(o.file);
  for (const std::string& f : o.more_files) require_readable_file(f);
  if (!(check && !gpu_asked)) {
    std::string notice;
    o.gpu = gpu_chosen(g.backend, &notice, g.out.lang);
    if (!notice.empty() && !g.out.json) write_stderr(fmt::format("gpulab: {}\n", notice));
  }
  run::sort_nvcc_flags(raw.program.nvcc_flags, o);
  if (o.shuffle_seed && o.gpu) {
    throw UsageError(
        "--shuffle-blocks needs --backend cpu: only gpulab's emulator can shuffle blocks",
        "--shuffle-blocks 需要 --backend cpu：只有 gpulab 的模拟器能打乱线程块的顺序");
  }
  return o;
}

void setup_run(CLI::App& app, GlobalOptions& g) {
  auto raw = std::make_shared<RunArgs>();
  CLI::App* sub = app.add_subcommand(
      "run",
      help_tr(g,
              "Run your own CUDA program (FILE.cu) on the GPU or on the emulator; --check finds "
              "the bugs a GPU hides",
              "在 GPU 或模拟器上运行你自己的 CUDA 程序（FILE.cu）；--check 能找出 GPU 掩盖的错误"));
  sub->callback([raw, &g] {
    const RunOptions o = run_options(*raw, g);
    const SignalGuard signals;  // Ctrl-C ends the compiler or the program, and then gpulab
    RunResult r = run_program(o);
    throw_if_interrupted();
    if (!r.cache_problem.empty() && !g.out.json)
      write_stderr("gpulab: " + escape_controls(r.cache_problem) + "\n");
    const std::string report =
        g.out.json ? run_json(r).dump(2, ' ', false, json::error_handler_t::replace) + "\n"
                   : render_run(r, g.out);
    const bool report_lost = !deliver_report(report, raw->program.report, r.output_ends_line, g) ||
                             (raw->program.report.empty() && r.stderr_errno != 0);
    // The program's output could not be passed on: like a failed write of our own.
    errno = 0;
    if (r.stdout_errno != 0 || std::fflush(stdout) != 0 || std::ferror(stdout) != 0) {
      const int error = r.stdout_errno != 0 ? r.stdout_errno : (errno != 0 ? errno : EIO);
      throw RuntimeFailure(both("cannot write to standard output: {}", "无法写入标准输出：{}",
                                std::string(std::strerror(error))));
    }
    // A report that could not be written to stderr: nowhere is left to say so; the exit code tells.
    if (report_lost) throw ExitCode(kExitFailure);
    if (r.timed_out || r.output_capped) throw ExitCode(kExitFailure);
    // A program a signal ended (a crash in its host code, an abort): 128 + the signal's number,
    // as a shell reports the same program run by itself (139 for SIGSEGV, 134 for SIGABRT).
    if (r.signal != 0) throw ExitCode(128 + r.signal);
    if (check_failures(r) > 0) throw ExitCode(kExitFailure);
    if (r.exit_code != 0) throw ExitCode(r.exit_code);
  });
  add_program_file(sub, g, "files", raw->files,
                   {"The program's files: .cu, and .cpp/.cc/.cxx/.c, built together as nvcc "
                    "builds them; its arguments go after --",
                    "程序的文件：.cu 以及 .cpp/.cc/.cxx/.c，像 nvcc 那样一起编译；程序自己的"
                    "参数写在 -- 之后"});
  add_program_options(*sub, g, raw->program,
                      {"GPU architecture for nvcc (default: the GPU's own)",
                       "nvcc 的 GPU 架构（默认：本机 GPU 自己的）",
                       "Write the report (text, or JSON with --json) to FILE instead of stderr",
                       "把报告（文本，或加 --json 时为 JSON）写入 FILE，而不是标准错误"});
}

}  // namespace gpulab
