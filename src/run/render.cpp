// gpulab run's report (run/render.hpp): a RunResult in words (en/zh) or as JSON.
#include "run/render.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <set>

#include "core/i18n_format.hpp"
#include "core/input.hpp"
#include "core/layout.hpp"
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

std::string flags_without_effect_line(const std::vector<std::string>& flags, Lang l) {
  if (flags.empty()) return {};
  return both("  Accepted, no effect on the emulator: {} (nvcc's flags for a GPU).",
              "  已接受、在模拟器上不起作用：{}（这些是 nvcc 为 GPU 编译的选项）。",
              fmt::join(flags, " "))
             .in(l) +
         "\n";
}

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
  s += st.heading(both("gpulab run: {} {}", "gpulab run：{} {}", name, where).in(l)) + "\n";
  s += both("  built with {} ({}); ran in {:.1f} ms", "  编译器 {}（{}）；运行 {:.1f} 毫秒",
            r.compiler,
            r.cached ? std::string(tr(l, "cached", "使用缓存"))
                     : both("compiled in {:.1f} s", "编译 {:.1f} 秒", r.compile_ms / 1000.0).in(l),
            r.run_ms)
           .in(l);
  s += "\n";
  // How the program ended.
  const RunLaunch* unfinished = nullptr;
  for (const RunLaunch& k : r.launches)
    if (k.unfinished) unfinished = &k;
  const std::string in_launch =
      unfinished == nullptr
          ? std::string()
          : both(", in kernel {} (launched at {})", "，当时正在运行核函数 {}（启动于 {}）",
                 unfinished->kernel, short_path(unfinished->site, r.file))
                .in(l);
  if (r.timed_out) {
    s += "  " +
         st.bad(both("stopped: still running after {} s (--timeout){}",
                     "已终止：运行超过 {} 秒（--timeout）{}",
                     static_cast<double>(r.timeout_ms) / 1000.0, in_launch)
                    .in(l)) +
         "\n";
  } else if (r.output_capped) {
    s += "  " +
         st.bad(both("stopped: it printed more than {} bytes (--max-output)",
                     "已终止：输出超过 {} 字节（--max-output）", r.max_output_bytes)
                    .in(l)) +
         "\n";
  } else if (r.signal != 0) {
    std::string crash =
        both("crashed: {} ({})", "崩溃：{}（{}）", signal_name(r.signal), strsignal(r.signal))
            .in(l);
    if (r.crash && r.crash->contains("kernel") && r.crash->contains("block")) {
      crash += both(" in kernel {} (launched at {}), block {} thread {}",
                    "，发生在核函数 {}（启动于 {}）的线程块 {} 线程 {}",
                    r.crash->value("kernel", ""), short_path(r.crash->value("site", ""), r.file),
                    dims_text(r.crash->value("block", json())),
                    dims_text(r.crash->value("thread", json())))
                   .in(l);
    } else if (r.crash && r.crash->contains("kernel")) {
      crash +=
          both(
              " in kernel {} (launched at {}); its block and thread are unknown: the fault "
              "overwrote the emulator's record of them (a write past a __shared__ array?)",
              "，发生在核函数 {}（启动于 {}）中；线程块和线程无法确定：这次错误覆盖了模拟器对它们的"
              "记录（越过 __shared__ 数组的写入？）",
              r.crash->value("kernel", ""), short_path(r.crash->value("site", ""), r.file))
              .in(l);
    } else if (r.crash) {
      crash += std::string(tr(l, " in host code", "，发生在主机代码中"));
    }
    if (r.crash && r.crash->contains("where")) {
      crash += both(", at {}", "，位置 {}", r.crash->value("where", "")).in(l);
    }
    s += "  " + st.bad(crash) + "\n";
  } else {
    s +=
        both("  main returned: exit code {}", "  main 已返回：退出码 {}", r.exit_code).in(l) + "\n";
  }
  if (!r.more_files.empty()) {
    std::string names;
    for (const std::string& f : r.more_files) names += " " + fs::path(f).filename().string();
    s += both("  Built with it:{}", "  一起编译的文件：{}", names).in(l) + "\n";
  }
  s += flags_without_effect_line(r.flags_without_effect, l);
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
      s += both("    {}: {} bytes of static shared memory", "    {}：静态共享内存 {} 字节",
                k.kernel, k.static_shared_bytes)
               .in(l) +
           "\n";
    }
    if (listed.empty()) {
      s += std::string(tr(l, "    (no kernel ran)", "    （没有核函数运行）")) + "\n";
    }
  }
  for (const run::Build::AsWritten& a : r.as_written) {
    const Text also = a.behaviour ? Text{", and its spin loops and warp-synchronous accesses do not "
                                         "run as a GPU runs them",
                                         "，自旋循环和线程束同步的访问也不会像在 GPU 上那样运行"}
                                  : Text{};
    s += "  " +
         st.warn(say(l,
                     "gpulab's transformation of {} for the emulator did not compile, so it was "
                     "compiled as written: its kernels take the slower path{} (a gpulab bug: "
                     "please report it with the file).",
                     "gpulab 为模拟器改写 {} 的结果无法编译，因此按原样编译：它的核函数走较慢的"
                     "路径{}（这是 gpulab 的缺陷：请连同文件一起报告）。",
                     short_path(a.file, r.file), also.in(l))) +
         "\n";
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
    std::set<std::string_view> noted;  // a note several entries share is said once
    for (const auto& [key, used_at] : r.removed_api) {
      if (const run::RemovedApi* api = run::find_removed_api(key)) {
        const bool first = api->note_en.empty() || noted.insert(api->note_en).second;
        s += "    " + run::removed_item(*api, short_path(used_at, r.file), l, first) + "\n";
      }
    }
  }
  if (!r.clock_read_at.empty()) {
    s += both(
             "  The program reads the clock ({}): in a kernel, clock() and clock64() count "
             "nanoseconds of the CPU's clock on the emulator (a 1 GHz clock: "
             "cudaDevAttrClockRate is 1000000 kHz), not the GPU's cycles.",
             "  程序读取了时钟（{}）：在模拟器上，核函数中的 clock() 和 clock64() 计的是 CPU "
             "时钟的纳秒数（相当于 1 GHz 的时钟：cudaDevAttrClockRate 为 1000000 kHz），而不是 "
             "GPU 的周期数。",
             short_path(r.clock_read_at, r.file))
             .in(l) +
         "\n";
  }
  if (r.leftover_processes > 0) {
    s += "  " +
         st.warn((r.leftovers_held_output
                      ? both("{} process(es) it started were still running and holding its "
                             "output after it ended: gpulab ended them",
                             "程序结束后，它启动的 {} 个进程仍在运行并占用着它的输出：gpulab "
                             "已结束它们",
                             r.leftover_processes)
                      : both("{} process(es) it started were still running after it ended: "
                             "gpulab ended them",
                             "程序结束后，它启动的 {} 个进程仍在运行：gpulab 已结束它们",
                             r.leftover_processes))
                     .in(l)) +
         "\n";
  }

  if (!r.launches.empty()) {
    s += both("  Kernels launched ({} in all):", "  启动的核函数（共 {} 次）：", r.launches_total)
             .in(l) +
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
        s += "      " + st.bad(both("launch failed: {}", "启动失败：{}", k.error).in(l)) + "\n";
        // Why, with the numbers (a cooperative grid too large to be resident at once, ...).
        const std::string& why =
            l == Lang::zh && !k.error_message_zh.empty() ? k.error_message_zh : k.error_message;
        if (!why.empty()) s += "      " + escape_controls(why) + "\n";
        continue;
      }
      if (!k.fault.empty()) continue;  // listed with the findings
      if (!k.emulated) {
        s += both("      {} in {}; {} in each block's last warp\n",
                  "      {}，{}；每个线程块最后一个线程束空闲 {}\n",
                  count_noun(l, k.threads, "thread", "threads", "个线程"),
                  count_noun(l, k.warps, "warp", "warps", "个线程束"),
                  count_noun(l, k.idle_lanes_per_block, "idle lane", "idle lanes", "条通道"))
                 .in(l);
        continue;
      }
      s += both(
               "      {} in {}; {} in each block's last warp; "
               "{}, {}\n",
               "      {}，{}；每个线程块最后一个线程束空闲 {}；"
               "{}，{}\n",
               count_noun(l, k.threads, "thread", "threads", "个线程"),
               count_noun(l, k.warps, "warp", "warps", "个线程束"),
               count_noun(l, k.idle_lanes_per_block, "idle lane", "idle lanes", "条通道"),
               count_noun(l, k.barriers, "barrier crossing", "barrier crossings", "次屏障同步"),
               count_noun(l, k.collectives, "warp collective", "warp collectives",
                          "次线程束集体操作"))
               .in(l);
    }
    if (r.launches_truncated) {
      s += std::string(
               tr(l, "    (more launches ran than are listed)", "    （实际启动次数多于列出的）")) +
           "\n";
    }
  }
  if (r.library_launches > 0) {
    s += both(
             "  thrust's or CUB's own kernels were launched {} more time(s) on the "
             "GPU, not listed (the emulator runs thrust on the CPU).",
             "  thrust 或 CUB 自己的核函数在 GPU 上另外启动了 {} 次，未列出（模拟器在 "
             "CPU 上运行 thrust）。",
             r.library_launches)
             .in(l) +
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
         st.warn(both("{} bytes of kernel printf were dropped: the device's printf buffer was "
                      "full (cudaDeviceSetLimit(cudaLimitPrintfFifoSize, bytes) enlarges it)",
                      "{} 字节的核函数 printf 输出被丢弃：设备的 printf 缓冲区已满"
                      "（cudaDeviceSetLimit(cudaLimitPrintfFifoSize, 字节数) 可以增大它）",
                      r.dropped_printf_bytes)
                     .in(l)) +
         "\n";
  }

  if (!r.findings.empty()) {
    s += both("  Findings ({}):", "  发现的问题（{} 个）：", r.findings.size()).in(l) + "\n";
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
      s += both("  compute-sanitizer {}: {} {}", "  compute-sanitizer {}：{} 个错误", t.tool,
                t.errors < 0 ? std::string("?") : std::to_string(t.errors),
                t.errors == 1 ? "error" : "errors")
               .in(l) +
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

// Files compiled as written (run::Build::AsWritten).
json as_written_json(const RunResult& r) {
  json a = json::array();
  for (const run::Build::AsWritten& w : r.as_written) {
    a.push_back(
        {{"file", w.file}, {"behaviour_changed", w.behaviour}, {"compiler_error", w.error}});
  }
  return a;
}

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
            {"compiled_as_written", as_written_json(r)},
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

}  // namespace gpulab
