// CLI tests of learn and quiz: listing, handouts, progress, answer keys and grading over stdin.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <unistd.h>
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>

#include "support/cli.hpp"
#include "support/run.hpp"

using gpulab::test::check_usage_error;
using gpulab::test::lines_of;
using gpulab::test::run_gpulab;
using gpulab::test::run_json;
using nlohmann::json;

namespace {

std::string temp_dir() {
  std::string d =
      (std::filesystem::temp_directory_path() / ("gpulab-test-" + std::to_string(getpid())))
          .string();
  std::filesystem::create_directories(d);
  return d;
}

}  // namespace

TEST_CASE("learn lists every lesson with its status", "[cli][learn]") {
  const std::string state = "XDG_STATE_HOME=" + temp_dir() + "/list";
  auto r = run_gpulab({"learn"}, "", {state});
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::Contains("04"));
  CHECK_THAT(r.out, Catch::Contains("new"));
  json j = run_json({"learn", "--json"});
  REQUIRE(j["lessons"].size() == 17);
  CHECK(j["lessons"][3]["id"] == "04-amdahl");
}

TEST_CASE("learn prints a whole lesson when stdin is not a terminal, demos included",
          "[cli][learn]") {
  const std::string state = "XDG_STATE_HOME=" + temp_dir() + "/handout";
  for (const char* lang : {"en", "zh"}) {
    CAPTURE(lang);
    const bool en = lang == std::string("en");
    auto r = run_gpulab({"learn", "04", "--lang", lang}, "", {state});
    REQUIRE(r.exit_code == 0);
    CHECK_THAT(r.out, Catch::Contains("$ gpulab amdahl"));
    // The demo ran, indented under its command.
    CHECK_THAT(r.out, Catch::Contains(en ? "    Limit: 1 / (1 - P)" : "    极限：1 / (1 - P)"));
    // A handout: questions numbered with a blank, no answers.
    CHECK_THAT(r.out, Catch::Contains(en ? "Question 4:" : "问题 4："));
    CHECK_THAT(r.out, Catch::Contains(en ? "Your answer: ____" : "你的答案：____"));
    CHECK(r.out.find("： ") == std::string::npos);  // no space after full-width punctuation
    CHECK(r.out.find("9.17") == std::string::npos);
    CHECK(r.out.find("1 / 0.109") == std::string::npos);
    auto h = run_gpulab({"learn", "04", "--handout", "--lang", lang}, "", {state});
    CHECK(h.out == r.out);
    // The teacher's copy: every answer with its solution.
    auto t = run_gpulab({"learn", "04", "--handout", "--answers", "--lang", lang}, "", {state});
    REQUIRE(t.exit_code == 0);
    CHECK_THAT(t.out, Catch::Contains(en ? "Answer: 9.17" : "答案：9.17"));
    CHECK_THAT(t.out, Catch::Contains("1 / 0.109"));
    CHECK_THAT(t.out, Catch::Contains(en ? "teacher's copy" : "教师版"));
    // JSON: answers only in the teacher's copy.
    json hj = run_json({"learn", "04", "--handout", "--json"});
    CHECK_FALSE(hj["steps"][0]["question"].contains("answer"));
    json tj = run_json({"learn", "04", "--handout", "--answers", "--json"});
    CHECK(tj["steps"][0]["question"]["answer"] == "9.17");
  }
}

TEST_CASE("learn finds lessons by the command they teach; ambiguous keys name the candidates",
          "[cli][learn]") {
  for (auto [key, title] : {std::pair{"vecadd", "Vector add"},
                            {"twonorm", "Two-norm"},
                            {"hello", "Hello World"},
                            {"index-map", "Indexing in 2-D"},
                            {"vec", "Vector add"},
                            {"PyTorch", "Calling your kernel"}}) {
    CAPTURE(key);
    json j = run_json({"learn", key, "--json"});
    CHECK_THAT(j["title"].get<std::string>(), Catch::StartsWith(title));
  }
  auto c = run_gpulab({"learn", "c"});
  CHECK(c.exit_code == 2);
  CHECK(lines_of(c.err).size() == 1);
  CHECK_THAT(c.err, Catch::Contains("01-computer-and-cpu, 02-cpu-vs-gpu"));
  auto zh = run_gpulab({"learn", "c", "--lang", "zh"});
  CHECK(zh.exit_code == 2);
  CHECK(lines_of(zh.err).size() == 1);
  CHECK_THAT(zh.err, Catch::Contains("匹配到不止一课"));
  auto none = run_gpulab({"learn", "cooking", "--lang", "zh"});
  CHECK(none.exit_code == 2);
  CHECK(lines_of(none.err).size() == 1);
  CHECK_THAT(none.err, Catch::Contains("vecadd (11)"));
}

TEST_CASE("Every lesson renders in both languages with its demos", "[cli][learn]") {
  const std::string state = "XDG_STATE_HOME=" + temp_dir() + "/all";
  json list = run_json({"learn", "--json"});
  for (const auto& l : list["lessons"]) {
    for (const char* lang : {"en", "zh"}) {
      const std::string id = l["id"];
      CAPTURE(id, lang);
      auto r =
          run_gpulab({"learn", id, "--no-pause", "--lang", lang, "--backend", "cpu"}, "", {state});
      CHECK(r.exit_code == 0);
      CHECK(r.out.size() > 200);
      CHECK(r.out.find("gpulab: error: unexpected") == std::string::npos);
    }
  }
}

TEST_CASE("learn refuses an unknown lesson", "[cli][learn]") {
  auto r = run_gpulab({"learn", "99"});
  CHECK(r.exit_code == 2);
  CHECK(lines_of(r.err).size() == 1);
  CHECK_THAT(r.err, Catch::Contains("no lesson has that number, name or command"));
  CHECK_THAT(r.err, Catch::Contains("16-pytorch-extensions"));
}

TEST_CASE("quiz --answers: the teacher's key, the same for the same seed", "[cli][quiz]") {
  json a = run_json({"quiz", "--answers", "--json", "--seed", "7", "--count", "11"});
  json b = run_json({"quiz", "--answers", "--json", "--seed", "7", "--count", "11"});
  REQUIRE(a["questions"].size() == 11);
  CHECK(a == b);
  for (const auto& q : a["questions"]) {
    CHECK(q.contains("id"));
    CHECK(q.contains("topic"));
    CHECK(q.contains("prompt"));
    CHECK(q.contains("answer"));
  }
  auto text = run_gpulab({"quiz", "--answers", "--seed", "7", "--count", "3"});
  CHECK_THAT(text.out, Catch::Contains("Answer:"));
}

TEST_CASE("quiz grades answers read from stdin", "[cli][quiz]") {
  json key = run_json({"quiz", "--answers", "--json", "--seed", "99", "--count", "11"});
  std::string right, wrong;
  for (const auto& q : key["questions"]) {
    right += q["answer"].get<std::string>() + "\n";
    wrong += "123456789\n";
  }
  auto all_right = run_gpulab({"quiz", "--seed", "99", "--count", "11"}, right);
  CHECK(all_right.exit_code == 0);
  CHECK_THAT(all_right.out, Catch::Contains("Score: 11/11"));
  auto all_wrong = run_gpulab({"quiz", "--seed", "99", "--count", "11"}, wrong);
  CHECK(all_wrong.exit_code == 0);
  CHECK_THAT(all_wrong.out, Catch::Contains("Score: 0/11"));
  CHECK_THAT(all_wrong.out, Catch::Contains("The answer is"));
  // A malformed answer is asked again, not graded; then the right one counts.
  const std::string first = key["questions"][0]["answer"].get<std::string>() + "\n";
  auto malformed = run_gpulab({"quiz", "--seed", "99", "--count", "1"}, "not a number\n" + first);
  CHECK_THAT(malformed.out, Catch::Contains("please answer again"));
  CHECK_THAT(malformed.out, Catch::Contains("Score: 1/1"));
  auto only_malformed = run_gpulab({"quiz", "--seed", "99", "--count", "1"}, "???\n");
  CHECK_THAT(only_malformed.out, Catch::Contains("Input ended after 0 of 1 questions."));
  CHECK_THAT(only_malformed.out, Catch::Contains("Score: 0/1"));
  auto zh = run_gpulab({"quiz", "--seed", "99", "--count", "11", "--lang", "zh"}, wrong);
  CHECK_THAT(zh.out, Catch::Contains("得分：0/11"));
  CHECK_THAT(zh.out, Catch::Contains("答案是"));
  auto early = run_gpulab({"quiz", "--seed", "99", "--count", "5"},
                          key["questions"][0]["answer"].get<std::string>() + "\n");
  CHECK(early.exit_code == 0);
  CHECK_THAT(early.out, Catch::Contains("Input ended after 1 of 5 questions."));
  CHECK_THAT(early.out, Catch::Contains("Score: 1/5"));
  json graded = run_json({"quiz", "--seed", "99", "--count", "2", "--json"}, right);
  CHECK(graded["score"] == 2);
  CHECK(graded["questions"][0]["correct"] == true);
}

TEST_CASE("quiz: a student id as seed, topics by group, results a teacher can collect",
          "[cli][quiz]") {
  json a = run_json({"quiz", "--answers", "--json", "--seed", "student-042"});
  json b = run_json({"quiz", "--answers", "--json", "--seed", "student-042"});
  json c = run_json({"quiz", "--answers", "--json", "--seed", "student-043"});
  CHECK(a == b);
  CHECK(a["questions"] != c["questions"]);
  CHECK(a["seed"] == 6517052853577834979ull);
  CHECK(a["seed_text"] == "student-042");
  json amdahl = run_json({"quiz", "--answers", "--json", "--topic", "amdahl", "--count", "6"});
  std::set<std::string> topics;
  for (const auto& q : amdahl["questions"]) topics.insert(q["topic"].get<std::string>());
  CHECK(topics == std::set<std::string>{"amdahl-speedup", "amdahl-limit"});
  json two = run_json(
      {"quiz", "--answers", "--json", "--topic", "races", "--topic", "find-1d", "--count", "4"});
  for (const auto& q : two["questions"])
    CHECK((q["topic"] == "race-barrier" || q["topic"] == "find-1d"));

  const std::string file = temp_dir() + "/results.jsonl";
  std::filesystem::remove(file);
  json key = run_json({"quiz", "--answers", "--json", "--seed", "ada", "--count", "3"});
  const std::string right = key["questions"][0]["answer"].get<std::string>() + "\n" +
                            key["questions"][1]["answer"].get<std::string>() + "\n";
  auto r1 = run_gpulab({"quiz", "--seed", "ada", "--count", "3", "--results", file}, right);
  CHECK(r1.exit_code == 0);
  CHECK_THAT(r1.out, Catch::Contains("Result added to"));
  auto r2 =
      run_gpulab({"quiz", "--seed", "bob", "--count", "3", "--topic", "amdahl", "--results", file},
                 "0\n0\n0\n");
  CHECK(r2.exit_code == 0);
  std::ifstream in(file);
  std::vector<json> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(json::parse(line));
  REQUIRE(lines.size() == 2);
  CHECK(lines[0]["format"] == "gpulab-quiz-result/1");
  CHECK(lines[0]["seed_text"] == "ada");
  CHECK(lines[0]["given"] == 2);
  CHECK(lines[0]["correct"] == 2);
  CHECK(lines[0]["total"] == 3);
  CHECK(lines[0]["input_ended"] == true);
  CHECK(lines[0]["score"].get<double>() == Approx(2.0 / 3));
  CHECK(lines[0]["questions"].size() == 3);
  CHECK(lines[0]["questions"][2]["given"].is_null());
  CHECK(lines[0]["topics"].size() == 20);
  CHECK(lines[0]["time"].get<std::string>().size() == 20);  // 2026-11-22T19:30:05Z
  CHECK(lines[1]["seed_text"] == "bob");
  CHECK(lines[1]["given"] == 3);
  check_usage_error({"quiz", "--results", "/nonexistent-dir/r.jsonl"}, "--results");
  check_usage_error({"quiz", "--answers", "--results", file}, "not with --answers");
}

TEST_CASE("quiz: bad values", "[cli][quiz]") {
  for (auto args : {std::vector<std::string>{"quiz", "--count", "0"},
                    {"quiz", "--count", "101"},
                    {"quiz", "--topic", "cooking"},
                    {"quiz", "--topic", "amdahl,cooking"},
                    {"quiz", "--seed", ""}}) {
    CAPTURE(args);
    auto r = run_gpulab(args);
    CHECK(r.exit_code == 2);
    CHECK(lines_of(r.err).size() == 1);
  }
}

namespace {

// A number as it may be printed: "65536", "65,536", "9.99". Every reading is kept, so "2,5" gives
// 2 and 5, and "65,536" gives 65, 536 and 65536: a superset is the strict side for this check.
struct Printed {
  double value;
  int decimals;
};
std::vector<Printed> printed_numbers(const std::string& s) {
  std::vector<Printed> out;
  static const std::regex plain(R"(\d+(\.\d+)?)");
  static const std::regex grouped(R"(\d{1,3}(,\d{3})+(\.\d+)?)");
  for (const std::regex* re : {&plain, &grouped}) {
    for (auto it = std::sregex_iterator(s.begin(), s.end(), *re); it != std::sregex_iterator();
         ++it) {
      std::string t = it->str();
      std::erase(t, ',');
      const std::size_t dot = t.find('.');
      out.push_back({std::stod(t), dot == std::string::npos ? 0 : int(t.size() - dot - 1)});
    }
  }
  return out;
}

// Whether `text` shows `answer`: a number printed to the answer's precision (9.991 shows 9.99; 10
// does not), or a tuple's numbers one after the other ("block 2, thread 5" shows 2,5).
bool shows_answer(const std::string& text, const std::string& answer) {
  std::vector<double> want;
  int decimals = 0;
  for (const auto& p : printed_numbers(answer)) {
    if (answer.find(',') != std::string::npos && p.value >= 1000) continue;  // "2,5" is a tuple
    want.push_back(p.value);
    decimals = std::max(decimals, p.decimals);
  }
  if (want.empty()) return false;  // a word: naming a choice the step teaches gives nothing away
  // A tuple's numbers count only one after the other on one line.
  for (const auto& line : lines_of(text)) {
    std::vector<double> seen;
    for (const auto& p : printed_numbers(line)) {
      if (p.decimals < decimals) continue;
      const double scale = std::pow(10.0, decimals);
      seen.push_back(std::round(p.value * scale) / scale);
    }
    if (std::search(seen.begin(), seen.end(), want.begin(), want.end()) != seen.end()) return true;
  }
  return false;
}

}  // namespace

TEST_CASE("The giveaway check finds answers in text", "[learn]") {
  CHECK(shows_answer("Element 21 is handled by block 2, thread 5", "2,5"));
  CHECK_FALSE(shows_answer("block 5, thread 2", "2,5"));
  CHECK(shows_answer("(24 idle threads)", "24"));
  CHECK_FALSE(shows_answer("(124 idle threads)", "24"));
  CHECK(shows_answer("65,536 registers", "65536"));
  CHECK(shows_answer("speedup 9.991x", "9.99"));
  CHECK_FALSE(shows_answer("speedup 10x", "9.99"));
  CHECK_FALSE(shows_answer("no and yes", "no"));
}

// No check question is answered on the screen before it is asked: not by its step's text, nor by
// a demo, nor by anything shown since the previous question (the demo after it, steps between),
// in either language. Where each question stands is read from the teacher's copy, which shows
// every demo's output run through the real binary. The exceptions say why.
TEST_CASE("No lesson gives a question's answer away before asking it", "[cli][learn]") {
  struct Allowed {
    const char* lesson;
    std::size_t step;  // 0-based
    const char* why;
  };
  const std::vector<Allowed> allowed = {
      {"08-memory-hierarchy", 3,
       "the 4 is the register file's 4 sub-partitions, a fact the question needs, not its answer"},
      {"08-memory-hierarchy", 6,
       "the 4s of the occupancy demo before are blocks and sub-partitions; the question counts "
       "constant-memory requests"},
      {"06-logical-structure", 3,
       "the demo before lists every index 0-71 of a 3x2 grid; the question asks the warps of a "
       "200-thread block"},
      {"10-hello-world", 2,
       "the hello demo before prints thread numbers 0-3; the question counts the warps of "
       "<<<3, 32>>>"},
      {"11-vector-add", 2,
       "the demo before lists elements 0-31 with the right formula; 18 is the wrong formula's "
       "index for block 3, thread 6, which no line shows"},
  };
  const std::string state = "XDG_STATE_HOME=" + temp_dir() + "/giveaway";
  json list = run_json({"learn", "--json"});
  int questions = 0;
  for (const auto& l : list["lessons"]) {
    for (const char* lang : {"en", "zh"}) {
      const std::string id = l["id"];
      json lesson = run_json({"learn", id, "--json", "--lang", lang});
      const std::string title = lesson["title"];
      auto copy = run_gpulab({"learn", id, "--handout", "--answers", "--lang", lang, "--backend",
                              "cpu", "--color", "never"},
                             "", {state});
      REQUIRE(copy.exit_code == 0);
      const std::size_t n = lesson["steps"].size();
      int number = 0;
      std::size_t previous_answer_end = std::string::npos;
      for (std::size_t s = 0; s < n; ++s) {
        const json& step = lesson["steps"][s];
        if (!step.contains("question")) continue;
        ++questions;
        ++number;
        // The step's part of the teacher's copy, up to its question.
        std::string head = "[";
        head += std::to_string(s + 1);
        head += "/";
        head += std::to_string(n);
        head += "] ";
        REQUIRE(copy.out.find(head + title) != std::string::npos);
        std::string ask = lang == std::string("en") ? "Question " : "问题 ";
        ask += std::to_string(number);
        ask += lang == std::string("en") ? ":" : "：";
        const std::size_t to = copy.out.find(ask, copy.out.find(head + title));
        REQUIRE(to != std::string::npos);
        // Still on the screen: everything since the previous question's answer line (the demo
        // that followed it, steps in between), less the step headings ("[3/4]" is no answer).
        std::size_t from = 0;
        if (previous_answer_end != std::string::npos) from = previous_answer_end;
        std::string seen = step["text"].get<std::string>() + "\n";
        for (const auto& line : lines_of(copy.out.substr(from, to - from)))
          if (!std::regex_search(line, std::regex(R"(^\[\d+/\d+\] )"))) seen += line + "\n";
        previous_answer_end = copy.out.find('\n', copy.out.find('\n', to) + 1);
        const std::string answer = step["question"]["answer"];
        const bool excused = std::any_of(allowed.begin(), allowed.end(), [&](const Allowed& a) {
          return a.lesson == id && a.step == s;
        });
        CAPTURE(id, lang, s, answer, seen);
        if (!excused) CHECK_FALSE(shows_answer(seen, answer));
      }
    }
  }
  CHECK(questions > 50);
}
