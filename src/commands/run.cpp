// gpulab run (see run.hpp): options -> the run engine (run/session.hpp) -> the report in words
// or JSON.
#include "commands/run.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <regex>

#include "core/error.hpp"
#include "core/layout.hpp"
#include "core/parse.hpp"
#include "core/process.hpp"
#include "run/findings.hpp"

namespace gpulab {

namespace fs = std::filesystem;
using nlohmann::json;

std::string render_run(const RunResult& r, const OutputOptions& out) {
  const Lang l = out.lang;
  // The report goes to stderr: its width, not stdout's.
  const Style st(out.color == ColorMode::always, output_width(STDERR_FILENO), out.lang);
  std::string s;
  const std::string name = fs::path(r.file).filename().string();
  const std::string where = r.backend == "cuda"
                                ? std::string(tr(l, "on the GPU (nvcc)", "在 GPU 上（nvcc 编译）"))
                                : std::string(tr(l, "on gpulab's CPU emulator (not a GPU)",
                                                 "在 gpulab 的 CPU 模拟器上（不是 GPU）"));
  s += st.heading(
           fmt::format(fmt::runtime(std::string(tr(l, "gpulab run: {} {}", "gpulab run：{} {}"))),
                       name, where)) +
       "\n";
  s += fmt::format(
      fmt::runtime(std::string(
          tr(l, "  built with {} ({}); ran in {:.1f} ms", "  编译器 {}（{}）；运行 {:.1f} 毫秒"))),
      r.compiler,
      r.cached
          ? std::string(tr(l, "cached", "使用缓存"))
          : fmt::format(fmt::runtime(std::string(tr(l, "compiled in {:.1f} s", "编译 {:.1f} 秒"))),
                        r.compile_ms / 1000.0),
      r.run_ms);
  s += "\n";

  // How the program ended.
  if (r.timed_out) {
    s += "  " +
         st.bad(fmt::format(
             fmt::runtime(std::string(tr(l, "stopped: still running after {} s (--timeout)",
                                         "已终止：运行超过 {} 秒（--timeout）"))),
             static_cast<double>(r.timeout_ms) / 1000.0)) +
         "\n";
  } else if (r.output_capped) {
    s += "  " +
         st.bad(fmt::format(
             fmt::runtime(std::string(tr(l, "stopped: it printed more than {} bytes (--max-output)",
                                         "已终止：输出超过 {} 字节（--max-output）"))),
             r.max_output_bytes)) +
         "\n";
  } else if (r.signal != 0) {
    std::string crash =
        fmt::format(fmt::runtime(std::string(tr(l, "crashed: {} ({})", "崩溃：{}（{}）"))),
                    signal_name(r.signal), strsignal(r.signal));
    if (r.crash && r.crash->contains("kernel")) {
      crash += fmt::format(
          fmt::runtime(std::string(tr(l, " in kernel {} (launched at {}), block {} thread {}",
                                      "，发生在核函数 {}（启动于 {}）的线程块 {} 线程 {}"))),
          r.crash->value("kernel", ""), short_path(r.crash->value("site", ""), r.file),
          dims_text(r.crash->value("block", json())), dims_text(r.crash->value("thread", json())));
    } else if (r.crash) {
      crash += std::string(tr(l, " in host code", "，发生在主机代码中"));
    }
    s += "  " + st.bad(crash) + "\n";
  } else {
    s += fmt::format(fmt::runtime(std::string(tr(l, "  exit code {}", "  退出码 {}"))),
                     r.exit_code) +
         "\n";
  }

  if (!r.launches.empty()) {
    s += fmt::format(fmt::runtime(std::string(
                         tr(l, "  Kernels launched ({} in all):", "  启动的核函数（共 {} 次）："))),
                     r.launches_total) +
         "\n";
    for (const RunLaunch& k : r.launches) {
      s += fmt::format("    {} <<<({},{},{}), ({},{},{})>>>  {}{}\n", k.kernel, k.grid[0],
                       k.grid[1], k.grid[2], k.block[0], k.block[1], k.block[2],
                       short_path(k.site, r.file), k.count > 1 ? fmt::format(" x{}", k.count) : "");
      if (!k.error.empty()) {
        s += "      " +
             st.bad(fmt::format(
                 fmt::runtime(std::string(tr(l, "launch failed: {}", "启动失败：{}"))), k.error)) +
             "\n";
        continue;
      }
      if (!k.fault.empty()) continue;  // listed with the findings
      if (!k.emulated) {
        s += fmt::format(
            fmt::runtime(std::string(
                tr(l, "      {} threads in {} warps; {} idle lanes in each block's last warp\n",
                   "      {} 个线程，{} 个线程束；每个线程块最后一个线程束空闲 {} 条通道\n"))),
            k.threads, k.warps, k.idle_lanes_per_block);
        continue;
      }
      s += fmt::format(fmt::runtime(std::string(tr(
                           l,
                           "      {} threads in {} warps; {} idle lanes in each block's last warp; "
                           "{} barrier crossings, {} warp collectives\n",
                           "      {} 个线程，{} 个线程束；每个线程块最后一个线程束空闲 {} 条通道；"
                           "{} 次屏障同步，{} 次线程束集体操作\n"))),
                       k.threads, k.warps, k.idle_lanes_per_block, k.barriers, k.collectives);
    }
    if (r.launches_truncated) {
      s += std::string(
               tr(l, "    (more launches ran than are listed)", "    （实际启动次数多于列出的）")) +
           "\n";
    }
  } else if (r.backend != "cuda" || r.report_complete) {
    s += std::string(tr(l, "  No kernel was launched.", "  没有启动任何核函数。")) + "\n";
  }
  if (r.backend == "cuda") {
    s += std::string(tr(
             l,
             "  Kernels ran on the GPU as nvcc built them; barrier crossings and warp "
             "collectives are counted only on gpulab's emulator (--backend cpu).",
             "  核函数按 nvcc 的编译结果在 GPU 上运行；屏障同步和线程束集体操作的次数只有 gpulab "
             "的模拟器才统计（--backend cpu）。")) +
         "\n";
  }
  if (r.dropped_printf_bytes > 0) {
    s += "  " +
         st.warn(fmt::format(
             fmt::runtime(std::string(
                 tr(l,
                    "{} bytes of kernel printf were dropped: the device's printf buffer was "
                    "full (cudaDeviceSetLimit(cudaLimitPrintfFifoSize, bytes) enlarges it)",
                    "{} 字节的核函数 printf 输出被丢弃：设备的 printf 缓冲区已满"
                    "（cudaDeviceSetLimit(cudaLimitPrintfFifoSize, 字节数) 可以增大它）"))),
             r.dropped_printf_bytes)) +
         "\n";
  }

  if (!r.findings.empty()) {
    s +=
        fmt::format(fmt::runtime(std::string(tr(l, "  Findings ({}):", "  发现的问题（{} 个）："))),
                    r.findings.size()) +
        "\n";
    int i = 0;
    for (const RunFinding& f : r.findings) {
      s += fmt::format("  {}. {}{}\n", ++i, st.bad(finding_title(f.kind, l)),
                       f.where.empty() ? "" : "  " + st.code(f.where));
      s += "     " + describe_finding(f, l) + "\n";
    }
  }
  if (r.backend == "cuda" && r.check) {
    if (!r.sanitizer_missing.empty()) {
      s += "  " + r.sanitizer_missing + "\n";
    }
    for (const auto& t : r.sanitizer) {
      s += fmt::format(fmt::runtime(std::string(tr(l, "  compute-sanitizer {}: {} error(s)",
                                                   "  compute-sanitizer {}：{} 个错误"))),
                       t.tool, t.errors < 0 ? std::string("?") : std::to_string(t.errors)) +
           "\n";
      if (t.errors > 0) s += t.output;
    }
    s += std::string(tr(
             l,
             "  A GPU cannot check: races on global memory, a __syncthreads() not every thread "
             "reaches (synccheck misses it on an H100), unsynchronised exit; run --backend cpu "
             "--check for those.",
             "  GPU 无法检查：全局内存上的竞争、不是所有线程都能到达的 __syncthreads()"
             "（H100 上 synccheck 查不出），以及退出前未同步；请用 --backend cpu --check 检查。")) +
         "\n";
  } else if (r.check && check_failures(r) == 0 && r.signal == 0 && !r.timed_out) {
    s += "  " + st.good(std::string(tr(l, "--check found no bugs.", "--check 没有发现错误。"))) +
         "\n";
  } else if (!r.check && r.backend != "cuda") {
    s += std::string(
             tr(l,
                "  Run with --check to look for the bugs a GPU hides (out of bounds, races, "
                "uninitialized memory, ...).",
                "  加上 --check 可以查找 GPU 隐藏的错误（越界、竞争、未初始化的显存……）。")) +
         "\n";
  }
  return s;
}

json run_json(const RunResult& r) {
  json j = {{"command", "run"},
            {"file", r.file},
            {"backend", r.backend},
            {"compiler", r.compiler},
            {"cached", r.cached},
            {"compile_ms", r.compile_ms},
            {"run_ms", r.run_ms},
            {"check", r.check},
            {"exit_code",
             r.signal != 0 || r.timed_out || r.output_capped ? json(nullptr) : json(r.exit_code)},
            {"signal", r.signal != 0 ? json(signal_name(r.signal)) : json(nullptr)},
            {"timed_out", r.timed_out},
            {"output_capped", r.output_capped},
            {"launches_total", r.launches_total},
            {"lost_printf_bytes", r.lost_printf_bytes},
            {"dropped_printf_bytes", r.dropped_printf_bytes},
            {"check_failures", check_failures(r)}};
  json launches = json::array();
  for (const RunLaunch& k : r.launches) {
    json l = {{"kernel", k.kernel},
              {"site", k.site},
              {"grid", {k.grid[0], k.grid[1], k.grid[2]}},
              {"block", {k.block[0], k.block[1], k.block[2]}},
              {"shared_bytes", k.shared_bytes},
              {"count", k.count},
              {"threads", k.threads},
              {"warps", k.warps},
              {"idle_lanes_per_block", k.idle_lanes_per_block},
              {"barriers", k.emulated ? json(k.barriers) : json(nullptr)},
              {"collectives", k.emulated ? json(k.collectives) : json(nullptr)},
              {"emulator_ms", k.emulated ? json(k.ms) : json(nullptr)}};
    if (!k.error.empty()) l["error"] = k.error;
    if (!k.fault.empty()) l["fault"] = k.fault;
    launches.push_back(l);
  }
  j["launches"] = launches;
  json findings = json::array();
  for (const RunFinding& f : r.findings) {
    json x = f.facts;
    x["kind"] = f.kind;
    x["where"] = f.where;
    if (!f.other_where.empty()) x["other_where"] = f.other_where;
    x["message"] = describe_finding(f, Lang::en);
    findings.push_back(x);
  }
  j["findings"] = findings;
  if (r.crash) j["crash"] = *r.crash;
  if (!r.sanitizer.empty() || !r.sanitizer_missing.empty()) {
    json s = json::array();
    for (const auto& t : r.sanitizer) s.push_back({{"tool", t.tool}, {"errors", t.errors}});
    j["compute_sanitizer"] = s;
    if (!r.sanitizer_missing.empty()) j["compute_sanitizer_missing"] = r.sanitizer_missing;
  }
  return j;
}

void setup_run(CLI::App& app, GlobalOptions& g) {
  struct Raw {
    std::string file;
    std::vector<std::string> args;
    std::vector<std::string> includes, defines;
    std::string timeout = "120", max_output = "67108864", arch, report;
    bool no_cache = false;
  };
  auto raw = std::make_shared<Raw>();
  CLI::App* sub = app.add_subcommand(
      "run",
      help_tr(g,
              "Run your own CUDA program (FILE.cu) on the GPU or on the emulator; --check finds "
              "the bugs a GPU hides",
              "在 GPU 或模拟器上运行你自己的 CUDA 程序（FILE.cu）；--check 能找出 GPU 掩盖的错误"));
  sub->callback([raw, &g] {
    // --check means the emulator's checks unless --backend gpu asks for compute-sanitizer.
    const bool check = g.emu.check;
    const bool gpu_asked = g.backend_text == "gpu";
    g.emu.check = false;
    finish_global_options(g);
    RunOptions o;
    o.file = raw->file;
    o.args = raw->args;
    o.check = check;
    o.lang = g.out.lang;
    o.timeout = std::chrono::milliseconds(
        parse_int("--timeout", raw->timeout, 1, 86400, {"seconds", "秒"}) * 1000);
    o.max_output_bytes =
        static_cast<std::size_t>(parse_int("--max-output", raw->max_output, 1024, INT64_MAX));
    o.use_cache = !raw->no_cache;
    o.workers = g.emu.workers;
    o.shuffle_seed = g.emu.shuffle_seed;
    for (const auto& d : raw->includes) o.compiler_flags.push_back("-I" + d);
    for (const auto& d : raw->defines) {
      if (d.empty() || d.front() == '=') {
        bad_value("-D", d, {"expected NAME or NAME=VALUE", "应为 NAME 或 NAME=VALUE"});
      }
      o.compiler_flags.push_back("-D" + d);
    }
    if (!raw->arch.empty()) {
      static const std::regex arch(R"(sm_[0-9]{2,3}[a-z]?)");
      if (!std::regex_match(raw->arch, arch))
        bad_value("--arch", raw->arch, {"expected sm_XY, e.g. sm_90", "应为 sm_XY，例如 sm_90"});
      o.gpu_arch = raw->arch;
    }
    if (!(check && !gpu_asked)) {
      std::string notice;
      o.gpu = gpu_chosen(g.backend, &notice, g.out.lang);
      if (!notice.empty() && !g.out.json) write_stderr(fmt::format("gpulab: {}\n", notice));
    }
    if (o.shuffle_seed && o.gpu) {
      throw UsageError(
          "--shuffle-blocks needs --backend cpu: only gpulab's emulator can shuffle blocks",
          "--shuffle-blocks 需要 --backend cpu：只有 gpulab 的模拟器能打乱线程块的顺序");
    }
    RunResult r = run_program(o);
    const std::string report =
        g.out.json ? run_json(r).dump(2, ' ', false, json::error_handler_t::replace) + "\n"
                   : render_run(r, g.out);
    std::fflush(stdout);
    if (raw->report.empty()) {
      // "hello world" without a newline: on a terminal, the report starts on a line of its own.
      if (!r.output_ends_line && isatty(STDERR_FILENO)) std::fputc('\n', stderr);
      const std::string shown =
          g.out.json ? report : lay_out(report, output_width(STDERR_FILENO), g.out.lang);
      std::fwrite(shown.data(), 1, shown.size(), stderr);
    } else {
      std::FILE* f = std::fopen(raw->report.c_str(), "w");
      if (f == nullptr || std::fwrite(report.data(), 1, report.size(), f) != report.size() ||
          std::fclose(f) != 0) {
        throw RuntimeFailure(
            both("--report {}: cannot write the report", "--report {}：无法写入报告", raw->report));
      }
    }
    if (r.timed_out || r.output_capped || r.signal != 0) {
      throw ExitCode(kExitFailure);
    }
    if (check_failures(r) > 0) throw ExitCode(kExitFailure);
    if (r.exit_code != 0) throw ExitCode(r.exit_code);
  });
  sub->add_option(
         "file", raw->file,
         help_tr(g, "The CUDA program (.cu) to build and run", "要编译并运行的 CUDA 程序（.cu）"))
      ->required()
      ->type_name("FILE.cu");
  sub->add_option(
         "args", raw->args,
         help_tr(g, "Arguments for the program (after --)", "传给程序的参数（写在 -- 之后）"))
      ->type_name("ARGS");
  sub->add_option("-I,--include", raw->includes,
                  help_tr(g, "Add a folder to the compiler's include path",
                          "把一个文件夹加入编译器的头文件搜索路径"))
      ->type_name("DIR");
  sub->add_option("-D,--define", raw->defines,
                  help_tr(g, "Define a preprocessor macro (NAME or NAME=VALUE)",
                          "定义一个预处理宏（NAME 或 NAME=VALUE）"))
      ->type_name("NAME[=VALUE]");
  sub->add_option("--timeout", raw->timeout,
                  help_tr(g, "Stop the program after this many seconds (default 120)",
                          "程序运行超过这么多秒就停止它（默认 120）"))
      ->type_name("SECONDS");
  sub->add_option(
         "--max-output", raw->max_output,
         help_tr(g, "Stop the program once it has printed this many bytes (default 64 MiB)",
                 "程序输出达到这么多字节就停止它（默认 64 MiB）"))
      ->type_name("BYTES");
  sub->add_option("--arch", raw->arch,
                  help_tr(g, "GPU architecture for nvcc (default: the GPU's own)",
                          "nvcc 的 GPU 架构（默认：本机 GPU 自己的）"))
      ->type_name("sm_XY");
  sub->add_option(
         "--report", raw->report,
         help_tr(g, "Write the report (text, or JSON with --json) to FILE instead of stderr",
                 "把报告（文本，或加 --json 时为 JSON）写入 FILE，而不是标准错误"))
      ->type_name("FILE");
  sub->add_flag("--no-cache", raw->no_cache,
                help_tr(g, "Compile again even if a cached build exists",
                        "即使已有缓存的编译结果也重新编译"));
}

}  // namespace gpulab
