// gpulab run (see run.hpp): build, run, read the report, explain.
#include "commands/run.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <filesystem>
#include <map>
#include <regex>
#include <set>

#include "core/error.hpp"
#include "core/layout.hpp"
#include "core/parse.hpp"
#include "core/process.hpp"
#include "core/toolchain.hpp"
#include "run/program.hpp"

#if GPULAB_HAVE_CUDA
#include "cuda/device_query.hpp"
#endif

namespace gpulab {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// The kinds --check reports (docs/run.md lists them).
const std::set<std::string> kCheckKinds = {
    "out_of_bounds",       "host_memory",           "uninitialized_read", "uninitialized_copy",
    "global_race",         "shared_race",           "kernel_fault",       "leak",
    "unsynchronized_exit", "unchecked_launch_error"};

std::string dims_text(const json& d) {
  if (!d.is_array() || d.size() != 3) return "?";
  return fmt::format("({},{},{})", d[0].get<std::uint64_t>(), d[1].get<std::uint64_t>(),
                     d[2].get<std::uint64_t>());
}

std::string short_path(const std::string& where, const std::string& file) {
  // "/abs/dir/prog.cu:12" -> "prog.cu:12" when it is the user's file.
  const std::string dir = fs::path(file).parent_path().string() + "/";
  if (!dir.empty() && where.rfind(dir, 0) == 0) return where.substr(dir.size());
  return where;
}

// On the GPU the launch log gives each launch's call frames: addr2line names the kernel and the
// line, once for each distinct call path.
std::map<std::string, run::GpuLaunchSite> gpu_sites(const run::Execution& e,
                                                    const fs::path& program) {
  std::map<std::string, run::GpuLaunchSite> sites;
  std::vector<std::string> keys;
  std::vector<std::vector<std::uint64_t>> frames;
  for (const json& line : e.report) {
    if (line.value("event", "") != "launch" || !line.contains("frames")) continue;
    const std::string key = line.at("frames").dump();
    if (!sites.emplace(key, run::GpuLaunchSite{}).second) continue;
    keys.push_back(key);
    frames.push_back(line.at("frames").get<std::vector<std::uint64_t>>());
  }
  const std::vector<run::GpuLaunchSite> found = run::gpu_launch_sites(program, frames);
  for (std::size_t i = 0; i < keys.size(); ++i) sites[keys[i]] = found[i];
  return sites;
}

void collect(run::Execution& e, RunResult& r, const fs::path& program) {
  std::map<std::string, std::size_t> launch_index;
  std::vector<std::uint64_t> pcs;
  const std::map<std::string, run::GpuLaunchSite> sites = gpu_sites(e, program);
  for (const json& line : e.report) {
    const std::string event = line.value("event", "");
    if (event == "launch") {
      RunLaunch l;
      l.kernel = line.value("kernel", "");
      l.site = line.value("site", "");
      for (int i = 0; i < 3; ++i) {
        l.grid[i] = line.at("grid")[i].get<std::uint64_t>();
        l.block[i] = line.at("block")[i].get<std::uint64_t>();
      }
      l.shared_bytes = line.value("shared_bytes", std::uint64_t{0});
      l.threads = line.value("threads", std::uint64_t{0});
      l.warps = line.value("warps", std::uint64_t{0});
      l.idle_lanes_per_block = line.value("idle_lanes_per_block", std::uint64_t{0});
      l.barriers = line.value("barriers", std::uint64_t{0});
      l.collectives = line.value("collectives", std::uint64_t{0});
      l.error = line.value("error", "");
      l.fault = line.value("fault", "");
      if (line.contains("frames")) {  // the GPU: the shape's facts follow from grid and block
        const run::GpuLaunchSite& site = sites.at(line.at("frames").dump());
        l.kernel = site.kernel.empty() ? "?" : site.kernel;
        l.site = site.site;
        l.emulated = false;
        const std::uint64_t blocks = l.grid[0] * l.grid[1] * l.grid[2];
        const std::uint64_t per_block = l.block[0] * l.block[1] * l.block[2];
        const std::uint64_t warps_per_block = (per_block + 31) / 32;
        if (l.error.empty()) {
          l.threads = blocks * per_block;
          l.warps = blocks * warps_per_block;
          l.idle_lanes_per_block = warps_per_block * 32 - per_block;
        }
      }
      const std::string row =
          fmt::format("{}|{}|{}|{}|{}|{}|{}|{}", l.kernel, l.site, line.at("grid").dump(),
                      line.at("block").dump(), l.shared_bytes, l.error, l.fault, l.barriers);
      const auto it = launch_index.find(row);
      if (it == launch_index.end()) {
        l.count = 1;
        l.ms = line.value("ms", 0.0);
        launch_index.emplace(row, r.launches.size());
        r.launches.push_back(l);
      } else {
        RunLaunch& existing = r.launches[it->second];
        ++existing.count;
        existing.ms += line.value("ms", 0.0);
      }
    } else if (event == "launches_not_listed") {
      r.launches_truncated = true;
    } else if (event == "finding") {
      RunFinding f;
      f.kind = line.value("kind", "");
      f.facts = line;
      f.facts.erase("event");
      r.findings.push_back(std::move(f));
    } else if (event == "crash") {
      r.crash = line;
    } else if (event == "gpu_exit") {
      r.report_complete = true;
      r.launches_total = line.value("launches", std::uint64_t{0});
    } else if (event == "exit") {
      r.report_complete = true;
      r.launches_total = line.value("launches", std::uint64_t{0});
      r.lost_printf_bytes = line.value("lost_printf_bytes", std::uint64_t{0});
      r.dropped_printf_bytes = line.value("dropped_printf_bytes", std::uint64_t{0});
      r.lost_printf_first_line = line.value("lost_printf_first_line", "");
    }
  }
  if (!r.report_complete) {
    std::uint64_t n = 0;
    for (const RunLaunch& l : r.launches) n += l.count;
    r.launches_total = n;
  }
  // FILE:LINE of the accesses, in one call of addr2line.
  for (const RunFinding& f : r.findings) {
    for (const char* key : {"pc", "other_pc"}) {
      if (f.facts.contains(key)) pcs.push_back(f.facts.at(key).get<std::uint64_t>());
    }
  }
  const std::vector<std::string> lines = run::source_lines(program, r.file, pcs);
  std::size_t k = 0;
  for (RunFinding& f : r.findings) {
    if (f.facts.contains("pc")) f.where = short_path(lines[k++], r.file);
    if (f.facts.contains("other_pc")) f.other_where = short_path(lines[k++], r.file);
    if (f.where.empty() && f.kind == "kernel_fault") {
      // A barrier or a warp collective names its call site in the message.
      static const std::regex site(R"(([^ :()]+\.cuh?):([0-9]+))");
      std::smatch m;
      const std::string message = f.facts.value("message", "");
      if (std::regex_search(message, m, site)) f.where = short_path(m.str(0), r.file);
    }
    if (f.where.empty()) {
      f.where = short_path(f.facts.value("site", f.facts.value("launch_site", "")), r.file);
    }
    f.facts.erase("pc");
    f.facts.erase("other_pc");
    for (const char* key : {"site", "launch_site", "region_site", "allocation_site"}) {
      if (f.facts.contains(key)) f.facts[key] = short_path(f.facts[key].get<std::string>(), r.file);
    }
  }
  // One finding per bug: the same kind at the same line (a missing guard touches a, b and c; a
  // missing barrier races on every element) is counted, not repeated.
  std::vector<RunFinding> merged;
  std::map<std::string, std::size_t> seen;
  for (RunFinding& f : r.findings) {
    const std::string key = f.kind + "|" + f.where + "|" + f.other_where + "|" +
                            (f.kind == "leak" || f.kind == "kernel_fault" ? f.facts.dump() : "");
    const auto it = seen.find(key);
    if (it == seen.end() || f.where.empty()) {
      seen.emplace(key, merged.size());
      merged.push_back(std::move(f));
      continue;
    }
    json& kept = merged[it->second].facts;
    kept["hits"] = kept.value("hits", std::uint64_t{1}) + f.facts.value("hits", std::uint64_t{1});
  }
  r.findings = std::move(merged);
}

std::optional<std::string> gpu_arch_of_device() {
#if GPULAB_HAVE_CUDA
  try {
    const auto info = cuda::query_device(0);
    return fmt::format("sm_{}{}", info.cc_major, info.cc_minor);
  } catch (const std::exception&) {
    return std::nullopt;
  }
#else
  return std::nullopt;
#endif
}

void run_sanitizers(const fs::path& program, const RunOptions& o, RunResult& r) {
  const auto tool = toolchain::find_cuda_tool("compute-sanitizer");
  if (!tool) {
    r.sanitizer_missing = toolchain::missing_message("compute-sanitizer", o.lang);
    return;
  }
  const std::vector<std::vector<std::string>> tools = {
      {"memcheck", "--leak-check", "full"}, {"racecheck"}, {"synccheck"}, {"initcheck"}};
  for (const auto& t : tools) {
    std::vector<std::string> argv = {tool->path, "--tool"};
    argv.insert(argv.end(), t.begin(), t.end());
    argv.push_back(program.string());
    argv.insert(argv.end(), o.args.begin(), o.args.end());
    const ProcessResult p = run_capture(argv, o.timeout * 4);
    RunResult::SanitizerRun s;
    s.tool = t.front();
    std::smatch m;
    const std::string all = p.out + p.err;
    if (std::regex_search(all, m, std::regex(R"(ERROR SUMMARY: (\d+) error)"))) {
      s.errors = std::stoi(m[1].str());
    } else if (std::regex_search(all, m, std::regex(R"(RACECHECK SUMMARY: (\d+) hazard)"))) {
      s.errors = std::stoi(m[1].str());
    }
    // Only the sanitizer's own lines; the program's output was shown once already.
    std::string own;
    std::istringstream in(all);
    std::string line;
    while (std::getline(in, line)) {
      if (line.rfind("========= ", 0) == 0 && own.size() < 4000) own += line + "\n";
    }
    s.output = own;
    r.sanitizer.push_back(std::move(s));
  }
}

}  // namespace

RunResult run_program(const RunOptions& o) {
  RunResult r;
  r.file = fs::absolute(o.file).lexically_normal().string();
  r.check = o.check;
  r.backend = o.gpu ? "cuda" : "cpu-emulator";
  r.timeout_ms = static_cast<std::uint64_t>(o.timeout.count());
  r.max_output_bytes = o.max_output_bytes;

  run::BuildRequest b;
  b.source = r.file;
  b.target =
      o.gpu ? run::Target::gpu : (o.check ? run::Target::emulator_checked : run::Target::emulator);
  b.gpu_arch = o.gpu_arch;
  if (o.gpu && b.gpu_arch.empty()) b.gpu_arch = gpu_arch_of_device().value_or("");
  b.extra_flags = o.compiler_flags;
  for (const auto& x : o.extra_sources) b.extra_sources.emplace_back(x);
  b.use_cache = o.use_cache;
  b.lang = o.lang;
  const run::Build build = run::build_program(b);
  r.compiler = build.compiler;
  r.cached = build.cached;
  r.compile_ms = build.compile_ms;

  run::ExecRequest x;
  x.program = build.program;
  x.args = o.args;
  x.check = o.check && !o.gpu;
  x.workers = o.workers;
  x.shuffle_seed = o.shuffle_seed;
  x.timeout = o.timeout;
  x.max_output_bytes = o.max_output_bytes;
  x.capture = o.capture_output;
  run::Execution e = run::execute(x);
  r.output = std::move(e.out);
  r.errors = std::move(e.err);
  r.exit_code = e.exit_code;
  r.signal = e.signal;
  r.timed_out = e.timed_out;
  r.output_capped = e.output_capped;
  r.run_ms = e.run_ms;
  r.output_ends_line = e.output_ends_line;
  static const std::set<std::string> run_events = {
      "start", "launch", "launches_not_listed", "finding", "crash", "exit", "gpu_exit"};
  for (const json& line : e.report) {
    if (run_events.count(line.value("event", "")) == 0) r.other_events.push_back(line);
  }
  collect(e, r, build.program);
  if (o.gpu && o.check) run_sanitizers(build.program, o, r);
  return r;
}

std::size_t check_failures(const RunResult& r) {
  if (!r.check) return 0;
  std::size_t n = 0;
  for (const RunFinding& f : r.findings) n += kCheckKinds.count(f.kind);
  for (const auto& s : r.sanitizer) n += s.errors > 0 ? static_cast<std::size_t>(s.errors) : 0;
  return n;
}

namespace {

std::string who(const json& f, const char* block_key, const char* thread_key, Lang l) {
  return fmt::format(fmt::runtime(std::string(tr(l, "block {} thread {}", "线程块 {} 线程 {}"))),
                     dims_text(f.value(block_key, json())), dims_text(f.value(thread_key, json())));
}

std::string region_text(const json& f, Lang l) {
  const std::string region = f.value("region", "");
  const auto bytes = f.value("region_bytes", std::uint64_t{0});
  if (region == "allocation") {
    const std::string site = f.value("region_site", "");
    return fmt::format(fmt::runtime(std::string(tr(l, "the {}-byte allocation made at {}",
                                                   "在 {1} 分配的 {0} 字节显存"))),
                       bytes, site.empty() ? "?" : site);
  }
  return fmt::format(fmt::runtime(std::string(tr(l, "__device__ variable {} ({} bytes)",
                                                 "__device__ 变量 {}（{} 字节）"))),
                     region, bytes);
}

}  // namespace

std::string describe_finding(const RunFinding& f, Lang l) {
  const json& x = f.facts;
  const std::string k = f.kind;
  const std::string kernel = x.value("kernel", "");
  const bool write = x.value("write", false);
  const std::string did =
      write ? std::string(tr(l, "wrote", "写入")) : std::string(tr(l, "read", "读取"));
  const auto hits = x.value("hits", std::uint64_t{1});
  const std::string times =
      hits > 1
          ? fmt::format(
                fmt::runtime(std::string(tr(l, " ({} accesses like it)", "（同类访问 {} 次）"))),
                hits)
          : std::string();
  if (k == "out_of_bounds") {
    const auto offset = x.value("offset", std::int64_t{0});
    const auto size = static_cast<std::int64_t>(x.value("region_bytes", std::uint64_t{0}));
    const std::string how =
        offset < 0
            ? fmt::format(fmt::runtime(std::string(
                              tr(l, ", {} bytes before its start", "，在起点之前 {} 字节"))),
                          -offset)
            : fmt::format(
                  fmt::runtime(std::string(tr(l, " at byte {}, past its end (it has {} bytes)",
                                              "的第 {} 字节，已越过末尾（共 {} 字节）"))),
                  offset, size);
    return fmt::format(fmt::runtime(std::string(
                           tr(l,
                              "out of bounds: kernel {}, {} {} {} bytes of {}{}{}. The usual fix: "
                              "guard the index (if (i < n)).",
                              "越界访问：核函数 {}，{} {} {} "
                              "字节，位置是{}{}{}。常见的修正：检查下标（if (i < n)）。"))),
                       kernel, who(x, "block", "thread", l), did, x.value("bytes", 0u),
                       region_text(x, l), how, times);
  }
  if (k == "host_memory") {
    return fmt::format(
        fmt::runtime(std::string(
            tr(l,
               "host memory used in a kernel: kernel {}, {} {} {} bytes at an address no "
               "cudaMalloc returned (a malloc/new/stack pointer passed to the kernel){}. On a "
               "GPU this faults (cudaErrorIllegalAddress) on most systems: copy the data with "
               "cudaMemcpy and pass the device pointer.",
               "核函数使用了主机内存：核函数 {}，{} {} {} 字节，地址不是 cudaMalloc 返回的"
               "（传给核函数的是 malloc/new/栈上的指针）{}。在大多数系统的 GPU 上这会出错"
               "（cudaErrorIllegalAddress）：请用 cudaMemcpy 复制数据，并传设备指针。"))),
        kernel, who(x, "block", "thread", l), did, x.value("bytes", 0u), times);
  }
  if (k == "uninitialized_read") {
    return fmt::format(
        fmt::runtime(std::string(
            tr(l,
               "read of memory never written: kernel {}, {} read {} bytes at byte {} of {}{}; "
               "no cudaMemcpy, cudaMemset or kernel had put data there.",
               "读取了从未写入的显存：核函数 {0}，{1} 读取 {2} 字节，位于{4}的第 {3} 字节{5}；"
               "此前没有 cudaMemcpy、cudaMemset 或核函数写过这里。"))),
        kernel, who(x, "block", "thread", l), x.value("bytes", 0u),
        x.value("offset", std::int64_t{0}), region_text(x, l), times);
  }
  if (k == "uninitialized_copy") {
    return fmt::format(
        fmt::runtime(std::string(
            tr(l,
               "cudaMemcpy copied {} bytes back from the {}-byte allocation made at {}, and {} "
               "of them were never written (the first at byte {}): elements no thread wrote?",
               "cudaMemcpy 从 {1} 字节的显存（在 {2} 分配）拷回 {0} 字节，其中 {3} 字节从未写入"
               "（第一个在第 {4} 字节）：有元素没有线程负责？"))),
        x.value("copied", std::uint64_t{0}), x.value("allocation_bytes", std::uint64_t{0}),
        x.value("allocation_site", ""), x.value("bytes", std::uint64_t{0}),
        x.value("first_offset", std::uint64_t{0}));
  }
  if (k == "global_race") {
    const bool other_write = x.value("other_write", false);
    return fmt::format(
        fmt::runtime(std::string(tr(
            l,
            "race on global memory ({} at byte {}): {} {} at {}, then {} {} with nothing "
            "ordering the two{}. {}",
            "全局内存上的竞争（{0}，第 {1} 字节）：{2} 在 {4} {3}，随后 {5} {6}，两者之间没有任何"
            "同步{7}。{8}"))),
        region_text(x, l), x.value("offset", std::int64_t{0}),
        who(x, "other_block", "other_thread", l),
        other_write ? tr(l, "wrote", "写入") : tr(l, "read", "读取"),
        f.other_where.empty() ? "?" : f.other_where, who(x, "block", "thread", l), did, times,
        x.value("other_block", json()) == x.value("block", json())
            ? std::string(
                  tr(l,
                     "Threads of one block are ordered only by __syncthreads(): put one "
                     "between the two accesses, or let one thread do the work.",
                     "同一线程块内的线程只靠 __syncthreads() 排定先后：在两次访问之间加一个，"
                     "或只让一个线程做这件事。"))
            : std::string(
                  tr(l,
                     "Blocks of one launch are never ordered: use atomics, or split the "
                     "work into two kernels.",
                     "同一次启动中的线程块之间没有先后顺序：请使用原子操作，或拆成两个核函数。")));
  }
  if (k == "shared_race") {
    return std::string(tr(l, "race on shared memory: ", "共享内存上的竞争：")) +
           x.value("message", "") +
           (f.other_where.empty() ? "" : fmt::format(" ({} / {})", f.other_where, f.where)) +
           std::string(tr(l, ". The usual fix: a __syncthreads() between the write and the read.",
                          "。常见的修正：在写和读之间加 __syncthreads()。"));
  }
  if (k == "kernel_fault") {
    return std::string(tr(l, "kernel fault: ", "核函数错误：")) + x.value("message", "");
  }
  if (k == "leak") {
    return fmt::format(
        fmt::runtime(
            std::string(tr(l, "{} bytes allocated with {} at {} were never freed (cudaFree){}",
                           "在 {2} 用 {1} 分配的 {0} 字节{3}没有释放（cudaFree）"))),
        x.value("bytes", std::uint64_t{0}), x.value("allocator", ""), x.value("site", ""),
        x.value("when", "") == "exit"
            ? std::string()
            : std::string(tr(l, " before cudaDeviceReset()", "在 cudaDeviceReset() 之前")));
  }
  if (k == "unsynchronized_exit") {
    return fmt::format(
        fmt::runtime(std::string(
            tr(l,
               "the program ended without waiting for its last kernel ({}, launched at {}): "
               "launches return at once, so call cudaDeviceSynchronize() (or copy the result "
               "back) before main() ends; {} bytes of kernel printf were never printed.",
               "程序结束前没有等待最后一个核函数（{}，启动于 {}）：启动会立即返回，所以在 main() "
               "结束前要调用 cudaDeviceSynchronize()（或把结果拷回）；有 {} 字节的核函数 printf "
               "输出从未打印。"))),
        kernel, x.value("site", ""), x.value("lost_printf_bytes", std::uint64_t{0}));
  }
  if (k == "unchecked_launch_error") {
    return fmt::format(
        fmt::runtime(std::string(tr(
            l,
            "the launch of {} at {} failed ({}) and the program never asked: check "
            "cudaGetLastError() right after a launch.",
            "{} 在 {} 的启动失败了（{}），而程序从未检查：启动后应立即检查 cudaGetLastError()。"))),
        kernel, x.value("site", ""), x.value("error", ""));
  }
  return x.dump();
}

std::string finding_title(const std::string& kind, Lang l) {
  static const std::map<std::string, std::pair<const char*, const char*>> titles = {
      {"out_of_bounds", {"out of bounds", "越界"}},
      {"host_memory", {"host memory in a kernel", "核函数使用主机内存"}},
      {"uninitialized_read", {"uninitialized read", "读取未初始化的显存"}},
      {"uninitialized_copy", {"uninitialized data copied back", "拷回了未写入的数据"}},
      {"global_race", {"race on global memory", "全局内存竞争"}},
      {"shared_race", {"race on shared memory", "共享内存竞争"}},
      {"kernel_fault", {"kernel fault", "核函数错误"}},
      {"leak", {"memory leak", "显存泄漏"}},
      {"unsynchronized_exit", {"no wait before exit", "退出前未同步"}},
      {"unchecked_launch_error", {"unchecked launch error", "未检查的启动错误"}},
  };
  const auto it = titles.find(kind);
  if (it == titles.end()) return kind;
  return std::string(tr(l, it->second.first, it->second.second));
}

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
