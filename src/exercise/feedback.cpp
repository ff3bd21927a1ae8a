// How a check's result is shown (see feedback.hpp).
#include "exercise/feedback.hpp"

#include <fmt/format.h>

#include <filesystem>

#include "core/i18n_format.hpp"
#include "core/layout.hpp"
#include "core/text.hpp"
#include "exercise/draw.hpp"
#include "exercise/plan.hpp"
#include "profile/rules.hpp"
#include "run/findings.hpp"

namespace gpulab::exercise {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

std::string rule_text(const RuleCheck& r, Lang l) {
  if (r.rule == "max_global_reads")
    return both("global reads per thread <= {}", "每个线程的全局内存读取 <= {}", r.limit).in(l);
  if (r.rule == "max_global_writes")
    return both("global writes per thread <= {}", "每个线程的全局内存写入 <= {}", r.limit).in(l);
  if (r.rule == "uses_shared") return std::string(tr(l, "uses shared memory", "使用共享内存"));
  if (r.rule == "max_barriers_per_block")
    return both("__syncthreads() per block <= {}", "每个线程块的 __syncthreads() <= {}", r.limit)
        .in(l);
  if (is_counter_rule(r.rule)) return profile::describe_rule({r.rule, r.limit}).in(l);
  return r.rule;
}

}  // namespace

std::string render_check(const CheckResult& c, const OutputOptions& out) {
  const Lang l = out.lang;
  const Style st(out.color == ColorMode::always);
  const Exercise& e = *c.exercise;
  std::string s =
      st.heading(
          both("gpulab exercise check: {} ({}. {}) {}", "gpulab exercise check：{}（{}. {}）{}",
               fs::path(c.file).filename().string(), e.number, e.title.in(l),
               c.backend == "cuda" ? std::string(tr(l, "on the GPU", "在 GPU 上"))
                                   : std::string(tr(l, "on the emulator, with run --check's checks",
                                                    "在模拟器上，带 run --check 的检查")))
              .in(l)) +
      "\n";
  if (!c.built) {
    if (!c.diagnoses.empty() && c.build_error.empty()) {
      // Refused before building: the screen's lines, or a file named for another exercise.
      s +=
          "  " +
          st.bad(std::string(tr(
              l, "Refused (nothing was compiled or run):", "已拒绝（没有编译或运行任何代码）："))) +
          "\n";
      for (const auto& d : c.diagnoses) s += "  - " + d.text.in(l) + "\n";
      s +=
          std::string(tr(l,
                         "  An exercise file holds the kernel(s) and __device__ helpers only: "
                         "gpulab provides the host side.\n",
                         "  练习文件只包含核函数和 __device__ 辅助函数：主机端由 gpulab 提供。\n"));
    } else {
      s += "  " + st.bad(std::string(tr(l, "It does not build:", "无法编译："))) + "\n";
      // The compiler's words, at most 20 lines (the rest is in --json's build_error).
      const std::string said = c.diagnoses.empty() ? c.build_error : c.diagnoses.front().text.in(l);
      std::size_t pos = 0, lines = 0;
      while (pos < said.size() && lines < 20) {
        const auto nl = said.find('\n', pos);
        pos = nl == std::string::npos ? said.size() : nl + 1;
        ++lines;
      }
      s += verbatim(said.substr(0, pos));
      if (!s.empty() && s.back() != '\n') s += "\n";
      if (pos < said.size()) {
        std::size_t more = 0;
        for (std::size_t i = pos; i < said.size(); ++i) more += said[i] == '\n' ? 1 : 0;
        s += st.dim(both("  [... {} more lines, in --json's build_error]",
                         "  [... 另有 {} 行，见 --json 的 build_error]", more + 1)
                        .in(l)) +
             "\n";
      }
    }
    s += "  " + st.bad(std::string(tr(l, "FAILED", "未通过"))) + "\n";
    return s;
  }
  s += both("  seed {} (--seed {} repeats these inputs); {}\n",
            "  随机种子 {}（--seed {} 可重现这些输入）；{}\n", c.seed, c.seed,
            c.run.cached
                ? std::string(tr(l, "cached build", "使用缓存的构建"))
                : both("compiled in {:.1f} s", "编译 {:.1f} 秒", c.run.compile_ms / 1000.0).in(l))
           .in(l);
  // One line per test: pass or FAIL, and why it failed.
  for (const exercise::TestOutcome& t : c.tests) {
    std::string line = fmt::format(
        "  {}  {}", t.pass ? st.good(tr(l, "pass", "通过")) : st.bad(tr(l, "FAIL", "失败")),
        both("test {}", "测试 {}", t.name.in(l)).in(l));
    if (!t.pass && !t.reason.en.empty()) line += std::string(tr(l, ": ", "：")) + t.reason.in(l);
    std::string measured;
    for (const auto& r : t.rules) {
      if (!r.measured_known || !t.pass) continue;
      if (r.rule == "uses_shared") {
        measured +=
            (c.backend == "cuda" ? both("; {} bytes __shared__", "；__shared__ {} 字节", r.measured)
                                 : both("; {} shared accesses", "；共享内存访问 {} 次", r.measured))
                .in(l);
      } else if (r.rule == "max_global_reads") {
        measured +=
            both("; at most {} global reads/thread", "；每线程最多读全局内存 {} 次", r.measured)
                .in(l);
      } else if (r.rule == "max_barriers_per_block") {
        measured +=
            both("; {} __syncthreads()/block", "；每块 {} 次 __syncthreads()", r.measured).in(l);
      }
    }
    s += line + st.dim(measured) + "\n";
  }
  // The kernels' own printf, bounded (it never changes the verdict).
  if (!c.run.output.empty()) {
    constexpr std::size_t kLines = 20;
    std::size_t pos = 0, lines = 0;
    while (pos < c.run.output.size() && lines < kLines) {
      const auto nl = c.run.output.find('\n', pos);
      pos = nl == std::string::npos ? c.run.output.size() : nl + 1;
      ++lines;
    }
    s += std::string(tr(l, "  The kernels printed:", "  核函数的输出：")) + "\n";
    std::string shown = c.run.output.substr(0, std::min<std::size_t>(pos, 4000));
    if (!shown.empty() && shown.back() != '\n') shown += "\n";
    s += shown;
    if (shown.size() < c.run.output.size()) {
      s += st.dim(both("  [... {} more bytes, in --json's kernel_output]",
                       "  [... 另有 {} 字节，见 --json 的 kernel_output]",
                       c.run.output.size() - shown.size())
                      .in(l)) +
           "\n";
    }
  }
  // The rules, as measured over all tests.
  if (!c.tests.empty() && !c.tests.front().rules.empty()) {
    bool counters = false;  // gpulab profile's counters (per warp-level access), not per thread
    for (const auto& r : c.tests.front().rules) counters = counters || is_counter_rule(r.rule);
    s += std::string(c.backend == "cuda"
                         ? tr(l, "  Rules (on the GPU, only shared memory can be measured):",
                              "  规则（在 GPU 上只能测量共享内存的使用）：")
                     : counters
                         ? tr(l, "  Rules (counted by the emulator, as gpulab profile counts):",
                              "  规则（由模拟器按 gpulab profile 的方式计数）：")
                         : tr(l, "  Rules (counted per thread by the emulator):",
                              "  规则（由模拟器逐个线程计数）：")) +
         "\n";
    for (const auto& r0 : c.tests.front().rules) {
      bool ok = true, known = false;
      for (const auto& t : c.tests) {
        for (const auto& r : t.rules) {
          if (r.rule != r0.rule) continue;
          ok = ok && r.ok;
          known = known || r.measured_known;
        }
      }
      s += "    " +
           (known ? (ok ? st.good(tr(l, "kept  ", "遵守  ")) : st.bad(tr(l, "broken", "违反")))
                  : st.dim(tr(l, "not measured", "未测量"))) +
           "  " + rule_text(r0, l) + "\n";
    }
    if (c.backend == "cuda") {
      s += std::string(tr(l,
                          "    Only the emulator counts each thread's accesses and barriers: check "
                          "without --backend gpu to measure these rules.",
                          "    只有模拟器能按线程计数访问和 __syncthreads()：不加 --backend gpu "
                          "再检查，才能测量这些规则。")) +
           "\n";
    }
  }
  if (!c.diagnoses.empty()) {
    s += st.bad(std::string(tr(l, "What went wrong:", "问题所在："))) + "\n";
    int i = 0;
    for (const auto& d : c.diagnoses) {
      std::string text = fmt::format("{}. {}", ++i, d.text.in(l));
      if (d.more_tests > 0) {
        text += both(" The same in {} more {}.", "另有 {} 个测试出现同样的问题。", d.more_tests,
                     plural(d.more_tests, "test", "tests"))
                    .in(l);
      }
      // One paragraph: laid out for the terminal (emit), wrapped under its number.
      s += "  " + text + "\n";
    }
  }
  if (c.not_verified) {
    std::string rules;
    for (const auto& r : c.unmeasured_rules) rules += (rules.empty() ? "" : ", ") + r;
    s += "  " +
         st.bad(both("NOT VERIFIED: every output is right and nothing else failed, but these "
                     "rules were not measured: {}",
                     "未验证：所有输出都正确，其他检查也都通过，但这些规则没有被测量：{}", rules)
                    .in(l)) +
         "\n";
  } else if (c.passed) {
    s += "  " +
         st.good(
             std::string(tr(l, "PASSED: every test and every rule.", "通过：所有测试和规则。"))) +
         "\n";
  } else {
    s += "  " + st.bad(std::string(tr(l, "FAILED", "未通过"))) +
         both("  (a hint: gpulab exercise hint {})", "  （提示：gpulab exercise hint {}）", e.id)
             .in(l) +
         "\n";
  }
  return s;
}

json check_json(const CheckResult& c) {
  json tests = json::array();
  for (const auto& t : c.tests) {
    json rules = json::array();
    for (const auto& r : t.rules) {
      json x = {{"rule", r.rule}, {"limit", r.limit}, {"ok", r.ok}};
      if (r.measured_known) x["measured"] = r.measured;
      if (!r.who.is_null()) x["worst_thread"] = r.who;
      if (r.counter) {  // a counter rule: where it is worst, and the words
        x["kernel"] = r.counter->kernel;
        x["where"] = r.counter->where.line > 0
                         ? fmt::format("{}:{}", r.counter->where.file, r.counter->where.line)
                         : "";
        const gpulab::Text said = profile::describe_result(*r.counter);
        x["message"] = said.en;
        x["message_zh"] = said.zh;
      }
      rules.push_back(x);
    }
    json findings = json::array();
    for (const json& f : t.findings) findings.push_back(f.value("kind", ""));
    json x = {{"name", t.name.en},    {"name_zh", t.name.zh}, {"pass", t.pass},      {"ran", t.ran},
              {"results", t.results}, {"rules", rules},       {"findings", findings}};
    if (!t.pass) {
      x["reason"] = t.reason.en;
      x["reason_zh"] = t.reason.zh;
    }
    if (t.error) x["error"] = *t.error;
    tests.push_back(x);
  }
  json diagnoses = json::array();
  for (const auto& d : c.diagnoses) {
    diagnoses.push_back({{"mistake", d.mistake},
                         {"message", d.text.en},
                         {"message_zh", d.text.zh},
                         {"more_tests", d.more_tests}});
  }
  json findings = json::array();
  for (const RunFinding& f : c.findings) {
    json x = f.facts;
    x["kind"] = f.kind;
    x["where"] = f.where;
    x["message"] = describe_finding(f, Lang::en);
    findings.push_back(x);
  }
  json j = {{"command", "exercise check"},
            {"file", c.file},
            {"exercise", c.exercise->id},
            {"number", c.exercise->number},
            {"backend", c.backend},
            {"seed", c.seed},
            {"built", c.built},
            {"passed", c.passed},
            {"verdict", c.verdict()},
            {"source_sha256", c.source_sha256},
            {"unmeasured_rules", c.unmeasured_rules},
            {"tests", tests},
            {"findings", findings},
            {"diagnoses", diagnoses}};
  if (!c.built) j["build_error"] = c.build_error;
  json refusals = json::array();
  for (const auto& f : c.refusals) {
    refusals.push_back(
        {{"line", f.line}, {"what", f.what}, {"message", f.text.en}, {"message_zh", f.text.zh}});
  }
  j["refusals"] = refusals;
  if (c.built) {
    j["kernel_output"] = c.run.output.substr(0, 65536);
    j["kernel_output_bytes"] = c.run.output.size();
    if (!c.channel_problem.empty()) j["channel_problem"] = c.channel_problem;
    j["runner_finished"] = c.runner_finished;
    j["run"] = {{"exit_code", c.run.exit_code},         {"timed_out", c.run.timed_out},
                {"output_capped", c.run.output_capped}, {"cached", c.run.cached},
                {"compile_ms", c.run.compile_ms},       {"run_ms", c.run.run_ms}};
  }
  return j;
}

}  // namespace gpulab::exercise
