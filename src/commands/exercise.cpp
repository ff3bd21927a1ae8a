// gpulab exercise (see exercise.hpp): the subcommands, their words and their JSON.
#include "commands/exercise.hpp"

#include <fmt/format.h>

#include <filesystem>
#include <fstream>

#include "core/error.hpp"
#include "core/i18n_format.hpp"
#include "core/parse.hpp"
#include "core/text.hpp"
#include "exercise/draw.hpp"
#include "exercise/plan.hpp"

namespace gpulab {

namespace fs = std::filesystem;
using exercise::Exercise;
using nlohmann::json;

namespace {

const Exercise& find_or_throw(const std::string& id, Lang l) {
  const Exercise* e = exercise::find(id);
  if (e == nullptr) {
    throw UsageError(chosen(both("exercise {}: no such exercise (1 to {}, or an id such as "
                                 "map; gpulab exercise lists them)",
                                 "练习 {}：没有这个练习（1 到 {}，或 map 这样的 id；gpulab "
                                 "exercise 会列出全部）",
                                 id, exercise::all().size())
                                .in(l)));
  }
  return *e;
}

std::string status_word(const SavedProgress& p, const std::string& id, Lang l) {
  const auto it = p.exercises.find(id);
  if (it == p.exercises.end()) return std::string(tr(l, "not started", "未开始"));
  if (it->second.passed) return std::string(tr(l, "passed", "已通过"));
  return both("tried ({} checks)", "尝试中（{} 次检查）", it->second.checks).in(l);
}

}  // namespace

std::string render_exercise_list(const SavedProgress& p, const OutputOptions& out) {
  const Lang l = out.lang;
  const Style st(out.color == ColorMode::always);
  std::string s =
      st.heading(std::string(tr(l, "gpulab exercises: write CUDA kernels, get them checked",
                                "gpulab 练习：编写 CUDA 核函数并得到检查"))) +
      "\n";
  Table t(
      {"#", "id", std::string(tr(l, "exercise", "练习")), std::string(tr(l, "status", "状态"))});
  std::size_t passed = 0;
  for (const Exercise& e : exercise::all()) {
    const std::string status = status_word(p, e.id, l);
    const auto it = p.exercises.find(e.id);
    if (it != p.exercises.end() && it->second.passed) ++passed;
    t.add_row({std::to_string(e.number), e.id, e.title.in(l),
               it != p.exercises.end() && it->second.passed ? st.good(status) : status});
  }
  s += t.render(st);
  s += both(
           "  {} of {} passed. Start one: gpulab exercise start ID; check it: gpulab "
           "exercise check FILE.cu\n",
           "  已通过 {} / {} 个。开始：gpulab exercise start ID；检查：gpulab exercise "
           "check FILE.cu\n",
           passed, exercise::all().size())
           .in(l);
  return s;
}

json exercise_list_json(const SavedProgress& p) {
  json list = json::array();
  for (const Exercise& e : exercise::all()) {
    const auto it = p.exercises.find(e.id);
    list.push_back({{"number", e.number},
                    {"id", e.id},
                    {"title", e.title.en},
                    {"title_zh", e.title.zh},
                    {"lesson", e.lesson},
                    {"checks", it == p.exercises.end() ? 0 : it->second.checks},
                    {"passed", it != p.exercises.end() && it->second.passed}});
  }
  return {{"command", "exercise"}, {"exercises", list}};
}

namespace {

// Tab completion of an exercise's id (gpulab __complete).
std::vector<std::string> exercise_ids() {
  std::vector<std::string> ids;
  for (const Exercise& e : exercise::all()) ids.push_back(e.id);
  return ids;
}

// exercise start: the exercise's starter file written (or kept) in a folder.
struct StartOptions {
  std::string id, dir = ".";
  bool force = false;
};

struct StartResult {
  const Exercise* exercise = nullptr;
  fs::path file;
  bool existed = false, written = false;
};

StartResult run_exercise_start(const StartOptions& o, Lang l) {
  StartResult r;
  r.exercise = &find_or_throw(o.id, l);
  const Exercise& e = *r.exercise;
  const fs::path dir = o.dir;
  if (!fs::is_directory(dir)) {
    throw UsageError(both("--dir {}: not an existing folder", "--dir {}：文件夹不存在", o.dir));
  }
  r.file = fs::absolute(dir / fmt::format("{:02}-{}.cu", e.number, e.id)).lexically_normal();
  r.existed = fs::exists(r.file);
  r.written = !r.existed || o.force;
  if (r.written) {
    std::ofstream out(r.file, std::ios::binary);
    out << exercise::starter_file(e, l);
    if (!out) {
      throw RuntimeFailure(both("cannot write {}", "无法写入 {}", r.file.string()));
    }
  }
  return r;
}

std::string render_exercise_start(const StartResult& r, Lang l) {
  const Exercise& e = *r.exercise;
  const std::string file = r.file.string();
  const std::string text =
      (!r.written ? both("{} already exists: kept as it is (--force writes a fresh "
                         "one).\nEdit it, then: gpulab exercise check {}\n",
                         "{} 已存在：保持不变（--force 重新生成）。\n编辑它，然后：gpulab "
                         "exercise check {}\n",
                         file, file)
                  : both("Wrote {}\nEdit it, then: gpulab exercise check {}\n",
                         "已写入 {}\n编辑它，然后：gpulab exercise check {}\n", file, file))
          .in(l);
  std::string statement =
      fmt::format("\n{}. {}\n\n{}\n", e.number, e.title.in(l), e.statement.in(l));
  if (!e.rules.en.empty()) {
    statement += std::string(tr(l, "\nRules: ", "\n规则：")) + e.rules.in(l) + "\n";
  }
  return text + statement;
}

json exercise_start_json(const StartResult& r, Lang l) {
  const Exercise& e = *r.exercise;
  return {{"command", "exercise start"},    {"exercise", e.id},
          {"file", r.file.string()},        {"written", r.written},
          {"statement", e.statement.in(l)}, {"rules", e.rules.in(l)}};
}

void setup_exercise_start(CLI::App& sub, GlobalOptions& g) {
  const auto [s, start] = add_command<StartOptions>(
      sub, g, "start", {"Write the exercise's .cu file to edit", "生成练习的 .cu 文件供你编辑"},
      [&g](StartOptions& args) {
        const StartResult r = run_exercise_start(args, g.out.lang);
        emit(g, exercise_start_json(r, g.out.lang), render_exercise_start(r, g.out.lang));
      });
  set_completer(
      s->add_option("id", start->id,
                    help_tr(g, "The exercise: its number or id (gpulab exercise lists them)",
                            "练习：编号或 id（gpulab exercise 会列出）"))
          ->required(),
      exercise_ids);
  s->add_option("--dir", start->dir,
                help_tr(g, "The folder to write the .cu file in (default: here)",
                        "写入 .cu 文件的文件夹（默认：当前目录）"))
      ->type_name("DIR");
  s->add_flag("--force", start->force,
              help_tr(g, "Overwrite the file if it exists", "文件已存在时覆盖它"));
}

// exercise check: the options as typed.
struct CheckArgs {
  std::string file, seed, timeout = "60";
  bool draw = false, no_cache = false;
};

exercise::CheckOptions check_options(const CheckArgs& raw, const GlobalOptions& g) {
  exercise::CheckOptions o;
  o.file = raw.file;
  o.lang = g.out.lang;
  o.seed = pick_seed(raw.seed);
  o.draw = raw.draw;
  o.use_cache = !raw.no_cache;
  o.timeout = std::chrono::milliseconds(
      parse_int("--timeout", raw.timeout, 1, 3600, Text{"seconds", "秒"}) * 1000);
  // The checks and the rules need the emulator; a GPU is used only when asked for by name.
  if (g.backend_text == "gpu") {
    std::string notice;
    o.gpu = gpu_chosen(g.backend, &notice, g.out.lang);
  }
  if (o.draw && o.gpu) {
    throw UsageError("--draw needs the emulator (--backend cpu): only it records each access",
                     "--draw 需要模拟器（--backend cpu）：只有它能记录每次访问");
  }
  return o;
}

void setup_exercise_check(CLI::App& sub, GlobalOptions& g) {
  const auto [c, check] = add_command<CheckArgs>(
      sub, g, "check",
      {"Compile, test and explain your exercise file", "编译、测试并讲解你的练习文件"},
      [&g](CheckArgs& args) {
        const exercise::CheckOptions o = check_options(args, g);
        const exercise::CheckResult r = exercise::check_file(o);
        std::string text = exercise::render_check(r, g.out);
        json j = exercise::check_json(r);
        if (o.draw) {
          text += exercise::render_drawing(r, g.out);
          j["drawing"] = exercise::drawing_json(r);
        }
        const SaveOutcome saved = save_exercise_check(r.exercise->id, r.passed);
        for (const Text& m : saved.messages) write_stderr("gpulab: " + m.in(g.out.lang) + "\n");
        emit(g, j, text);
        if (!r.passed) throw ExitCode(kExitFailure);
      });
  add_program_file(c, g, "file", check->file,
                   {"Your exercise file (.cu), as exercise start wrote it",
                    "你的练习文件（.cu），即 exercise start 生成的文件"});
  c->add_option(
       "--seed", check->seed,
       help_tr(g, "Repeat the random inputs of an earlier check", "重复之前某次检查的随机输入"))
      ->type_name("N");
  c->add_flag(
      "--draw", check->draw,
      help_tr(g, "Run only the small test and draw which thread read and wrote each element",
              "只运行小规模测试，并画出每个元素由哪个线程读写"));
  c->add_option("--timeout", check->timeout,
                help_tr(g, "Stop the tests after this many seconds (default 60)",
                        "测试超过这么多秒就停止（默认 60）"))
      ->type_name("SECONDS");
  c->add_flag(
      "--no-cache", check->no_cache,
      help_tr(g, "Compile again even if a cached build exists", "即使有缓存的构建也重新编译"));
}

// exercise hint ID N: the exercise's N-th hint.
struct HintOptions {
  std::string id, level = "1";
};

struct HintResult {
  const Exercise* exercise = nullptr;
  std::size_t n = 0;  // from 1
};

HintResult run_exercise_hint(const HintOptions& o, Lang l) {
  HintResult r;
  r.exercise = &find_or_throw(o.id, l);
  const Exercise& e = *r.exercise;
  // Every exercise has hints (a test holds it); N is checked against their count.
  const auto count = static_cast<std::int64_t>(e.hints.size());
  const std::int64_t n64 = parse_int("N", o.level, 1, INT64_MAX);
  if (n64 > count) {
    throw UsageError(both("hint {}: exercise {} has {} hints", "hint {}：练习 {} 只有 {} 条提示",
                          n64, e.id, count));
  }
  r.n = static_cast<std::size_t>(n64);
  return r;
}

std::string render_exercise_hint(const HintResult& r, Lang l) {
  const Exercise& e = *r.exercise;
  const std::size_t n = r.n;
  std::string text = both("Hint {} of {} for {}. {}:\n  {}\n", "{2}. {3} 的提示 {0}/{1}：\n  {4}\n",
                          n, e.hints.size(), e.number, e.title.in(l), e.hints[n - 1].in(l))
                         .in(l);
  if (n < e.hints.size()) {
    text += both("More: gpulab exercise hint {} {}\n", "更多：gpulab exercise hint {} {}\n", e.id,
                 n + 1)
                .in(l);
  }
  return text;
}

json exercise_hint_json(const HintResult& r, Lang l) {
  const Exercise& e = *r.exercise;
  return {{"command", "exercise hint"},
          {"exercise", e.id},
          {"hint", r.n},
          {"hints", e.hints.size()},
          {"text", e.hints[r.n - 1].in(l)}};
}

void setup_exercise_hint(CLI::App& sub, GlobalOptions& g) {
  const auto [h, hint] = add_command<HintOptions>(
      sub, g, "hint",
      {"A hint for an exercise (hint ID 2: the next one)", "某个练习的提示（hint ID 2：下一条）"},
      [&g](HintOptions& args) {
        const HintResult r = run_exercise_hint(args, g.out.lang);
        emit(g, exercise_hint_json(r, g.out.lang), render_exercise_hint(r, g.out.lang));
      });
  set_completer(
      h->add_option("id", hint->id, help_tr(g, "The exercise: its number or id", "练习：编号或 id"))
          ->required(),
      exercise_ids);
  h->add_option("level", hint->level,
                help_tr(g, "Which hint (1 = the gentlest)", "第几条提示（1 = 最温和的）"))
      ->type_name("N");
}

// exercise solution ID: the reference solution, where this edition holds one.
const Exercise& run_exercise_solution(const std::string& id, Lang l) {
  const Exercise& e = find_or_throw(id, l);
  if (e.solution.empty()) {
    // The student edition (GPULAB_STUDENT_EDITION), or a teacher's exercise without one.
    throw RuntimeFailure(
        e.student_edition
            ? both("exercise {}: this gpulab is the student edition: it holds no reference "
                   "solutions (nor the last hints); your teacher's edition has them",
                   "练习 {}：这是 gpulab 的学生版，不含参考答案（也不含最后一条提示）；"
                   "教师版才有",
                   e.id)
            : both("exercise {}: its file has no @@ solution section",
                   "练习 {}：它的文件没有 @@ solution 部分", e.id));
  }
  return e;
}

void setup_exercise_solution(CLI::App& sub, GlobalOptions& g) {
  const auto [so, solution] = add_command<std::string>(
      sub, g, "solution", {"The reference solution (for teachers)", "参考答案（供教师使用）"},
      [&g](std::string& id) {
        const Exercise& e = run_exercise_solution(id, g.out.lang);
        emit(g, {{"command", "exercise solution"}, {"exercise", e.id}, {"solution", e.solution}},
             e.solution);
      });
  set_completer(so->add_option("id", *solution,
                               help_tr(g, "The exercise: its number or id", "练习：编号或 id"))
                    ->required(),
                exercise_ids);
}

}  // namespace

void setup_exercise(CLI::App& app, GlobalOptions& g) {
  CLI::App* sub = app.add_subcommand(
      "exercise",
      help_tr(
          g,
          "Graded CUDA exercises: list them, start one (a .cu file to edit), check it, get a hint",
          "CUDA 练习并自动评分：列出练习、开始一个（生成待编辑的 .cu 文件）、检查、获取提示"));
  sub->require_subcommand(0, 1);
  // A teacher's own exercises, from a folder in the same format (docs/exercise.md), for every
  // exercise command: loaded and checked before the command runs.
  auto teacher_dir = std::make_shared<std::string>();
  sub->add_option("--exercises", *teacher_dir,
                  help_tr(g, "A folder of your own exercises (NN-ID.txt; else $GPULAB_EXERCISES)",
                          "你自己的练习所在的文件夹（NN-ID.txt；否则用 $GPULAB_EXERCISES）"))
      ->type_name("DIR");
  sub->fallthrough();
  sub->parse_complete_callback([teacher_dir] {
    if (!teacher_dir->empty()) exercise::use_teacher_folder(*teacher_dir);
    exercise::check_teacher_exercises();
  });
  sub->callback([sub, &g] {
    if (!sub->get_subcommands().empty()) return;
    finish_global_options(g);
    const SavedProgress p = load_progress();
    emit(g, exercise_list_json(p), render_exercise_list(p, g.out));
  });
  add_command(*sub, g, "list",
              help_tr(g, "List the exercises and your progress", "列出练习和你的进度"), [&g] {
                const SavedProgress p = load_progress();
                emit(g, exercise_list_json(p), render_exercise_list(p, g.out));
              });
  setup_exercise_start(*sub, g);
  setup_exercise_check(*sub, g);
  setup_exercise_hint(*sub, g);
  setup_exercise_grade(*sub, g);
  setup_exercise_solution(*sub, g);
}

}  // namespace gpulab
