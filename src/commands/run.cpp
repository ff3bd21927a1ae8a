// gpulab run (see run.hpp): options -> the run engine (run/session.hpp) -> the report in words
// or JSON.
#include "commands/run.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <set>

#include "core/error.hpp"
#include "core/file_check.hpp"
#include "core/input.hpp"
#include "core/layout.hpp"
#include "core/parse.hpp"
#include "core/process.hpp"
#include "core/text.hpp"
#include "run/findings.hpp"
#include "run/removed_api.hpp"

namespace gpulab {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// An nvcc flag that asks ptxas for each kernel's resource usage: -Xptxas -v (--verbose), or
// nvcc's --resource-usage.
bool asks_resource_usage(const std::string& flag) {
  if (flag == "-res-usage" || flag == "--resource-usage") return true;
  if (!flag.starts_with("-Xptxas=")) return false;
  // ptxas's options, comma-separated as nvcc passes them.
  const std::string list = "," + flag.substr(8) + ",";
  return list.find(",-v,") != std::string::npos || list.find(",--verbose,") != std::string::npos;
}

}  // namespace

std::string render_run(const RunResult& r, const OutputOptions& out) {
  const Lang l = out.lang;
  // The report goes to stderr: its width, not stdout's.
  const Style st(out.color == ColorMode::always, output_width(STDERR_FILENO), out.lang);
  std::string s;
  const std::string name = escape_controls(fs::path(r.file).filename().string());
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
  const RunLaunch* unfinished = nullptr;
  for (const RunLaunch& k : r.launches)
    if (k.unfinished) unfinished = &k;
  const std::string in_launch =
      unfinished == nullptr
          ? std::string()
          : fmt::format(fmt::runtime(std::string(tr(l, ", in kernel {} (launched at {})",
                                                    "，当时正在运行核函数 {}（启动于 {}）"))),
                        unfinished->kernel, short_path(unfinished->site, r.file));
  if (r.timed_out) {
    s += "  " +
         st.bad(fmt::format(
             fmt::runtime(std::string(tr(l, "stopped: still running after {} s (--timeout){}",
                                         "已终止：运行超过 {} 秒（--timeout）{}"))),
             static_cast<double>(r.timeout_ms) / 1000.0, in_launch)) +
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
    if (r.crash && r.crash->contains("kernel") && r.crash->contains("block")) {
      crash += fmt::format(
          fmt::runtime(std::string(tr(l, " in kernel {} (launched at {}), block {} thread {}",
                                      "，发生在核函数 {}（启动于 {}）的线程块 {} 线程 {}"))),
          r.crash->value("kernel", ""), short_path(r.crash->value("site", ""), r.file),
          dims_text(r.crash->value("block", json())), dims_text(r.crash->value("thread", json())));
    } else if (r.crash && r.crash->contains("kernel")) {
      crash += fmt::format(
          fmt::runtime(std::string(tr(
              l,
              " in kernel {} (launched at {}); its block and thread are unknown: the fault "
              "overwrote the emulator's record of them (a write past a __shared__ array?)",
              "，发生在核函数 {}（启动于 {}）中；线程块和线程无法确定：这次错误覆盖了模拟器对它们的"
              "记录（越过 __shared__ 数组的写入？）"))),
          r.crash->value("kernel", ""), short_path(r.crash->value("site", ""), r.file));
    } else if (r.crash) {
      crash += std::string(tr(l, " in host code", "，发生在主机代码中"));
    }
    if (r.crash && r.crash->contains("where")) {
      crash += fmt::format(fmt::runtime(std::string(tr(l, ", at {}", "，位置 {}"))),
                           r.crash->value("where", ""));
    }
    s += "  " + st.bad(crash) + "\n";
  } else {
    s += fmt::format(fmt::runtime(std::string(
                         tr(l, "  main returned: exit code {}", "  main 已返回：退出码 {}"))),
                     r.exit_code) +
         "\n";
  }
  if (!r.more_files.empty()) {
    std::string names;
    for (const std::string& f : r.more_files) names += " " + fs::path(f).filename().string();
    s += fmt::format(fmt::runtime(std::string(tr(l, "  Built with it:{}", "  一起编译的文件：{}"))),
                     names) +
         "\n";
  }
  if (!r.flags_without_effect.empty()) {
    s += fmt::format(fmt::runtime(std::string(tr(
                         l, "  Accepted, no effect on the emulator: {} (nvcc's flags for a GPU).",
                         "  已接受、在模拟器上不起作用：{}（这些是 nvcc 为 GPU 编译的选项）。"))),
                     fmt::join(r.flags_without_effect, " ")) +
         "\n";
  }
  // ptxas's resource report (-Xptxas -v, --resource-usage) comes from compiling for a GPU: said
  // so, with what the emulator does know of each kernel.
  if (std::any_of(r.flags_without_effect.begin(), r.flags_without_effect.end(),
                  asks_resource_usage)) {
    s += std::string(
             tr(l,
                "  -Xptxas -v: ptxas would print each kernel's registers, spills, shared "
                "and constant memory as it compiles for a GPU; the emulator compiles no "
                "PTX and has no register count. Static shared memory, as the emulator "
                "lays it out:",
                "  -Xptxas -v：ptxas 在为 GPU 编译时会打印每个核函数的寄存器、溢出、共享"
                "内存和常量内存；模拟器不编译 PTX，没有寄存器数。模拟器排布的静态共享内存：")) +
         "\n";
    std::set<std::string> listed;
    for (const RunLaunch& k : r.launches) {
      if (!k.emulated || !listed.insert(k.kernel).second) continue;
      s += fmt::format(fmt::runtime(std::string(tr(l, "    {}: {} bytes of static shared memory",
                                                   "    {}：静态共享内存 {} 字节"))),
                       k.kernel, k.static_shared_bytes) +
           "\n";
    }
    if (listed.empty()) {
      s += std::string(tr(l, "    (no kernel ran)", "    （没有核函数运行）")) + "\n";
    }
  }
  // Once each: API CUDA 13 removed, and what the emulator's clock counts.
  if (!r.removed_api.empty()) {
    s +=
        "  " +
        st.warn(std::string(tr(l,
                               "API that CUDA 13 removed (nvcc 13 refuses it; the emulator "
                               "still runs it):",
                               "CUDA 13 已移除的 API（nvcc 13 不再接受；模拟器仍然可以运行）："))) +
        "\n";
    for (const auto& [key, used_at] : r.removed_api) {
      if (const run::RemovedApi* api = run::find_removed_api(key)) {
        s += "    " + run::removed_item(*api, short_path(used_at, r.file), l) + "\n";
      }
    }
  }
  if (!r.clock_read_at.empty()) {
    s += fmt::format(
             fmt::runtime(std::string(tr(
                 l,
                 "  The program reads the clock ({}): in a kernel, clock() and clock64() count "
                 "nanoseconds of the CPU's clock on the emulator (a 1 GHz clock: "
                 "cudaDevAttrClockRate is 1000000 kHz), not the GPU's cycles.",
                 "  程序读取了时钟（{}）：在模拟器上，核函数中的 clock() 和 clock64() 计的是 CPU "
                 "时钟的纳秒数（相当于 1 GHz 的时钟：cudaDevAttrClockRate 为 1000000 kHz），而不是 "
                 "GPU 的周期数。"))),
             short_path(r.clock_read_at, r.file)) +
         "\n";
  }
  if (r.leftover_processes > 0) {
    s += "  " +
         st.warn(fmt::format(
             fmt::runtime(std::string(
                 r.leftovers_held_output
                     ? tr(l,
                          "{} process(es) it started were still running and holding its output "
                          "after it ended: gpulab ended them",
                          "程序结束后，它启动的 {} 个进程仍在运行并占用着它的输出：gpulab "
                          "已结束它们")
                     : tr(l,
                          "{} process(es) it started were still running after it ended: "
                          "gpulab ended them",
                          "程序结束后，它启动的 {} 个进程仍在运行：gpulab 已结束它们"))),
             r.leftover_processes)) +
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
      if (k.unfinished) {
        s += "      " +
             st.bad(std::string(r.timed_out
                                    ? tr(l, "still running when --timeout stopped the program",
                                         "--timeout 终止程序时它仍在运行")
                                    : tr(l, "did not finish: the program ended inside it",
                                         "没有完成：程序在它运行时结束了"))) +
             "\n";
        continue;
      }
      if (!k.error.empty()) {
        s += "      " +
             st.bad(fmt::format(
                 fmt::runtime(std::string(tr(l, "launch failed: {}", "启动失败：{}"))), k.error)) +
             "\n";
        // Why, with the numbers (a cooperative grid too large to be resident at once, ...).
        const std::string& why =
            l == Lang::zh && !k.error_message_zh.empty() ? k.error_message_zh : k.error_message;
        if (!why.empty()) s += "      " + escape_controls(why) + "\n";
        continue;
      }
      if (!k.fault.empty()) continue;  // listed with the findings
      if (!k.emulated) {
        s += fmt::format(
            fmt::runtime(std::string(tr(l, "      {} in {}; {} in each block's last warp\n",
                                        "      {}，{}；每个线程块最后一个线程束空闲 {}\n"))),
            count_noun(l, k.threads, "thread", "threads", "个线程"),
            count_noun(l, k.warps, "warp", "warps", "个线程束"),
            count_noun(l, k.idle_lanes_per_block, "idle lane", "idle lanes", "条通道"));
        continue;
      }
      s += fmt::format(
          fmt::runtime(std::string(tr(l,
                                      "      {} in {}; {} in each block's last warp; "
                                      "{}, {}\n",
                                      "      {}，{}；每个线程块最后一个线程束空闲 {}；"
                                      "{}，{}\n"))),
          count_noun(l, k.threads, "thread", "threads", "个线程"),
          count_noun(l, k.warps, "warp", "warps", "个线程束"),
          count_noun(l, k.idle_lanes_per_block, "idle lane", "idle lanes", "条通道"),
          count_noun(l, k.barriers, "barrier crossing", "barrier crossings", "次屏障同步"),
          count_noun(l, k.collectives, "warp collective", "warp collectives", "次线程束集体操作"));
    }
    if (r.launches_truncated) {
      s += std::string(
               tr(l, "    (more launches ran than are listed)", "    （实际启动次数多于列出的）")) +
           "\n";
    }
  }
  if (r.library_launches > 0) {
    s += fmt::format(fmt::runtime(std::string(tr(
                         l,
                         "  thrust's or CUB's own kernels were launched {} more time(s) on the "
                         "GPU, not listed (the emulator runs thrust on the CPU).",
                         "  thrust 或 CUB 自己的核函数在 GPU 上另外启动了 {} 次，未列出（模拟器在 "
                         "CPU 上运行 thrust）。"))),
                     r.library_launches) +
         "\n";
  }
  if (r.launches.empty() && r.library_launches == 0 && (r.backend != "cuda" || r.report_complete)) {
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
      s += fmt::format(fmt::runtime(std::string(tr(l, "  compute-sanitizer {}: {} {}",
                                                   "  compute-sanitizer {}：{} 个错误"))),
                       t.tool, t.errors < 0 ? std::string("?") : std::to_string(t.errors),
                       t.errors == 1 ? "error" : "errors") +
           "\n";
      if (t.errors > 0 && t.findings == 0) s += t.output;  // a shape gpulab could not read
    }
    s +=
        std::string(tr(
            l,
            "  A GPU cannot check races on global memory or an unsynchronised exit. A "
            "__syncthreads() not every thread reaches: on an H100 synccheck reported 16 errors for "
            "a 32-thread block where 16 threads reach it, and 0 for a 64-thread block where "
            "threads 0-15 reach it. Run --backend cpu --check for those.",
            "  GPU 无法检查全局内存上的竞争和退出前未同步。不是所有线程都能到达的 "
            "__syncthreads()：在 H100 上，32 线程的线程块中 16 个线程到达时 synccheck 报告了 16 "
            "个错误，64 线程的线程块中 0-15 号线程到达时报告 0 个。请用 --backend cpu --check "
            "检查这些。")) +
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

namespace {

// API CUDA 13 removed that the program uses: what, where, and the call that replaces it.
json removed_json(const RunResult& r) {
  json out = json::array();
  for (const auto& [key, where] : r.removed_api) {
    if (const run::RemovedApi* api = run::find_removed_api(key)) {
      out.push_back({{"api", api->what}, {"where", where}, {"replacement", api->replacement}});
    }
  }
  return out;
}

}  // namespace

json run_json(const RunResult& r) {
  json j = {{"command", "run"},
            {"file", r.file},
            {"backend", r.backend},
            {"compiler", r.compiler},
            {"cached", r.cached},
            {"compile_ms", r.compile_ms},
            {"more_files", r.more_files},
            {"flags_without_effect", r.flags_without_effect},
            {"removed_in_cuda13", removed_json(r)},
            {"clock_read_at", r.clock_read_at.empty() ? json(nullptr) : json(r.clock_read_at)},
            {"run_ms", r.run_ms},
            {"check", r.check},
            {"exit_code",
             r.signal != 0 || r.timed_out || r.output_capped ? json(nullptr) : json(r.exit_code)},
            {"signal", r.signal != 0 ? json(signal_name(r.signal)) : json(nullptr)},
            {"timed_out", r.timed_out},
            {"output_capped", r.output_capped},
            {"main_returned", r.main_returned},
            {"leftover_processes", r.leftover_processes},
            {"launches_total", r.launches_total},
            {"library_launches", r.library_launches},
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
    if (k.emulated) l["static_shared_bytes"] = k.static_shared_bytes;
    if (!k.error.empty()) l["error"] = k.error;
    if (!k.error_message.empty()) l["error_message"] = k.error_message;
    if (!k.error_message_zh.empty()) l["error_message_zh"] = k.error_message_zh;
    if (!k.fault.empty()) l["fault"] = k.fault;
    if (k.unfinished) l["unfinished"] = true;
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
  if (!r.cache_problem.empty()) j["cache_problem"] = r.cache_problem;
  if (!r.sanitizer.empty() || !r.sanitizer_missing.empty()) {
    json s = json::array();
    for (const auto& t : r.sanitizer) s.push_back({{"tool", t.tool}, {"errors", t.errors}});
    j["compute_sanitizer"] = s;
    if (!r.sanitizer_missing.empty()) j["compute_sanitizer_missing"] = r.sanitizer_missing;
  }
  return j;
}

std::vector<std::string> normalize_run_arguments(const std::vector<std::string>& args) {
  std::vector<std::string> out;
  std::size_t i = 0;
  // Up to the subcommand (global options may come first), nothing changes.
  for (; i < args.size(); ++i) {
    out.push_back(args[i]);
    if (args[i] == "--") return args;
    if (args[i] == "run") break;
  }
  if (i == args.size()) return args;
  ++i;
  // nvcc's flags, as users type them (-IDIR, -I DIR, --include-path DIR, -arch=sm_90, ...): one
  // option of gpulab's each, so that no flag swallows the file after it.
  const auto value_of = [&](std::string_view t, std::string_view name, std::string* v) {
    if (t == name) {
      if (i + 1 >= args.size()) return false;
      *v = args[++i];
      return true;
    }
    if (t.starts_with(name) && t.size() > name.size()) {
      std::string_view rest = t.substr(name.size());
      if (name.starts_with("--") || name.size() > 2) {
        if (rest.front() != '=') return false;
        rest.remove_prefix(1);
      } else if (rest.front() == '=') {
        rest.remove_prefix(1);
      }
      *v = std::string(rest);
      return true;
    }
    return false;
  };
  static const std::set<std::string> kBare = {"-g",
                                              "-G",
                                              "-lineinfo",
                                              "--generate-line-info",
                                              "--device-debug",
                                              "-use_fast_math",
                                              "--use_fast_math",
                                              "-dc",
                                              "-rdc",
                                              "-m64",
                                              "-w",
                                              "-Wno-deprecated-gpu-targets",
                                              "--expt-relaxed-constexpr",
                                              "--expt-extended-lambda",
                                              "--extended-lambda",
                                              "-res-usage",
                                              "--resource-usage",
                                              "--debug",
                                              "-O0",
                                              "-O1",
                                              "-O2",
                                              "-O3",
                                              "-O"};
  for (; i < args.size(); ++i) {
    const std::string& t = args[i];
    std::string v;
    if (t == "--") {
      for (++i; i < args.size(); ++i) out.push_back("--program-arg=" + args[i]);
      break;
    }
    if (t.size() < 2 || t[0] != '-' || t.starts_with("--program-arg=")) {
      out.push_back(t);
    } else if ((t == "-I" || t == "-D") && i + 1 >= args.size()) {
      out.push_back(t == "-I" ? "--include" : "--define");  // without its value: said so
    } else if (value_of(t, "-I", &v) || value_of(t, "--include-path", &v) ||
               value_of(t, "--include", &v)) {
      // An empty value (-I=, --define=) stays a value, which the command then names.
      if (v.empty()) {
        out.insert(out.end(), {"--include", ""});
      } else {
        out.push_back("--include=" + v);
      }
    } else if (value_of(t, "-D", &v) || value_of(t, "--define-macro", &v) ||
               value_of(t, "--define", &v)) {
      if (v.empty()) {
        out.insert(out.end(), {"--define", ""});
      } else {
        out.push_back("--define=" + v);
      }
    } else if (value_of(t, "-U", &v) || value_of(t, "--undefine-macro", &v)) {
      out.push_back("--nvcc-flag=-U" + v);
    } else if (value_of(t, "-L", &v) || value_of(t, "--library-path", &v)) {
      out.push_back("--nvcc-flag=-L" + v);
    } else if (t != "-lineinfo" && (value_of(t, "-l", &v) || value_of(t, "--library", &v))) {
      out.push_back("--nvcc-flag=-l" + v);
    } else if (value_of(t, "-Xcompiler", &v) || value_of(t, "--compiler-options", &v)) {
      out.push_back("--nvcc-flag=-Xcompiler=" + v);
    } else if (value_of(t, "-std", &v) || value_of(t, "--std", &v)) {
      out.push_back("--nvcc-flag=-std=" + v);
    } else if (value_of(t, "-arch", &v) || value_of(t, "--gpu-architecture", &v)) {
      out.push_back("--nvcc-flag=-arch=" + v);
    } else if (value_of(t, "-gencode", &v) || value_of(t, "--generate-code", &v)) {
      out.push_back("--nvcc-flag=-gencode=" + v);
    } else if (value_of(t, "-code", &v) || value_of(t, "--gpu-code", &v)) {
      out.push_back("--nvcc-flag=-code=" + v);
    } else if (value_of(t, "-Xptxas", &v) || value_of(t, "--ptxas-options", &v)) {
      out.push_back("--nvcc-flag=-Xptxas=" + v);
    } else if (value_of(t, "-maxrregcount", &v) || value_of(t, "--maxrregcount", &v)) {
      out.push_back("--nvcc-flag=-maxrregcount=" + v);
    } else if (value_of(t, "-Xnvlink", &v) || value_of(t, "--nvlink-options", &v)) {
      out.push_back("--nvcc-flag=-Xnvlink=" + v);
    } else if (value_of(t, "-ccbin", &v) || value_of(t, "--compiler-bindir", &v)) {
      out.push_back("--nvcc-flag=-ccbin=" + v);
    } else if (value_of(t, "-cudart", &v) || value_of(t, "--cudart", &v)) {
      out.push_back("--nvcc-flag=-cudart=" + v);
    } else if (value_of(t, "-rdc", &v) || value_of(t, "--relocatable-device-code", &v)) {
      out.push_back("--nvcc-flag=-rdc=" + v);
    } else if (value_of(t, "-o", &v) || value_of(t, "--output-file", &v)) {
      out.push_back("--nvcc-flag=-o=" + v);
    } else if (kBare.count(t) != 0) {
      out.push_back("--nvcc-flag=" + t);
    } else if (t[1] != '-' && t != "-h" && t != "-v") {
      out.push_back("--nvcc-flag=" + t);  // refused by name in the command's callback
    } else {
      out.push_back(t);
    }
  }
  return out;
}

namespace {

// The source files nvcc builds into one program.
bool source_file(const std::string& name) {
  static const std::set<std::string> kSources = {".cu", ".cpp", ".cc", ".cxx", ".c", ".C"};
  return kSources.count(fs::path(name).extension().string()) != 0;
}

// The report on stderr, laid out for its width; false when it could not be written.
bool write_report_to_stderr(const RunResult& r, const std::string& report, const GlobalOptions& g) {
  // "hello world" without a newline: on a terminal, the report starts on a line of its own.
  std::string shown = !r.output_ends_line && isatty(STDERR_FILENO) ? "\n" : "";
  shown += g.out.json ? report : lay_out(report, output_width(STDERR_FILENO), g.out.lang);
  const bool wrote = std::fwrite(shown.data(), 1, shown.size(), stderr) == shown.size();
  const bool flushed = std::fflush(stderr) == 0;
  std::clearerr(stderr);
  return wrote && flushed;
}

}  // namespace

void setup_run(CLI::App& app, GlobalOptions& g) {
  struct Raw {
    std::vector<std::string> files;
    std::vector<std::string> nvcc_flags;
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
    // Files are the sources; without a "--", words that name no source after the first file are
    // the program's arguments (gpulab run prog.cu 64).
    for (const std::string& f : raw->files) {
      if (source_file(f)) {
        (o.file.empty() ? o.file : o.more_files.emplace_back()) = f;
      } else if (!o.file.empty() && raw->args.empty()) {
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
    if (!raw->args.empty()) o.args.insert(o.args.end(), raw->args.begin(), raw->args.end());
    o.check = check;
    o.lang = g.out.lang;
    o.timeout = std::chrono::milliseconds(
        parse_int("--timeout", raw->timeout, 1, 86400, {"seconds", "秒"}) * 1000);
    o.max_output_bytes =
        static_cast<std::size_t>(parse_int("--max-output", raw->max_output, 1024, INT64_MAX));
    o.use_cache = !raw->no_cache;
    o.workers = g.emu.workers;
    o.shuffle_seed = g.emu.shuffle_seed;
    o.compiler_flags = include_define_flags(raw->includes, raw->defines);
    o.gpu_arch = checked_gpu_arch(raw->arch);
    // After the options, before the backend's notice.
    require_readable_file(o.file);
    for (const std::string& f : o.more_files) require_readable_file(f);
    if (!(check && !gpu_asked)) {
      std::string notice;
      o.gpu = gpu_chosen(g.backend, &notice, g.out.lang);
      if (!notice.empty() && !g.out.json) write_stderr(fmt::format("gpulab: {}\n", notice));
    }
    for (const std::string& f : raw->nvcc_flags) {
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
      } else if (f == "-dc" || f == "-rdc" || f.starts_with("-rdc=") || f.starts_with("-std=") ||
                 f.starts_with("-arch=") || f.starts_with("-gencode=") || f.starts_with("-code=") ||
                 f.starts_with("-O") || f == "-g" || f == "-G" || f == "--debug" ||
                 f == "--device-debug" || f == "-lineinfo" || f == "--generate-line-info" ||
                 f == "-use_fast_math" || f == "--use_fast_math" || f == "-m64" || f == "-w" ||
                 f == "-Wno-deprecated-gpu-targets" || f.starts_with("-Xptxas=") ||
                 f.starts_with("-maxrregcount=") || f.starts_with("-Xnvlink=") ||
                 f.starts_with("-ccbin=") || f.starts_with("-cudart=") ||
                 f == "--expt-relaxed-constexpr" || f == "--expt-extended-lambda" ||
                 f == "--extended-lambda" || f == "-res-usage" || f == "--resource-usage") {
        if (o.gpu) {
          // -dc compiles without linking; a program to run needs both: relocatable device code.
          o.nvcc_flags.push_back(f == "-dc" || f == "-rdc" ? "-rdc=true" : f);
        } else {
          o.emulator_ignores.push_back(f);
        }
      } else {
        throw UsageError(
            fmt::format("{}: an nvcc flag gpulab run does not know; it takes -I -D -U -l -L "
                        "-std -O -g -G -lineinfo -rdc -dc -Xcompiler -Xptxas -maxrregcount "
                        "-arch -gencode -code --use_fast_math (gpulab help run)",
                        f),
            fmt::format(
                "{}：gpulab run 不认识的 nvcc 选项（见 gpulab help run）；它接受 -I -D -U -l "
                "-L -std -O -g -G -lineinfo -rdc -dc -Xcompiler -Xptxas -maxrregcount -arch "
                "-gencode -code --use_fast_math",
                f));
      }
    }
    if (o.shuffle_seed && o.gpu) {
      throw UsageError(
          "--shuffle-blocks needs --backend cpu: only gpulab's emulator can shuffle blocks",
          "--shuffle-blocks 需要 --backend cpu：只有 gpulab 的模拟器能打乱线程块的顺序");
    }
    const SignalGuard signals;  // Ctrl-C ends the compiler or the program, and then gpulab
    RunResult r = run_program(o);
    throw_if_interrupted();
    if (!r.cache_problem.empty() && !g.out.json)
      write_stderr("gpulab: " + escape_controls(r.cache_problem) + "\n");
    const std::string report =
        g.out.json ? run_json(r).dump(2, ' ', false, json::error_handler_t::replace) + "\n"
                   : render_run(r, g.out);
    bool report_lost = false;
    if (raw->report.empty()) {
      report_lost = !write_report_to_stderr(r, report, g) || r.stderr_errno != 0;
    } else {
      std::FILE* f = std::fopen(raw->report.c_str(), "w");
      if (f == nullptr || std::fwrite(report.data(), 1, report.size(), f) != report.size() ||
          std::fclose(f) != 0) {
        const int error = errno;
        throw RuntimeFailure(both("--report {}: cannot write the report: {}",
                                  "--report {}：无法写入报告：{}", printable(raw->report, 200),
                                  std::string(std::strerror(error))));
      }
    }
    // The program's output could not be passed on: like a failed write of our own.
    errno = 0;
    if (r.stdout_errno != 0 || std::fflush(stdout) != 0 || std::ferror(stdout) != 0) {
      const int error = r.stdout_errno != 0 ? r.stdout_errno : (errno != 0 ? errno : EIO);
      throw RuntimeFailure(both("cannot write to standard output: {}", "无法写入标准输出：{}",
                                std::string(std::strerror(error))));
    }
    // A report that could not be written to stderr: nowhere is left to say so; the exit code tells.
    if (report_lost) throw ExitCode(kExitFailure);
    if (r.timed_out || r.output_capped || r.signal != 0) {
      throw ExitCode(kExitFailure);
    }
    if (check_failures(r) > 0) throw ExitCode(kExitFailure);
    if (r.exit_code != 0) throw ExitCode(r.exit_code);
  });
  sub->add_option("files", raw->files,
                  help_tr(g,
                          "The program's files: .cu, and .cpp/.cc/.cxx/.c, built together as "
                          "nvcc builds them; its arguments go after --",
                          "程序的文件：.cu 以及 .cpp/.cc/.cxx/.c，像 nvcc 那样一起编译；程序自己的"
                          "参数写在 -- 之后"))
      ->required()
      ->type_name("FILE.cu");
  sub->add_option("--program-arg", raw->args,
                  help_tr(g, "Arguments for the program", "传给程序的参数"))
      ->expected(1)
      ->allow_extra_args(false)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)
      ->group("");
  sub->add_option("--nvcc-flag", raw->nvcc_flags,
                  help_tr(g, "One of nvcc's flags", "一个 nvcc 选项"))
      ->expected(1)
      ->allow_extra_args(false)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)
      ->group("");
  sub->add_option("-I,--include", raw->includes,
                  help_tr(g,
                          "Add a folder to the compiler's include path (also -IDIR, "
                          "--include-path)",
                          "把一个文件夹加入编译器的头文件搜索路径（也可写 -IDIR、--include-path）"))
      ->expected(1)
      ->allow_extra_args(false)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)
      ->type_name("DIR");
  sub->add_option("-D,--define", raw->defines,
                  help_tr(g, "Define a preprocessor macro (NAME or NAME=VALUE; also -DNAME)",
                          "定义一个预处理宏（NAME 或 NAME=VALUE；也可写 -DNAME）"))
      ->expected(1)
      ->allow_extra_args(false)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)
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
