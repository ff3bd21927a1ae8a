// gpulab exercise: every reference solution passes, every untouched starter fails with words (not
// a crash), every planted mistake is named in the explanation; list, start, hint, solution, the
// drawing, the JSON a teacher collects, progress, and bad input.
#include <fmt/format.h>
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include <unistd.h>

#include "support/cli.hpp"
#include "support/columns.hpp"
#include "support/run.hpp"

using namespace gpulab::test;
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// A folder of its own (cache, progress, files), so that tests touch nothing of the user's.
const fs::path& work_dir() {
  static const fs::path dir = [] {
    fs::path d = fs::temp_directory_path() / ("gpulab-exercise-test-" + std::to_string(::getpid()));
    fs::remove_all(d);
    fs::create_directories(d / "files");
    return d;
  }();
  return dir;
}

// (Lines as the renderer made them: no terminal width to lay them out for.)
std::vector<std::string> env() {
  return {"XDG_CACHE_HOME=" + (work_dir() / "cache").string(),
          "XDG_STATE_HOME=" + (work_dir() / "state").string(), "COLUMNS=1000"};
}

RunResult run_exercise_cli(const std::vector<std::string>& args) {
  return run_gpulab(args, {}, env());
}

// The exercises as gpulab lists them.
json exercise_list() {
  const RunResult r = run_exercise_cli({"exercise", "--json"});
  REQUIRE(r.exit_code == 0);
  return json::parse(r.out).at("exercises");
}

// The starter's header (its "// gpulab exercise: ID" line) with `kernel` as the body.
fs::path write_exercise(const std::string& id, const std::string& name, const std::string& kernel) {
  const fs::path p = work_dir() / "files" / (id + "-" + name + ".cu");
  std::ofstream(p) << "// gpulab exercise: " << id << "\n" << kernel;
  return p;
}

std::string solution_of(const std::string& id) {
  const RunResult r = run_exercise_cli({"exercise", "solution", id});
  REQUIRE(r.exit_code == 0);
  return r.out;
}

// The planted mistakes of an exercise, read from its file in the source tree.
struct Planted {
  std::string name, expect, expect_zh, code;
};
std::vector<Planted> mistakes_of(int number, const std::string& id) {
  std::ifstream in(
      fs::path(GPULAB_SOURCE_DIR) / "exercises" /
      (std::string(number < 10 ? "0" : "") + std::to_string(number) + "-" + id + ".txt"));
  std::vector<Planted> out;
  std::string line;
  bool inside = false;
  static const std::regex head(R"(@@ mistake (\S+) expect=(.*?)(?: \| zh=(.*))?)");
  while (std::getline(in, line)) {
    std::smatch m;
    if (std::regex_match(line, m, head)) {
      out.push_back({m[1].str(), m[2].str(), m[3].str(), ""});
      inside = true;
    } else if (line.rfind("@@ ", 0) == 0) {
      inside = false;
    } else if (inside) {
      out.back().code += line + "\n";
    }
  }
  return out;
}

}  // namespace

TEST_CASE("exercise: at least 16 exercises in course order, each with hints in both languages",
          "[exercise]") {
  const json list = exercise_list();
  REQUIRE(list.size() >= 16);
  const std::vector<std::string> course = {
      "map",      "zip",      "guard",  "map2d",      "broadcast", "blocks",
      "blocks2d", "add2",     "shared", "pooling",    "dot",       "twonorm",
      "scan",     "axis_sum", "matmul", "relu_scale", "fix_race",  "fix_barrier"};
  for (std::size_t i = 0; i < course.size(); ++i) {
    CAPTURE(i);
    CHECK(list[i].at("id") == course[i]);
    CHECK(list[i].at("number") == i + 1);
    CHECK_FALSE(list[i].at("title_zh").get<std::string>().empty());
    for (const char* lang : {"en", "zh"}) {
      const RunResult h = run_exercise_cli({"exercise", "hint", course[i], "--lang", lang});
      CAPTURE(course[i], lang, h.err);
      CHECK(h.exit_code == 0);
      CHECK_FALSE(h.out.empty());
    }
    CHECK_FALSE(mistakes_of(static_cast<int>(i + 1), course[i]).empty());
  }
}

TEST_CASE("exercise check: the first exercise end to end, facts and words", "[run][exercise]") {
  const fs::path dir = work_dir() / "files" / "start";
  fs::create_directories(dir);
  RunResult r = run_exercise_cli({"exercise", "start", "map", "--dir", dir.string()});
  REQUIRE(r.exit_code == 0);
  const fs::path file = dir / "01-map.cu";
  REQUIRE(fs::exists(file));
  CHECK_THAT(r.out, Catch::Contains("gpulab exercise check"));

  SECTION("the untouched starter fails and says no thread wrote the output") {
    r = run_exercise_cli({"exercise", "check", file.string()});
    CAPTURE(r.out, r.err);
    CHECK(r.exit_code == 1);
    CHECK_THAT(r.out, Catch::Contains("never written"));
    CHECK_THAT(r.out, Catch::Contains("FAILED"));
  }
  SECTION("the solution passes; the JSON holds each test and the measured rules") {
    std::ofstream(file, std::ios::app) << "";
    fs::path solved = write_exercise("map", "solved", solution_of("map"));
    r = run_exercise_cli({"exercise", "check", solved.string(), "--json", "--seed", "42"});
    CAPTURE(r.out, r.err);
    REQUIRE(r.exit_code == 0);
    const json j = json::parse(r.out);
    CHECK(j.at("passed") == true);
    CHECK(j.at("seed") == 42);
    CHECK(j.at("exercise") == "map");
    CHECK(j.at("tests").size() == 8);
    for (const json& t : j.at("tests")) {
      CHECK(t.at("pass") == true);
      for (const json& rule : t.at("rules")) {
        CHECK(rule.at("measured") == 1);  // one read and one write per thread, counted
      }
    }
    // Progress: saved as passed, and the list says so.
    const json list = exercise_list();
    CHECK(list[0].at("passed") == true);
    CHECK(list[0].at("checks").get<int>() >= 1);
  }
  SECTION("a wrong index: the element, the thread that wrote it and the right value") {
    const fs::path wrong =
        write_exercise("map", "index",
                       "__global__ void map_add_ten(const float* a, float* out, int n) {\n"
                       "  int i = threadIdx.x;\n"
                       "  out[n - 1 - i] = a[i] + 10.0f;\n"
                       "}\n");
    r = run_exercise_cli({"exercise", "check", wrong.string(), "--json"});
    REQUIRE(r.exit_code == 1);
    const json j = json::parse(r.out);
    // n = 1 passes; n = 5: out[0] was written by thread 4 with a[4] + 10 (element 4's value).
    const json& t = j.at("tests").at(1);
    CHECK(t.at("pass") == false);
    const json& res = t.at("results").at(0);
    CHECK(res.at("index") == 0);
    CHECK(res.at("value_of") == 4);
    CHECK(res.at("writer_thread") == json::array({4, 0, 0}));
    CHECK(res.at("writer_block") == json::array({0, 0, 0}));
    CHECK(j.at("diagnoses").at(0).at("mistake") == "wrong_index");
  }
}

TEST_CASE(
    "exercise check: every solution passes, every starter fails with words, every planted "
    "mistake is named",
    "[run][exercise][exercise_all]") {
  for (const json& e : exercise_list()) {
    const std::string id = e.at("id");
    const int number = e.at("number");
    CAPTURE(id);
    RunResult r = run_exercise_cli(
        {"exercise", "check", write_exercise(id, "solution", solution_of(id)).string()});
    CAPTURE(r.out, r.err);
    CHECK(r.exit_code == 0);
    CHECK_THAT(r.out, Catch::Contains("PASSED"));

    const fs::path dir = work_dir() / "files" / ("starter-" + id);
    fs::create_directories(dir);
    REQUIRE(run_exercise_cli({"exercise", "start", id, "--dir", dir.string()}).exit_code == 0);
    for (const auto& f : fs::directory_iterator(dir)) {
      r = run_exercise_cli({"exercise", "check", f.path().string()});
      CAPTURE(r.out, r.err);
      CHECK(r.exit_code == 1);
      CHECK_THAT(r.out, Catch::Contains("What went wrong"));
    }
    for (const Planted& m : mistakes_of(number, id)) {
      CAPTURE(m.name, m.expect, m.expect_zh);
      r = run_exercise_cli(
          {"exercise", "check", write_exercise(id, m.name, m.code).string(), "--json"});
      CAPTURE(r.out, r.err);
      CHECK(r.exit_code == 1);
      const json j = json::parse(r.out);
      CHECK(j.at("verdict") == "failed");
      // The explanation names the mistake's fix, in both languages.
      std::string en, zh;
      for (const json& d : j.at("diagnoses")) {
        en += d.at("message").get<std::string>() + "\n";
        zh += d.at("message_zh").get<std::string>() + "\n";
      }
      CHECK_THAT(en, Catch::Contains(m.expect));
      CHECK_FALSE(m.expect_zh.empty());
      CHECK_THAT(zh, Catch::Contains(m.expect_zh));
      // Some test failed, and each failed test says why.
      bool failed = false;
      for (const json& t : j.at("tests")) {
        if (t.at("pass") == true) continue;
        failed = true;
        CHECK_FALSE(t.at("reason").get<std::string>().empty());
      }
      CHECK((failed || !j.at("diagnoses").empty()));
    }
  }
}

TEST_CASE("exercise check: progress next to the lessons', a damaged entry kept aside",
          "[run][exercise]") {
  const fs::path state = work_dir() / "state-damaged";
  fs::create_directories(state / "gpulab");
  std::ofstream(state / "gpulab" / "progress.json")
      << R"({"lessons": {"04-amdahl": {"step": 2, "done": false}}, "exercises": {"map": "yes"}})";
  const fs::path solved = write_exercise("map", "progress", solution_of("map"));
  const auto r = run_gpulab(
      {"exercise", "check", solved.string()}, {},
      {"XDG_CACHE_HOME=" + (work_dir() / "cache").string(), "XDG_STATE_HOME=" + state.string()});
  CAPTURE(r.out, r.err);
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.err, Catch::Contains("exercise map"));
  CHECK(fs::exists(state / "gpulab" / "progress.json.bad-1"));
  std::ifstream in(state / "gpulab" / "progress.json");
  const json p = json::parse(in);
  CHECK(p.at("lessons").at("04-amdahl").at("step") == 2);  // the lesson's progress is kept
  CHECK(p.at("exercises").at("map").at("passed") == true);
  CHECK(p.at("exercises").at("map").at("checks") == 1);
}

TEST_CASE("exercise check: a progress path that is a folder is said once, nothing set aside",
          "[run][exercise]") {
  const fs::path state = work_dir() / "state-folder";
  fs::create_directories(state / "gpulab" / "progress.json");
  const fs::path solved = write_exercise("map", "progress-folder", solution_of("map"));
  for (int i = 0; i < 2; ++i) {
    const auto r = run_gpulab(
        {"exercise", "check", solved.string()}, {},
        {"XDG_CACHE_HOME=" + (work_dir() / "cache").string(), "XDG_STATE_HOME=" + state.string()});
    CAPTURE(r.out, r.err);
    CHECK(r.exit_code == 0);
    std::size_t said = 0;
    for (const std::string& line : lines_of(r.err))
      said += line.find("progress.json") != std::string::npos;
    CHECK(said == 1);
    CHECK_THAT(r.err, Catch::Contains("progress.json: cannot read it: it is a folder, not a file"));
    CHECK_THAT(r.err, !Catch::Contains("empty"));
  }
  std::size_t aside = 0;
  for (const auto& e : fs::directory_iterator(state / "gpulab"))
    aside += e.path().filename().string().find(".bad-") != std::string::npos;
  CHECK(aside == 0);
}

TEST_CASE("exercise: bad input is one line naming it, exit 2", "[exercise]") {
  check_usage_error({"exercise", "start", "nosuch"}, "nosuch");
  check_usage_error({"exercise", "hint", "99"}, "99");
  check_usage_error({"exercise", "hint", "map", "7"}, "7");
  check_usage_error({"exercise", "check", "/nonexistent/file.cu"}, "/nonexistent/file.cu");
  check_usage_error({"exercise", "start", "map", "--dir", "/nonexistent/dir"}, "--dir");
  const fs::path plain = work_dir() / "files" / "plain.cu";
  std::ofstream(plain) << "__global__ void k() {}\n";
  check_usage_error({"exercise", "check", plain.string()}, "gpulab exercise: ID");
  check_usage_error({"exercise", "check", plain.string(), "--timeout", "0"}, "--timeout");
}

TEST_CASE("exercise check --draw: who read and wrote each element, global and shared",
          "[run][exercise]") {
  const fs::path solved = write_exercise("shared", "draw", solution_of("shared"));
  const auto r = run_exercise_cli({"exercise", "check", solved.string(), "--draw", "--json"});
  CAPTURE(r.out, r.err);
  REQUIRE(r.exit_code == 0);
  const json j = json::parse(r.out);
  REQUIRE(j.at("tests").size() == 1);  // only the small test: n = 6, blocks of 4
  const json& d = j.at("drawing");
  REQUIRE(d.size() >= 3);
  CHECK(d[0].at("name") == "a");
  CHECK(d[1].at("name") == "out");
  // out[0] is written by thread 0 (which loaded a[3]: the chunk of 4 reversed), a[3] read by 0.
  CHECK(d[1].at("cells")[0].at("written_by") == json::array({"0"}));
  CHECK(d[0].at("cells")[3].at("read_by") == json::array({"3"}));
  CHECK(d[1].at("cells")[5].at("written_by") == json::array({"5"}));
  bool shared = false;
  for (const json& p : d)
    shared = shared || p.at("name").get<std::string>().find("__shared__") == 0;
  CHECK(shared);
}

TEST_CASE("exercise check: each test's line says pass or FAIL for that test, and why",
          "[run][exercise]") {
  // Right for one block of 256, wrong past it: the small tests pass, the larger fail.
  const fs::path file =
      write_exercise("blocks", "one-block",
                     "__global__ void map_blocks(const float* a, float* out, int n) {\n"
                     "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                     "  if (i < n && i < 256) out[i] = a[i] + 10.0f;\n"
                     "}\n");
  const auto r = run_exercise_cli({"exercise", "check", file.string(), "--seed", "1"});
  CAPTURE(r.out, r.err);
  CHECK(r.exit_code == 1);
  CHECK_THAT(r.out, Catch::Contains("pass  test n = 1, blocks of 256"));
  CHECK_THAT(r.out, Catch::Contains("pass  test n = 256, blocks of 256"));
  CHECK_THAT(r.out, Catch::Contains("FAIL  test n = 257, blocks of 256: out[256] never written"));
  CHECK_THAT(r.out, Catch::Contains("FAIL  test n = 70000, blocks of 256: out[256] never written"));
  CHECK_THAT(r.out, Catch::Contains("The same in 2 more tests."));
  const auto zh =
      run_exercise_cli({"exercise", "check", file.string(), "--seed", "1", "--lang", "zh"});
  CHECK_THAT(zh.out, Catch::Contains("通过  测试 n = 1，每块 256 个线程"));
  CHECK_THAT(zh.out, Catch::Contains("失败  测试 n = 257，每块 256 个线程：out[256] 从未被写入"));
}

TEST_CASE(
    "exercise check: a misnamed or mis-typed kernel is told in a few lines with the "
    "signature expected",
    "[run][exercise]") {
  const std::string misnamed = "__global__ void map_add_10(const float* a, float* out, int n) {}\n";
  const std::string mistyped = "__global__ void map_add_ten(float* a, float* out, long n) {}\n";
  for (const std::string& kernel : {misnamed, mistyped}) {
    const fs::path file = write_exercise("map", "misnamed", kernel);
    for (const char* lang : {"en", "zh"}) {
      const auto r = run_exercise_cli({"exercise", "check", file.string(), "--lang", lang});
      CAPTURE(kernel, lang, r.out, r.err);
      CHECK(r.exit_code == 1);
      CHECK_THAT(r.out,
                 Catch::Contains("__global__ void map_add_ten(const float* a, float* out, int n)"));
      // The heading, "It does not build", at most five lines of the reason, the verdict.
      CHECK(lines_of(r.out).size() <= 8);
    }
  }
}

TEST_CASE(
    "exercise check --lang zh: every line in Chinese, wrapped on word and character "
    "boundaries",
    "[run][exercise]") {
  const fs::path file = write_exercise("guard", "zh",
                                       "__global__ void map_guard(const float* a, "
                                       "float* out, int n) {\n"
                                       "  int i = threadIdx.x;\n"
                                       "  out[i] = a[i] + 10.0f;\n"
                                       "}\n");
  const auto wide = run_gpulab({"exercise", "check", file.string(), "--lang", "zh", "--seed", "4"},
                               {}, {env()[0], env()[1], "COLUMNS=1000"});
  CAPTURE(wide.out);
  REQUIRE(wide.exit_code == 1);
  // No English sentence: the words left are identifiers, names and the CUDA code quoted.
  for (const char* english : {"What went wrong", "FAIL", " test ", "block (", "accesses past",
                              "missing guard", "rule", "the launch", "expected"}) {
    CHECK_THAT(wide.out, !Catch::Contains(english));
  }
  const std::set<std::string> known = letter_runs(wide.out);
  for (int width : {60, 80}) {
    const auto r = run_gpulab({"exercise", "check", file.string(), "--lang", "zh", "--seed", "4"},
                              {}, {env()[0], env()[1], "COLUMNS=" + std::to_string(width)});
    CAPTURE(width, r.out);
    for (const std::string& line : lines_of(r.out)) {
      CAPTURE(line);
      if (line.find(' ', line.find_first_not_of(' ')) != std::string::npos) {
        CHECK(columns(line) <= static_cast<std::size_t>(width));
      }
    }
    for (const std::string& run : letter_runs(r.out)) {
      CAPTURE(run);
      CHECK(known.count(run) == 1);  // no English word split at a line break
    }
  }
}

TEST_CASE("exercise check: messages name the student's own arrays and parameters",
          "[run][exercise]") {
  const fs::path file =
      write_exercise("blocks", "renamed",
                     "__global__ void map_blocks(const float* input, float* result, int count) {\n"
                     "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                     "  if (i <= count) result[i] = input[i] + 10.0f;\n"
                     "}\n");
  const auto r = run_exercise_cli({"exercise", "check", file.string(), "--json", "--seed", "2"});
  CAPTURE(r.out, r.err);
  REQUIRE(r.exit_code == 1);
  const json j = json::parse(r.out);
  const std::string said = j.at("diagnoses").at(0).at("message");
  CHECK_THAT(said, Catch::Contains("input[1] at blocks-renamed.cu:4"));
  CHECK_THAT(said, Catch::Contains("(input has 1 element)"));
  CHECK_THAT(said, !Catch::Contains("harness"));
  CHECK_THAT(said, !Catch::Contains("allocation"));
  CHECK(j.at("tests").at(0).at("reason") ==
        "read input[1] past the end of input at blocks-renamed.cu:4");
}

TEST_CASE(
    "exercise check: counter rules (sectors per request, bank conflicts) keep the solution and "
    "fail a correct kernel that is strided or unpadded, on the counter, in both languages",
    "[run][exercise][counters]") {
  struct Case {
    std::string id, mistake, rule, words_zh;
    double limit;
    std::set<std::string> lines;  // the lines of the student's file the rule may name
  };
  for (const Case& k :
       {Case{"interleave", "thread_per_input", "max_sectors_per_request", "个扇区", 4, {"5", "6"}},
        Case{"transpose_padded",
             "unpadded_tile",
             "max_bank_conflicts",
             "次存储体冲突",
             0,
             {"10"}}}) {
    CAPTURE(k.id, k.mistake);
    // The solution: every counter rule measured and kept.
    RunResult r =
        run_exercise_cli({"exercise", "check",
                          write_exercise(k.id, "counted", solution_of(k.id)).string(), "--json"});
    CAPTURE(r.out, r.err);
    REQUIRE(r.exit_code == 0);
    json j = json::parse(r.out);
    CHECK(j.at("verdict") == "passed");
    for (const json& t : j.at("tests")) {
      bool counted = false;
      for (const json& rule : t.at("rules")) {
        if (rule.at("rule") != k.rule) continue;
        counted = true;
        CHECK(rule.at("ok") == true);
        CHECK(rule.at("measured").get<double>() <= k.limit);
      }
      CHECK(counted);
    }
    // The planted mistake: right outputs, the counter rule broken, named with its value.
    std::string code;
    for (const Planted& m : mistakes_of(k.id == "interleave" ? 19 : 20, k.id))
      if (m.name == k.mistake) code = m.code;
    REQUIRE_FALSE(code.empty());
    const fs::path file = write_exercise(k.id, k.mistake, code);
    r = run_exercise_cli({"exercise", "check", file.string(), "--json", "--seed", "3"});
    CAPTURE(r.out, r.err);
    REQUIRE(r.exit_code == 1);
    j = json::parse(r.out);
    CHECK(j.at("verdict") == "failed");
    bool broken = false;
    for (const json& t : j.at("tests")) {
      for (const json& res : t.at("results")) CHECK(res.at("pass") == true);  // not correctness
      for (const json& rule : t.at("rules")) {
        if (rule.at("rule") != k.rule || rule.at("ok") == true) continue;
        broken = true;
        CHECK(rule.at("measured").get<double>() > k.limit);
        CHECK(rule.at("limit") == k.limit);
        const std::string where = rule.at("where");
        const std::string head = file.filename().string() + ":";
        REQUIRE(where.rfind(head, 0) == 0);
        CHECK(k.lines.count(where.substr(head.size())) == 1);
        CHECK(rule.at("kernel") == (k.id == "interleave" ? "interleave" : "transpose"));
        CHECK_THAT(rule.at("message").get<std::string>(), Catch::Contains("broken"));
        CHECK_THAT(rule.at("message_zh").get<std::string>(), Catch::Contains(k.words_zh));
      }
    }
    CHECK(broken);
    REQUIRE(j.at("diagnoses").size() == 1);
    const json& d = j.at("diagnoses").at(0);
    CHECK(d.at("mistake") == (k.rule == "max_bank_conflicts" ? "bank_conflicts" : "uncoalesced"));
    CHECK_THAT(d.at("message").get<std::string>(), Catch::Contains(k.rule + " = "));
    CHECK_THAT(d.at("message").get<std::string>(),
               Catch::Contains(fmt::format("the limit is {}", k.limit)));
    CHECK_THAT(d.at("message_zh").get<std::string>(),
               Catch::Contains(fmt::format("上限 {}", k.limit)));
    // The text says the same, in each language.
    for (const char* lang : {"en", "zh"}) {
      r = run_exercise_cli({"exercise", "check", file.string(), "--seed", "3", "--lang", lang});
      CAPTURE(lang, r.out);
      CHECK(r.exit_code == 1);
      CHECK_THAT(r.out, Catch::Contains(k.rule + " = "));
      CHECK_THAT(r.out, Catch::Contains(std::string(lang) == "en" ? "broken" : "违反"));
    }
  }
}
