// CLI tests of learn and quiz: listing, handouts, progress, answer keys and grading over stdin.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <unistd.h>
#include <filesystem>
#include <fstream>

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
  REQUIRE(j["lessons"].size() == 16);
  CHECK(j["lessons"][3]["id"] == "04-amdahl");
}

TEST_CASE("learn prints a whole lesson when stdin is not a terminal, demos included",
          "[cli][learn]") {
  const std::string state = "XDG_STATE_HOME=" + temp_dir() + "/handout";
  for (const char* lang : {"en", "zh"}) {
    CAPTURE(lang);
    auto r = run_gpulab({"learn", "04", "--lang", lang}, "", {state});
    REQUIRE(r.exit_code == 0);
    CHECK_THAT(r.out, Catch::Contains("$ gpulab amdahl"));
    CHECK_THAT(r.out, Catch::Contains("1 / (0.95/10 + 0.05)"));  // the demo really ran
    CHECK_THAT(r.out, Catch::Contains(lang == std::string("en") ? "Answer:" : "答案："));
  }
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
  CHECK_THAT(r.err, Catch::Contains("no such lesson"));
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
  auto malformed = run_gpulab({"quiz", "--seed", "99", "--count", "1"}, "not a number\n");
  CHECK_THAT(malformed.out, Catch::Contains("is not"));
  CHECK_THAT(malformed.out, Catch::Contains("Score: 0/1"));
  auto early = run_gpulab({"quiz", "--seed", "99", "--count", "5"},
                          key["questions"][0]["answer"].get<std::string>() + "\n");
  CHECK(early.exit_code == 0);
  CHECK_THAT(early.out, Catch::Contains("Input ended after 1 of 5 questions."));
  CHECK_THAT(early.out, Catch::Contains("Score: 1/5"));
  json graded = run_json({"quiz", "--seed", "99", "--count", "2", "--json"}, right);
  CHECK(graded["score"] == 2);
  CHECK(graded["questions"][0]["correct"] == true);
}

TEST_CASE("quiz: bad values", "[cli][quiz]") {
  for (auto args : {std::vector<std::string>{"quiz", "--count", "0"},
                    {"quiz", "--count", "101"},
                    {"quiz", "--topic", "cooking"},
                    {"quiz", "--seed", "x"}}) {
    CAPTURE(args);
    auto r = run_gpulab(args);
    CHECK(r.exit_code == 2);
    CHECK(lines_of(r.err).size() == 1);
  }
}
