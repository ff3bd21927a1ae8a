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
#include <iostream>
#include <memory>

#include "core/error.hpp"
#include "core/i18n_format.hpp"
#include "core/input.hpp"
#include "core/parse.hpp"

namespace gpulab {

std::string too_long_note(Lang lang) {
  return fmt::format(fmt::runtime(std::string(tr(lang, "Longer than {} bytes, so not read",
                                                 "超过 {} 字节的答案不予读取"))),
                     kMaxAnswerBytes);
}

QuizResult run_quiz(const QuizOptions& o, Lang lang, std::istream& in, std::FILE* echo,
                    const Style& st) {
  QuizResult r;
  r.seed = o.seed;
  r.questions = calc::make_quiz(o.topic, o.count, o.seed, lang);
  const auto start = std::chrono::steady_clock::now();
  auto say = [&](const std::string& s) {
    if (echo != nullptr) {
      std::fwrite(s.data(), 1, s.size(), echo);
      std::fflush(echo);
    }
  };
  for (std::size_t i = 0; i < r.questions.size() && !r.input_ended; ++i) {
    const auto& q = r.questions[i];
    say(fmt::format("\n{} {}\n", st.bold(fmt::format("{}/{}", i + 1, r.questions.size())),
                    q.prompt));
    QuizAnswer a;
    while (true) {
      say(st.dim(">") + " ");
      std::string line;
      const LineRead read = read_line_capped(in, line);
      if (read == LineRead::ended) {
        r.input_ended = true;
        say("\n");
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
        say(fmt::format(
                fmt::runtime(std::string(tr(lang, "{}; please answer again", "{}；请重新作答"))),
                gr.note) +
            "\n");
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
      say(st.good(std::string(tr(lang, "Right.", "正确。"))) + "\n");
    } else {
      say(st.bad(std::string(tr(lang, "Wrong.", "错误。"))) + (lang == Lang::zh ? "" : " ") +
          fmt::format(fmt::runtime(std::string(tr(lang, "The answer is {}: {}", "答案是 {}：{}"))),
                      q.answer, q.solution) +
          "\n");
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

}  // namespace

void setup_quiz(CLI::App& app, GlobalOptions& g) {
  struct Raw {
    std::vector<std::string> topic;
    std::string count = "10", seed, results;
    bool answers = false;
  };
  auto raw = std::make_shared<Raw>();
  CLI::App* sub = add_command(
      app, g, "quiz",
      help_tr(g, "Exercises from gpulab's calculators, graded with worked solutions",
              "由 gpulab 的计算器出题，批改并给出详细解答"),
      [raw, &g] {
        QuizOptions o;
        std::string spec;
        for (const auto& t : raw->topic) spec += (spec.empty() ? "" : ",") + t;
        if (spec.empty()) spec = "all";
        const auto selected = calc::select_topics(spec);
        if (!selected) {
          std::vector<std::string> unknown;
          for (const auto& t : raw->topic) {
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
        o.count = static_cast<int>(parse_int("--count", raw->count, 1, 100));
        if (raw->seed.empty()) {
          o.seed = pick_seed("");
          o.seed_text = std::to_string(o.seed);
        } else {
          if (raw->seed.size() > 200)
            bad_value("--seed", printable(raw->seed),
                      Text{"longer than 200 bytes", "超过 200 字节"});
          o.seed_text = raw->seed;
          o.seed = calc::quiz_seed(raw->seed);
        }
        o.answers = raw->answers;
        o.results = raw->results;
        const Lang lang = g.out.lang;
        Style st(color_enabled(g.out.color));
        if (o.answers && !o.results.empty())
          bad_value("--results", o.results,
                    Text{"not with --answers: the key asks no questions",
                         "不能与 --answers 同用：答案表不提问"});
        if (o.answers) {
          auto qs = calc::make_quiz(o.topic, o.count, o.seed, lang);
          std::string text =
              st.heading(fmt::format(
                  fmt::runtime(std::string(
                      tr(lang, "Answer key (seed {}, {} questions)", "答案（种子 {}，{} 题）"))),
                  o.seed_text, qs.size())) +
              "\n";
          for (const auto& q : qs) {
            text += fmt::format("\n{} [{}] {}\n   {} {}\n   {}\n", st.bold(q.id), q.topic, q.prompt,
                                st.bold(std::string(tr(lang, "Answer:", "答案："))), q.answer,
                                st.dim(q.solution));
          }
          return emit(g, quiz_key_json(o, qs), text);
        }
        const int results_fd = o.results.empty() ? -1 : open_results(o.results);
        // Under --json, stdout is for the JSON: on a terminal the dialogue goes to stderr.
        std::FILE* echo = !g.out.json ? stdout : isatty(STDIN_FILENO) == 1 ? stderr : nullptr;
        if (echo != nullptr) {
          const std::string head = st.heading(fmt::format(
              fmt::runtime(std::string(
                  tr(lang,
                     o.count == 1
                         ? "gpulab quiz: {} question (seed {}; the same seed gives the same quiz)"
                         : "gpulab quiz: {} questions (seed {}; the same seed gives the same quiz)",
                     "gpulab 测验：{} 题（种子 {}；同一种子得到同一套题）"))),
              o.count, o.seed_text));
          fmt::print(echo, "{}\n", head);
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
        if (r.input_ended) {
          fmt::print(
              "{}\n",
              fmt::format(fmt::runtime(std::string(tr(lang, "Input ended after {} of {} questions.",
                                                      "输入在第 {} / {} 题后结束。"))),
                          r.answers.size(), total));
        }
        fmt::print("\n{}\n",
                   fmt::format(fmt::runtime(std::string(tr(lang, "Score: {}/{}", "得分：{}/{}"))),
                               r.score, total));
        if (!o.results.empty()) {
          fmt::print("{}\n", fmt::format(fmt::runtime(std::string(
                                             tr(lang, "Result added to {}", "结果已追加到 {}"))),
                                         o.results));
        }
        std::fflush(stdout);
      });
  sub->add_option("--topic", raw->topic,
                  help_tr(g,
                          "Topics or groups, comma-separated or repeated (default all). Groups: ",
                          "题目类别或分组，用逗号分隔或重复给出（默认全部）。分组：") +
                      fmt::format("{}", fmt::join(calc::quiz_groups(), ", ")) +
                      help_tr(g, ". Topics: ", "。类别：") +
                      fmt::format("{}", fmt::join(calc::quiz_topics(), ", ")))
      ->type_name("T");
  sub->add_option(
         "--count", raw->count,
         help_tr(g, "Number of questions, 1 to 100 (default 10)", "题目数量，1 到 100（默认 10）"))
      ->type_name("N");
  sub->add_option("--seed", raw->seed,
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
  sub->add_flag(
      "--answers", raw->answers,
      help_tr(g, "Print the teacher's answer key instead of asking", "打印教师用的答案，而不提问"));
}

}  // namespace gpulab
