// The student edition of the exercises (exercise/edition.hpp) on every real exercise file: what
// the build embeds when GPULAB_STUDENT_EDITION is ON holds the same exercise without its
// solution, planted mistakes and final hint, and still parses; checking never needs them.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <regex>

#include "exercise/catalog.hpp"
#include "exercise/edition.hpp"

using namespace gpulab::exercise;
namespace fs = std::filesystem;

namespace {

std::string read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

}  // namespace

TEST_CASE("the student edition of every exercise: no solution, mistake or final hint",
          "[exercise][edition]") {
  std::size_t files = 0;
  for (const auto& entry : fs::directory_iterator(fs::path(GPULAB_SOURCE_DIR) / "exercises")) {
    if (entry.path().extension() != ".txt") continue;
    ++files;
    const std::string name = entry.path().filename().string();
    CAPTURE(name);
    const std::string text = read(entry.path());
    const Exercise full = parse(text, name);
    const std::string student = student_edition(text);
    CHECK(student.rfind(std::string(kStudentEditionLine) + "\n", 0) == 0);
    CHECK(student.find("@@ solution") == std::string::npos);
    CHECK(student.find("@@ mistake") == std::string::npos);
    const Exercise e = parse(student, name);
    CHECK(e.student_edition);
    CHECK_FALSE(full.student_edition);
    CHECK(e.solution.empty());
    CHECK(e.mistakes.empty());
    REQUIRE(full.hints.size() >= 2);
    REQUIRE(e.hints.size() == full.hints.size() - 1);
    for (std::size_t i = 0; i < e.hints.size(); ++i) {
      CHECK(e.hints[i].en == full.hints[i].en);
      CHECK(e.hints[i].zh == full.hints[i].zh);
    }
    // The final hint, nearly the answer, is gone in both languages.
    CHECK(student.find(full.hints.back().en) == std::string::npos);
    CHECK(student.find(full.hints.back().zh) == std::string::npos);
    // What a student needs is all there, byte for byte.
    CHECK(e.id == full.id);
    CHECK(e.title.en == full.title.en);
    CHECK(e.title.zh == full.title.zh);
    CHECK(e.statement.en == full.statement.en);
    CHECK(e.statement.zh == full.statement.zh);
    CHECK(e.rules.en == full.rules.en);
    CHECK(e.starter == full.starter);
    CHECK(e.lesson == full.lesson);
    // Stripping twice changes nothing more.
    CHECK(student_edition(student) ==
          std::string(kStudentEditionLine) + "\n" + student.substr(kStudentEditionLine.size() + 1));
  }
  CHECK(files >= 16);
}

TEST_CASE("a file without a solution parses only as the student edition", "[exercise][edition]") {
  const std::string body =
      "@@ id t\n@@ title.en T\n@@ statement.en\nS\n@@ starter\n__global__ void k(float* o) {}\n";
  CHECK_THROWS_WITH(parse(body, "t.txt"), Catch::Contains("solution"));
  const Exercise e = parse(std::string(kStudentEditionLine) + "\n" + body, "t.txt");
  CHECK(e.student_edition);
  CHECK(e.solution.empty());
  CHECK_THROWS_WITH(parse("@@ edition teacher\n" + body, "t.txt"),
                    Catch::Contains("t.txt:1: unknown edition 'teacher'"));
}

TEST_CASE("checking needs no solution: nothing but the catalog and `solution` reads one",
          "[exercise][edition]") {
  // The code that checks and grades (exercise/, run/) never reads Exercise::solution or the
  // planted mistakes: a student edition checks exactly as the teacher's does.
  const std::regex use(R"((\.|->)(solution|mistakes)\b)");
  for (const char* dir : {"src/exercise", "src/run"}) {
    for (const auto& entry : fs::recursive_directory_iterator(fs::path(GPULAB_SOURCE_DIR) / dir)) {
      const std::string file = entry.path().filename().string();
      if (!entry.is_regular_file()) continue;
      if (file == "catalog.cpp" || file == "catalog.hpp") continue;
      const std::string text = read(entry.path());
      CAPTURE(entry.path().string());
      CHECK_FALSE(std::regex_search(text, use));
    }
  }
}
