// gpulab exercise check (see check.hpp): the tests drawn here, the student's kernels run in a
// child by the run engine, what they stored compared here, the report's records and findings
// placed in the test and launch that made them, and the verdict.
#include "exercise/check.hpp"

#include <fmt/format.h>
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <random>
#include <regex>
#include <sstream>

#include "core/error.hpp"
#include "core/file_check.hpp"
#include "core/hash.hpp"
#include "core/i18n_format.hpp"
#include "core/sha256.hpp"
#include "exercise/channel.hpp"
#include "exercise/diagnose.hpp"
#include "exercise/plan.hpp"
#include "profile/report.hpp"
#include "profile/rules.hpp"
#include "run/findings.hpp"
#include "run/program.hpp"
#include "run/report.hpp"

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

// The exercise's folder in the user's private cache (0700), or none when the cache cannot be
// used (the run engine then builds without it too).
std::optional<fs::path> exercise_cache() {
  try {
    const fs::path dir = run::private_cache_dir() / "exercise";
    std::error_code ec;
    fs::create_directories(dir, ec);
    fs::permissions(dir, fs::perms::owner_all, ec);
    if (fs::is_directory(dir)) return dir;
  } catch (const RuntimeFailure&) {
  }
  return std::nullopt;
}

// A private folder (0700) for one check's runner, inputs and outputs, removed when it ends.
fs::path io_folder(const std::optional<fs::path>& cache) {
  std::error_code ec;
  const fs::path dir = cache ? *cache : fs::temp_directory_path(ec);
  std::string t = (dir / (cache ? "io-XXXXXX" : "gpulab-exercise-XXXXXX")).string();
  if (::mkdtemp(t.data()) == nullptr) {
    const int error = errno;
    throw RuntimeFailure(both("cannot create a folder in {}: {}", "无法在 {} 中创建目录：{}",
                              dir.string(), std::strerror(error)));
  }
  return t;
}

// The generated runner, named by its content: in the cache (written once, so that the build
// cache knows it), else in the check's own folder.
fs::path write_runner(const std::string& source, const fs::path& dir) {
  const fs::path path = dir / fmt::format("{:016x}.cu", fnv1a(source));
  std::error_code ec;
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

// "/home/ana/09-shared.cu:20" -> "09-shared.cu:20". The emulator compiles a rewritten copy of
// the student's file (the program's second unit, build-*/main_1.cpp) whose lines are the
// student's: named as the student's file.
std::string short_where(const std::string& where, const std::string& student) {
  const std::string dir = fs::path(student).parent_path().string() + "/";
  if (where.rfind(dir, 0) == 0) return where.substr(dir.size());
  static const std::regex copy(R"(.*/build-[^/]+/main_1\.cpp(:[0-9]+)$)");
  std::smatch m;
  if (std::regex_match(where, m, copy)) return fs::path(student).filename().string() + m[1].str();
  return where;
}

// The names the student gave the kernels' parameters, for each buffer of the plan (the starter's
// where the student's kernel cannot be read).
std::vector<std::string> buffer_names(const Plan& plan, const std::string& student_text) {
  std::vector<std::string> names;
  if (plan.tests.empty()) return names;
  const PlanTest& t = plan.tests.front();
  const std::vector<KernelSignature> mine = kernel_signatures(student_text);
  for (std::uint32_t b = 0; b < t.buffers.size(); ++b) {
    std::string name = t.buffers[b].name;
    bool found = false;
    for (const PlanStep& s : t.steps) {
      for (std::size_t k = 0; k < s.args.size() && !found; ++k) {
        if (s.args[k].kind != PlanArg::Kind::buffer || s.args[k].buffer != b) continue;
        for (const KernelSignature& sig : mine) {
          if (sig.name == s.kernel && sig.params.size() == s.args.size() &&
              !sig.params[k].name.empty()) {
            name = sig.params[k].name;
            found = true;
          }
        }
      }
    }
    names.push_back(name);
  }
  return names;
}

// "19-interleave.cu:5" -> {"19-interleave.cu", 5}.
profile::SourcePlace place_of(const std::string& where) {
  profile::SourcePlace p;
  const auto colon = where.rfind(':');
  if (colon == std::string::npos) return p;
  p.file = where.substr(0, colon);
  const std::string line = where.substr(colon + 1);
  if (!line.empty() && line.find_first_not_of("0123456789") == std::string::npos)
    p.line = std::stoi(line);
  return p;
}

bool poison(float v) {
  std::uint32_t bits;
  std::memcpy(&bits, &v, sizeof bits);
  return bits == 0xFFFFFFFFu;
}

// One output against its reference: the first wrong element and what it looks like.
json compare(const PlanTest& pt, const PlanExpect& x, const StepOutput& got,
             const std::vector<std::string>& names, const std::string& kernel) {
  const PlanBuffer& b = pt.buffers[x.buffer];
  const std::size_t n = x.want.size();
  std::size_t wrong = 0, first = n, never = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const double g = got.values[i];
    if (!(std::fabs(g - x.want[i]) <= x.atol + x.rtol * std::fabs(x.want[i]))) {
      if (first == n) first = i;
      ++wrong;
      never += poison(got.values[i]) ? 1 : 0;
    }
  }
  const std::size_t cols = b.rows > 0 ? n / b.rows : n;
  json r = {{"buffer", names[x.buffer]},
            {"after", kernel},
            {"elements", n},
            {"rows", b.rows},
            {"wrong", wrong},
            {"pass", wrong == 0}};
  if (wrong == 0) return r;
  const float g = got.values[first];
  r["index"] = first;
  r["row"] = first / cols;
  r["col"] = first % cols;
  r["got"] = std::isfinite(g) ? json(g) : json(nullptr);
  r["expected"] = x.want[first];
  r["never_written"] = poison(g);
  r["never_written_count"] = never;
  // The value another element should have: the index formula points at the wrong element.
  if (!poison(g)) {
    for (std::size_t j = 0; j < n; ++j) {
      if (j != first && std::fabs(double(g) - x.want[j]) <= 1e-7 + 1e-6 * std::fabs(x.want[j])) {
        r["value_of"] = j;
        break;
      }
    }
  }
  return r;
}

}  // namespace

std::string CheckResult::verdict() const {
  if (passed) return "passed";
  if (not_verified) return "not_verified";
  if (!refusals.empty() || (!built && build_error.empty() && !diagnoses.empty())) return "refused";
  return "failed";
}

std::string runner_source(const Exercise& e) {
  std::string s = line_directive("gpulab_exercise_runner.cuh");
  s += harness_library();
  s += "\n" + line_directive(e.id + "_kernels.cu");
  for (const std::string& d : kernel_declarations(e.starter)) s += d + "\n";
  // Each kernel launched with the arguments gpulab sent, converted to its parameters' types.
  s += "static void gx_launch(const gx::Step& s) {\n  switch (s.kernel) {\n";
  const std::vector<KernelSignature> kernels = kernel_signatures(e.starter);
  for (std::size_t k = 0; k < kernels.size(); ++k) {
    s += fmt::format("    case {}: {}<<<s.grid, s.block>>>(", k, kernels[k].name);
    for (std::size_t p = 0; p < kernels[k].params.size(); ++p) {
      const KernelParam& param = kernels[k].params[p];
      if (p > 0) s += ", ";
      if (param.pointer()) {
        s += fmt::format("static_cast<{}>(s.ptr({}))", param.type, p);
      } else if (param.type == "float") {
        s += fmt::format("s.f32({})", p);
      } else {
        s += fmt::format("static_cast<{}>(s.i32({}))", param.type, p);
      }
    }
    s += "); break;\n";
  }
  s += "  }\n}\n";
  // The __shared__ memory of each kernel (on a GPU; the emulator counts every access instead).
  s += "static unsigned gx_shared(std::uint32_t k) {\n#ifdef GPULAB_EXERCISE_EMULATOR\n"
       "  (void)k;\n  return 0;\n#else\n  cudaFuncAttributes a{};\n  cudaError_t e = "
       "cudaSuccess;\n  switch (k) {\n";
  for (std::size_t k = 0; k < kernels.size(); ++k) {
    s +=
        fmt::format("    case {}: e = cudaFuncGetAttributes(&a, {}); break;\n", k, kernels[k].name);
  }
  s += "  }\n  return e == cudaSuccess ? static_cast<unsigned>(a.sharedSizeBytes) : 0u;\n"
       "#endif\n}\n";
  s += "int main(int argc, char** argv) { return gx::run(argc, argv, gx_launch, gx_shared); }\n";
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
  c.source_sha256 = sha256_hex(text);
  const std::string id = id_in_file(text);
  const Exercise* marked = find(id);
  c.exercise = o.exercise != nullptr ? o.exercise : marked;
  if (c.exercise == nullptr) {
    throw UsageError(chosen(
        say(l,
            "{}: not a gpulab exercise file: its first lines need '// gpulab exercise: ID' (gpulab "
            "exercise start ID writes one; gpulab exercise lists the IDs)",
            "{}：不是 gpulab 练习文件：开头几行需要 '// gpulab exercise: ID'（gpulab exercise "
            "start "
            "ID 会生成一个；gpulab exercise 列出所有 ID）",
            o.file)));
  }
  c.seed = o.seed.value_or(std::random_device{}() * 4294967296ull + std::random_device{}());
  // The file's name (or the exercise asked for), where it names one, must be its marker's.
  const Exercise* named = o.exercise != nullptr ? o.exercise : exercise_of_name(c.file);
  if (named != nullptr && marked != named) {
    const std::string says = marked != nullptr ? marked->id : id;
    c.diagnoses.push_back(
        {"name_mismatch",
         {fmt::format("{} is checked as exercise {} ({}) but its marker line says '// gpulab "
                      "exercise: {}': rename the file or fix the marker",
                      fs::path(c.file).filename().string(), named->number, named->id, says),
          fmt::format("{} 按练习 {}（{}）检查，但标记行写的是 '// gpulab exercise: "
                      "{}'：请重命名文件或改正标记",
                      fs::path(c.file).filename().string(), named->number, named->id, says)}});
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

  // The tests, drawn here; the child gets them as data in a file of its own folder.
  const Plan plan = make_plan(*c.exercise, c.seed, o.draw);
  const std::optional<fs::path> cache = exercise_cache();
  const run::TemporaryFolder io(io_folder(cache));
  const fs::path runner = write_runner(runner_source(*c.exercise), cache ? *cache : io.dir);
  const fs::path in = io.dir / "inputs", out = io.dir / "outputs";
  const bool writers = !o.gpu;
  write_inputs(plan, writers, in);
  {
    std::ofstream touch(out, std::ios::binary);
    if (!touch) throw RuntimeFailure(both("cannot write {}", "无法写入 {}", out.string()));
  }
  fs::permissions(out, fs::perms::owner_read | fs::perms::owner_write);

  RunOptions r;
  r.file = runner.string();
  r.extra_sources = {c.file};
  r.args = {"--in", in.string(), "--out", out.string()};
  // On the emulator: run --check's checks. On a GPU: compute-sanitizer's tools, where installed
  // (bounds, races, barriers, uninitialised reads), each run of the tests under one tool.
  r.check = true;
  r.gpu = o.gpu;
  if (!o.gpu) r.compiler_flags.push_back("-DGPULAB_EXERCISE_EMULATOR");
  // Counter rules (sectors per request, bank conflicts, ...): the emulator's build with gpulab
  // profile's counters as well (the checks and the recorder still run); a GPU cannot count them.
  bool counters = false;
  for (const PlanTest& t : plan.tests) {
    for (const PlanRule& pr : t.rules) counters = counters || is_counter_rule(pr.rule);
  }
  r.profile = counters && !o.gpu;
  r.timeout = o.timeout;
  r.use_cache = o.use_cache;
  r.lang = l;
  // The kernel's printf is kept, bounded, apart from gpulab's own output (and from --json).
  r.capture_output = true;
  r.max_output_bytes = 1u << 20;
  r.keep_report = true;
  r.workers = o.workers;
  if (o.contain) {  // grade: the child sees its inputs and outputs files, nothing else of ours
    r.contain = *o.contain;
    r.contain->readable.push_back(in);
    r.contain->writable.push_back(out);
    r.contain->gpu = o.gpu;
  }
  try {
    c.run = run_program(r);
    c.built = true;
  } catch (const RuntimeFailure& e) {
    c.build_error = e.what();
    for (std::size_t at; (at = c.build_error.find(runner.string())) != std::string::npos;) {
      c.build_error.replace(at, runner.string().size(), "gpulab's runner");
    }
    // A kernel the runner launches that the file does not define (a misnamed or mis-typed
    // kernel): the linker's complaint, in a few lines naming the signature expected.
    for (const std::string& d : kernel_declarations(c.exercise->starter)) {
      const auto open = d.find('(');
      const auto space = d.rfind(' ', open);
      const std::string kname = d.substr(space + 1, open - space - 1);
      if (c.build_error.find("undefined reference to `" + kname + "(") != std::string::npos ||
          c.build_error.find("undefined reference to `" + kname + "'") != std::string::npos ||
          c.build_error.find("undefined reference to `void " + kname + "(") != std::string::npos) {
        const std::string sig = d.substr(0, d.size() - 1);
        const std::string name = fs::path(c.file).filename().string();
        c.build_error = fmt::format(
            "{}: no kernel {} as the exercise asks; it must be:\n  {}\nCheck the kernel's "
            "name and the types of its parameters.",
            name, kname, sig);
        c.diagnoses.push_back(
            {"missing_kernel",
             {c.build_error, fmt::format("{}：没有练习要求的核函数 {}，它必须是：\n  {}\n"
                                         "请检查核函数的名字和参数类型。",
                                         name, kname, sig)}});
        return c;
      }
    }
    c.diagnoses.push_back({"build", {c.build_error, c.build_error}});
    return c;
  }

  // What the kernels stored, as data, against the plan.
  const RunnerOutputs outs = read_outputs(out, plan, writers);
  c.channel_problem = outs.problem;
  c.runner_finished = outs.done && outs.problem.empty();
  const std::vector<std::string> names = buffer_names(plan, text);

  // The report's lines, placed in the test and the launch that made them (the runner marks each;
  // a mark out of the plan's order is a malformed report).
  std::vector<std::vector<std::vector<json>>> placed(plan.tests.size());
  for (std::size_t t = 0; t < plan.tests.size(); ++t) placed[t].resize(plan.tests[t].steps.size());
  std::vector<std::vector<json>> profiled(plan.tests.size());  // each test's "profile" lines
  std::vector<std::uint64_t> pcs;
  {
    long test = -1, step = -1;
    for (const json& line : c.run.report) {
      const std::string ev = line.value(run::report::kEventField, "");
      if (ev == "exercise_test") {
        const long next = line.value("test", -1L);
        if (next != test + 1 || next >= static_cast<long>(plan.tests.size())) {
          c.channel_problem = "the runner's marks are out of order";
          break;
        }
        test = next;
        step = -1;
      } else if (ev == "exercise_step") {
        const long next = line.value("step", -1L);
        if (test < 0 || line.value("test", -1L) != test || next != step + 1 ||
            next >= static_cast<long>(plan.tests[test].steps.size())) {
          c.channel_problem = "the runner's marks are out of order";
          break;
        }
        step = next;
      } else if (ev == run::report::event::profile && step >= 0) {
        profiled[test].push_back(line);
      } else if ((ev == run::report::event::record || ev == run::report::event::finding) &&
                 step >= 0) {
        placed[test][step].push_back(line);
        for (const char* key : {"pc", "other_pc"}) {
          if (line.contains(key) && line[key].is_number())
            pcs.push_back(line[key].get<std::uint64_t>());
        }
      }
    }
  }
  // FILE:LINE of each finding's access, in the student's file.
  const std::vector<std::string> lines = run::source_lines(c.run.program, c.run.file, pcs);
  std::size_t next_line = 0;
  for (auto& test : placed) {
    for (auto& step : test) {
      for (json& line : step) {
        for (const auto& [key, where] : {std::pair{"pc", "where"}, {"other_pc", "other_where"}}) {
          if (!line.contains(key) || !line[key].is_number()) continue;
          line[where] = short_where(lines[next_line++], c.file);
          line.erase(key);
        }
      }
    }
  }
  // The counters of each test's launches, their code addresses as FILE:LINE of the student's file.
  std::vector<std::vector<profile::KernelProfile>> kernels(plan.tests.size());
  if (r.profile) {
    std::vector<std::uint64_t> at;
    for (const auto& test : profiled) {
      for (std::uint64_t pc : profile::profile_addresses(test)) at.push_back(pc);
    }
    const std::vector<std::string> where = run::source_lines(c.run.program, c.run.file, at);
    std::map<std::uint64_t, profile::SourcePlace> places;
    for (std::size_t i = 0; i < at.size() && i < where.size(); ++i)
      places[at[i]] = place_of(short_where(where[i], c.file));
    const auto place = [&](std::uint64_t pc) {
      const auto it = places.find(pc);
      return it == places.end() ? profile::SourcePlace{} : it->second;
    };
    const auto site = [&](const std::string& s) { return place_of(short_where(s, c.file)); };
    for (std::size_t t = 0; t < plan.tests.size(); ++t)
      kernels[t] = profile::read_profiles(profiled[t], place, site);
  }
  for (RunFinding f : c.run.findings) {
    // The emulator's own printf works on host memory (its format buffer, in the C++ library's
    // headers): that is not the student's kernel using host memory, and never fails a check.
    if (f.kind == "host_memory" && f.where.rfind("/usr/", 0) == 0) continue;
    f.where = short_where(f.where, c.file);
    f.other_where = short_where(f.other_where, c.file);
    c.findings.push_back(std::move(f));
  }

  // Each test: its outputs against the reference, its rules, its findings.
  for (std::size_t t = 0; t < plan.tests.size(); ++t) {
    const PlanTest& pt = plan.tests[t];
    TestOutcome o1;
    o1.name = pt.name;
    const TestResult* got = t < outs.tests.size() ? &outs.tests[t] : nullptr;
    bool outputs_ok = got != nullptr;
    if (got != nullptr) {
      o1.ran = !got->steps.empty() && got->steps.size() == pt.steps.size() &&
               got->steps.back().error == 0;
      for (const StepResult& s : got->steps) {
        if (s.error != 0) {
          o1.error = json{{"kernel", pt.steps[s.step].kernel}, {"error", s.error_name}};
          outputs_ok = false;
        }
      }
      for (const PlanExpect& x : pt.expects) {
        if (x.step >= got->steps.size() || got->steps[x.step].error != 0) {
          outputs_ok = false;
          continue;
        }
        const StepResult& s = got->steps[x.step];
        for (const StepOutput& so : s.outputs) {
          if (so.buffer != x.buffer) continue;
          json res = compare(pt, x, so, names, pt.steps[x.step].kernel);
          // The thread that last wrote the first wrong element (the emulator's recorder).
          if (res.contains("index") && !res.value("never_written", false)) {
            const auto i = res["index"].get<std::size_t>();
            if (i < so.writers.size() && so.writers[i] != 0) {
              const auto w = writer_thread(so.writers[i], pt.steps[x.step]);
              res["writer_block"] = {w[0], w[1], w[2]};
              res["writer_thread"] = {w[3], w[4], w[5]};
            }
          }
          outputs_ok = outputs_ok && res.value("pass", false);
          o1.results.push_back(std::move(res));
        }
      }
    }
    for (std::size_t k = 0; k < placed[t].size(); ++k) {
      for (const json& line : placed[t][k]) {
        if (line.value(run::report::kEventField, "") == run::report::event::record) {
          json rec = line;
          rec["step"] = k;
          o1.records.push_back(std::move(rec));
        } else if (!(line.value("kind", "") == "host_memory" &&
                     line.value("where", "").rfind("/usr/", 0) == 0) &&
                   line.value("kind", "") != "leak") {
          json f = line;
          f["step"] = k;
          o1.findings.push_back(std::move(f));
        }
      }
    }
    // The rules, against what the recorder counted in each launch of the test; a launch with no
    // record leaves the test's rules unmeasured (never counted as kept).
    std::size_t launched = 0;
    if (got != nullptr) {
      for (const StepResult& s : got->steps) launched += s.error == 0 ? 1 : 0;
    }
    const bool recorded = o1.ran && o1.records.size() == launched;
    for (const PlanRule& pr : pt.rules) {
      RuleCheck rc;
      rc.rule = pr.rule;
      rc.limit = pr.limit;
      if (is_counter_rule(pr.rule)) {
        // Counted by the emulator under gpulab profile's counters, in every launch of the test;
        // on a GPU (or a test whose launches gave no counters) it is not measured.
        if (!o.gpu && o1.ran && !kernels[t].empty() && profiled[t].size() == launched) {
          rc.counter = profile::check_counter_rule({pr.rule, pr.limit}, kernels[t]);
          rc.measured_known = rc.counter->measured;
          rc.measured = rc.counter->value;
          rc.ok = rc.counter->ok;
        }
      } else if (o.gpu && pr.rule == "uses_shared" && o1.ran) {
        // On a GPU: the kernels' __shared__ arrays (cudaFuncGetAttributes), not each access.
        for (const StepResult& s : got->steps)
          rc.measured = std::max<double>(rc.measured, s.static_shared_bytes);
        rc.measured_known = true;
      } else if (recorded) {
        rc.measured_known = true;
        for (const json& rec : o1.records) {
          double v = 0;
          json w;
          if (rc.rule == "max_global_reads") {
            v = rec.value("max_global_reads", 0.0);
            w = {{"block", rec.value("max_reads_block", json())},
                 {"thread", rec.value("max_reads_thread", json())}};
          } else if (rc.rule == "max_global_writes") {
            v = rec.value("max_global_writes", 0.0);
            w = {{"block", rec.value("max_writes_block", json())},
                 {"thread", rec.value("max_writes_thread", json())}};
          } else if (rc.rule == "uses_shared") {
            v = rec.value("shared_reads", 0.0) + rec.value("shared_writes", 0.0);
          } else if (rc.rule == "max_barriers_per_block") {
            const json g = rec.value("grid", json::array({1, 1, 1}));
            const double blocks = g[0].get<double>() * g[1].get<double>() * g[2].get<double>();
            v = rec.value("barriers", 0.0) / std::max(1.0, blocks);
          }
          if (v >= rc.measured) {
            if (v > rc.measured || rc.who.is_null()) rc.who = w;
            rc.measured = v;
          }
        }
      }
      if (rc.counter) {
        // kept or broken as the counter rule said
      } else if (rc.measured_known) {
        // Shared memory counts when any launch of the test used it (a finishing kernel need not).
        rc.ok = rc.rule == "uses_shared" ? rc.measured >= rc.limit : rc.measured <= rc.limit;
      } else {
        rc.ok = false;
        if (o1.ran && std::find(c.unmeasured_rules.begin(), c.unmeasured_rules.end(), rc.rule) ==
                          c.unmeasured_rules.end())
          c.unmeasured_rules.push_back(rc.rule);
      }
      o1.rules.push_back(rc);
    }
    bool rules_ok = true;
    for (const RuleCheck& rc : o1.rules) rules_ok = rules_ok && (rc.ok || !rc.measured_known);
    o1.pass = o1.ran && outputs_ok && rules_ok && o1.findings.empty();
    c.tests.push_back(std::move(o1));
  }
  // The drawn test's buffers (the drawing maps each access to its element).
  if (o.draw && !outs.tests.empty()) {
    const TestResult& last = outs.tests.back();
    const PlanTest& pt = plan.tests[last.test];
    for (std::size_t b = 0; b < pt.buffers.size(); ++b) {
      c.buffers.push_back({{"name", names[b]},
                           {"address", last.addresses[b]},
                           {"elements", pt.buffers[b].elements},
                           {"element_bytes", 4},
                           {"rows", pt.buffers[b].rows},
                           {"output", pt.buffers[b].output}});
    }
  }

  diagnose(c, Judged{&plan, &outs, names});

  if (o.gpu) {
    // What the emulator's checks find, compute-sanitizer finds on the GPU; without it, bounds and
    // races were not checked and the verdict cannot be "passed".
    if (!c.run.sanitizer_missing.empty()) c.unmeasured_rules.push_back("bounds_and_races");
    for (const auto& san : c.run.sanitizer) {
      if (san.errors < 0) c.unmeasured_rules.push_back("sanitizer_" + san.tool);
    }
  }
  bool tests_pass = !c.tests.empty();
  for (const TestOutcome& t : c.tests) tests_pass = tests_pass && t.pass;
  c.passed = tests_pass && c.runner_finished && c.channel_problem.empty() && c.diagnoses.empty() &&
             c.run.exit_code == 0 && c.run.signal == 0 && !c.run.timed_out;
  if (!c.unmeasured_rules.empty()) {
    // Right outputs are not enough: a rule nothing measured is not kept.
    c.not_verified = c.passed;
    c.passed = false;
  }
  return c;
}

bool is_counter_rule(const std::string& rule) {
  const auto& names = profile::counter_rule_names();
  return std::find(names.begin(), names.end(), rule) != names.end();
}

}  // namespace gpulab::exercise
