// gpulab learn (see learn.hpp).
#include "commands/learn.hpp"

#include <fmt/format.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <optional>

#include "calc/quiz.hpp"
#include "commands/quiz.hpp"
#include "core/error.hpp"
#include "core/input.hpp"
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

std::string indent(const std::string& text, std::string_view by) {
  std::string out;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t nl = text.find('\n', start);
    if (nl == std::string::npos) nl = text.size();
    std::string_view line(text.data() + start, nl - start);
    if (!line.empty()) out += by;
    out += line;
    out += '\n';
    start = nl + 1;
  }
  return out;
}

// The terminal's rows (a projector shows 30 or so): LINES, else the terminal's own size, else 30.
int screen_rows() {
  if (const char* lines = std::getenv("LINES"); lines != nullptr) {
    const int n = std::atoi(lines);
    if (n > 0) return n;
  }
  winsize ws{};
  if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_row > 0) return ws.ws_row;
  return 30;
}

// Runs a demo: this very binary with the lesson's arguments; stdout then stderr come back.
std::string run_demo(const std::vector<std::string>& demo, const GlobalOptions& g, bool color) {
  ProcessSpec spec;
  spec.argv = {"/proc/self/exe"};
  spec.argv.insert(spec.argv.end(), demo.begin(), demo.end());
  for (const char* a :
       {"--lang", g.out.lang == Lang::zh ? "zh" : "en", "--color", color ? "always" : "never"})
    spec.argv.emplace_back(a);
  if (g.backend_text != "auto") {
    spec.argv.emplace_back("--backend");
    spec.argv.push_back(g.backend_text);
  }
  // The demo's output is indented by 4: it is told a terminal 4 columns narrower.
  winsize ws{};
  if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 8)
    spec.env.emplace_back("COLUMNS", std::to_string(ws.ws_col - 4));
  spec.timeout = std::chrono::minutes(5);
  spec.max_output_bytes = 4 << 20;
  const ProcessResult r = run_process(spec);
  if (!r.started) return fmt::format("gpulab: {}\n", r.start_error);
  std::string out = r.out;
  if (!out.empty() && out.back() != '\n') out += '\n';
  return out + r.err;
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

std::size_t question_count(const Lesson& lesson) {
  return static_cast<std::size_t>(std::count_if(lesson.steps.begin(), lesson.steps.end(),
                                                [](const LessonStep& s) { return s.question; }));
}

std::string status_of(const std::optional<LessonProgress>& p, const Lesson& l, Lang lang) {
  if (!p) return std::string(tr(lang, "new", "未开始"));
  if (p->done && p->right && question_count(l) > 0) {
    return fmt::format(
        fmt::runtime(std::string(tr(lang, "done, {}/{} right", "已完成，答对 {}/{}"))),
        p->right->size(), question_count(l));
  }
  if (p->done) return std::string(tr(lang, "done", "已完成"));
  return fmt::format(fmt::runtime(std::string(tr(lang, "in progress ({}/{})", "学习中（{}/{}）"))),
                     p->step + 1, l.steps.size());
}

void list_lessons(const GlobalOptions& g, const std::vector<Lesson>& lessons) {
  const SavedProgress progress = load_and_warn();
  const Lang l = g.out.lang;
  Style st(color_enabled(g.out.color));
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
    throw UsageError(chosen(fmt::format(
        fmt::runtime(
            std::string(tr(l, "learn {}: more than one lesson matches: {}; type more of the name",
                           "learn {}：匹配到不止一课：{}；请把名称写得更完整"))),
        printable(key), fmt::join(ids, ", "))));
  }
  for (const auto& lesson : lessons) ids.push_back(lesson.id);
  std::vector<std::string> cmds;
  for (const auto& t : taught_commands())
    cmds.push_back(fmt::format("{} ({})", t.command, t.lesson));
  throw UsageError(chosen(fmt::format(
      fmt::runtime(std::string(
          tr(l, "learn {}: no lesson has that number, name or command; lessons: {}; commands: {}",
             "learn {}：没有这个编号、名称或命令的课程；课程：{}；命令：{}"))),
      key.empty() ? "''" : printable(key), fmt::join(ids, ", "), fmt::join(cmds, ", "))));
}

void save_step(const Lesson& lesson, const LessonProgress& progress) {
  const SaveOutcome saved = save_lesson_progress(lesson.id, progress);
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
  if (!step.text.empty()) fmt::print("{}", indent(style_text(step.text, st), "  "));
}

// Whether a line is only whitespace (and colour codes).
bool blank_line(std::string_view line) {
  return line.find_first_not_of(" \t\r") == std::string_view::npos;
}

// A step's demo, indented under its command line. `max_lines` > 0 caps it (the question below
// must stay on the screen) and says how to see the rest.
void print_demo(const LessonStep& step, const GlobalOptions& g, const Style& st,
                std::size_t max_lines) {
  if (step.demo.empty()) return;
  const std::string cmd = fmt::format("gpulab {}", fmt::join(step.demo, " "));
  fmt::print("\n  {}\n", st.code("$ " + cmd));
  flush_stdout();  // a stdout that cannot be written stops the lesson before its first demo
  const std::string out = run_demo(step.demo, g, st.enabled());
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
    text += "    " +
            st.dim(fmt::format(
                fmt::runtime(std::string(tr(g.out.lang, "... {} more {}: run `{}` to see it all",
                                            "……还有 {} {}：运行 `{}` 查看全部"))),
                more,
                g.out.lang == Lang::zh ? "行"
                : more == 1            ? "line"
                                       : "lines",
                cmd)) +
            "\n";
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
      fmt::print(
          "\n  {}{}\n",
          label(l, fmt::format("Question {}:", number), fmt::format("问题 {}：", number), st),
          q->text);
      if (answers) {
        fmt::print("  {}{}{}\n", label(l, "Answer:", "答案：", st), q->answer,
                   q->explain.empty() ? "" : "  (" + q->explain + ")");
      } else {
        fmt::print("  {}____________\n", label(l, "Your answer:", "你的答案：", st));
      }
      // After its question, as in a walked lesson. On the student's handout only the command:
      // the output would answer the question on the same page.
      if (!step.demo.empty() && !answers) {
        fmt::print("\n  {}\n    {}\n",
                   st.code(fmt::format("$ gpulab {}", fmt::join(step.demo, " "))),
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

enum class Asked { right, shown, quit };

// Asks a step's question until it is answered right, its tries are used up, Enter skips it or q
// quits. A malformed answer costs no try. The answer is said once, and never after q.
Asked ask_question(const LessonQuestion& lq, Lang l, const Style& st) {
  fmt::print("\n  {} {}\n  {}\n", st.bold("?"), lq.text,
             st.dim(fmt::format(
                 fmt::runtime(std::string(tr(l, "({} tries; Enter shows the answer; q quits)",
                                             "（可以试 {} 次；回车显示答案；q 退出）"))),
                 kTries)));
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
      fmt::print("  {}{}{}\n", label(l, "Answer:", "答案：", st), lq.answer, explain);
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
      fmt::print("  {}{}{}\n",
                 st.bad(std::string(tr(l, "Could not read that:", "无法读取这个答案："))), sep,
                 fmt::format(fmt::runtime(std::string(tr(l, "{}; try again (no try used)",
                                                         "{}；请重新输入（不计次数）"))),
                             gr.note));
      continue;
    }
    if (gr.correct) {
      fmt::print("  {}{}\n", st.good(std::string(tr(l, "Right.", "正确。"))), explain);
      return Asked::right;
    }
    if (++tries < kTries) {
      const int left = kTries - tries;
      fmt::print("  {}{}{}\n", st.bad(std::string(tr(l, "Not quite.", "不对。"))), sep,
                 fmt::format(fmt::runtime(std::string(tr(l,
                                                         left == 1 ? "Try once more ({} try left)."
                                                                   : "Try again ({} tries left).",
                                                         "再试一次（还剩 {} 次）。"))),
                             left));
      continue;
    }
    fmt::print("  {} {}{}\n",
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
  const std::optional<LessonProgress> p = progress_of(load_progress(), lesson);
  if (!restart && p && !p->done) {
    i = p->step;
    right = p->right.value_or(std::vector<std::size_t>{});
    if (i > 0) {
      fmt::print("{}\n",
                 st.dim(fmt::format(
                     fmt::runtime(std::string(tr(l, "(resuming at step {}; --restart starts over)",
                                                 "（从第 {} 步继续；--restart 从头开始）"))),
                     i + 1)));
    }
  }
  // The demo is capped so that the question under it stays on the screen.
  const std::size_t demo_lines = static_cast<std::size_t>(std::max(6, screen_rows() - 14));
  auto quit = [&] {
    fmt::print("\n{}\n", st.dim(std::string(tr(l, "Saved. Run the same command to go on from here.",
                                               "已保存。再次运行同一命令即可从这里继续。"))));
  };
  while (i < lesson.steps.size()) {
    save_step(lesson, {i, false, right});
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
      if (step.question) save_step(lesson, {i, false, right});
      return quit();
    }
    if (line == "b" || line == "B") {
      if (i > 0) --i;
      continue;
    }
    ++i;
  }
  save_step(lesson, {lesson.steps.size() - 1, true, right});
  const std::size_t questions = question_count(lesson);
  std::string done =
      fmt::format(fmt::runtime(std::string(tr(l, "Lesson {} done.", "第 {} 课完成。"))),
                  lesson.id.substr(0, lesson.id.find('-')));
  if (questions > 0) {
    done += " " + fmt::format(fmt::runtime(std::string(tr(l, "Score: {} of {} questions right.",
                                                          "得分：{} 题中答对 {} 题。"))),
                              l == Lang::zh ? questions : right.size(),
                              l == Lang::zh ? right.size() : questions);
  }
  fmt::print("\n{}\n", st.good(done));
  const auto it = std::find_if(lessons.begin(), lessons.end(),
                               [&](const Lesson& x) { return x.id > lesson.id; });
  if (it != lessons.end()) {
    fmt::print("{}\n", fmt::format(fmt::runtime(std::string(tr(l, "Next: gpulab learn {} ({})",
                                                               "下一课：gpulab learn {}（{}）"))),
                                   it->id.substr(0, it->id.find('-')), it->title));
  } else {
    fmt::print("{}\n", std::string(tr(l,
                                      "That was the last lesson. gpulab quiz asks questions on all "
                                      "of them.",
                                      "这是最后一课。gpulab quiz 会出涵盖所有课程的题目。")));
  }
}

}  // namespace

void setup_learn(CLI::App& app, GlobalOptions& g) {
  struct Raw {
    std::string lesson;
    bool no_pause = false, restart = false, handout = false, answers = false;
  };
  auto raw = std::make_shared<Raw>();
  CLI::App* sub = add_command(
      app, g, "learn",
      help_tr(g, "The course as lessons: explanation, live demo, check question",
              "以课程形式学习：讲解、现场演示、检查题"),
      [raw, &g] {
        const std::vector<Lesson> lessons = load_lessons(lang_code(g.out.lang));
        if (lessons.empty()) {
          throw RuntimeFailure("this gpulab has no lessons built in", "这个 gpulab 没有内置课程");
        }
        if (raw->lesson.empty()) return list_lessons(g, lessons);
        const LessonLookup found = lookup_lesson(lessons, raw->lesson);
        if (found.lesson == nullptr) refuse_lesson_key(raw->lesson, found, lessons, g.out.lang);
        const Lesson* lesson = found.lesson;
        // A handout hides the answers, in JSON too; --answers is the teacher's copy.
        const bool handout = raw->handout || raw->no_pause || raw->answers;
        if (g.out.json) {
          nlohmann::json steps = nlohmann::json::array();
          for (const auto& s : lesson->steps) {
            nlohmann::json j = {{"text", s.text}, {"demo", s.demo}};
            if (s.question) {
              j["question"] = {{"text", s.question->text}};
              if (!handout || raw->answers) {
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
        Style st(color_enabled(g.out.color));
        if (handout || isatty(STDIN_FILENO) != 1) return print_lesson(*lesson, g, st, raw->answers);
        walk_lesson(*lesson, lessons, g, st, raw->restart);
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
  sub->add_flag("--restart", raw->restart,
                help_tr(g, "Start the lesson from its first step", "从第一步重新开始这节课"));
}

}  // namespace gpulab
