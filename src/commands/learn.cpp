// gpulab learn (see learn.hpp).
#include "commands/learn.hpp"

#include <fmt/format.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <iostream>
#include <memory>
#include <optional>

#include "calc/quiz.hpp"
#include "commands/quiz.hpp"
#include "core/error.hpp"
#include "core/input.hpp"
#include "core/layout.hpp"
#include "core/lesson.hpp"
#include "core/parse.hpp"
#include "core/state.hpp"
#include "core/text.hpp"

extern char** environ;

namespace gpulab {
namespace {

std::string lang_code(Lang l) {
  return l == Lang::zh ? "zh" : "en";
}

// Lesson text to the terminal: `code` and **bold** styled, the markers dropped.
std::string style_text(std::string_view text, const Style& st) {
  std::string out;
  std::size_t i = 0;
  while (i < text.size()) {
    if (text.compare(i, 2, "**") == 0) {
      std::size_t end = text.find("**", i + 2);
      if (end != std::string_view::npos &&
          text.substr(i + 2, end - i - 2).find('\n') == std::string_view::npos) {
        out += st.bold(text.substr(i + 2, end - i - 2));
        i = end + 2;
        continue;
      }
    }
    if (text[i] == '`') {
      std::size_t end = text.find('`', i + 1);
      if (end != std::string_view::npos &&
          text.substr(i + 1, end - i - 1).find('\n') == std::string_view::npos) {
        out += st.code(text.substr(i + 1, end - i - 1));
        i = end + 1;
        continue;
      }
    }
    out += text[i++];
  }
  return out;
}

constexpr std::size_t kDemoIndent = 4;  // a demo's output, under the lesson's text

// Runs a demo: this very binary with the lesson's arguments, its output indented into ours.
// `max_lines` (0: no limit) keeps a long output on one screen: its head and tail, and a line
// saying how many lines were left out between them.
int run_demo(const std::vector<std::string>& demo, const GlobalOptions& g, const Style& st,
             std::size_t max_lines) {
  const bool color = st.enabled();
  std::vector<std::string> args = {"/proc/self/exe"};
  args.insert(args.end(), demo.begin(), demo.end());
  args.push_back("--lang");
  args.push_back(lang_code(g.out.lang));
  args.push_back("--color");
  args.push_back(color ? "always" : "never");
  if (g.backend_text != "auto") {
    args.push_back("--backend");
    args.push_back(g.backend_text);
  }
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  flush_stdout();  // a stdout that cannot be written stops the lesson before its first demo
  std::fflush(stderr);
  pid_t pid = 0;
  // The demo's output goes through a pipe and is indented under its command line; the demo lays
  // itself out for the columns that leave (COLUMNS, which it reads first).
  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e) {
    if (!std::string_view(*e).starts_with("COLUMNS=")) env.emplace_back(*e);
  }
  env.push_back(
      fmt::format("COLUMNS={}", std::max(st.width(), kMinWidth + kDemoIndent) - kDemoIndent));
  std::vector<char*> envp;
  for (auto& e : env) envp.push_back(e.data());
  envp.push_back(nullptr);
  int fds[2];
  if (pipe(fds) != 0) return -1;
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fds[1], STDOUT_FILENO);
  posix_spawn_file_actions_addclose(&actions, fds[0]);
  posix_spawn_file_actions_addclose(&actions, fds[1]);
  const int spawned =
      posix_spawn(&pid, "/proc/self/exe", &actions, nullptr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  close(fds[1]);
  if (spawned != 0) {
    close(fds[0]);
    return -1;
  }
  const std::string pad(kDemoIndent, ' ');
  bool line_start = true;
  std::string held;  // the whole output, when it may have to be shortened
  char buffer[4096];
  for (ssize_t n; (n = read(fds[0], buffer, sizeof buffer)) != 0;) {
    if (n < 0) {
      if (errno == EINTR) continue;
      break;
    }
    std::string out;
    for (ssize_t k = 0; k < n; ++k) {
      if (line_start && buffer[k] != '\n') out += pad;
      out += buffer[k];
      line_start = buffer[k] == '\n';
    }
    if (max_lines > 0) {
      held += out;
      continue;
    }
    std::fwrite(out.data(), 1, out.size(), stdout);
    std::fflush(stdout);
  }
  close(fds[0]);
  if (max_lines > 0) {
    std::vector<std::string_view> lines;
    for (std::size_t start = 0; start < held.size();) {
      const std::size_t end = std::min(held.find('\n', start), held.size());
      lines.emplace_back(held.data() + start, end + 1 - start - (end == held.size() ? 1 : 0));
      start = end + 1;
    }
    constexpr std::size_t kTail = 4;  // the verdict ("Verified: ...") usually comes last
    const std::string note = wrap_text(
        fmt::format(fmt::runtime(std::string(
                        tr(g.out.lang,
                           "... {} lines left out to keep this on the screen; the command above "
                           "shows them all",
                           "……为了留在一屏之内省略了 {} 行；运行上面的命令可看到全部"))),
                    lines.size()),
        st.width(), kDemoIndent + 4, kDemoIndent);
    const std::size_t note_lines = 1 + std::count(note.begin(), note.end(), '\n');
    if (lines.size() > max_lines && max_lines > kTail + note_lines + 1) {
      const std::size_t head = max_lines - kTail - note_lines;
      const std::size_t left_out = lines.size() - head - kTail;
      std::string shown;
      for (std::size_t k = 0; k < head; ++k) shown += lines[k];
      // The count is of lines left out, known only now: same digits or fewer than lines.size().
      std::string text = note;
      const std::string all = std::to_string(lines.size());
      text.replace(text.find(all), all.size(), std::to_string(left_out));
      shown += pad + st.dim(text) + "\n";
      for (std::size_t k = lines.size() - kTail; k < lines.size(); ++k) shown += lines[k];
      held = shown;
    }
    std::fwrite(held.data(), 1, held.size(), stdout);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

calc::Question as_quiz_question(const LessonQuestion& lq) {
  calc::Question q;
  q.prompt = lq.text;
  q.answer = lq.answer;
  q.solution = lq.explain;
  double v = 0;
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (true) {
    std::size_t c = lq.answer.find(',', start);
    parts.push_back(lq.answer.substr(start, c == std::string::npos ? c : c - start));
    if (c == std::string::npos) break;
    start = c + 1;
  }
  auto number = [](const std::string& s, double& out) {
    char* end = nullptr;
    out = std::strtod(s.c_str(), &end);
    return !s.empty() && end == s.c_str() + s.size();
  };
  if (parts.size() > 1) {
    q.kind = calc::AnswerKind::tuple;
    for (const auto& p : parts) {
      number(p, v);
      q.values.push_back(v);
    }
  } else if (number(lq.answer, v)) {
    q.kind = lq.tolerance > 0 ? calc::AnswerKind::real : calc::AnswerKind::integer;
    q.values = {v};
    q.tolerance = lq.tolerance;
  } else {
    q.kind = calc::AnswerKind::word;
    q.word = lq.answer;
  }
  return q;
}

// The saved progress, its problems said on stderr (once per command): a damaged file is never a
// reason to stop learning.
SavedProgress load_and_warn() {
  SavedProgress p = load_progress();
  for (const auto& problem : p.problems)
    write_stderr(fmt::format("gpulab: warning: {}\n", problem));
  return p;
}

// A lesson's saved progress, when it has any that fits the lesson (a step past its end is not).
std::optional<LessonProgress> progress_of(const SavedProgress& progress, const Lesson& l) {
  auto it = progress.lessons.find(l.id);
  if (it == progress.lessons.end()) return std::nullopt;
  if (it->second.step >= l.steps.size()) {
    write_stderr(fmt::format(
        "gpulab: warning: saved progress of lesson {} is at step {}, past its {} steps; ignored\n",
        l.id, it->second.step + 1, l.steps.size()));
    return std::nullopt;
  }
  return it->second;
}

std::string status_of(const std::optional<LessonProgress>& p, const Lesson& l, Lang lang) {
  if (!p) return std::string(tr(lang, "new", "未开始"));
  if (p->done) return std::string(tr(lang, "done", "已完成"));
  return fmt::format(fmt::runtime(std::string(tr(lang, "in progress ({}/{})", "学习中（{}/{}）"))),
                     p->step + 1, l.steps.size());
}

void list_lessons(const GlobalOptions& g, const std::vector<Lesson>& lessons) {
  const SavedProgress progress = load_and_warn();
  const Lang l = g.out.lang;
  const Style st = style_for(g.out);
  nlohmann::json arr = nlohmann::json::array();
  Table t({"#", std::string(tr(l, "lesson", "课程")), std::string(tr(l, "steps", "步骤")),
           std::string(tr(l, "status", "状态"))});
  for (const auto& lesson : lessons) {
    const std::optional<LessonProgress> p = progress_of(progress, lesson);
    const std::string status = status_of(p, lesson, l);
    t.add_row({lesson.id.substr(0, lesson.id.find('-')), lesson.title,
               std::to_string(lesson.steps.size()), status});
    arr.push_back({{"id", lesson.id},
                   {"title", lesson.title},
                   {"steps", lesson.steps.size()},
                   {"status", !p        ? "new"
                              : p->done ? "done"
                                        : "in progress"},
                   {"step", p ? p->step : 0}});
  }
  std::string text =
      st.heading(std::string(tr(l, "gpulab lessons", "gpulab 课程"))) + "\n" + t.render(st) + "\n" +
      std::string(tr(l, "  Start one with: gpulab learn <number or name>, e.g. gpulab learn 04\n",
                     "  开始学习：gpulab learn <编号或名称>，例如 gpulab learn 04\n"));
  emit(g, {{"command", "learn"}, {"language", lang_code(l)}, {"lessons", arr}}, text);
}

void save_step(const Lesson& lesson, std::size_t step, bool done) {
  const SaveOutcome saved = save_lesson_progress(lesson.id, {step, done});
  for (const auto& m : saved.messages) write_stderr(fmt::format("gpulab: warning: {}\n", m));
}

// Reads one line (capped: a pasted file is dropped, not held); false at the end of input.
bool read_line(std::string& line, bool* too_long = nullptr) {
  std::fflush(stdout);
  const LineRead read = read_line_capped(std::cin, line);
  if (too_long != nullptr) *too_long = read == LineRead::too_long;
  return read != LineRead::ended;
}

void print_step(const Lesson& lesson, std::size_t i, const Style& st) {
  fmt::print("\n{}\n",
             st.heading(fmt::format("[{}/{}] {}", i + 1, lesson.steps.size(), lesson.title)));
  const auto& step = lesson.steps[i];
  if (!step.text.empty()) fmt::print("{}", lay_out_lesson(style_text(step.text, st), st, 2));
}

void print_demo(const LessonStep& step, const GlobalOptions& g, const Style& st,
                std::size_t max_lines = 0) {
  if (step.demo.empty()) return;
  std::string cmd = "gpulab";
  for (const auto& a : step.demo) cmd += " " + a;
  // Too long for the terminal: continued with " \" as a shell would take it.
  std::string shown = wrap_text("$ " + cmd, st.width() - 2, 6, 2);
  for (std::size_t nl = shown.find('\n'); nl != std::string::npos; nl = shown.find('\n', nl + 3)) {
    shown.insert(nl, " \\");
  }
  fmt::print("\n  {}\n", st.code(shown));
  run_demo(step.demo, g, st, max_lines);
}

// The lines a demo may take while walking a lesson: on a 30-row projector, the step's heading,
// its question and the prompts stay on the screen with the demo's output.
std::size_t demo_lines() {
  const std::size_t rows = terminal_rows();
  return rows == 0 ? 0 : std::max<std::size_t>(rows > 12 ? rows - 12 : 0, 10);
}

// The whole lesson without stopping: a handout, or a script for the projector.
void print_lesson(const Lesson& lesson, const GlobalOptions& g, const Style& st) {
  const Lang l = g.out.lang;
  for (std::size_t i = 0; i < lesson.steps.size(); ++i) {
    print_step(lesson, i, st);
    print_demo(lesson.steps[i], g, st);
    if (const auto& q = lesson.steps[i].question) {
      print_laid_out(
          fmt::format("\n  {} {}\n", st.bold(std::string(tr(l, "Question:", "问题："))), q->text),
          l);
      std::string answer =
          fmt::format("  {} {}", st.bold(std::string(tr(l, "Answer:", "答案："))), q->answer);
      if (!q->explain.empty()) answer += fmt::format(" ({})", q->explain);
      print_laid_out(answer + "\n", l);
    }
  }
  std::fflush(stdout);
}

void walk_lesson(const Lesson& lesson, const GlobalOptions& g, const Style& st, bool restart) {
  const Lang l = g.out.lang;
  std::size_t i = 0;
  // The problems of a damaged file are said by the first save, just below, which sets it aside.
  const std::optional<LessonProgress> p = progress_of(load_progress(), lesson);
  if (!restart && p) {
    if (!p->done) {
      i = p->step;
      if (i > 0) {
        fmt::print("{}\n", st.dim(fmt::format(fmt::runtime(std::string(tr(
                                                  l, "(resuming at step {}; --restart starts over)",
                                                  "（从第 {} 步继续；--restart 从头开始）"))),
                                              i + 1)));
      }
    }
  }
  while (i < lesson.steps.size()) {
    save_step(lesson, i, false);
    print_step(lesson, i, st);
    const LessonStep& step = lesson.steps[i];
    print_demo(step, g, st, demo_lines());
    std::string line;
    if (step.question) {
      print_laid_out(
          fmt::format(
              "\n  {} {}\n  {} ", st.bold("?"), step.question->text,
              st.dim(std::string(tr(l, "your answer (Enter skips) >", "你的答案（回车跳过）>")))),
          l);
      bool too_long = false;
      if (!read_line(line, &too_long)) return;
      if (!line.empty() || too_long) {
        const calc::Question q = as_quiz_question(*step.question);
        calc::Grade gr;
        if (too_long) {
          gr.malformed = true;
          gr.note = too_long_note(l);
        } else {
          gr = calc::grade(q, line);
        }
        if (gr.correct) {
          fmt::print("  {}\n", st.good(std::string(tr(l, "Right.", "正确。"))));
        } else {
          fmt::print(
              "  {} {}\n", st.bad(std::string(tr(l, "Not quite:", "不对："))),
              gr.malformed
                  ? gr.note
                  : fmt::format(fmt::runtime(std::string(tr(l, "the answer is {}", "答案是 {}"))),
                                q.answer));
        }
      }
      print_laid_out(
          fmt::format("  {} {} {}\n", st.dim(std::string(tr(l, "Answer:", "答案："))),
                      step.question->answer,
                      step.question->explain.empty() ? "" : "(" + step.question->explain + ")"),
          l);
    }
    fmt::print("\n  {} ", st.dim(std::string(tr(l, "[Enter] next   b back   q quit >",
                                                "[回车] 下一步   b 上一步   q 退出 >"))));
    if (!read_line(line) || line == "q" || line == "Q") {
      fmt::print("\n{}\n",
                 st.dim(std::string(tr(l, "Saved. Run the same command to go on from here.",
                                       "已保存。再次运行同一命令即可从这里继续。"))));
      return;
    }
    if (line == "b" || line == "B") {
      if (i > 0) --i;
      continue;
    }
    ++i;
  }
  save_step(lesson, lesson.steps.size() - 1, true);
  fmt::print("\n{}\n", st.good(fmt::format(
                           fmt::runtime(std::string(tr(l, "Lesson {} done.", "第 {} 课完成。"))),
                           lesson.id)));
}

}  // namespace

void setup_learn(CLI::App& app, GlobalOptions& g) {
  struct Raw {
    std::string lesson;
    bool no_pause = false, restart = false;
  };
  auto raw = std::make_shared<Raw>();
  CLI::App* sub = add_command(
      app, g, "learn", "The course as lessons: explanation, live demo, check question", [raw, &g] {
        const std::vector<Lesson> lessons = load_lessons(lang_code(g.out.lang));
        if (lessons.empty()) throw RuntimeFailure("this gpulab has no lessons built in");
        if (raw->lesson.empty()) return list_lessons(g, lessons);
        const Lesson* lesson = find_lesson(lessons, raw->lesson);
        if (lesson == nullptr) {
          std::vector<std::string> ids;
          for (const auto& l : lessons) ids.push_back(l.id);
          bad_value("learn", raw->lesson,
                    fmt::format("no such lesson; there are {}", fmt::join(ids, ", ")));
        }
        if (g.out.json) {
          nlohmann::json steps = nlohmann::json::array();
          for (const auto& s : lesson->steps) {
            nlohmann::json j = {{"text", s.text}, {"demo", s.demo}};
            if (s.question)
              j["question"] = {{"text", s.question->text},
                               {"answer", s.question->answer},
                               {"explain", s.question->explain}};
            steps.push_back(j);
          }
          return emit(g,
                      {{"command", "learn"},
                       {"id", lesson->id},
                       {"title", lesson->title},
                       {"steps", steps}},
                      "");
        }
        const Style st = style_for(g.out);
        if (raw->no_pause || isatty(STDIN_FILENO) != 1) return print_lesson(*lesson, g, st);
        walk_lesson(*lesson, g, st, raw->restart);
      });
  sub->add_option("lesson", raw->lesson,
                  "Lesson number or name (e.g. 04 or amdahl); none lists them all")
      ->type_name("LESSON");
  sub->add_flag("--no-pause", raw->no_pause,
                "Print the whole lesson without stopping (a handout or projector script)");
  sub->add_flag("--restart", raw->restart, "Start the lesson from its first step");
}

}  // namespace gpulab
