// gpulab quiz (see quiz.hpp).
#include "commands/quiz.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <fmt/format.h>

#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>

#include "core/error.hpp"
#include "core/i18n_format.hpp"
#include "core/input.hpp"
#include "core/layout.hpp"
#include "core/parse.hpp"
#include "core/text.hpp"

namespace gpulab {

std::string too_long_note(Lang lang) {
  return say(lang, "Longer than {} bytes, so not read", "超过 {} 字节的答案不予读取",
             kMaxAnswerBytes);
}

std::string questions_noun(Lang lang, std::size_t n) {
  return count_noun(lang, n, "question", "questions", "题");
}

std::string solution_line(const calc::Question& q, Lang lang, const Style& st) {
  return "   " + st.bold(std::string(tr(lang, "Solution:", "解答："))) +
         (lang == Lang::zh ? "" : " ") + calc::solution_without_answer(q);
}

QuizResult run_quiz(const QuizOptions& o, Lang lang, std::istream& in, std::FILE* echo,
                    const Style& st) {
  QuizResult r;
  r.seed = o.seed;
  r.questions = calc::make_quiz(o.topic, o.count, o.seed, lang);
  const auto start = std::chrono::steady_clock::now();
  auto show = [&](const std::string& s) {
    if (echo != nullptr) {
      const std::string laid_out = lay_out(s, output_width(fileno(echo)), lang);
      std::fwrite(laid_out.data(), 1, laid_out.size(), echo);
      std::fflush(echo);
    }
  };
  for (std::size_t i = 0; i < r.questions.size() && !r.input_ended; ++i) {
    const auto& q = r.questions[i];
    show(fmt::format("\n{} {}\n", st.bold(fmt::format("{}/{}", i + 1, r.questions.size())),
                     q.prompt));
    QuizAnswer a;
    while (true) {
      show(st.dim(">") + " ");
      std::string line;
      const LineRead read = read_line_capped(in, line);
      if (read == LineRead::ended) {
        r.input_ended = true;
        show("\n");
        break;
      }
      calc::Grade gr;
      if (read == LineRead::too_long) {
        gr.malformed = true;
        gr.note = too_long_note(lang);
      } else {
        gr = calc::grade(q, line, lang);
      }
      if (gr.malformed) {
        // Not graded: asked again, the reason said once.
        ++a.malformed;
        show(say(lang, "{}; please answer again", "{}；请重新作答", gr.note) + "\n");
        continue;
      }
      a.given = line;
      a.answered = true;
      a.grade = gr;
      break;
    }
    if (!a.answered) break;
    if (a.grade.correct) {
      ++r.score;
      show(st.good(std::string(tr(lang, "Right.", "正确。"))) + "\n");
    } else {
      show(st.bad(std::string(tr(lang, "Wrong.", "错误。"))) + (lang == Lang::zh ? "" : " ") +
           say(lang, "The answer is {}.", "答案是 {}。", q.answer) + "\n" +
           solution_line(q, lang, st) + "\n");
    }
    r.answers.push_back(std::move(a));
  }
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return r;
}

nlohmann::json quiz_key_json(const QuizOptions& o, const std::vector<calc::Question>& qs) {
  nlohmann::json arr = nlohmann::json::array();
  for (const auto& q : qs) {
    arr.push_back({{"id", q.id},
                   {"topic", q.topic},
                   {"prompt", q.prompt},
                   {"answer", q.answer},
                   {"solution", q.solution}});
  }
  return {{"command", "quiz"}, {"seed", o.seed},     {"seed_text", o.seed_text},
          {"topic", o.topic},  {"topics", o.topics}, {"questions", arr}};
}

nlohmann::json quiz_result_record(const QuizOptions& o, const QuizResult& r,
                                  std::string_view when) {
  nlohmann::json qs = nlohmann::json::array();
  for (std::size_t i = 0; i < r.questions.size(); ++i) {
    nlohmann::json q = {{"id", r.questions[i].id},
                        {"topic", r.questions[i].topic},
                        {"answer", r.questions[i].answer}};
    if (i < r.answers.size()) {
      q["given"] = r.answers[i].given;
      q["correct"] = r.answers[i].grade.correct;
    } else {
      q["given"] = nullptr;
      q["correct"] = false;
    }
    qs.push_back(q);
  }
  const int total = static_cast<int>(r.questions.size());
  return {{"format", "gpulab-quiz-result/1"},
          {"seed", o.seed},
          {"seed_text", o.seed_text},
          {"topics", o.topics},
          {"total", total},
          {"given", r.answers.size()},
          {"correct", r.score},
          {"score", total == 0 ? 0.0 : static_cast<double>(r.score) / total},
          {"time", std::string(when)},
          {"seconds", std::round(r.seconds * 10) / 10},
          {"input_ended", r.input_ended},
          {"questions", qs}};
}

namespace {

std::string utc_now() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

// The results file, opened for appending before the first question: a path that cannot be
// written is said before the student answers anything.
int open_results(const std::string& path) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0)
    bad_value("--results", path,
              both("cannot be written: {}", "无法写入：{}", std::string(std::strerror(errno))));
  return fd;
}

// One line, one write(): lines from quizzes taken at once into one file never interleave.
void append_record(int fd, const std::string& path, const nlohmann::json& record) {
  const std::string line = record.dump() + "\n";
  const ssize_t n = ::write(fd, line.data(), line.size());
  const int err = errno;
  ::close(fd);
  if (n != static_cast<ssize_t>(line.size()))
    throw RuntimeFailure(both("could not save the result to {}: {}", "无法把结果保存到 {}：{}",
                              path, std::string(n < 0 ? std::strerror(err) : "short write")));
}

// One student's latest result in the merged files.
struct Merged {
  std::string who;  // seed_text
  nlohmann::json record;
  int attempts = 0;
};

// `quiz --merge FILE... [--roster FILE]`: every student's latest result, and who has not
// finished (stopped before the last question) or, with a roster, has no result at all.
void merge_results(const std::vector<std::string>& files, const std::string& roster,
                   const GlobalOptions& g) {
  const Lang l = g.out.lang;
  std::map<std::string, Merged> by_student;
  for (const std::string& path : files) {
    std::ifstream in(path);
    if (!in)
      bad_value("--merge", path,
                both("cannot be read: {}", "无法读取：{}", std::string(std::strerror(errno))));
    std::string line;
    for (int number = 1; std::getline(in, line); ++number) {
      if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
      nlohmann::json j = nlohmann::json::parse(line, nullptr, false);
      if (j.is_discarded() || !j.is_object() || j.value("format", "") != "gpulab-quiz-result/1" ||
          !j.contains("seed_text") || !j.contains("total") || !j.contains("given") ||
          !j.contains("correct")) {
        throw RuntimeFailure(both("{} line {}: not a gpulab quiz result (--results writes them)",
                                  "{} 第 {} 行：不是 gpulab 测验结果（由 --results 写出）", path,
                                  number));
      }
      const std::string who =
          j["seed_text"].is_string() ? j["seed_text"].get<std::string>() : j["seed_text"].dump();
      Merged& m = by_student[who];
      m.who = who;
      ++m.attempts;
      // The latest attempt counts (times are UTC ISO 8601: they sort as text).
      if (m.record.is_null() || j.value("time", "") >= m.record.value("time", "")) m.record = j;
    }
  }
  std::vector<std::string> roster_ids;
  if (!roster.empty()) {
    std::ifstream in(roster);
    if (!in)
      bad_value("--roster", roster,
                both("cannot be read: {}", "无法读取：{}", std::string(std::strerror(errno))));
    for (std::string line; std::getline(in, line);) {
      while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
      while (!line.empty() && line.front() == ' ') line.erase(line.begin());
      if (!line.empty()) roster_ids.push_back(line);
    }
  }
  const Style st = style_for(g.out);
  Table t({std::string(tr(l, "student (seed)", "学生（种子）")),
           std::string(tr(l, "right", "答对")), std::string(tr(l, "answered", "已答")),
           std::string(tr(l, "status", "状态")), std::string(tr(l, "time (UTC)", "时间（UTC）"))});
  nlohmann::json students = nlohmann::json::array();
  std::vector<std::string> unfinished, missing;
  for (const auto& [who, m] : by_student) {
    const int total = m.record["total"].get<int>(), given = m.record["given"].get<int>();
    const int correct = m.record["correct"].get<int>();
    const bool finished = given >= total;
    if (!finished) unfinished.push_back(who);
    const std::string status =
        finished ? std::string(tr(l, "finished", "已完成"))
                 : say(l, "stopped after {} of {}", "答到第 {} 题（共 {} 题）停止", given, total);
    t.add_row({who, fmt::format("{}/{}", correct, total), fmt::format("{}/{}", given, total),
               status, m.record.value("time", "")});
    students.push_back({{"student", who},
                        {"correct", correct},
                        {"given", given},
                        {"total", total},
                        {"finished", finished},
                        {"attempts", m.attempts},
                        {"time", m.record.value("time", "")}});
  }
  for (const std::string& id : roster_ids)
    if (!by_student.contains(id)) missing.push_back(id);
  std::string text =
      st.heading(say(l, "Quiz results: {} from {}", "测验结果：{}，来自 {}",
                     count_noun(l, by_student.size(), "student", "students", "名学生"),
                     count_noun(l, files.size(), "file", "files", "个文件"))) +
      "\n" + t.render(st) + "\n";
  auto listed = [&](const std::vector<std::string>& ids) {
    return ids.empty() ? std::string(tr(l, "none", "无")) : fmt::format("{}", fmt::join(ids, ", "));
  };
  text += say(l, "  Not finished ({}): {}\n", "  未完成（{}）：{}\n", unfinished.size(),
              listed(unfinished));
  if (!roster.empty()) {
    text +=
        say(l, "  No result ({}): {}\n", "  没有结果（{}）：{}\n", missing.size(), listed(missing));
  }
  nlohmann::json j = {{"command", "quiz"},
                      {"merged_files", files},
                      {"students", students},
                      {"unfinished", unfinished}};
  if (!roster.empty()) j["no_result"] = missing;
  emit(g, j, text);
}

}  // namespace

void setup_quiz(CLI::App& app, GlobalOptions& g) {
  struct Raw {
    std::vector<std::string> topic;
    std::string count = "10", seed, results;
    bool answers = false, sheet = false;
    std::vector<std::string> merge;
    std::string roster;
  };
  const auto [sub, raw] = add_command<Raw>(
      app, g, "quiz",
      {"Exercises from gpulab's calculators, graded with worked solutions",
       "由 gpulab 的计算器出题，批改并给出详细解答"},
      [&g](Raw& args) {
        if (!args.roster.empty() && args.merge.empty())
          throw UsageError("--roster: only with --merge (the results to check it against)",
                           "--roster：只能与 --merge 同用（要对照的结果）");
        if (!args.merge.empty()) return merge_results(args.merge, args.roster, g);
        QuizOptions o;
        std::string spec;
        for (const auto& t : args.topic) spec += (spec.empty() ? "" : ",") + t;
        if (spec.empty()) spec = "all";
        const auto selected = calc::select_topics(spec);
        if (!selected) {
          std::vector<std::string> unknown;
          for (const auto& t : args.topic) {
            std::size_t start = 0;
            while (start <= t.size()) {
              std::size_t c = t.find(',', start);
              if (c == std::string::npos) c = t.size();
              const std::string name = t.substr(start, c - start);
              if (!name.empty() && !calc::select_topics(name)) unknown.push_back(name);
              start = c + 1;
            }
          }
          const std::string groups = fmt::format("{}", fmt::join(calc::quiz_groups(), ", "));
          const std::string names = fmt::format("{}", fmt::join(calc::quiz_topics(), ", "));
          bad_value("--topic", fmt::format("{}", fmt::join(unknown, ",")),
                    both("not a topic; groups: {}; topics: {}", "不是题目类别；分组：{}；类别：{}",
                         groups, names));
        }
        o.topic = spec;
        o.topics = *selected;
        o.count = static_cast<int>(parse_int("--count", args.count, 1, 100));
        if (args.seed.empty()) {
          o.seed = pick_seed("");
          o.seed_text = std::to_string(o.seed);
        } else {
          if (args.seed.size() > 200)
            bad_value("--seed", printable(args.seed),
                      Text{"longer than 200 bytes", "超过 200 字节"});
          o.seed_text = args.seed;
          o.seed = calc::quiz_seed(args.seed);
        }
        o.answers = args.answers;
        o.results = args.results;
        const Lang lang = g.out.lang;
        const Style st = style_for(g.out);
        if (args.sheet && o.answers)
          throw UsageError("--sheet: not with --answers: the sheet has no answers",
                           "--sheet：不能与 --answers 同用：题单不含答案");
        if (args.sheet && !o.results.empty())
          bad_value("--results", o.results,
                    Text{"not with --sheet: the sheet asks no questions here",
                         "不能与 --sheet 同用：题单不在这里提问"});
        if (o.answers && !o.results.empty())
          bad_value("--results", o.results,
                    Text{"not with --answers: the key asks no questions",
                         "不能与 --answers 同用：答案表不提问"});
        if (o.answers) {
          auto qs = calc::make_quiz(o.topic, o.count, o.seed, lang);
          std::string text = st.heading(say(lang, "Answer key (seed {}, {})", "答案（种子 {}，{}）",
                                            o.seed_text, questions_noun(lang, qs.size()))) +
                             "\n";
          for (const auto& q : qs) {
            text += fmt::format("\n{} [{}] {}\n   {}{}{}\n{}\n", st.bold(q.id), q.topic, q.prompt,
                                st.bold(std::string(tr(lang, "Answer:", "答案："))),
                                lang == Lang::zh ? "" : " ", q.answer, solution_line(q, lang, st));
          }
          return emit(g, quiz_key_json(o, qs), text);
        }
        if (args.sheet) {
          // The students' sheet: the questions of the key with the same seed, no answers, no
          // time: the same seed prints the same bytes.
          auto qs = calc::make_quiz(o.topic, o.count, o.seed, lang);
          std::string text =
              st.heading(say(lang, "gpulab quiz sheet (seed {}, {})",
                             "gpulab 测验题单（种子 {}，{}）", o.seed_text,
                             questions_noun(lang, qs.size()))) +
              "\n" +
              std::string(tr(lang, "Name: ____________________", "姓名：____________________")) +
              "\n";
          for (const auto& q : qs) {
            text += fmt::format("\n{} {}\n   {}{}____________\n", st.bold(q.id), q.prompt,
                                st.bold(std::string(tr(lang, "Answer:", "答案："))),
                                lang == Lang::zh ? "" : " ");
          }
          nlohmann::json j = quiz_key_json(o, qs);
          for (auto& q : j["questions"]) {
            q.erase("answer");
            q.erase("solution");
          }
          j["sheet"] = true;
          return emit(g, j, text);
        }
        const int results_fd = o.results.empty() ? -1 : open_results(o.results);
        // Under --json, stdout is for the JSON: on a terminal the dialogue goes to stderr.
        std::FILE* echo = !g.out.json ? stdout : isatty(STDIN_FILENO) == 1 ? stderr : nullptr;
        if (echo != nullptr) {
          const std::string head = st.heading(
              o.count == 1
                  ? say(lang,
                        "gpulab quiz: {} question (seed {}; the same seed gives the same quiz)",
                        "gpulab 测验：{} 题（种子 {}；同一种子得到同一套题）", o.count, o.seed_text)
                  : say(lang,
                        "gpulab quiz: {} questions (seed {}; the same seed gives the same quiz)",
                        "gpulab 测验：{} 题（种子 {}；同一种子得到同一套题）", o.count,
                        o.seed_text));
          const std::string laid_out = lay_out(head + "\n", output_width(fileno(echo)), lang);
          std::fwrite(laid_out.data(), 1, laid_out.size(), echo);
        }
        QuizResult r = run_quiz(o, lang, std::cin, echo, st);
        const int total = static_cast<int>(r.questions.size());
        const std::string when = utc_now();
        if (results_fd >= 0) append_record(results_fd, o.results, quiz_result_record(o, r, when));
        if (g.out.json) {
          nlohmann::json j = quiz_key_json(o, r.questions);
          for (std::size_t i = 0; i < r.answers.size(); ++i) {
            j["questions"][i]["given"] = r.answers[i].given;
            j["questions"][i]["correct"] = r.answers[i].grade.correct;
          }
          j["score"] = r.score;
          j["total"] = total;
          j["answered"] = r.answers.size();
          j["time"] = when;
          return emit(g, j, "");
        }
        std::string end;
        if (r.input_ended) {
          end += say(lang, "Input ended after {} of {} questions.", "输入在第 {} / {} 题后结束。",
                     r.answers.size(), total) +
                 "\n";
        }
        end += "\n" + say(lang, "Score: {}/{}", "得分：{}/{}", r.score, total) + "\n";
        if (!o.results.empty()) {
          end += say(lang, "Result added to {}", "结果已追加到 {}", o.results) + "\n";
        }
        print_laid_out(end, lang);
        flush_stdout();
      });
  sub->add_option(
         "--topic", raw->topic,
         help_tr(g, "Topics or groups, comma-separated or repeated (default all). Groups: ",
                 "题目类别或分组，用逗号分隔或重复给出（默认全部）。分组：") +
             fmt::format("{}", fmt::join(calc::quiz_groups(), ", ")) +
             help_tr(g, ". Topics: ", "。类别：") +
             fmt::format("{}", fmt::join(calc::quiz_topics(), ", ")))
      ->type_name("T");
  sub->add_option(
         "--count", raw->count,
         help_tr(g, "Number of questions, 1 to 100 (default 10)", "题目数量，1 到 100（默认 10）"))
      ->type_name("N");
  sub->add_option(
         "--seed", raw->seed,
         help_tr(g,
                 "Any text, e.g. a student id: the same seed gives the same quiz "
                 "(default: a fresh number, printed)",
                 "任意文字，例如学号：相同的种子出相同的题（默认：新取一个数，并打印出来）"))
      ->type_name("S");
  sub->add_option("--results", raw->results,
                  help_tr(g,
                          "Append the result (seed, topics, answers, score, time) to FILE as one "
                          "JSON line; see docs/teaching.md",
                          "把结果（种子、类别、答案、得分、时间）作为一行 JSON 追加到 FILE；"
                          "见 docs/teaching.md"))
      ->type_name("FILE");
  sub->add_option("--merge", raw->merge,
                  help_tr(g,
                          "Merge result files written by --results: each student's latest score, "
                          "and who stopped before the last question",
                          "合并 --results 写出的结果文件：每个学生最近一次的得分，以及谁没有答完"))
      ->type_name("FILE...");
  sub->add_option("--roster", raw->roster,
                  help_tr(g,
                          "With --merge: a file of student ids (the --seed each used), one a line; "
                          "those with no result are listed",
                          "与 --merge 同用：学生编号文件（即每人用的 --seed），每行一个；"
                          "列出没有结果的学生"))
      ->type_name("FILE");
  sub->add_flag("--sheet", raw->sheet,
                help_tr(g,
                        "Print the questions only, to hand out on paper (same seed, same sheet; "
                        "--answers with that seed is its key)",
                        "只打印题目，用于纸质发放（同一种子得到同一份题单；用同一种子加 --answers "
                        "得到答案）"));
  sub->add_flag(
      "--answers", raw->answers,
      help_tr(g, "Print the teacher's answer key instead of asking", "打印教师用的答案，而不提问"));
}

}  // namespace gpulab
