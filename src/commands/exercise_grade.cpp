// gpulab exercise grade (see exercise.hpp and exercise/grade.hpp): its options, its table, and the
// files it writes for Gradescope and JUnit.
#include <fmt/format.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <thread>

#include "commands/exercise.hpp"
#include "core/error.hpp"
#include "core/i18n_format.hpp"
#include "core/parse.hpp"
#include "core/text.hpp"
#include "exercise/grade.hpp"

namespace gpulab {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// Writes `text` to `path` whole or not at all (a file beside it, renamed over it).
void write_whole(const std::string& option, const std::string& path, const std::string& text) {
  const std::string tmp = path + fmt::format(".tmp{}", ::getpid());
  {
    std::ofstream out(tmp, std::ios::binary);
    out << text;
    out.flush();
    if (!out) {
      std::error_code ec;
      fs::remove(tmp, ec);
      throw RuntimeFailure(
          both("{} {}: cannot write the file", "{} {}：无法写入文件", option, path));
    }
  }
  std::error_code ec;
  fs::rename(tmp, path, ec);
  if (ec) {
    fs::remove(tmp, ec);
    throw RuntimeFailure(both("{} {}: cannot write the file", "{} {}：无法写入文件", option, path));
  }
}

// An output file's folder must be there before hours of grading start.
void require_output_path(const std::string& option, const std::string& path) {
  if (path.empty()) return;
  const fs::path p = fs::absolute(path);
  std::error_code ec;
  if (fs::is_directory(p, ec)) {
    throw UsageError(both("{} {}: is a folder; give a file name", "{} {}：这是文件夹；请给出文件名",
                          option, path));
  }
  if (!fs::is_directory(p.parent_path(), ec)) {
    throw UsageError(both("{} {}: the folder {} does not exist", "{} {}：文件夹 {} 不存在", option,
                          path, p.parent_path().string()));
  }
}

std::string short_hash(const std::string& sha) {
  return sha.substr(0, 12);
}

}  // namespace

std::string render_exercise_grade(const exercise::GradeResult& r, const OutputOptions& out) {
  const Lang l = out.lang;
  const Style st(out.color == ColorMode::always);
  std::set<std::string> students;
  for (const auto& row : r.rows) students.insert(row.student);
  std::string s =
      st.heading(say(l, "gpulab exercise grade: {} of {}, seed {}, on the {}",
                     "gpulab exercise grade：{}，{}，随机种子 {}，在{}上",
                     count_noun(l, r.rows.size(), "row", "rows", "行"),
                     count_noun(l, students.size(), "student", "students", "名学生"), r.seed,
                     r.backend == "cuda" ? std::string(tr(l, "GPU", "GPU"))
                                         : std::string(tr(l, "emulator", "模拟器")))) +
      "\n";
  const auto& lim = r.limits;
  const std::string limits = say(
      l, "{} s per run, {} s of CPU, {} of memory, {} processes",
      "每次运行 {} 秒，CPU {} 秒，内存 {}，{} 个进程", r.timeout.count() / 1000, lim.cpu.count(),
      lim.memory_bytes > 0 ? format_bytes(static_cast<double>(lim.memory_bytes))
                           : std::string(tr(l, "any amount", "不限")),
      lim.processes);
  if (r.containment.mode == "bubblewrap") {
    s += say(l,
             "  Each program contained: bubblewrap (no network, the system read-only, "
             "its own processes and folder); {}.\n",
             "  每个程序都被隔离：bubblewrap（无网络，系统只读，独立的进程和文件夹）；{}。\n",
             limits);
  } else {
    s += say(l,
             "  Each program contained by limits alone ({}; {}): it can "
             "read your files and reach the network.\n",
             "  每个程序只受资源限制（{}；{}）：它能读取你的文件并访问网络。\n", limits,
             r.containment.why_not.in(l));
  }
  Table t({std::string(tr(l, "student", "学生")), "#", std::string(tr(l, "exercise", "练习")),
           std::string(tr(l, "verdict", "结果")), std::string(tr(l, "tests", "测试")),
           std::string(tr(l, "why", "原因")), "sha256"});
  for (const auto& row : r.rows) {
    std::size_t passed = 0;
    for (const auto& test : row.tests) passed += test.pass ? 1 : 0;
    const std::string verdict = exercise::verdict_words(row.verdict).in(l);
    std::string why;
    for (const auto& d : row.diagnoses) {
      if (why.empty() || d.mistake.rfind("limit_", 0) == 0) why = d.mistake;
    }
    t.add_row({row.student, row.number > 0 ? std::to_string(row.number) : "-",
               row.exercise.empty() ? fs::path(row.file).filename().string() : row.exercise,
               row.verdict == "passed" ? st.good(verdict) : st.bad(verdict),
               row.tests.empty() ? "-" : fmt::format("{}/{}", passed, row.tests.size()), why,
               short_hash(row.source_sha256)});
  }
  s += t.render(st);
  // What went wrong, one line per row that did not pass: its first explanation.
  bool any = false;
  for (const auto& row : r.rows) {
    if (row.verdict == "passed" || row.diagnoses.empty()) continue;
    if (!any) s += st.bad(std::string(tr(l, "What went wrong:", "问题所在："))) + "\n";
    any = true;
    const auto& d = row.diagnoses.front();
    std::string text = d.text.in(l);
    if (const auto nl = text.find('\n'); nl != std::string::npos) text.resize(nl);
    s += fmt::format("  - {} {}{}{}\n", row.student,
                     row.file.empty() ? row.exercise : fs::path(row.file).filename().string(),
                     tr(l, ": ", "："), text);
  }
  std::map<std::string, std::size_t> counts;
  for (const auto& row : r.rows) ++counts[row.verdict];
  std::string others;
  for (const char* v : {"failed", "not_verified", "refused", "missing", "not_graded"}) {
    if (counts[v] == 0) continue;
    others += fmt::format("{}{} {}", others.empty() ? "" : tr(l, ", ", "，"), counts[v],
                          exercise::verdict_words(v).in(l));
  }
  s += say(l, "  {} of {} passed{}{} in {:.1f} s with {} at once (gpulab {}).\n",
           "  通过 {} / {}{}{}，用时 {:.1f} 秒，同时运行 {} 个（gpulab {}）。\n", r.passed(),
           r.rows.size(), others.empty() ? "" : std::string(tr(l, "; ", "；")), others, r.seconds,
           r.jobs, r.version);
  s += std::string(
      tr(l,
         "  Every test and explanation: --json; for Gradescope: --gradescope FILE; "
         "for CI: --junit FILE.\n",
         "  每个测试和讲解：--json；Gradescope：--gradescope FILE；CI：--junit FILE。\n"));
  return s;
}

void setup_exercise_grade(CLI::App& exercise_app, GlobalOptions& g) {
  struct GradeRaw {
    std::vector<std::string> paths;
    std::string seed, student, require, jobs, timeout = "60", memory = "4096", sandbox = "auto";
    std::string gradescope, junit;
  };
  const auto [c, raw] = add_command<GradeRaw>(
      exercise_app, g, "grade",
      {"Re-check a class's exercise files from source, each contained (for teachers; "
       "table, --json, --gradescope, --junit)",
       "从源代码重新检查全班的练习文件，每个都隔离运行（供教师使用；表格、--json、"
       "--gradescope、--junit）"},
      [&g](GradeRaw& args) {
        const Lang l = g.out.lang;
        exercise::GradeOptions o;
        o.seed = pick_seed(args.seed);
        o.lang = l;
        const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
        o.jobs = args.jobs.empty() ? cores
                                   : static_cast<unsigned>(parse_int("--jobs", args.jobs, 1, 1024));
        o.timeout = std::chrono::milliseconds(
            parse_int("--timeout", args.timeout, 1, 3600, Text{"seconds", "秒"}) * 1000);
        const std::int64_t memory =
            parse_int("--memory", args.memory, 64, 1 << 20, Text{"MiB", "MiB"});
        const std::string sandbox =
            parse_choice("--sandbox", args.sandbox, {"auto", "bubblewrap", "limits"});
        if (g.backend_text == "gpu") {
          std::string notice;
          o.gpu = gpu_chosen(g.backend, &notice, l);
        }
        std::vector<const exercise::Exercise*> required;
        if (!args.require.empty()) {
          std::size_t at = 0;
          while (at <= args.require.size()) {
            auto comma = args.require.find(',', at);
            if (comma == std::string::npos) comma = args.require.size();
            const std::string id = args.require.substr(at, comma - at);
            at = comma + 1;
            const exercise::Exercise* e = exercise::find(id);
            if (e == nullptr) {
              throw UsageError(both("--require {}: no exercise {} (gpulab exercise lists them)",
                                    "--require {}：没有练习 {}（gpulab exercise 会列出全部）",
                                    args.require, id.empty() ? "''" : id));
            }
            if (std::find(required.begin(), required.end(), e) == required.end())
              required.push_back(e);
          }
        }
        require_output_path("--gradescope", args.gradescope);
        require_output_path("--junit", args.junit);
        o.submissions = exercise::find_submissions(args.paths, args.student, required);
        if (!args.gradescope.empty()) {
          std::set<std::string> students;
          for (const auto& s : o.submissions) students.insert(s.student);
          if (students.size() > 1) {
            throw UsageError(both(
                "--gradescope writes one student's results.json, and the paths hold {} students "
                "({}, ...): grade one submission, or name it with --student",
                "--gradescope 只写一名学生的 results.json，而这些路径包含 {} 名学生（{} 等）："
                "请只评一份提交，或用 --student 指定学生",
                students.size(), *students.begin()));
          }
        }
        o.hidden = args.paths;
        run::ContainLimits& lim = o.limits;
        lim.sandbox = sandbox == "bubblewrap" ? run::ContainLimits::Sandbox::bubblewrap
                      : sandbox == "limits"   ? run::ContainLimits::Sandbox::limits
                                              : run::ContainLimits::Sandbox::automatic;
        // CPU time: every thread of the emulator counts, and it may use all its workers.
        const unsigned jobs = std::max<unsigned>(
            1, std::min<unsigned>(o.jobs, static_cast<unsigned>(o.submissions.size())));
        const unsigned workers = std::max(1u, cores / jobs);
        lim.cpu = std::chrono::seconds(o.timeout.count() / 1000 * workers + 5);
        lim.memory_bytes = static_cast<std::uint64_t>(memory) << 20;
        lim.file_bytes = 256u << 20;
        lim.processes = 32;

        const exercise::GradeResult r = exercise::grade(o);
        if (!args.gradescope.empty()) {
          write_whole("--gradescope", args.gradescope,
                      exercise::gradescope_json(r, l).dump(2) + "\n");
        }
        if (!args.junit.empty()) write_whole("--junit", args.junit, exercise::junit_xml(r, l));
        emit(g, exercise::grade_json(r), render_exercise_grade(r, g.out));
        if (r.rows.empty() || r.passed() != r.rows.size()) throw ExitCode(kExitFailure);
      });
  c->add_option("path", raw->paths,
                help_tr(g,
                        "Submissions: a folder with a folder per student, a student's folder, or "
                        "NN-ID.cu files",
                        "提交：每名学生一个文件夹的文件夹、一名学生的文件夹，或 NN-ID.cu 文件"))
      ->required()
      ->type_name("PATH");
  c->add_option(
       "--seed", raw->seed,
       help_tr(g, "The inputs' seed, one for the whole class (default: a fresh one, shown)",
               "输入的随机种子，全班共用一个（默认：新取一个并显示）"))
      ->type_name("N");
  c->add_option("--student", raw->student,
                help_tr(g, "Every file found is this student's (Gradescope, one repository)",
                        "找到的所有文件都属于这名学生（Gradescope、单个仓库）"))
      ->type_name("NAME");
  c->add_option("--require", raw->require,
                help_tr(g, "Exercises every student must hand in: a row for each one missing",
                        "每名学生都必须提交的练习：每缺一个就有一行"))
      ->type_name("ID,...");
  c->add_option("--jobs", raw->jobs,
                help_tr(g, "Files checked at once (default: the number of cores)",
                        "同时检查的文件数（默认：CPU 核数）"))
      ->type_name("N");
  c->add_option("--timeout", raw->timeout,
                help_tr(g, "Stop each file's tests after this many seconds (default 60)",
                        "每个文件的测试超过这么多秒就停止（默认 60）"))
      ->type_name("SECONDS");
  c->add_option("--memory", raw->memory,
                help_tr(g, "Address space of each student's program, in MiB (default 4096)",
                        "每个学生程序的地址空间，单位 MiB（默认 4096）"))
      ->type_name("MIB");
  c->add_option("--sandbox", raw->sandbox,
                help_tr(g,
                        "auto: bubblewrap where it works, else limits alone; bubblewrap: required; "
                        "limits: limits alone",
                        "auto：能用 bubblewrap 就用，否则只用资源限制；bubblewrap：必须使用；"
                        "limits：只用资源限制"))
      ->type_name("auto|bubblewrap|limits");
  c->add_option("--gradescope", raw->gradescope,
                help_tr(g, "Write Gradescope's results.json here (one student)",
                        "把 Gradescope 的 results.json 写到这里（一名学生）"))
      ->type_name("FILE");
  c->add_option("--junit", raw->junit,
                help_tr(g, "Write JUnit XML here (GitHub Classroom, CI)",
                        "把 JUnit XML 写到这里（GitHub Classroom、CI）"))
      ->type_name("FILE");
}

}  // namespace gpulab
