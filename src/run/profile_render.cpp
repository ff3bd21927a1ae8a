// gpulab profile's report in words or JSON (see profile_render.hpp).
#include "run/profile_render.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <optional>

#include "core/i18n_format.hpp"
#include "core/layout.hpp"
#include "core/process.hpp"
#include "core/text.hpp"
#include "profile/draw.hpp"
#include "run/render.hpp"

namespace gpulab {

namespace fs = std::filesystem;
using nlohmann::json;
using profile::Counters;
using profile::KernelProfile;

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
  j["signal"] = r.signal != 0 ? json(signal_name(r.signal)) : json(nullptr);
  if (!r.faults.empty()) j["faults"] = r.faults;
  if (!r.crash.empty()) j["crash"] = r.crash;
  j["flags_without_effect"] = r.flags_without_effect;
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
    const double ideal = profile::ratio_or_zero(x.ideal_sectors, x.requests);
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
  out += flags_without_effect_line(r.flags_without_effect, l);
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
  if (!r.crash.empty()) out += s.bad(r.crash) + "\n";
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

}  // namespace gpulab
