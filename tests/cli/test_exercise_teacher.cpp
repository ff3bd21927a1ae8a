// A teacher's own exercises from a folder (--exercises DIR or GPULAB_EXERCISES): listed, started,
// checked and graded like gpulab's own, their tests declared in the file; every mistake in such a
// file is one line naming the file and the line; `solution` says when there is none (a teacher's
// exercise without one, the student edition).
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "support/folders.hpp"
#include "support/run.hpp"

using namespace gpulab::test;
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

fs::path work_dir() {
  return fresh_folder("gpulab-teacher-test");
}

std::vector<std::string> env(const fs::path& folder) {
  return {"XDG_CACHE_HOME=" + (work_dir() / "cache").string(),
          "XDG_STATE_HOME=" + (work_dir() / "state").string(), "COLUMNS=1000",
          "GPULAB_EXERCISES=" + folder.string()};
}

const std::string kHead =
    "@@ id scale\n@@ title.en Scale every element\n@@ title.zh 缩放每个元素\n"
    "@@ statement.en\nout[i] = a[i] * s for every i < n, blocks of 128.\n"
    "@@ statement.zh\n对每个 i < n，out[i] = a[i] * s，每块 128 个线程。\n"
    "@@ hint.en\nOne thread per element, and a guard.\n@@ "
    "hint.zh\n每个线程一个元素，加上边界判断。\n"
    "@@ starter\n__global__ void scale(const float* a, float* out, float s, int n) {\n}\n";
const std::string kTests =
    "@@ test n = 1000 | n = 1000\n"
    "input a 1000\n"
    "output out 1000\n"
    "launch scale grid 8 block 128 args a out 2.5 1000   # a comment\n"
    "expect out = a * 2.5\n"
    "rule max_global_reads 1\n"
    "@@ test n = 1 | n = 1\n"
    "input a 1\n"
    "output out 1\n"
    "launch scale grid 1 block 128 args a out -1 1\n"
    "expect out = -a[i] + 0 * sum(a)\n";

fs::path folder_with(const std::string& name, const std::string& text) {
  const fs::path dir =
      work_dir() / ("ex-" + std::to_string(std::hash<std::string>{}(name + "\n" + text)));
  fs::create_directories(dir);
  std::ofstream(dir / name) << text;
  return dir;
}

}  // namespace

TEST_CASE("a teacher's exercise: each mistake in its file is one line naming file and line",
          "[exercise][teacher]") {
  struct Case {
    std::string name, text, words;
  };
  const std::vector<Case> cases = {
      {"21-scale.txt", kHead,
       "21-scale.txt: an exercise needs id, title, statement, starter and a solution or @@ test "
       "sections"},
      {"21-scale.txt",
       kHead + "@@ test t\ninput a 10\noutput out 10\nlaunch nope grid 1 block 10 "
               "args a out 1 10\n",
       "21-scale.txt:18: the starter has no __global__ nope"},
      {"21-scale.txt",
       kHead + "@@ test t\ninput a 10\noutput out 10\nlaunch scale grid 1 block 10 "
               "args a out 1\n",
       "21-scale.txt:18: scale takes 4 arguments, the launch gives 3"},
      {"21-scale.txt",
       kHead + "@@ test t\ninput a 10\noutput out 10\nlaunch scale grid 1 block 10 "
               "args a out 1 1.5\n",
       "21-scale.txt:18: argument 4 (int n): '1.5' is not a whole number"},
      {"21-scale.txt",
       kHead + "@@ test t\ninput a 10\noutput out 10\nlaunch scale grid 1 block 2000 "
               "args a out 1 10\n",
       "21-scale.txt:18: grid 1 block 2000: past CUDA's limits"},
      {"21-scale.txt",
       kHead + "@@ test t\ninput a 10\noutput out 10\nlaunch scale grid 1 block 10 "
               "args a out 1 10\nexpect out = a * (2 +\n",
       "21-scale.txt:19: in the expression ' a * (2 +': it ends too soon"},
      {"21-scale.txt",
       kHead + "@@ test t\ninput a 10\noutput out 10\nlaunch scale grid 1 block 10 "
               "args a out 1 10\nexpect out = b * 2\n",
       "21-scale.txt:19: in the expression ' b * 2': 'b' is no input of this test"},
      {"21-scale.txt",
       kHead + "@@ test t\ninput a 10\noutput out 10\nlaunch scale grid 1 block 10 "
               "args a out 1 10\nexpect out = a[i + 1]\n",
       "21-scale.txt:19: a has 10 elements: element 10 was asked for"},
      {"21-scale.txt",
       kHead + "@@ test t\ninput a 10\noutput out 10\nlaunch scale grid 1 block 10 "
               "args a out 1 10\nexpect out = a\nwobble 3\n",
       "21-scale.txt:20: unknown line 'wobble'"},
      {"21-other.txt", kHead + kTests, "21-other.txt: its @@ id is 'scale', its name says 'other'"},
      {"09-scale.txt", kHead + kTests,
       "09-scale.txt: number 9 is exercise shared's (gpulab's own)"},
      {"21-map.txt", "@@ id map\n" + kHead.substr(kHead.find('\n') + 1) + kTests,
       "21-map.txt: the id 'map' is taken (gpulab's own)"},
      {"scale.txt", kHead + kTests, "scale.txt: not named NN-ID.txt"},
  };
  for (const Case& c : cases) {
    const fs::path dir = folder_with(c.name, c.text);
    const RunResult r = run_gpulab({"exercise", "list"}, {}, env(dir));
    CAPTURE(c.name, c.words, r.out, r.err);
    CHECK(r.exit_code == 2);
    CHECK(r.out.empty());
    CHECK(lines_of(r.err).size() == 1);
    CHECK_THAT(r.err, Catch::Contains(c.words));
    CHECK_THAT(r.err, Catch::Contains((dir / c.name).string()));
  }
  // --exercises on the command line, a folder that is not one.
  const RunResult r = run_gpulab(
      {"exercise", "list", "--exercises", (work_dir() / "nothing").string()}, {}, env(""));
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains("not a folder"));
}

TEST_CASE("a teacher's exercise is listed, started, checked and graded like gpulab's own",
          "[run][exercise][teacher]") {
  const fs::path dir = folder_with("21-scale.txt", kHead + kTests);
  RunResult r = run_gpulab({"exercise", "--json"}, {}, env(dir));
  REQUIRE(r.exit_code == 0);
  const json list = json::parse(r.out).at("exercises");
  CHECK(list.back().at("id") == "scale");
  CHECK(list.back().at("number") == 21);

  const fs::path files = work_dir() / "ana";
  fs::create_directories(files);
  r = run_gpulab({"exercise", "start", "scale", "--dir", files.string()}, {}, env(dir));
  REQUIRE(r.exit_code == 0);
  REQUIRE(fs::exists(files / "21-scale.cu"));
  // The untouched starter fails; the right kernel passes, on the check and on the grade.
  r = run_gpulab({"exercise", "check", (files / "21-scale.cu").string()}, {}, env(dir));
  CHECK(r.exit_code == 1);
  CHECK_THAT(r.out, Catch::Contains("never written"));
  std::ofstream(files / "21-scale.cu")
      << "// gpulab exercise: scale\n"
         "__global__ void scale(const float* a, float* out, float s, int n) {\n"
         "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
         "  if (i < n) out[i] = a[i] * s;\n}\n";
  r = run_gpulab({"exercise", "check", (files / "21-scale.cu").string(), "--json"}, {}, env(dir));
  CAPTURE(r.out, r.err);
  CHECK(r.exit_code == 0);
  const json c = json::parse(r.out);
  CHECK(c.at("tests").size() == 2);
  CHECK(c.at("tests")[0].at("rules")[0].at("measured") == 1);
  r = run_gpulab(
      {"exercise", "grade", files.string(), "--seed", "4", "--exercises", dir.string(), "--json"},
      {}, env(""));
  CAPTURE(r.out, r.err);
  CHECK(r.exit_code == 0);
  CHECK(json::parse(r.out).at("results")[0].at("verdict") == "passed");

  SECTION("a wrong kernel fails with gpulab's words") {
    std::ofstream(files / "21-scale.cu")
        << "// gpulab exercise: scale\n"
           "__global__ void scale(const float* a, float* out, float s, int n) {\n"
           "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
           "  if (i < n) out[i] = a[i] + s;\n}\n";
    r = run_gpulab({"exercise", "check", (files / "21-scale.cu").string()}, {}, env(dir));
    CHECK(r.exit_code == 1);
    CHECK_THAT(r.out, Catch::Contains("FAIL"));
  }
}

TEST_CASE("exercise solution says when there is none: a teacher's file, the student edition",
          "[exercise][teacher][edition]") {
  const fs::path dir = folder_with("21-scale.txt", kHead + kTests);
  RunResult r = run_gpulab({"exercise", "solution", "scale"}, {}, env(dir));
  CHECK(r.exit_code == 1);
  CHECK(r.out.empty());
  CHECK_THAT(r.err, Catch::Contains("exercise scale: its file has no @@ solution section"));
  // A file of the student edition (what GPULAB_STUDENT_EDITION=ON embeds, with the edition line).
  const fs::path student = folder_with("21-scale.txt", "@@ edition student\n" + kHead + kTests);
  r = run_gpulab({"exercise", "solution", "scale"}, {}, env(student));
  CHECK(r.exit_code == 1);
  CHECK(lines_of(r.err).size() == 1);
  CHECK_THAT(r.err, Catch::Contains("student edition: it holds no reference solutions"));
  r = run_gpulab({"exercise", "solution", "scale", "--lang", "zh"}, {}, env(student));
  CHECK(r.exit_code == 1);
  CHECK_THAT(r.err, Catch::Contains("这是 gpulab 的学生版，不含参考答案"));
  // gpulab's own solutions are there in the teacher's edition.
  r = run_gpulab({"exercise", "solution", "map"}, {}, env(student));
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::Contains("map_add_ten"));
}

TEST_CASE(
    "a teacher's exercise with counter rules (@@ counter_rules, rule max_bank_conflicts 0): a "
    "coalesced kernel passes, a strided one fails on the counter, in check and grade",
    "[run][exercise][teacher][counters]") {
  // Each test keeps at most 4 sectors per request (the file's section) and no bank conflicts (the
  // first test's own rule line).
  const std::string tests =
      "@@ counter_rules\nmax_sectors_per_request=4\n"
      "@@ test n = 1000 | n = 1000\ninput a 1000\noutput out 1000\n"
      "launch scale grid 8 block 128 args a out 2.5 1000\nexpect out = a * 2.5\n"
      "rule max_bank_conflicts 0\n";
  const fs::path dir = folder_with("21-scale.txt", kHead + tests);
  const fs::path files = work_dir() / "counted";
  fs::create_directories(files);
  const fs::path file = files / "21-scale.cu";
  std::ofstream(file) << "// gpulab exercise: scale\n"
                         "__global__ void scale(const float* a, float* out, float s, int n) {\n"
                         "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                         "  if (i < n) out[i] = a[i] * s;\n}\n";
  RunResult r = run_gpulab({"exercise", "check", file.string(), "--json"}, {}, env(dir));
  CAPTURE(r.out, r.err);
  REQUIRE(r.exit_code == 0);
  json c = json::parse(r.out);
  REQUIRE(c.at("tests")[0].at("rules").size() == 2);
  CHECK(c.at("tests")[0].at("rules")[0].at("rule") == "max_bank_conflicts");
  CHECK(c.at("tests")[0].at("rules")[0].at("measured") == 0);
  CHECK(c.at("tests")[0].at("rules")[1].at("rule") == "max_sectors_per_request");
  // 31 warps of 4 sectors, the last 8 lanes in 1: (31 x 4 + 1) / 32 per request.
  CHECK(c.at("tests")[0].at("rules")[1].at("measured").get<double>() == Approx(125.0 / 32));
  // Right outputs, strided: each block of 128 threads takes its elements 32 apart.
  std::ofstream(file) << "// gpulab exercise: scale\n"
                         "__global__ void scale(const float* a, float* out, float s, int n) {\n"
                         "  int k = threadIdx.x;\n"
                         "  int i = blockIdx.x * blockDim.x + (k % 32) * 4 + k / 32;\n"
                         "  if (i < n) out[i] = a[i] * s;\n}\n";
  r = run_gpulab({"exercise", "check", file.string(), "--json"}, {}, env(dir));
  CAPTURE(r.out, r.err);
  REQUIRE(r.exit_code == 1);
  c = json::parse(r.out);
  CHECK(c.at("tests")[0].at("results")[0].at("pass") == true);
  CHECK(c.at("tests")[0].at("rules")[1].at("ok") == false);
  CHECK(c.at("tests")[0].at("rules")[1].at("measured") > 4);
  CHECK(c.at("diagnoses")[0].at("mistake") == "uncoalesced");
  r = run_gpulab(
      {"exercise", "grade", files.string(), "--seed", "4", "--exercises", dir.string(), "--json"},
      {}, env(""));
  CAPTURE(r.out, r.err);
  CHECK(r.exit_code == 1);
  CHECK(json::parse(r.out).at("results")[0].at("verdict") == "failed");
}
