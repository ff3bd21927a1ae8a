// gpulab quiz (see quiz.hpp).
#include "commands/quiz.hpp"

#include <fmt/format.h>

#include <cstdio>
#include <iostream>
#include <memory>

#include "core/error.hpp"
#include "core/input.hpp"
#include "core/layout.hpp"
#include "core/parse.hpp"

namespace gpulab {

std::string too_long_note(Lang lang) {
  return fmt::format(fmt::runtime(std::string(tr(lang, "Longer than {} bytes, so not read",
                                                 "超过 {} 字节的答案不予读取"))),
                     kMaxAnswerBytes);
}

QuizResult run_quiz(const QuizOptions& o, Lang lang, std::istream& in, bool echo, const Style& st) {
  QuizResult r;
  r.seed = o.seed;
  r.questions = calc::make_quiz(o.topic, o.count, o.seed, lang);
  auto say = [&](const std::string& s) {
    if (echo) {
      print_laid_out(s, lang);
      std::fflush(stdout);
    }
  };
  for (std::size_t i = 0; i < r.questions.size(); ++i) {
    const auto& q = r.questions[i];
    say(fmt::format("\n{} {}\n{} ", st.bold(fmt::format("{}/{}", i + 1, r.questions.size())),
                    q.prompt, st.dim(">")));
    std::string line;
    const LineRead read = read_line_capped(in, line);
    if (read == LineRead::ended) {
      r.input_ended = true;
      say("\n");
      break;
    }
    QuizAnswer a;
    a.given = line;
    a.answered = true;
    if (read == LineRead::too_long) {
      a.grade.malformed = true;
      a.grade.note = too_long_note(lang);
    } else {
      a.grade = calc::grade(q, line);
    }
    if (a.grade.correct) {
      ++r.score;
      say(st.good(std::string(tr(lang, "Right.", "正确。"))) + "\n");
    } else {
      std::string why = a.grade.malformed ? a.grade.note + ". " : std::string();
      say(st.bad(std::string(tr(lang, "Wrong.", "错误。"))) + " " + why +
          fmt::format(fmt::runtime(std::string(tr(lang, "The answer is {}: {}", "答案是 {}：{}"))),
                      q.answer, q.solution) +
          "\n");
    }
    r.answers.push_back(std::move(a));
  }
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
  return {{"command", "quiz"}, {"seed", o.seed}, {"topic", o.topic}, {"questions", arr}};
}

void setup_quiz(CLI::App& app, GlobalOptions& g) {
  struct Raw {
    std::string topic = "all", count = "10", seed;
    bool answers = false;
  };
  auto raw = std::make_shared<Raw>();
  CLI::App* sub = add_command(
      app, g, "quiz", "Exercises from gpulab's calculators, graded with worked solutions",
      [raw, &g] {
        QuizOptions o;
        std::vector<std::string> topics = calc::quiz_topics();
        topics.insert(topics.begin(), "all");
        o.topic = parse_choice("--topic", raw->topic, topics);
        o.count = static_cast<int>(parse_int("--count", raw->count, 1, 100));
        o.seed = pick_seed(raw->seed);
        o.answers = raw->answers;
        const Lang lang = g.out.lang;
        const Style st = style_for(g.out);
        if (o.answers) {
          auto qs = calc::make_quiz(o.topic, o.count, o.seed, lang);
          std::string text =
              st.heading(fmt::format(
                  fmt::runtime(std::string(
                      tr(lang, "Answer key (seed {}, {} questions)", "答案（种子 {}，{} 题）"))),
                  o.seed, qs.size())) +
              "\n";
          for (const auto& q : qs) {
            text += fmt::format("\n{} [{}] {}\n   {} {}\n   {}\n", st.bold(q.id), q.topic, q.prompt,
                                st.bold(std::string(tr(lang, "Answer:", "答案："))), q.answer,
                                st.dim(q.solution));
          }
          return emit(g, quiz_key_json(o, qs), text);
        }
        if (!g.out.json) {
          fmt::print(
              "{}\n",
              st.heading(fmt::format(
                  fmt::runtime(std::string(
                      tr(lang,
                         "gpulab quiz: {} questions (seed {}; the same seed gives the same quiz)",
                         "gpulab 测验：{} 题（种子 {}；同一种子得到同一套题）"))),
                  o.count, o.seed)));
        }
        QuizResult r = run_quiz(o, lang, std::cin, !g.out.json, st);
        const int total = static_cast<int>(r.questions.size());
        if (g.out.json) {
          nlohmann::json j = quiz_key_json(o, r.questions);
          for (std::size_t i = 0; i < r.answers.size(); ++i) {
            j["questions"][i]["given"] = r.answers[i].given;
            j["questions"][i]["correct"] = r.answers[i].grade.correct;
          }
          j["score"] = r.score;
          j["total"] = total;
          j["answered"] = r.answers.size();
          return emit(g, j, "");
        }
        if (r.input_ended) {
          fmt::print(
              "{}\n",
              fmt::format(fmt::runtime(std::string(tr(lang, "Input ended after {} of {} questions.",
                                                      "输入在第 {} / {} 题后结束。"))),
                          r.answers.size(), total));
        }
        fmt::print("\nScore: {}/{}\n", r.score, total);
        std::fflush(stdout);
      });
  sub->add_option(
         "--topic", raw->topic,
         "all (default) or one of: " + fmt::format("{}", fmt::join(calc::quiz_topics(), ", ")))
      ->type_name("T");
  sub->add_option("--count", raw->count, "Number of questions, 1 to 100 (default 10)")
      ->type_name("N");
  sub->add_option("--seed", raw->seed,
                  "Seed: the same seed gives the same quiz (default: a fresh one, printed)")
      ->type_name("S");
  sub->add_flag("--answers", raw->answers, "Print the teacher's answer key instead of asking");
}

}  // namespace gpulab
