// gpulab learn (see learn.hpp).
#include "commands/learn.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>

#include "backend/backend.hpp"
#include "calc/quiz.hpp"
#include "commands/quiz.hpp"
#include "core/error.hpp"
#include "core/i18n_format.hpp"
#include "core/input.hpp"
#include "core/layout.hpp"
#include "core/lesson.hpp"
#include "core/parse.hpp"
#include "core/process.hpp"
#include "core/state.hpp"
#include "core/text.hpp"

namespace gpulab {
namespace {

std::string lang_code(Lang l) {
  return l == Lang::zh ? "zh" : "en";
}

// Lesson text to the terminal: `code` and **bold** styled, the markers dropped. A span may go
// over a line break (never over a blank line); `code` inside bold text is bold, its backticks
// dropped too. Code blocks (lines indented 4 or more) are kept as written.
std::string style_text(std::string_view text, const Style& st) {
  auto span_end = [&](std::size_t from, std::string_view mark) {
    const std::size_t end = text.find(mark, from);
    if (end == std::string_view::npos) return end;
    const std::string_view inside = text.substr(from, end - from);
    if (inside.empty() || inside.find("\n\n") != std::string_view::npos)
      return std::string_view::npos;
    // A code block line inside the span: not a span.
    for (std::size_t nl = inside.find('\n'); nl != std::string_view::npos;
         nl = inside.find('\n', nl + 1)) {
      if (inside.substr(nl + 1).starts_with("    ")) return std::string_view::npos;
    }
    return end;
  };
  auto without_backticks = [](std::string_view s) {
    std::string out;
    for (char c : s)
      if (c != '`') out += c;
    return out;
  };
  std::string out;
  std::size_t i = 0;
  bool line_start = true;
  while (i < text.size()) {
    if (line_start && text.substr(i).starts_with("    ")) {  // a code line: as written
      const std::size_t nl = std::min(text.find('\n', i), text.size());
      out += text.substr(i, nl - i);
      i = nl;
      line_start = false;
      continue;
    }
    line_start = false;
    if (text.compare(i, 2, "**") == 0) {
      const std::size_t end = span_end(i + 2, "**");
      if (end != std::string_view::npos) {
        out += st.bold(without_backticks(text.substr(i + 2, end - i - 2)));
        i = end + 2;
        continue;
      }
    }
    if (text[i] == '`') {
      const std::size_t end = span_end(i + 1, "`");
      if (end != std::string_view::npos) {
        out += st.code(text.substr(i + 1, end - i - 1));
        i = end + 1;
        continue;
      }
    }
    if (text[i] == '\n') line_start = true;
    out += text[i++];
  }
  return out;
}

constexpr std::size_t kDemoIndent = 4;  // a demo's output, under the lesson's text

// The terminal's rows (a projector shows 30 or so): LINES, else the terminal's own size, else 30.
int screen_rows() {
  const std::size_t rows = terminal_rows();
  return rows > 0 ? static_cast<int>(rows) : 30;
}

// A handout's demos are the same every time it is printed: the demo data comes from this seed
// (given to each demo whose command takes --seed and that sets none) and the emulator runs one
// block at a time, so that printf lines come in one order. Unset for a walked lesson.
struct DemoSeed {
  std::optional<std::string> seed;
  std::vector<std::string> seeded_commands;  // the commands that take --seed
};
DemoSeed& demo_seed() {
  static DemoSeed s;
  return s;
}

// Runs a demo: this very binary with the lesson's arguments; stdout then stderr come back.
std::string run_demo(const std::vector<std::string>& demo, const GlobalOptions& g, bool color) {
  ProcessSpec spec;
  spec.argv = {"/proc/self/exe"};
  spec.argv.insert(spec.argv.end(), demo.begin(), demo.end());
  auto has = [&demo](std::string_view arg) {
    return std::find(demo.begin(), demo.end(), arg) != demo.end();
  };
  if (const DemoSeed& ds = demo_seed(); ds.seed && !demo.empty()) {
    const auto& cmds = ds.seeded_commands;
    // warp-hiding's --seed is --measure's (its calculator has no random data).
    const bool seeded = std::find(cmds.begin(), cmds.end(), demo.front()) != cmds.end() &&
                        (demo.front() != "warp-hiding" || has("--measure"));
    if (seeded && !has("--seed")) {
      spec.argv.emplace_back("--seed");
      spec.argv.push_back(*ds.seed);
    }
    if (!has("--emu-threads")) {
      spec.argv.emplace_back("--emu-threads");
      spec.argv.emplace_back("1");
    }
    spec.env.emplace_back("GPULAB_HIDE_TIMES", "1");  // times print as "?" (core/text)
  }
  for (const char* a :
       {"--lang", g.out.lang == Lang::zh ? "zh" : "en", "--color", color ? "always" : "never"})
    spec.argv.emplace_back(a);
  // With no GPU, each demo would say so on stderr: the lesson asks for the emulator instead, and
  // each demo's heading names it.
  static const bool gpu = probe_gpu().usable;
  if (g.backend_text != "auto" || !gpu) {
    spec.argv.emplace_back("--backend");
    spec.argv.emplace_back(g.backend_text != "auto" ? g.backend_text : "cpu");
  }
  // The demo's output is indented by 4: it is told a terminal 4 columns narrower (on a pipe
  // too, where gpulab lays text out for 80 columns).
  spec.env.emplace_back("COLUMNS", std::to_string(std::max<std::size_t>(output_width(), 24) - 4));
  spec.timeout = std::chrono::minutes(5);
  spec.max_output_bytes = 4 << 20;
  const ProcessResult r = run_process(spec);
  if (!r.started) return fmt::format("gpulab: {}\n", r.start_error);
  std::string out = r.out;
  if (!out.empty() && out.back() != '\n') out += '\n';
  // stderr's lines (a note, an error the lesson shows on purpose) are one line each, as a
  // terminal would wrap them: laid out here like the rest.
  return out + lay_out(r.err, std::max<std::size_t>(output_width(), 24) - 4, g.out.lang);
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

// "gpulab: warning: ..." on stderr, in the user's language.
void warn(Lang lang, const Text& message) {
  write_stderr(fmt::format("gpulab: {}{}\n", tr(lang, "warning: ", "警告："), message.in(lang)));
}

// The saved progress, its problems said on stderr (once per command): a damaged file is never a
// reason to stop learning.
SavedProgress load_and_warn(Lang lang) {
  SavedProgress p = load_progress();
  for (const Text& problem : p.problems) warn(lang, problem);
  return p;
}

// A lesson's saved progress, when it has any that fits the lesson (a step past its end is not).
std::optional<LessonProgress> progress_of(const SavedProgress& progress, const Lesson& l,
                                          Lang lang) {
  auto it = progress.lessons.find(l.id);
  if (it == progress.lessons.end()) return std::nullopt;
  if (it->second.step >= l.steps.size()) {
    warn(lang, both("saved progress of lesson {} is at step {}, past its {} steps; ignored",
                    "第 {} 课保存的进度在第 {} 步，超出了它的 {} 步；已忽略", l.id,
                    it->second.step + 1, l.steps.size()));
    return std::nullopt;
  }
  return it->second;
}

std::size_t question_count(const Lesson& lesson) {
  return static_cast<std::size_t>(std::count_if(lesson.steps.begin(), lesson.steps.end(),
                                                [](const LessonStep& s) { return s.question; }));
}

std::string status_of(const std::optional<LessonProgress>& p, const Lesson& l, Lang lang) {
  if (!p) return std::string(tr(lang, "new", "未开始"));
  if (p->done && p->right && question_count(l) > 0) {
    return say(lang, "done, {}/{} first try", "已完成，首次答对 {}/{}", p->right->size(),
               question_count(l));
  }
  if (p->done) return std::string(tr(lang, "done", "已完成"));
  return say(lang, "in progress ({}/{})", "学习中（{}/{}）", p->step + 1, l.steps.size());
}

void list_lessons(const GlobalOptions& g, const std::vector<Lesson>& lessons) {
  const SavedProgress progress = load_and_warn(g.out.lang);
  const Lang l = g.out.lang;
  const Style st = style_for(g.out);
  nlohmann::json arr = nlohmann::json::array();
  Table t({"#", std::string(tr(l, "lesson", "课程")), std::string(tr(l, "steps", "步骤")),
           std::string(tr(l, "status", "状态"))});
  for (const auto& lesson : lessons) {
    const std::optional<LessonProgress> p = progress_of(progress, lesson, l);
    const std::string status = status_of(p, lesson, l);
    t.add_row({lesson.id.substr(0, lesson.id.find('-')), lesson.title,
               std::to_string(lesson.steps.size()), status});
    arr.push_back({{"id", lesson.id},
                   {"title", lesson.title},
                   {"steps", lesson.steps.size()},
                   {"status", !p        ? "new"
                              : p->done ? "done"
                                        : "in progress"},
                   {"step", p ? p->step : 0},
                   {"questions", question_count(lesson)},
                   {"right", p && p->right ? nlohmann::json(p->right->size()) : nlohmann::json()}});
  }
  std::string text =
      st.heading(std::string(tr(l, "gpulab lessons", "gpulab 课程"))) + "\n" + t.render(st) + "\n" +
      std::string(tr(l, "  Start one with: gpulab learn <number or name>, e.g. gpulab learn 04\n",
                     "  开始学习：gpulab learn <编号或名称>，例如 gpulab learn 04\n"));
  emit(g, {{"command", "learn"}, {"language", lang_code(l)}, {"lessons", arr}}, text);
}

// One line: what matched (a prefix shared by several lessons) or, for a key that names nothing,
// every lesson and every command a lesson teaches.
[[noreturn]] void refuse_lesson_key(const std::string& key, const LessonLookup& found,
                                    const std::vector<Lesson>& lessons, Lang l) {
  std::vector<std::string> ids;
  if (!found.candidates.empty()) {
    for (const Lesson* c : found.candidates) ids.push_back(c->id);
    throw UsageError(chosen(say(
        l, "learn {}: more than one lesson matches: {}; type more of the name",
        "learn {}：匹配到不止一课：{}；请把名称写得更完整", printable(key), fmt::join(ids, ", "))));
  }
  for (const auto& lesson : lessons) ids.push_back(lesson.id);
  std::vector<std::string> cmds;
  for (const auto& t : taught_commands())
    cmds.push_back(fmt::format("{} ({})", t.command, t.lesson));
  throw UsageError(chosen(
      say(l, "learn {}: no lesson has that number, name or command; lessons: {}; commands: {}",
          "learn {}：没有这个编号、名称或命令的课程；课程：{}；命令：{}",
          key.empty() ? "''" : printable(key), fmt::join(ids, ", "), fmt::join(cmds, ", "))));
}

void save_step(const Lesson& lesson, const LessonProgress& progress, Lang lang) {
  const SaveOutcome saved = save_lesson_progress(lesson.id, progress);
  for (const Text& m : saved.messages) warn(lang, m);
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

// Whether a line is only whitespace (and colour codes).
bool blank_line(std::string_view line) {
  return line.find_first_not_of(" \t\r") == std::string_view::npos;
}

// A step's demo, indented under its command line. `max_lines` > 0 caps it (the question below
// must stay on the screen) and says how to see the rest.
// "$ gpulab ..." as typed; too long for the terminal, it goes on with " \" as a shell takes it.
std::string demo_command(const LessonStep& step, const Style& st) {
  std::string shown =
      wrap_text(fmt::format("$ gpulab {}", fmt::join(step.demo, " ")), st.width() - 2, 6, 2);
  for (std::size_t nl = shown.find('\n'); nl != std::string::npos; nl = shown.find('\n', nl + 3)) {
    shown.insert(nl, " \\");
  }
  return st.code(shown);
}

void print_demo(const LessonStep& step, const GlobalOptions& g, const Style& st,
                std::size_t max_lines) {
  if (step.demo.empty()) return;
  const std::string cmd = fmt::format("gpulab {}", fmt::join(step.demo, " "));
  fmt::print("\n  {}\n", demo_command(step, st));
  flush_stdout();  // a stdout that cannot be written stops the lesson before its first demo
  if (demo_seed().seed &&
      (std::find(step.demo.begin(), step.demo.end(), "--measure") != step.demo.end() ||
       std::find(step.demo.begin(), step.demo.end(), "--bench") != step.demo.end())) {
    // A measurement is different at every run: a handout, the same sheet at every printing,
    // shows where to see it.
    fmt::print(
        "    {}\n",
        st.dim(wrap_text(std::string(tr(g.out.lang,
                                        "(a measurement: its numbers change from run to "
                                        "run; run it to see them)",
                                        "（这是一次测量：每次运行数字都不同；运行它来查看）")),
                         st.width(), 4, 4)));
    return;
  }
  std::string out = run_demo(step.demo, g, st.enabled());
  std::vector<std::string_view> lines;
  for (std::size_t start = 0; start < out.size();) {
    std::size_t nl = out.find('\n', start);
    if (nl == std::string::npos) nl = out.size();
    lines.emplace_back(out.data() + start, nl - start);
    start = nl + 1;
  }
  while (!lines.empty() && blank_line(lines.back())) lines.pop_back();
  std::size_t shown = lines.size();
  if (max_lines > 0 && lines.size() > max_lines) shown = max_lines - 1;
  std::string text;
  for (std::size_t i = 0; i < shown; ++i) {
    if (!blank_line(lines[i])) text += "    ";
    text += lines[i];
    text += '\n';
  }
  if (shown < lines.size()) {
    const std::size_t more = lines.size() - shown;
    const std::string note = say(g.out.lang, "... {} more {}: run `{}` to see it all",
                                 "……还有 {} {}：运行 `{}` 查看全部", more,
                                 g.out.lang == Lang::zh ? "行"
                                 : more == 1            ? "line"
                                                        : "lines",
                                 cmd);
    text += "    " + st.dim(wrap_text(note, st.width(), 8, 4)) + "\n";
  }
  fmt::print("{}", text);
}

// A label before a value: "Answer: " in English, "答案：" in Chinese (no space after full-width
// punctuation).
std::string label(Lang l, std::string_view en, std::string_view zh, const Style& st) {
  return l == Lang::zh ? st.bold(zh) : st.bold(en) + " ";
}

// The whole lesson without stopping: a handout (blanks for the answers) or, with `answers`, the
// teacher's copy (each answer and its worked solution beside its question).
void print_lesson(const Lesson& lesson, const GlobalOptions& g, const Style& st, bool answers) {
  const Lang l = g.out.lang;
  if (answers) {
    fmt::print(
        "{}\n",
        st.dim(std::string(tr(l, "(teacher's copy: with the answers)", "（教师版：含答案）"))));
  }
  int number = 0;
  for (std::size_t i = 0; i < lesson.steps.size(); ++i) {
    print_step(lesson, i, st);
    const LessonStep& step = lesson.steps[i];
    if (!step.question) print_demo(step, g, st, 0);
    if (const auto& q = step.question) {
      ++number;
      print_laid_out(fmt::format("\n  {}{}\n",
                                 label(l, fmt::format("Question {}:", number),
                                       fmt::format("问题 {}：", number), st),
                                 q->text),
                     l);
      if (answers) {
        print_laid_out(fmt::format("  {}{}{}\n", label(l, "Answer:", "答案：", st), q->answer,
                                   q->explain.empty() ? "" : "  (" + q->explain + ")"),
                       l);
      } else {
        fmt::print("  {}____________\n", label(l, "Your answer:", "你的答案：", st));
      }
      // After its question, as in a walked lesson. On the student's handout only the command:
      // the output would answer the question on the same page.
      if (!step.demo.empty() && !answers) {
        fmt::print("\n  {}\n    {}\n", demo_command(step, st),
                   st.dim(std::string(tr(l, "(run it after answering)", "（答完后再运行）"))));
      } else {
        print_demo(step, g, st, 0);
      }
    }
  }
  std::fflush(stdout);
}

// How many tries a check question gets before its answer is shown.
constexpr int kTries = 2;

// right: at the first try, the only answer a score counts; right_later: at a later try.
enum class Asked { right, right_later, shown, quit };

// Asks a step's question until it is answered right, its tries are used up, Enter skips it or q
// quits. A malformed answer costs no try. The answer is said once, and never after q.
Asked ask_question(const LessonQuestion& lq, Lang l, const Style& st) {
  // Feedback is laid out as the lesson is: wrapped at words, Chinese between characters.
  auto say_laid_out = [l]<class... Args>(fmt::format_string<Args...> format, Args&&... args) {
    print_laid_out(fmt::format(format, std::forward<Args>(args)...), l);
  };
  print_laid_out(fmt::format("\n  {} {}\n  {}\n", st.bold("?"), lq.text,
                             st.dim(say(l, "({} tries; Enter shows the answer; q quits)",
                                        "（可以试 {} 次；回车显示答案；q 退出）", kTries))),
                 l);
  const calc::Question q = as_quiz_question(lq);
  const std::string explain = lq.explain.empty() ? ""
                              : l == Lang::zh    ? "（" + lq.explain + "）"
                                                 : " (" + lq.explain + ")";
  const std::string_view sep = l == Lang::zh ? "" : " ";  // none after full-width punctuation
  int tries = 0;
  while (true) {
    fmt::print("  {} ", st.dim(std::string(tr(l, "your answer >", "你的答案 >"))));
    std::string line;
    bool too_long = false;
    if (!read_line(line, &too_long)) return Asked::quit;
    if (line == "q" || line == "Q") return Asked::quit;
    if (line.empty() && !too_long) {
      print_laid_out(
          fmt::format("  {}{}{}\n", label(l, "Answer:", "答案：", st), lq.answer, explain), l);
      return Asked::shown;
    }
    calc::Grade gr;
    if (too_long) {
      gr.malformed = true;
      gr.note = too_long_note(l);
    } else {
      gr = calc::grade(q, line, l);
    }
    if (gr.malformed) {
      say_laid_out("  {}{}{}\n",
                   st.bad(std::string(tr(l, "Could not read that:", "无法读取这个答案："))), sep,
                   say(l, "{}; try again (no try used)", "{}；请重新输入（不计次数）", gr.note));
      continue;
    }
    if (gr.correct) {
      say_laid_out("  {}{}\n", st.good(std::string(tr(l, "Right.", "正确。"))), explain);
      return tries == 0 ? Asked::right : Asked::right_later;
    }
    if (++tries < kTries) {
      const int left = kTries - tries;
      say_laid_out("  {}{}{}\n", st.bad(std::string(tr(l, "Not quite.", "不对。"))), sep,
                   left == 1
                       ? say(l, "Try once more ({} try left).", "再试一次（还剩 {} 次）。", left)
                       : say(l, "Try again ({} tries left).", "再试一次（还剩 {} 次）。", left));
      continue;
    }
    say_laid_out("  {} {}{}\n",
                 st.bad(std::string(tr(l, "Not quite. The answer is", "不对。答案是"))), lq.answer,
                 explain);
    return Asked::shown;
  }
}

void walk_lesson(const Lesson& lesson, const std::vector<Lesson>& lessons, const GlobalOptions& g,
                 const Style& st, bool restart) {
  const Lang l = g.out.lang;
  std::size_t i = 0;
  std::vector<std::size_t> right;
  // The problems of a damaged file are said by the first save, just below, which sets it aside.
  const std::optional<LessonProgress> p = progress_of(load_progress(), lesson, l);
  if (!restart && p && !p->done) {
    i = p->step;
    right = p->right.value_or(std::vector<std::size_t>{});
    if (i > 0) {
      fmt::print("{}\n", st.dim(say(l, "(resuming at step {}; --restart starts over)",
                                    "（从第 {} 步继续；--restart 从头开始）", i + 1)));
    }
  }
  // The demo is capped so that the question under it stays on the screen.
  const std::size_t demo_lines = static_cast<std::size_t>(std::max(6, screen_rows() - 14));
  auto quit = [&] {
    fmt::print("\n{}\n", st.dim(std::string(tr(l, "Saved. Run the same command to go on from here.",
                                               "已保存。再次运行同一命令即可从这里继续。"))));
  };
  while (i < lesson.steps.size()) {
    save_step(lesson, {i, false, right}, l);
    print_step(lesson, i, st);
    const LessonStep& step = lesson.steps[i];
    // A step's question comes before its demo: predict, then see. A demo shown first would often
    // print the very number the question asks for.
    if (step.question) {
      const Asked a = ask_question(*step.question, l, st);
      if (a == Asked::quit) return quit();
      std::erase(right, i);
      if (a == Asked::right) {
        right.push_back(i);
        std::sort(right.begin(), right.end());
      }
    }
    print_demo(step, g, st, demo_lines);
    fmt::print("\n  {} ", st.dim(std::string(tr(l, "[Enter] next   b back   q quit >",
                                                "[回车] 下一步   b 上一步   q 退出 >"))));
    std::string line;
    if (!read_line(line) || line == "q" || line == "Q") {
      if (step.question) save_step(lesson, {i, false, right}, l);
      return quit();
    }
    if (line == "b" || line == "B") {
      if (i > 0) --i;
      continue;
    }
    ++i;
  }
  save_step(lesson, {lesson.steps.size() - 1, true, right}, l);
  const std::size_t questions = question_count(lesson);
  std::string done =
      say(l, "Lesson {} done.", "第 {} 课完成。", lesson.id.substr(0, lesson.id.find('-')));
  if (questions > 0) {
    // Only first tries count: a second try after "Not quite." is no longer the student's own.
    done +=
        " " + say(l, "Score: {} of {} right at the first try.", "得分：{} 题中第一次就答对 {} 题。",
                  l == Lang::zh ? std::to_string(questions) : std::to_string(right.size()),
                  l == Lang::zh ? std::to_string(right.size())
                                : count_noun(questions, "question", "questions"));
  }
  fmt::print("\n{}\n", st.good(done));
  const auto it = std::find_if(lessons.begin(), lessons.end(),
                               [&](const Lesson& x) { return x.id > lesson.id; });
  if (it != lessons.end()) {
    fmt::print("{}\n", say(l, "Next: gpulab learn {} ({})", "下一课：gpulab learn {}（{}）",
                           it->id.substr(0, it->id.find('-')), it->title));
  } else {
    fmt::print("{}\n", std::string(tr(l,
                                      "That was the last lesson. gpulab quiz asks questions on all "
                                      "of them.",
                                      "这是最后一课。gpulab quiz 会出涵盖所有课程的题目。")));
  }
}

// `learn N --files DIR`: the lesson's files written into DIR (made when missing), never over a
// file that is there (the student's own edits).
void write_lesson_files(const Lesson& lesson, const std::string& dir, const GlobalOptions& g) {
  const Lang l = g.out.lang;
  const std::vector<LessonFile> files = lesson_files(lesson.id);
  const std::string number = lesson.id.substr(0, lesson.id.find('-'));
  nlohmann::json written = nlohmann::json::array(), kept = nlohmann::json::array();
  std::string text;
  if (files.empty()) {
    throw UsageError(chosen(say(l, "learn {} --files: lesson {} has no files to run",
                                "learn {} --files：第 {} 课没有要运行的文件", number, number)));
  }
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) {
    bad_value("--files", dir, both("cannot be made: {}", "无法创建：{}", ec.message()));
  }
  for (const LessonFile& f : files) {
    const std::filesystem::path path = std::filesystem::path(dir) / std::string(f.name);
    if (std::filesystem::exists(path)) {
      kept.push_back(path.string());
      text += say(l, "  kept {} (it is there already)\n", "  保留 {}（已经存在）\n", path.string());
      continue;
    }
    std::ofstream out(path, std::ios::binary);
    out.write(f.data.data(), static_cast<std::streamsize>(f.data.size()));
    out.close();
    if (!out) {
      throw RuntimeFailure(both("cannot write {}", "无法写入 {}", path.string()));
    }
    written.push_back(path.string());
    text += say(l, "  wrote {}\n", "  已写入 {}\n", path.string());
  }
  text += say(l, "Lesson {} says how to run them: gpulab learn {}\n",
              "第 {} 课讲了怎样运行它们：gpulab learn {}\n", number, number);
  emit(g, {{"command", "learn"}, {"id", lesson.id}, {"written", written}, {"kept", kept}}, text);
}

}  // namespace

void setup_learn(CLI::App& app, GlobalOptions& g) {
  struct Raw {
    std::string lesson;
    bool no_pause = false, restart = false, handout = false, answers = false;
    std::string files, seed;
  };
  const auto [sub, raw] = add_command<Raw>(
      app, g, "learn",
      {"The course as lessons: explanation, live demo, check question",
       "以课程形式学习：讲解、现场演示、检查题"},
      [&g, &app](Raw& args) {
        const std::vector<Lesson> lessons = load_lessons(lang_code(g.out.lang));
        if (lessons.empty()) {
          throw RuntimeFailure("this gpulab has no lessons built in", "这个 gpulab 没有内置课程");
        }
        if (args.lesson.empty()) return list_lessons(g, lessons);
        const LessonLookup found = lookup_lesson(lessons, args.lesson);
        if (found.lesson == nullptr) refuse_lesson_key(args.lesson, found, lessons, g.out.lang);
        const Lesson* lesson = found.lesson;
        if (!args.files.empty()) return write_lesson_files(*lesson, args.files, g);
        // A handout hides the answers, in JSON too; --answers is the teacher's copy.
        const bool handout = args.handout || args.no_pause || args.answers;
        if (g.out.json) {
          nlohmann::json steps = nlohmann::json::array();
          for (const auto& s : lesson->steps) {
            nlohmann::json j = {{"text", s.text}, {"demo", s.demo}};
            if (s.question) {
              j["question"] = {{"text", s.question->text}};
              if (!handout || args.answers) {
                j["question"]["answer"] = s.question->answer;
                j["question"]["explain"] = s.question->explain;
              }
            }
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
        if (handout || isatty(STDIN_FILENO) != 1) {
          // Printed twice with one seed, a handout is the same sheet (default seed 1).
          DemoSeed& ds = demo_seed();
          ds.seed = args.seed.empty()
                        ? std::string("1")
                        : std::to_string(parse_int("--seed", args.seed, 0, INT64_MAX));
          for (const CLI::App* c : app.get_subcommands({}))
            if (c->get_option_no_throw("--seed") != nullptr)
              ds.seeded_commands.push_back(c->get_name());
          return print_lesson(*lesson, g, st, args.answers);
        }
        if (!args.seed.empty())
          throw UsageError("--seed: only with --handout (a walked lesson's demos are live)",
                           "--seed：只能与 --handout 同用（逐步学习时演示是现场运行的）");
        walk_lesson(*lesson, lessons, g, st, args.restart);
      });
  CLI::Option* lesson =
      sub->add_option("lesson", raw->lesson,
                      help_tr(g,
                              "Lesson number, name, command it teaches or a unique prefix (e.g. "
                              "04, amdahl, vecadd); none lists them all",
                              "课程编号、名称、它讲解的命令或唯一的前缀（例如 04、amdahl、"
                              "vecadd）；不写则列出全部课程"))
          ->type_name("LESSON");
  set_completer(lesson, [&g] {
    std::vector<std::string> names;
    for (const Lesson& l : load_lessons(lang_code(g.out.lang))) {
      names.push_back(l.id);
      if (auto dash = l.id.find('-'); dash != std::string::npos)
        names.push_back(l.id.substr(dash + 1));
    }
    return names;
  });
  sub->add_flag("--handout", raw->handout,
                help_tr(g,
                        "Print the whole lesson without stopping, questions with blanks and no "
                        "answers",
                        "不停顿地打印整节课，题目留空、不给答案"));
  sub->add_flag("--answers", raw->answers,
                help_tr(g,
                        "With --handout: the teacher's copy, each answer and its solution beside "
                        "its question",
                        "与 --handout 同用：教师版，每道题旁边给出答案和解答"));
  sub->add_flag("--no-pause", raw->no_pause,
                help_tr(g, "The same as --handout (a script for the projector)",
                        "与 --handout 相同（用作投影稿）"));
  sub->add_option("--seed", raw->seed,
                  help_tr(g,
                          "With --handout: the seed of the demos' data (default 1): the same seed "
                          "prints the same handout",
                          "与 --handout 同用：演示数据的种子（默认 1）：同一种子打印出同一份讲义"))
      ->type_name("N");
  sub->add_option(
         "--files", raw->files,
         help_tr(g,
                 "Write the files the lesson has you run (e.g. wrong.cu of lesson 11) into "
                 "DIR, and say what to run; an existing file is kept",
                 "把这节课要你运行的文件（例如第 11 课的 wrong.cu）写入 DIR，并说明怎样"
                 "运行；已有的文件不覆盖"))
      ->type_name("DIR");
  sub->add_flag("--restart", raw->restart,
                help_tr(g, "Start the lesson from its first step", "从第一步重新开始这节课"));
}

}  // namespace gpulab
