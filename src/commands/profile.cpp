// gpulab profile (see profile.hpp): build with the counters, run, read the report, explain.
#include "commands/profile.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "core/error.hpp"
#include "core/i18n_format.hpp"
#include "core/layout.hpp"
#include "core/parse.hpp"
#include "core/process.hpp"
#include "core/text.hpp"
#include "core/toolchain.hpp"
#include "profile/branch_site.hpp"
#include "profile/draw.hpp"
#include "run/program.hpp"
#include "run/session.hpp"
#include "simt/simt.hpp"  // check_supported

#if GPULAB_HAVE_CUDA
#include "cuda/device_query.hpp"
#endif

namespace gpulab {

namespace fs = std::filesystem;
using nlohmann::json;
using profile::Counters;
using profile::KernelProfile;

namespace {

// "/abs/dir/prog.cu:12" -> {"prog.cu", 12} for the user's own folder; other files keep their path.
profile::SourcePlace place_of(const std::string& where, const std::string& file) {
  profile::SourcePlace p;
  const auto colon = where.rfind(':');
  if (where.empty() || colon == std::string::npos) return p;
  std::string path = where.substr(0, colon);
  const std::string dir = fs::path(file).parent_path().string() + "/";
  if (path.rfind(dir, 0) == 0) path = path.substr(dir.size());
  p.file = path;
  try {
    p.line = std::stoi(where.substr(colon + 1));
  } catch (const std::exception&) {
    p.line = 0;
  }
  return p;
}

// The conditional jump that ends each branch's block, from objdump's disassembly of the code
// around it (profile/branch_site.hpp); blocks whose jump is not found are left out.
std::map<std::uint64_t, std::uint64_t> branch_jumps(const fs::path& program,
                                                    const std::vector<std::uint64_t>& blocks) {
  std::map<std::uint64_t, std::uint64_t> out;
  const auto objdump = toolchain::find_program("objdump");
  if (!objdump || blocks.empty()) return out;
  // Blocks near each other share one disassembly; a block is rarely longer than 4 KiB of code.
  constexpr std::uint64_t kReach = 4096;
  std::size_t first = 0;
  while (first < blocks.size()) {
    std::size_t last = first;
    while (last + 1 < blocks.size() && blocks[last + 1] - blocks[last] < kReach) ++last;
    const ProcessResult p = run_capture(
        {*objdump, "-d", "--no-show-raw-insn", fmt::format("--start-address={:#x}", blocks[first]),
         fmt::format("--stop-address={:#x}", blocks[last] + kReach), program.string()},
        std::chrono::seconds(30));
    if (p.ok()) {
      const std::vector<std::uint64_t> some(blocks.begin() + static_cast<std::ptrdiff_t>(first),
                                            blocks.begin() + static_cast<std::ptrdiff_t>(last) + 1);
      out.merge(profile::branch_instructions(p.out, some));
    }
    first = last + 1;
  }
  return out;
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

}  // namespace

void measure_on_gpu(const ProfileOptions& o, ProfileResult& r) {
  r.gpu_asked = true;
  // Built as the corpus was measured (nvcc -O3 -lineinfo, docs/profile.md), before ncu is looked
  // for: a program nvcc refuses is said as such, with or without ncu.
  run::BuildRequest b;
  b.source = fs::absolute(o.file);
  b.target = run::Target::gpu;
  b.gpu_arch = o.gpu_arch.empty() ? gpu_arch_of_device().value_or("") : o.gpu_arch;
  b.extra_flags = o.compiler_flags;
  b.nvcc_flags = {"-O3", "-lineinfo"};
  b.use_cache = o.use_cache;
  b.lang = o.lang;
  run::Build build;
  try {
    build = run::build_program(b);
  } catch (const Error& e) {
    r.gpu_why_not = e.message(o.lang);
    return;
  }
  r.gpu_compiler = build.compiler;
  const auto ncu = toolchain::find_cuda_tool("ncu");
  if (!ncu) {
    r.gpu_why_not = toolchain::missing_message("ncu", o.lang);
    return;
  }
  std::vector<std::string> argv = {ncu->path};
  for (const auto& a : profile::ncu_arguments()) argv.push_back(a);
  argv.push_back(build.program.string());
  argv.insert(argv.end(), o.args.begin(), o.args.end());
  // ncu replays every kernel once per pass of counters: more time than a plain run.
  const ProcessResult p = run_capture(argv, o.timeout * 4);
  r.gpu = profile::parse_ncu_csv(p.out);
  const std::string all = p.out + p.err;
  if (all.find("ERR_NVGPUCTRPERM") != std::string::npos) {
    r.gpu_why_not = tr(o.lang,
                       "ncu may not read this GPU's performance counters (ERR_NVGPUCTRPERM): an "
                       "administrator must allow it (NVreg_RestrictProfilingToAdminUsers=0) or "
                       "ncu must run as root",
                       "ncu 无权读取这块 GPU 的性能计数器（ERR_NVGPUCTRPERM）：需要管理员允许"
                       "（NVreg_RestrictProfilingToAdminUsers=0），或以 root 运行 ncu");
  } else if (r.gpu.empty()) {
    std::string first = p.err.empty() ? p.out : p.err;
    if (first.size() > 400) first = first.substr(0, 400) + "...";
    r.gpu_why_not = both("ncu measured no kernel (exit code {}): {}",
                         "ncu 没有测到任何内核（退出码 {}）：{}", p.exit_code, first)
                        .in(o.lang);
  }
}

ProfileResult run_profile(const ProfileOptions& o) {
  if (!simt::check_supported()) {
    throw RuntimeFailure(both(
        "gpulab profile is not available in this build: it is built with ThreadSanitizer, whose "
        "runtime owns the hooks the counters rely on",
        "这个构建不能使用 gpulab profile：它是用 ThreadSanitizer "
        "构建的，计数所依赖的钩子归它的运行时所有"));
  }
  ProfileResult r;
  // The engine (run/session.hpp) builds the program with the counters and runs it; its report's
  // "profile" lines come back among the events run does not read itself.
  RunOptions session;
  session.file = o.file;
  session.args = o.args;
  session.profile = true;
  session.compiler_flags = o.compiler_flags;
  session.timeout = o.timeout;
  session.max_output_bytes = o.max_output_bytes;
  session.use_cache = o.use_cache;
  session.workers = o.workers;
  session.lang = o.lang;
  const RunResult run = run_program(session);
  r.file = run.file;
  r.compiler = run.compiler;
  r.cached = run.cached;
  r.compile_ms = run.compile_ms;
  r.exit_code = run.exit_code;
  r.signal = run.signal;
  r.timed_out = run.timed_out;
  r.output_capped = run.output_capped;
  r.output_ends_line = run.output_ends_line;
  r.run_ms = run.run_ms;
  for (const RunLaunch& l : run.launches) {
    if (!l.fault.empty()) r.faults.push_back(l.kernel + ": " + l.fault);
  }
  if (run.crash) {
    r.faults.push_back(both("the program crashed ({}) in kernel {}", "程序崩溃（{}），在内核 {} 中",
                            run.crash->value("signal", json("?")).dump(),
                            run.crash->value("kernel", std::string("?")))
                           .in(o.lang));
  }
  const std::vector<json>& report = run.other_events;

  std::vector<std::uint64_t> pcs = profile::profile_addresses(report);
  // Each branch at its conditional jump's own line: source_lines names the instruction before
  // an address (a hook's return address is after its call), hence the jump's address + 1.
  const std::map<std::uint64_t, std::uint64_t> jumps =
      branch_jumps(run.program, profile::branch_blocks(report));
  for (const auto& [block, jump] : jumps) pcs.push_back(jump + 1);
  const std::vector<std::string> where =
      run::source_lines(run.program, r.file, pcs, run.more_files);
  std::map<std::uint64_t, profile::SourcePlace> places;
  for (std::size_t i = 0; i < pcs.size() && i < where.size(); ++i)
    places[pcs[i]] = place_of(where[i], r.file);
  const auto place = [&](std::uint64_t pc) {
    const auto it = places.find(pc);
    return it == places.end() ? profile::SourcePlace{} : it->second;
  };
  r.kernels = profile::read_profiles(
      report, place, [&](const std::string& site) { return place_of(site, r.file); },
      [&](std::uint64_t block) {
        const auto it = jumps.find(block);
        return it == jumps.end() ? profile::SourcePlace{} : place(it->second + 1);
      });
  for (KernelProfile& k : r.kernels) {
    const profile::SourcePlace site = place_of(k.site, r.file);
    if (!site.file.empty()) k.site = fmt::format("{}:{}", site.file, site.line);
  }
  std::ifstream in(r.file);
  for (std::string line; std::getline(in, line);) r.source.push_back(line);

  for (const profile::CounterRule& rule : o.rules)
    r.rules.push_back(profile::check_counter_rule(rule, r.kernels));
  if (o.gpu) measure_on_gpu(o, r);
  return r;
}

namespace {

std::string dims_text(const std::array<std::uint64_t, 3>& d) {
  return fmt::format("({},{},{})", d[0], d[1], d[2]);
}

json dims_json(const std::array<std::uint64_t, 3>& d) {
  return json::array({d[0], d[1], d[2]});
}

// The metrics of one line: only those that apply to it.
json line_metrics(const Counters& c) {
  json m = json::object();
  const json all = profile::metrics_json(c, true);
  for (const auto& [key, value] : all.items()) {
    if (value.is_number_unsigned() && value.get<std::uint64_t>() == 0) continue;
    m[key] = value;
  }
  if (c.inst_executed == 0) m.erase("smsp__thread_inst_executed_per_inst_executed.ratio");
  if (c.branch.branches == 0) m.erase("smsp__sass_average_branch_targets_threads_uniform.pct");
  return m;
}

// ncu's launches of one kernel, summed (ratios averaged over the launches).
std::optional<std::map<std::string, double>> gpu_metrics_for(const ProfileResult& r,
                                                             const KernelProfile& k) {
  std::map<std::string, double> sum;
  int n = 0;
  for (const profile::NcuLaunch& l : r.gpu) {
    const std::string name = profile::ncu_short_name(l.kernel);
    if (name != k.kernel && name.rfind(k.kernel + "<", 0) != 0) continue;
    ++n;
    for (const auto& [key, v] : l.metrics) sum[key] += v;
  }
  if (n == 0) return std::nullopt;
  for (auto& [key, v] : sum) {
    if (key.size() > 4 && key.substr(key.size() - 4) != ".sum") v /= n;
  }
  return sum;
}

std::string number(double v) {
  return format_real(v, 2);
}

}  // namespace

json profile_json(const ProfileResult& r) {
  json launches = json::array();
  for (const KernelProfile& k : r.kernels) {
    json lines = json::array();
    for (const profile::LineCounters& l : k.lines) {
      const json m = line_metrics(l.counters);
      if (m.empty()) continue;
      lines.push_back({{"file", l.where.file}, {"line", l.where.line}, {"metrics", m}});
    }
    json found = json::array();
    for (const profile::Finding& f : profile::findings(k)) {
      static const char* kinds[] = {"uncoalesced", "bank_conflict", "divergence"};
      found.push_back({{"kind", kinds[static_cast<int>(f.kind)]},
                       {"file", f.where.file},
                       {"line", f.where.line},
                       {"waste", f.waste},
                       {"message", profile::explain(f, Lang::en)}});
    }
    json entry = {
        {"kernel", k.kernel},        {"site", k.site},
        {"grid", dims_json(k.grid)}, {"block", dims_json(k.block)},
        {"count", k.launches},       {"metrics", profile::metrics_json(k.metrics, k.has_branches)},
        {"lines", std::move(lines)}, {"findings", std::move(found)}};
    if (r.gpu_asked) {
      const auto g = gpu_metrics_for(r, k);
      entry["gpu_metrics"] = g ? json(*g) : json(nullptr);
    }
    launches.push_back(std::move(entry));
  }
  json j = {{"file", r.file},           {"backend", r.backend},
            {"compiler", r.compiler},   {"exit_code", r.exit_code},
            {"timed_out", r.timed_out}, {"launches", std::move(launches)}};
  if (!r.faults.empty()) j["faults"] = r.faults;
  if (!r.rules.empty()) {
    json rules = json::array();
    for (const profile::CounterRuleResult& x : r.rules) {
      rules.push_back({{"rule", x.rule.rule},
                       {"limit", x.rule.limit},
                       {"measured", x.measured},
                       {"value", x.measured ? json(x.value) : json(nullptr)},
                       {"ok", x.ok},
                       {"kernel", x.kernel},
                       {"file", x.where.file},
                       {"line", x.where.line},
                       {"message", profile::describe_result(x).en}});
    }
    j["rules"] = std::move(rules);
  }
  if (r.gpu_asked) {
    j["gpu"] = {{"compiler", r.gpu_compiler},
                {"launches_measured", r.gpu.size()},
                {"why_not", r.gpu_why_not.empty() ? json(nullptr) : json(r.gpu_why_not)}};
  }
  return j;
}

namespace {

void render_kernel(const ProfileResult& r, const KernelProfile& k, const Style& s,
                   std::string& out) {
  const Lang l = s.lang();
  out += s.heading(both("Kernel {} at {}: grid {}, block {}, {}",
                        "内核 {}，启动于 {}：网格 {}，线程块 {}，{}", k.kernel, k.site,
                        dims_text(k.grid), dims_text(k.block),
                        l == Lang::zh ? fmt::format("启动 {} 次", k.launches)
                                      : count_noun(k.launches, "launch", "launches"))
                       .in(l)) +
         "\n";
  const Counters& c = k.metrics;
  Table g({std::string(tr(l, "global memory", "全局内存")), std::string(tr(l, "requests", "请求")),
           std::string(tr(l, "sectors", "扇区")), std::string(tr(l, "per request", "每请求")),
           std::string(tr(l, "ideal", "理想")), std::string(tr(l, "fetched", "取来")),
           std::string(tr(l, "used", "用到"))});
  const auto global_row = [&](const char* en, const char* zh, const profile::GlobalCost& x) {
    const double ideal =
        x.requests == 0 ? 0.0
                        : static_cast<double>(x.ideal_sectors) / static_cast<double>(x.requests);
    g.add_row({std::string(tr(l, en, zh)), group_thousands(x.requests), group_thousands(x.sectors),
               number(profile::sectors_per_request(x)), number(ideal),
               format_bytes(static_cast<double>(x.sectors * 32)),
               format_bytes(static_cast<double>(x.bytes_used))});
  };
  global_row("loads", "读", c.global_ld);
  global_row("stores", "写", c.global_st);
  out += g.render(s);
  if (c.shared_ld.requests + c.shared_st.requests > 0) {
    Table t({std::string(tr(l, "shared memory", "共享内存")),
             std::string(tr(l, "requests", "请求")), std::string(tr(l, "wavefronts", "波前")),
             std::string(tr(l, "ideal", "理想")),
             std::string(tr(l, "bank conflicts", "存储体冲突"))});
    const auto row = [&](const char* en, const char* zh, const profile::SharedCost& x) {
      t.add_row({std::string(tr(l, en, zh)), group_thousands(x.requests),
                 group_thousands(x.wavefronts), group_thousands(x.ideal_wavefronts),
                 group_thousands(x.conflicts)});
    };
    row("loads", "读", c.shared_ld);
    row("stores", "写", c.shared_st);
    out += t.render(s);
  }
  if (k.has_branches && c.branch.branches == 0) {
    out += "  " +
           both(
               "No branch whose lanes went different ways; {} active threads per executed "
               "basic block on average",
               "没有通道走向不同的分支；每个执行的基本块平均 {} 个活跃线程",
               number(profile::thread_inst_per_inst(c)))
               .in(l) +
           "\n";
  } else if (k.has_branches) {
    out += "  " +
           both(
               "Branches: {} of {} warp-level branches divergent, uniformity {}; {} active "
               "threads per executed basic block on average",
               "分支：{1} 次线程束级分支中 {0} 次分歧，一致率 {2}；每个执行的基本块平均 {3} "
               "个活跃线程",
               c.branch.divergent, c.branch.branches,
               format_percent(profile::branch_uniformity_pct(c), 1),
               number(profile::thread_inst_per_inst(c)))
               .in(l) +
           "\n";
  }
  if (r.gpu_asked) {
    if (const auto gm = gpu_metrics_for(r, k)) {
      Table t({std::string(tr(l, "metric", "指标")), std::string(tr(l, "emulator", "模拟器")),
               "GPU (ncu)"});
      const json em = profile::metrics_json(c, k.has_branches);
      for (const std::string& name : profile::ncu_metric_names()) {
        const auto it = gm->find(name);
        const json& v = em[name];
        t.add_row({name,
                   v.is_null()           ? "-"
                   : v.is_number_float() ? number(v.get<double>())
                                         : group_thousands(v.get<std::uint64_t>()),
                   it == gm->end() ? "-" : number(it->second)});
      }
      out += t.render(s);
    }
  }

  const std::vector<profile::Finding> found = profile::findings(k);
  if (found.empty()) {
    out += "  " +
           s.good(std::string(
               tr(l,
                  "Nothing to fix: every access is coalesced, no bank conflict, no "
                  "divergent branch.",
                  "没有需要修正的：每次访问都已合并，没有存储体冲突，没有分歧的分支。"))) +
           "\n";
  } else {
    out += s.bold(std::string(tr(l, "  Worst lines first:", "  最差的行在前："))) + "\n";
    std::size_t n = 0;
    for (const profile::Finding& f : found) {
      if (++n > 5) break;
      out += fmt::format("  {}. {}\n", n, profile::explain(f, l));
      if (n == 1 && f.access != nullptr) {
        out += both("\n     warp {} of block {}, one character per lane:\n",
                    "\n     线程块 {1} 的线程束 {0}，每个字符代表一个通道：\n",
                    f.access->example_warp, dims_text(f.access->example_block))
                   .in(l);
        out += verbatim(f.access->shared ? profile::draw_banks(f.access->example, 8, l)
                                         : profile::draw_sectors(f.access->example, 8, l));
      }
    }
    if (found.size() > 5) {
      out += both("  ... and {} more (--json lists them all)\n",
                  "  ……还有 {} 处（--json 列出全部）\n", found.size() - 5)
                 .in(l);
    }
  }

  // The source, annotated like ncu --page source: the lines of the user's file that counted.
  std::map<int, const profile::LineCounters*> by_line;
  const std::string main_file = fs::path(r.file).filename().string();
  for (const profile::LineCounters& lc : k.lines)
    if (lc.where.file == main_file) by_line[lc.where.line] = &lc;
  if (by_line.empty() || r.source.empty()) return;
  const int first = std::max(1, by_line.begin()->first - 2);
  const int last = std::min(static_cast<int>(r.source.size()), by_line.rbegin()->first + 1);
  const auto z = [](std::uint64_t v) { return v == 0 ? std::string() : group_thousands(v); };
  out += s.bold(std::string(tr(l, "  Source (counts per line, as ncu --page source shows them):",
                               "  源代码（每行的计数，如 ncu --page source 所示）："))) +
         "\n";
  std::string listing;
  listing += fmt::format("  {:>5}  {:<14} {:<14} {:>6}\n", tr(l, "line", "行"),
                         tr(l, "global req/sec", "全局 请求/扇区"),
                         tr(l, "shared wf/conf", "共享 波前/冲突"), tr(l, "div.", "分歧"));
  for (int line = first; line <= last; ++line) {
    const auto it = by_line.find(line);
    Counters x;
    if (it != by_line.end()) x = it->second->counters;
    const std::uint64_t greq = x.global_ld.requests + x.global_st.requests;
    const std::uint64_t sreq = x.shared_ld.requests + x.shared_st.requests;
    const std::string global =
        greq == 0 ? "" : z(greq) + "/" + z(x.global_ld.sectors + x.global_st.sectors);
    const std::string shared =
        sreq == 0 ? ""
                  : z(x.shared_ld.wavefronts + x.shared_st.wavefronts) + "/" +
                        std::to_string(x.shared_ld.conflicts + x.shared_st.conflicts);
    std::string row =
        fmt::format("  {:>5}  {:<14} {:<14} {:>6}  {}", line, global, shared, z(x.branch.divergent),
                    r.source[static_cast<std::size_t>(line - 1)]);
    while (!row.empty() && (row.back() == ' ' || row.back() == '\t')) row.pop_back();
    listing += row + "\n";
  }
  out += verbatim(listing);  // code is cut to the terminal, never wrapped
}

}  // namespace

std::string render_profile(const ProfileResult& r, const OutputOptions& o) {
  const Style s(color_enabled(o.color), output_width(STDERR_FILENO), o.lang);
  const Lang l = o.lang;
  std::string out;
  out += s.bold(both("gpulab profile: {} on the emulator ({}{}), counted as Nsight Compute "
                     "counts on a GPU",
                     "gpulab profile：{} 在模拟器上运行（{}{}），按 Nsight Compute 在 GPU "
                     "上的方式计数",
                     fs::path(r.file).filename().string(), r.compiler,
                     r.cached ? std::string(tr(l, ", cached build", "，缓存的构建")) : "")
                    .in(l)) +
         "\n";
  if (r.kernels.empty()) {
    out += "  " + std::string(tr(l, "No kernel was launched.", "没有启动任何内核。")) + "\n";
  }
  for (const KernelProfile& k : r.kernels) {
    out += "\n";
    render_kernel(r, k, s, out);
  }
  for (const std::string& f : r.faults) {
    out += s.bad(both("A launch faulted; its counts stop at the fault: {}",
                      "有一次启动出错，计数到出错为止：{}", f)
                     .in(l)) +
           "\n";
  }
  if (!r.rules.empty()) {
    out += "\n" + s.bold(std::string(tr(l, "Rules (--require):", "规则（--require）："))) + "\n";
    for (const profile::CounterRuleResult& x : r.rules) {
      const std::string line = "  - " + profile::describe_result(x).in(l);
      out += (x.ok ? s.good(line) : s.bad(line)) + "\n";
    }
  }
  if (r.gpu_asked && !r.gpu_why_not.empty()) {
    out += s.warn(both("No GPU numbers: {}", "没有 GPU 的数字：{}", r.gpu_why_not).in(l)) + "\n";
  }
  if (r.timed_out) {
    out += s.bad(std::string(tr(l, "The program ran past --timeout and was stopped.",
                                "程序超过了 --timeout，已被停止。"))) +
           "\n";
  } else if (r.exit_code != 0 && r.exit_code != -1) {
    out += both("The program exited with code {}.", "程序以退出码 {} 结束。", r.exit_code).in(l) +
           "\n";
  }
  return out;
}

void setup_profile(CLI::App& app, GlobalOptions& g) {
  struct Raw {
    std::string file;
    std::vector<std::string> args;
    std::vector<std::string> includes, defines, require;
    std::string timeout = "120", max_output = "67108864", arch, report;
    bool no_cache = false;
  };
  auto raw = std::make_shared<Raw>();
  CLI::App* sub = app.add_subcommand(
      "profile",
      help_tr(g,
              "Count what Nsight Compute counts (global sectors per request, shared-memory bank "
              "conflicts, divergent branches) for your CUDA program, per line, on the emulator",
              "统计 Nsight Compute 统计的数字（全局内存每请求扇区数、共享内存的存储体（bank）"
              "冲突、分歧分支），按行给出，在模拟器上运行你的 CUDA 程序"));
  sub->callback([raw, &g] {
    finish_global_options(g);
    ProfileOptions o;
    o.file = raw->file;
    o.args = raw->args;
    o.lang = g.out.lang;
    o.timeout = std::chrono::milliseconds(
        parse_int("--timeout", raw->timeout, 1, 86400, {"seconds", "秒"}) * 1000);
    o.max_output_bytes =
        static_cast<std::size_t>(parse_int("--max-output", raw->max_output, 1024, INT64_MAX));
    o.use_cache = !raw->no_cache;
    o.workers = g.emu.workers;
    o.compiler_flags = include_define_flags(raw->includes, raw->defines);
    o.gpu_arch = checked_gpu_arch(raw->arch);
    for (const std::string& text : raw->require) {
      const auto rule = profile::parse_counter_rule(text);
      if (!rule) {
        bad_value("--require", text,
                  both("not a rule: max_sectors_per_request=N, max_bank_conflicts=N or "
                       "min_branch_uniformity=PERCENT (0 to 100)",
                       "不是规则：max_sectors_per_request=N、max_bank_conflicts=N 或 "
                       "min_branch_uniformity=百分比（0 到 100）"));
      }
      o.rules.push_back(*rule);
    }
    // The counters are the emulator's; --backend gpu adds ncu's numbers from the GPU.
    if (g.backend == BackendChoice::gpu) {
      std::string notice;
      o.gpu = gpu_chosen(g.backend, &notice, g.out.lang);
    }
    ProfileResult r = run_profile(o);
    const std::string report =
        g.out.json ? profile_json(r).dump(2, ' ', false, json::error_handler_t::replace) + "\n"
                   : render_profile(r, g.out);
    std::fflush(stdout);
    if (raw->report.empty()) {
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
    if (r.timed_out || r.output_capped || r.signal != 0) throw ExitCode(kExitFailure);
    if (r.exit_code != 0) throw ExitCode(r.exit_code);
    // A rule broken, or not measured (no kernel ran), is a failure: a script can rely on it.
    for (const profile::CounterRuleResult& x : r.rules)
      if (!x.ok) throw ExitCode(kExitFailure);
  });
  sub->add_option("file", raw->file,
                  help_tr(g, "The CUDA program (.cu) to build, run and count",
                          "要编译、运行并计数的 CUDA 程序（.cu）"))
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
  sub->add_option(
         "--arch", raw->arch,
         help_tr(g, "GPU architecture for nvcc with --backend gpu (default: the GPU's own)",
                 "--backend gpu 时 nvcc 的 GPU 架构（默认：本机 GPU 自己的）"))
      ->type_name("sm_XY");
  sub->add_option(
         "--report", raw->report,
         help_tr(g, "Write the profile (text, or JSON with --json) to FILE instead of stderr",
                 "把计数结果（文本，或加 --json 时为 JSON）写入 FILE，而不是标准错误"))
      ->type_name("FILE");
  sub->add_option(
         "--require", raw->require,
         help_tr(g,
                 "A rule the counts must keep, else exit code 1 (repeatable): "
                 "max_sectors_per_request=N, max_bank_conflicts=N, "
                 "min_branch_uniformity=PERCENT",
                 "计数必须满足的规则，否则退出码为 1（可重复）：max_sectors_per_request=N、"
                 "max_bank_conflicts=N、min_branch_uniformity=百分比"))
      ->type_name("RULE=N");
  sub->add_flag("--no-cache", raw->no_cache,
                help_tr(g, "Compile again even if a cached build exists",
                        "即使已有缓存的编译结果也重新编译"));
}

}  // namespace gpulab
