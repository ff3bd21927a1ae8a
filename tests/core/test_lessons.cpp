// The lessons compiled into the binary: every lesson parses, in both languages, step for step.
#include <catch2/catch.hpp>

#include "core/error.hpp"
#include "core/lesson.hpp"

using namespace gpulab;

TEST_CASE("Both languages have the same lessons with the same steps and directives", "[lessons]") {
  auto en = load_lessons("en");
  auto zh = load_lessons("zh");
  REQUIRE(en.size() == 17);
  REQUIRE(zh.size() == en.size());
  for (std::size_t i = 0; i < en.size(); ++i) {
    CAPTURE(en[i].id);
    CHECK(zh[i].id == en[i].id);
    CHECK_FALSE(en[i].title.empty());
    CHECK_FALSE(zh[i].title.empty());
    REQUIRE(zh[i].steps.size() == en[i].steps.size());
    CHECK(en[i].steps.size() >= 3);
    for (std::size_t s = 0; s < en[i].steps.size(); ++s) {
      CAPTURE(s);
      const auto& a = en[i].steps[s];
      const auto& b = zh[i].steps[s];
      CHECK_FALSE(a.text.empty());
      CHECK_FALSE(b.text.empty());
      CHECK(a.demo == b.demo);
      REQUIRE(a.question.has_value() == b.question.has_value());
      if (a.question) {
        CHECK(a.question->answer == b.question->answer);
        CHECK_FALSE(a.question->text.empty());
        CHECK_FALSE(b.question->text.empty());
      }
    }
  }
}

TEST_CASE("Lessons are found by id, number or name", "[lessons]") {
  auto en = load_lessons("en");
  REQUIRE(find_lesson(en, "04-amdahl") != nullptr);
  CHECK(find_lesson(en, "04")->id == "04-amdahl");
  CHECK(find_lesson(en, "4")->id == "04-amdahl");
  CHECK(find_lesson(en, "amdahl")->id == "04-amdahl");
  CHECK(find_lesson(en, "99") == nullptr);
  CHECK(find_lesson(en, "99999999999999") == nullptr);
  CHECK(find_lesson(en, "nope") == nullptr);
}

TEST_CASE("Lessons are found by the command they teach, by a unique prefix, by a word",
          "[lessons]") {
  for (const char* lang : {"en", "zh"}) {
    CAPTURE(lang);
    auto ls = load_lessons(lang);
    auto id = [&](std::string_view key) {
      const Lesson* l = find_lesson(ls, key);
      return l == nullptr ? std::string("none") : l->id;
    };
    CHECK(id("vecadd") == "11-vector-add");
    CHECK(id("twonorm") == "14-two-norm-shared-memory");
    CHECK(id("hello") == "10-hello-world");
    CHECK(id("index-map") == "12-indexing-2d-3d");
    CHECK(id("index_map") == "12-indexing-2d-3d");
    CHECK(id("Amdahl") == "04-amdahl");
    CHECK(id("vec") == "11-vector-add");
    CHECK(id("pytorch") == "16-pytorch-extensions");
    CHECK(id("reduc") == "15-reductions");
    CHECK(id("16") == "16-pytorch-extensions");
    CHECK(id("0") == "none");
    CHECK(id("") == "none");
  }
  auto en = load_lessons("en");
  // "c" starts computer-and-cpu, cpu-vs-gpu and coalescing-and-bank-conflicts: all are named,
  // none chosen.
  const LessonLookup c = lookup_lesson(en, "c");
  CHECK(c.lesson == nullptr);
  REQUIRE(c.candidates.size() == 3);
  CHECK(c.candidates[0]->id == "01-computer-and-cpu");
  CHECK(c.candidates[1]->id == "02-cpu-vs-gpu");
  CHECK(c.candidates[2]->id == "17-coalescing-and-bank-conflicts");
  CHECK(lookup_lesson(en, "zzz").candidates.empty());
  // Every command in the table names a lesson that exists and demonstrates it or names it.
  for (const auto& t : taught_commands()) {
    CAPTURE(t.command);
    const Lesson* l = find_lesson(en, t.lesson);
    REQUIRE(l != nullptr);
    bool shown = false;
    for (const auto& s : l->steps) {
      if (!s.demo.empty() && s.demo[0] == t.command) shown = true;
      if (s.text.find("gpulab " + std::string(t.command)) != std::string::npos) shown = true;
    }
    CHECK(shown);
  }
}

TEST_CASE("The lesson parser reads directives and refuses malformed ones", "[lessons]") {
  Lesson l =
      parse_lesson("00-test",
                   "# Title\nFirst step.\n@demo amdahl --p 0.9\n---\nSecond.\n@question How many?\n"
                   "@answer 13\n@tolerance 0.01\n@explain 200 / 16 = 12.5 -> 13\n");
  REQUIRE(l.steps.size() == 2);
  CHECK(l.title == "Title");
  CHECK(l.steps[0].demo == std::vector<std::string>{"amdahl", "--p", "0.9"});
  REQUIRE(l.steps[1].question);
  CHECK(l.steps[1].question->answer == "13");
  CHECK(l.steps[1].question->tolerance == Approx(0.01));
  CHECK_THROWS_AS(parse_lesson("x", "no title\n"), RuntimeFailure);
  CHECK_THROWS_AS(parse_lesson("x", "# T\n@answer 3\n"), RuntimeFailure);
  CHECK_THROWS_AS(parse_lesson("x", "# T\n@question q\n---\n"), RuntimeFailure);
  CHECK_THROWS_AS(parse_lesson("x", "# T\n@bogus\n"), RuntimeFailure);
}
