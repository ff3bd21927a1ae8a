// gpulab exercise check (see check.hpp): build and run through gpulab run, then explain.
#include "exercise/check.hpp"
#include "core/text.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <regex>
#include <sstream>

#include "core/error.hpp"
#include "core/file_check.hpp"
#include "core/hash.hpp"
#include "core/i18n_format.hpp"
#include "core/process.hpp"
#include "run/findings.hpp"
#include "run/program.hpp"

namespace gpulab::exercise {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

std::string line_directive(const std::string& path) {
  std::string escaped;
  for (char c : path) {
    if (c == '"' || c == '\\') escaped += '\\';
    escaped += c;
  }
  return "#line 1 \"" + escaped + "\"\n";
}

Text who(const json& block, const json& thread) {
  return {fmt::format("block {} thread {}", dims_text(block), dims_text(thread)),
          fmt::format("线程块 {} 线程 {}", dims_text(block), dims_text(thread))};
}

// The generated program lives in the cache, named by its content (written once, so its stamp
// holds).
fs::path write_program(const std::string& source) {
  const std::uint64_t h = fnv1a(source);
  const fs::path dir = run::private_cache_dir() / "exercise";
  std::error_code ec;
  fs::create_directories(dir, ec);
  const fs::path path = dir / fmt::format("{:016x}.cu", h);
  if (fs::exists(path) && run::read_file(path) == source) return path;
  const fs::path tmp = path.string() + fmt::format(".tmp{}", ::getpid());
  {
    std::ofstream out(tmp, std::ios::binary);
    out << source;
    if (!out) throw RuntimeFailure(both("cannot write {}", "无法写入 {}", tmp.string()));
  }
  fs::rename(tmp, path, ec);
  if (ec) {
    throw RuntimeFailure(
        both("cannot write {}: {}", "无法写入 {}：{}", path.string(), ec.message()));
  }
  return path;
}

// Reads the harness's and the recorder's lines, in the order they were written.
void read_events(CheckResult& c) {
  TestOutcome* current = nullptr;
  for (const json& e : c.run.other_events) {
    const std::string ev = e.value("event", "");
    if (ev == "exercise_start") {
      c.seed = e.value("seed", std::uint64_t{0});
    } else if (ev == "exercise_test") {
      c.tests.push_back(TestOutcome{});
      current = &c.tests.back();
      current->name = e.value("name", "");
      c.buffers.clear();
    } else if (ev == "exercise_end") {
      c.harness_finished = true;
    } else if (current == nullptr) {
      continue;
    } else if (ev == "exercise_limit") {
      RuleCheck r;
      r.rule = e.value("rule", "");
      r.limit = e.value("limit", 0.0);
      current->rules.push_back(r);
    } else if (ev == "exercise_buffer") {
      c.buffers.push_back(e);
    } else if (ev == "exercise_result") {
      current->results.push_back(e);
      if (!e.value("pass", false)) current->pass = false;
    } else if (ev == "exercise_error") {
      current->error = e;
      current->pass = false;
    } else if (ev == "record") {
      current->records.push_back(e);
    }
  }
  // The rules, against what the recorder counted in each test's launches.
  for (TestOutcome& t : c.tests) {
    if (t.records.empty()) {
      // Nothing recorded (the GPU, or a recorder that did not run): no rule of this test was
      // measured, and an unmeasured rule is never counted as kept.
      for (RuleCheck& r : t.rules) {
        r.ok = false;
        if (std::find(c.unmeasured_rules.begin(), c.unmeasured_rules.end(), r.rule) ==
            c.unmeasured_rules.end())
          c.unmeasured_rules.push_back(r.rule);
      }
      continue;
    }
    for (RuleCheck& r : t.rules) {
      r.measured_known = true;
      for (const json& rec : t.records) {
        double v = 0;
        json w;
        if (r.rule == "max_global_reads") {
          v = rec.value("max_global_reads", 0.0);
          w = {{"block", rec.value("max_reads_block", json())},
               {"thread", rec.value("max_reads_thread", json())}};
        } else if (r.rule == "max_global_writes") {
          v = rec.value("max_global_writes", 0.0);
          w = {{"block", rec.value("max_writes_block", json())},
               {"thread", rec.value("max_writes_thread", json())}};
        } else if (r.rule == "uses_shared") {
          v = rec.value("shared_reads", 0.0) + rec.value("shared_writes", 0.0);
        } else if (r.rule == "max_barriers_per_block") {
          const json g = rec.value("grid", json::array({1, 1, 1}));
          const double blocks = g[0].get<double>() * g[1].get<double>() * g[2].get<double>();
          v = rec.value("barriers", 0.0) / std::max(1.0, blocks);
        }
        if (v >= r.measured) {
          if (v > r.measured || r.who.is_null()) r.who = w;
          r.measured = v;
        }
      }
      // Shared memory counts when any launch of the test used it (a finishing kernel need not).
      r.ok = r.rule == "uses_shared" ? r.measured >= r.limit : r.measured <= r.limit;
      if (!r.ok) t.pass = false;
    }
  }
}

// "/home/ana/09-shared.cu:20" -> "09-shared.cu:20"; the generated program's name (which run
// already shortened) is the student's file too: its lines come first and keep their numbers.
std::string short_where(const std::string& where, const std::string& student,
                        const std::string& program) {
  const std::string dir = fs::path(student).parent_path().string() + "/";
  if (where.rfind(dir, 0) == 0) return where.substr(dir.size());
  const std::string generated = fs::path(program).filename().string() + ":";
  if (where.rfind(generated, 0) == 0) {
    return fs::path(student).filename().string() + ":" + where.substr(generated.size());
  }
  return where;
}

void diagnose(CheckResult& c) {
  auto add = [&](std::string mistake, std::string en, std::string zh) {
    for (const Diagnosis& d : c.diagnoses) {
      if (d.text.en == en) return;
    }
    c.diagnoses.push_back({std::move(mistake), {std::move(en), std::move(zh)}});
  };
  for (const RunFinding& f : c.findings) {
    const std::string en = describe_finding(f, Lang::en), zh = describe_finding(f, Lang::zh);
    const std::string at = f.where.empty() ? "" : f.where + ": ";
    if (f.kind == "out_of_bounds") {
      add("missing_guard",
          at + en +
              " A thread whose index is past the end must do nothing: a missing guard, or an "
              "index that reads past the end of the array.",
          at + zh +
              " 下标超出末尾的线程什么都不应该做：缺少边界检查（guard），或下标读过了数组末尾。");
    } else if (f.kind == "shared_race") {
      add("missing_syncthreads", at + en, at + zh);
    } else if (f.kind == "global_race") {
      add("race", at + en, at + zh);
    } else if (f.kind == "kernel_fault" &&
               f.facts.value("message", "").find("__syncthreads") != std::string::npos) {
      add("divergent_barrier",
          at + en +
              " Every thread of a block must reach the same __syncthreads(): put it outside the "
              "if, where all threads pass.",
          at + zh + " 同一线程块的所有线程必须到达同一个 __syncthreads()：把它移到 if 之外。");
    } else if (f.kind != "leak") {
      add(f.kind, at + en, at + zh);
    }
  }
  // A mistake seen in several tests is told once, for the first, with how many more had it.
  const std::size_t before_tests = c.diagnoses.size();
  auto add_once = [&](std::string mistake, std::string en, std::string zh) {
    for (std::size_t i = before_tests; i < c.diagnoses.size(); ++i) {
      if (c.diagnoses[i].mistake == mistake) {
        ++c.diagnoses[i].more_tests;
        return;
      }
    }
    add(std::move(mistake), std::move(en), std::move(zh));
  };
  for (const TestOutcome& t : c.tests) {
    const std::string in_test = " (test " + t.name + ")";
    const std::string in_test_zh = "（测试 " + t.name + "）";
    for (const json& r : t.results) {
      if (r.value("pass", true)) continue;
      const std::string buf = r.value("buffer", "out");
      const auto index = r.value("index", std::uint64_t{0});
      const auto rows = r.value("rows", 1);
      const std::string cell =
          rows > 1 ? fmt::format("{}[{}][{}]", buf, r.value("row", 0), r.value("col", 0))
                   : fmt::format("{}[{}]", buf, index);
      Text writer{"", ""};
      if (r.contains("writer_block")) {
        const Text w = who(r["writer_block"], r["writer_thread"]);
        writer = {", written by " + w.en, "，由" + w.zh + "写入"};
      }
      const std::string expected = r.contains("expected") && !r["expected"].is_null()
                                       ? fmt::format("{}", r["expected"].get<double>())
                                       : "?";
      if (r.value("never_written", false)) {
        add_once("never_written",
                 fmt::format("{} was never written{}: no thread stored a value there. Does every "
                             "element have a thread (the grid, the guard, a loop over the rest)?",
                             cell, in_test),
                 fmt::format("{} 从未被写入{}：没有线程在那里存值。是否每个元素都有线程负责"
                             "（网格大小、边界检查、处理剩余元素的循环）？",
                             cell, in_test_zh));
      } else if (r.contains("value_of") && c.findings.empty()) {
        // (With a race or an overrun found, a value that looks like a neighbour's is its symptom.)
        const auto j = r["value_of"].get<std::uint64_t>();
        add_once(
            "wrong_index",
            fmt::format("{} is {}, expected {}{}{}: that is the value element {} should hold. "
                        "Check the index formula.",
                        cell, r.value("got", json()).dump(), expected, writer.en, in_test, j),
            fmt::format("{} 是 {}，应为 {}{}{}：这是元素 {} 应有的值。请检查下标公式（index）。",
                        cell, r.value("got", json()).dump(), expected, writer.zh, in_test_zh, j));
      } else {
        add_once("wrong_value",
                 fmt::format("{} is {}, expected {}{}{}; {} of {} elements are wrong.", cell,
                             r.value("got", json()).dump(), expected, writer.en, in_test,
                             r.value("wrong", 0), r.value("elements", 0)),
                 fmt::format("{} 是 {}，应为 {}{}{}；{} 个元素中有 {} 个错误。", cell,
                             r.value("got", json()).dump(), expected, writer.zh, in_test_zh,
                             r.value("elements", 0), r.value("wrong", 0)));
      }
    }
    if (t.error) {
      add_once("launch_failed",
               fmt::format("the launch failed{}: {}", in_test, t.error->value("error", "")),
               fmt::format("启动失败{}：{}", in_test_zh, t.error->value("error", "")));
    }
    for (const RuleCheck& r : t.rules) {
      if (r.ok || !r.measured_known) continue;
      const Text w = r.who.is_object()
                         ? who(r.who.value("block", json()), r.who.value("thread", json()))
                         : Text{"a thread", "某个线程"};
      if (r.rule == "max_global_reads" || r.rule == "max_global_writes") {
        const bool reads = r.rule == "max_global_reads";
        add_once(
            reads ? "too_many_reads" : "too_many_writes",
            fmt::format("rule broken{}: each thread may {} global memory at most {}; {} "
                        "{} it {}.",
                        in_test, reads ? "read" : "write",
                        count_noun(static_cast<unsigned long long>(r.limit), "time", "times"), w.en,
                        reads ? "read" : "wrote",
                        count_noun(static_cast<unsigned long long>(r.measured), "time", "times")),
            fmt::format("违反规则{}：每个线程最多{}全局内存 {} 次；{}{}了 {} 次。", in_test_zh,
                        reads ? "读" : "写", r.limit, w.zh, reads ? "读" : "写", r.measured));
      } else if (r.rule == "uses_shared") {
        add_once(
            "no_shared",
            "rule broken" + in_test +
                ": the kernel must use shared memory (__shared__), and it "
                "never touched any.",
            "违反规则" + in_test_zh + "：核函数必须使用共享内存（__shared__），但它一次也没有用。");
      } else if (r.rule == "max_barriers_per_block") {
        add_once("too_many_barriers",
                 fmt::format("rule broken{}: at most {} __syncthreads() per block (one per step); "
                             "each block crossed {}.",
                             in_test, r.limit, r.measured),
                 fmt::format(
                     "违反规则{}：每个线程块最多 {} 次 __syncthreads()（每步一次）；实际 {} 次。",
                     in_test_zh, r.limit, r.measured));
      }
    }
  }
  const RunResult& r = c.run;
  if (r.output_capped) {
    add("output_limit",
        fmt::format("the kernels printed more than {} MiB and were stopped: print from one thread "
                    "(if (i == 0) printf(...)), not from all",
                    r.max_output_bytes >> 20),
        fmt::format("核函数输出超过 {} MiB，已被停止：只让一个线程打印（if (i == 0) "
                    "printf(...)），不要让所有线程都打印",
                    r.max_output_bytes >> 20));
  } else if (r.timed_out) {
    add("timeout",
        fmt::format("still running after {} s: an endless loop (a loop whose index never grows)?",
                    r.timeout_ms / 1000),
        fmt::format("运行超过 {} 秒：是否有死循环（循环变量从不增加）？", r.timeout_ms / 1000));
  } else if (r.signal != 0) {
    std::string where;
    if (r.crash && r.crash->contains("kernel")) {
      where = fmt::format(" in kernel {}, block {} thread {}", r.crash->value("kernel", ""),
                          dims_text(r.crash->value("block", json())),
                          dims_text(r.crash->value("thread", json())));
    }
    add("crash", "the program crashed" + where + " (" + signal_name(r.signal) + ")",
        "程序崩溃" + where + "（" + signal_name(r.signal) + "）");
  } else if (!c.harness_finished && c.built) {
    add("stopped", "the tests stopped before their end", "测试在结束前中止");
  }
}

}  // namespace

std::string program_source(const Exercise& e) {
  std::string s = line_directive("gpulab_exercise_harness.cuh");
  s += harness_library();
  s += "\n" + line_directive(e.id + "_kernels.cu");
  for (const std::string& d : kernel_declarations(e.starter)) s += d + "\n";
  s += line_directive(e.id + "_harness.cu") + e.harness;
  return s;
}

const Exercise* exercise_of_name(const std::string& path) {
  static const std::regex name(R"(([0-9]+)-([a-z0-9_]+)(\.[A-Za-z0-9]+)?)");
  std::smatch m;
  const std::string file = fs::path(path).filename().string();
  if (!std::regex_match(file, m, name)) return nullptr;
  const Exercise* by_id = find(m[2].str());
  if (by_id != nullptr) return by_id;
  return find(m[1].str());
}

CheckResult check_file(const CheckOptions& o) {
  CheckResult c;
  require_readable_file(o.file);
  c.file = fs::absolute(o.file).lexically_normal().string();
  c.backend = o.gpu ? "cuda" : "cpu-emulator";
  const Lang l = o.lang;
  const std::string text = run::read_file(c.file);
  const std::string id = id_in_file(text);
  c.exercise = find(id);
  if (c.exercise == nullptr) {
    throw UsageError(chosen(fmt::format(
        fmt::runtime(std::string(tr(
            l,
            "{}: not a gpulab exercise file: its first lines need '// gpulab exercise: ID' (gpulab "
            "exercise start ID writes one; gpulab exercise lists the IDs)",
            "{}：不是 gpulab 练习文件：开头几行需要 '// gpulab exercise: ID'（gpulab exercise "
            "start "
            "ID 会生成一个；gpulab exercise 列出所有 ID）"))),
        o.file)));
  }
  c.seed = o.seed.value_or(std::random_device{}() * 4294967296ull + std::random_device{}());
  // The file's name, where it names an exercise, must name the one its marker line names.
  if (const Exercise* named = exercise_of_name(c.file); named != nullptr && named != c.exercise) {
    c.diagnoses.push_back(
        {"name_mismatch",
         {fmt::format("{} is named for exercise {} ({}) but its marker line says '// gpulab "
                      "exercise: {}': rename the file or fix the marker",
                      fs::path(c.file).filename().string(), named->number, named->id,
                      c.exercise->id),
          fmt::format("{} 的文件名对应练习 {}（{}），但标记行写的是 '// gpulab exercise: "
                      "{}'：请重命名文件或改正标记",
                      fs::path(c.file).filename().string(), named->number, named->id,
                      c.exercise->id)}});
    return c;
  }
  // What the file may hold (screen.hpp): refused before anything is compiled.
  c.refusals = screen_source(text);
  if (!c.refusals.empty()) {
    const std::string name = fs::path(c.file).filename().string();
    for (const Refusal& f : c.refusals) {
      c.diagnoses.push_back(
          {"refused:" + f.what, {name + " " + f.text.en, name + " " + f.text.zh}});
    }
    return c;
  }
  const fs::path program = write_program(program_source(*c.exercise));

  RunOptions r;
  r.file = program.string();
  r.extra_sources = {c.file};
  r.args = {"--seed", std::to_string(c.seed)};
  if (o.draw) r.args.push_back("--draw");
  // On the emulator: run --check's checks. On a GPU: compute-sanitizer's tools, where installed
  // (bounds, races, barriers, uninitialised reads), each run of the tests under one tool.
  r.check = true;
  r.gpu = o.gpu;
  if (!o.gpu) r.compiler_flags.push_back("-DGPULAB_EXERCISE_EMULATOR");
  r.timeout = o.timeout;
  r.use_cache = o.use_cache;
  r.lang = l;
  // The kernel's printf is kept, bounded, apart from gpulab's own output (and from --json).
  r.capture_output = true;
  r.max_output_bytes = 1u << 20;
  try {
    c.run = run_program(r);
    c.built = true;
  } catch (const RuntimeFailure& e) {
    c.build_error = e.what();
    // "g++ could not compile <the generated program>": the student knows their own file.
    for (std::size_t at; (at = c.build_error.find(program.string())) != std::string::npos;) {
      c.build_error.replace(at, program.string().size(), c.file);
    }
    c.passed = false;
    // A kernel the harness launches that the file does not define (a misnamed or mis-typed
    // kernel): the linker's complaint, in a few lines naming the signature expected.
    for (const std::string& d : kernel_declarations(c.exercise->starter)) {
      const auto open = d.find('(');
      const auto space = d.rfind(' ', open);
      const std::string kname = d.substr(space + 1, open - space - 1);
      if (c.build_error.find("undefined reference to `" + kname + "(") != std::string::npos ||
          c.build_error.find("undefined reference to `" + kname + "'") != std::string::npos) {
        std::string sig = d.substr(0, d.size() - 1);
        c.build_error = fmt::format(
            "{}: no kernel {} as the exercise asks. The harness launches:\n  {}\nCheck the "
            "kernel's name and the types of its parameters.",
            fs::path(c.file).filename().string(), kname, sig);
        c.diagnoses.push_back(
            {"missing_kernel",
             {c.build_error,
              fmt::format("{}：没有练习要求的核函数 {}。测试框架启动的是：\n  {}\n请检查核函数的"
                          "名字和参数类型。",
                          fs::path(c.file).filename().string(), kname, sig)}});
        return c;
      }
    }
    c.diagnoses.push_back({"build", {c.build_error, c.build_error}});
    return c;
  }
  read_events(c);
  for (RunFinding f : c.run.findings) {
    // The emulator's own printf works on host memory (its format buffer, in the C++ library's
    // headers): that is not the student's kernel using host memory, and never fails a check.
    if (f.kind == "host_memory" && f.where.rfind("/usr/", 0) == 0) continue;
    f.where = short_where(f.where, c.file, c.run.file);
    f.other_where = short_where(f.other_where, c.file, c.run.file);
    for (const char* key : {"site", "launch_site", "region_site", "allocation_site"}) {
      if (f.facts.contains(key) && f.facts[key].is_string()) {
        f.facts[key] = short_where(f.facts[key].get<std::string>(), c.file, c.run.file);
      }
    }
    c.findings.push_back(std::move(f));
  }
  diagnose(c);
  if (o.gpu) {
    // What the emulator's checks find, compute-sanitizer finds on the GPU; without it, bounds and
    // races were not checked and the verdict cannot be "passed".
    if (!c.run.sanitizer_missing.empty()) {
      c.unmeasured_rules.push_back("bounds_and_races");
    }
    for (const auto& san : c.run.sanitizer) {
      if (san.errors > 0) {
        std::string first;
        std::istringstream in(san.output);
        std::string line;
        for (int n = 0; n < 4 && std::getline(in, line);) {
          if (line.find("=========     ") == 0 || line == "=========") continue;
          first += "\n    " + line;
          ++n;
        }
        c.diagnoses.push_back(
            {"sanitizer_" + san.tool,
             {fmt::format("compute-sanitizer --tool {} found {} error(s) in the kernels:{}",
                          san.tool, san.errors, first),
              fmt::format("compute-sanitizer --tool {} 在核函数中发现 {} 个错误：{}", san.tool,
                          san.errors, first)}});
      } else if (san.errors < 0) {
        c.unmeasured_rules.push_back("sanitizer_" + san.tool);
      }
    }
  }
  bool tests_pass = !c.tests.empty();
  for (const TestOutcome& t : c.tests) tests_pass = tests_pass && t.pass;
  c.passed = tests_pass && c.harness_finished && c.diagnoses.empty() && c.run.exit_code == 0 &&
             c.run.signal == 0 && !c.run.timed_out;
  if (!c.unmeasured_rules.empty()) {
    // Right outputs are not enough: a rule nothing measured is not kept.
    c.not_verified = c.passed;
    c.passed = false;
  }
  return c;
}

}  // namespace gpulab::exercise
