// gpulab exercise grade: a class's folder with honest, failing and hostile submissions (a fork
// bomb, an endless loop, 200 MB of output, writing outside its folder, a memory hog, a file whose
// name and marker disagree) graded with small limits: no row lost, no process left, bounded time;
// the Gradescope results.json checked against Gradescope's documented format, the JUnit XML
// against the common JUnit schema (tests/exercise/grade/junit.xsd, with xmllint).
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include "support/folders.hpp"
#include "support/processes.hpp"
#include "support/run.hpp"

using namespace gpulab::test;
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

fs::path work_dir() {
  return fresh_folder("gpulab-grade-test");
}

std::vector<std::string> env() {
  return {"XDG_CACHE_HOME=" + (work_dir() / "cache").string(),
          "XDG_STATE_HOME=" + (work_dir() / "state").string(), "COLUMNS=1000"};
}

void write(const fs::path& p, const std::string& text) {
  fs::create_directories(p.parent_path());
  std::ofstream(p) << text;
}

const std::string kMapHeader = "// gpulab exercise: map\n";
const std::string kHonestMap =
    "__global__ void map_add_ten(const float* a, float* out, int n) {\n"
    "  int i = threadIdx.x;\n"
    "  if (i < n) out[i] = a[i] + 10.0f;\n"
    "}\n";
const std::string kHonestGuard =
    "// gpulab exercise: guard\n"
    "__global__ void map_guard(const float* a, float* out, int n) {\n"
    "  int i = threadIdx.x;\n"
    "  if (i < n) out[i] = a[i] + 10.0f;\n"
    "}\n";

// Gradescope's results.json as its autograder specification documents it: the top-level keys and
// each test's, their types, and the values its enumerations allow.
void check_gradescope_format(const json& j) {
  static const std::set<std::string> top = {
      "score",         "execution_time",     "output",
      "output_format", "test_output_format", "test_name_format",
      "visibility",    "stdout_visibility",  "extra_data",
      "tests",         "leaderboard"};
  static const std::set<std::string> test_keys = {
      "score",  "max_score",     "status", "name",       "name_format", "number",
      "output", "output_format", "tags",   "visibility", "extra_data"};
  static const std::set<std::string> formats = {"text", "html", "simple_format", "md", "ansi"};
  static const std::set<std::string> visibilities = {"hidden", "after_due_date", "after_published",
                                                     "visible"};
  REQUIRE(j.is_object());
  for (const auto& [key, value] : j.items()) {
    CAPTURE(key);
    CHECK(top.count(key) == 1);
  }
  if (j.contains("score")) CHECK(j["score"].is_number());
  if (j.contains("execution_time")) {
    CHECK(j["execution_time"].is_number_integer());
    CHECK(j["execution_time"].get<long long>() >= 0);
  }
  if (j.contains("output")) CHECK(j["output"].is_string());
  for (const char* k : {"output_format", "test_output_format", "test_name_format"}) {
    if (j.contains(k)) CHECK(formats.count(j[k].get<std::string>()) == 1);
  }
  for (const char* k : {"visibility", "stdout_visibility"}) {
    if (j.contains(k)) CHECK(visibilities.count(j[k].get<std::string>()) == 1);
  }
  if (j.contains("extra_data")) CHECK(j["extra_data"].is_object());
  REQUIRE((j.contains("score") || j.contains("tests")));
  double sum = 0;
  for (const json& t : j.value("tests", json::array())) {
    REQUIRE(t.is_object());
    for (const auto& [key, value] : t.items()) {
      CAPTURE(key);
      CHECK(test_keys.count(key) == 1);
    }
    if (!j.contains("score")) REQUIRE(t.contains("score"));
    if (t.contains("score")) {
      CHECK(t["score"].is_number());
      sum += t["score"].get<double>();
    }
    if (t.contains("max_score")) {
      CHECK(t["max_score"].is_number());
      CHECK(t["max_score"].get<double>() >= 0);
      CHECK(t["score"].get<double>() <= t["max_score"].get<double>());
    }
    if (t.contains("status")) {
      CHECK((t["status"] == "passed" || t["status"] == "failed"));
    }
    for (const char* k : {"name", "number", "output"}) {
      if (t.contains(k)) CHECK(t[k].is_string());
    }
    for (const char* k : {"name_format", "output_format"}) {
      if (t.contains(k)) CHECK(formats.count(t[k].get<std::string>()) == 1);
    }
    if (t.contains("visibility"))
      CHECK(visibilities.count(t["visibility"].get<std::string>()) == 1);
    if (t.contains("tags")) {
      for (const json& tag : t["tags"]) CHECK(tag.is_string());
    }
  }
  if (j.contains("score") && j.contains("tests")) CHECK(j["score"].get<double>() == sum);
}

// xmllint against the schema where it is installed, and the counts checked with Python's
// xml.etree (tests/exercise/grade/check_junit.py).
void check_junit_file(const fs::path& xml) {
  const fs::path dir = fs::path(GPULAB_TESTS_DIR) / "exercise" / "grade";
  if (std::system("command -v xmllint > /dev/null 2>&1") == 0) {
    const std::string cmd = "xmllint --noout --schema '" + (dir / "junit.xsd").string() + "' '" +
                            xml.string() + "' 2>&1";
    CAPTURE(cmd);
    CHECK(std::system(cmd.c_str()) == 0);
  } else {
    WARN("xmllint is not installed (Debian: libxml2-utils): the schema was not checked");
  }
  const std::string py =
      "python3 '" + (dir / "check_junit.py").string() + "' '" + xml.string() + "'";
  CAPTURE(py);
  CHECK(std::system(py.c_str()) == 0);
}

}  // namespace

TEST_CASE("exercise grade: a class with hostile submissions loses no row and leaves no process",
          "[run][grade]") {
  const fs::path cls = work_dir() / "class";
  const fs::path outside = work_dir() / "outside-marker";
  write(cls / "honest" / "01-map.cu", kMapHeader + kHonestMap);
  write(cls / "honest" / "03-guard.cu", kHonestGuard);
  write(cls / "honest" / "scratch.cu", "// notes\n");
  write(cls / "honest" / "README.md", "not a submission\n");
  write(cls / "failing" / "01-map.cu",
        kMapHeader + "__global__ void map_add_ten(const float* a, float* out, int n) {}\n");
  write(cls / "loop" / "01-map.cu", kMapHeader +
                                        "__global__ void map_add_ten(const float* a, float* out, "
                                        "int n) {\n  int i = threadIdx.x;\n  while (n > -1) out[i] "
                                        "= a[i] + 10.0f;\n}\n");
  // 100,000 lines of 2 KB from each thread: 200 MB from the first test alone.
  write(cls / "flood" / "01-map.cu",
        kMapHeader + "#include <cstdio>\n" +
            "__global__ void map_add_ten(const float* a, float* out, int n) {\n"
            "  int i = threadIdx.x;\n"
            "  for (int k = 0; k < 100000; ++k) printf(\"%d %d %s\\n\", i, k, \"" +
            std::string(2000, 'x') + "\");\n  if (i < n) out[i] = a[i] + 10.0f;\n}\n");
  write(cls / "bomb" / "01-map.cu", kMapHeader + "#include <unistd.h>\n" +
                                        "__device__ void boom() { for (int k = 0; k < 10; ++k) "
                                        "fork(); }\n" +
                                        kHonestMap);
  write(cls / "writer" / "01-map.cu",
        kMapHeader + "#include <cstdio>\n" +
            "__global__ void map_add_ten(const float* a, float* out, int n) {\n"
            "  FILE* f = fopen(\"" +
            outside.string() +
            "\", \"w\");\n  fputs(\"1\", f);\n"
            "  int i = threadIdx.x;\n  if (i < n) out[i] = a[i] + 10.0f;\n}\n");
  // 1 GiB of __device__ memory, touched by every thread, under a 512 MiB limit.
  write(cls / "hog" / "01-map.cu",
        kMapHeader + "__device__ float hog[1 << 28];\n" +
            "__global__ void map_add_ten(const float* a, float* out, int n) {\n"
            "  int i = threadIdx.x;\n  for (int k = 0; k < (1 << 28); k += 1024) hog[k + i] = 1;\n"
            "  if (i < n) out[i] = a[i] + 10.0f;\n}\n");
  write(cls / "mixed" / "09-shared.cu", kMapHeader + kHonestMap);
  const fs::path junit = work_dir() / "class.xml";
  // In bubblewrap where it works here (auto), and with the limits alone.
  const std::string sandbox = GENERATE(as<std::string>{}, "auto", "limits");
  CAPTURE(sandbox);

  const auto start = std::chrono::steady_clock::now();
  const RunResult r = run_gpulab(
      {"exercise", "grade", cls.string(), "--seed", "2026", "--jobs", "2", "--timeout", "3",
       "--memory", "512", "--json", "--junit", junit.string(), "--sandbox", sandbox},
      {}, env());
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  CAPTURE(r.err, seconds);
  CHECK(r.exit_code == 1);  // not every row passed
  const json j = json::parse(r.out);
  // Bounded: each run stops at 3 s; the builds and the rest take seconds each.
  CHECK(seconds < 240);
  // Nothing left running: no program, no sandbox, no compiler of this test's cache or class.
  CHECK(processes_with((work_dir() / "cache").string()) == 0);
  CHECK(processes_with(cls.string()) == 0);
  CHECK_FALSE(fs::exists(outside));

  std::map<std::string, json> rows;
  for (const json& row : j.at("results")) {
    rows[row.at("student").get<std::string>() + "/" +
         fs::path(row.at("file").get<std::string>()).filename().string()] = row;
  }
  CHECK(j.at("rows") == 10);
  REQUIRE(rows.size() == 10);
  CHECK(j.at("seed") == 2026);
  CHECK(!j.at("gpulab_version").get<std::string>().empty());
  const std::string mode = j.at("containment").at("mode");
  CHECK((mode == "bubblewrap" || mode == "limits"));
  if (sandbox == "limits") CHECK(mode == "limits");
  const auto verdict = [&](const std::string& key) { return rows.at(key).at("verdict"); };
  const auto mistakes = [&](const std::string& key) {
    std::string all;
    for (const json& d : rows.at(key).at("diagnoses"))
      all += d.at("mistake").get<std::string>() + " ";
    return all;
  };
  CHECK(verdict("honest/01-map.cu") == "passed");
  CHECK(verdict("honest/03-guard.cu") == "passed");
  CHECK(rows.at("honest/01-map.cu").at("tests").size() == 8);
  CHECK(rows.at("honest/01-map.cu").at("source_sha256").get<std::string>().size() == 64);
  CHECK(verdict("honest/scratch.cu") == "not_graded");
  CHECK(verdict("failing/01-map.cu") == "failed");
  CHECK(verdict("loop/01-map.cu") == "failed");
  CHECK_THAT(mistakes("loop/01-map.cu"), Catch::Contains("timeout"));
  CHECK(rows.at("loop/01-map.cu").at("stopped") == "time");
  CHECK(verdict("flood/01-map.cu") == "failed");
  // Stopped at the output cap, or (a loaded machine) at the time limit while printing.
  CHECK_THAT(mistakes("flood/01-map.cu"),
             Catch::Contains("output_limit") || Catch::Contains("timeout"));
  CHECK(rows.at("flood/01-map.cu").at("kernel_output").get<std::string>().size() <= 4096);
  CHECK(verdict("bomb/01-map.cu") == "refused");
  CHECK_THAT(rows.at("bomb/01-map.cu").dump(), Catch::Contains("fork"));
  CHECK(verdict("writer/01-map.cu") == "refused");
  CHECK_THAT(rows.at("writer/01-map.cu").dump(), Catch::Contains("fopen"));
  CHECK(verdict("hog/01-map.cu") == "failed");
  CHECK(verdict("mixed/09-shared.cu") == "refused");
  CHECK_THAT(mistakes("mixed/09-shared.cu"), Catch::Contains("name_mismatch"));
  CHECK(j.at("summary").at("passed") == 2);

  SECTION("the JUnit XML validates and holds a suite per row") {
    REQUIRE(fs::exists(junit));
    check_junit_file(junit);
    std::ifstream in(junit);
    const std::string xml((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::size_t suites = 0;
    for (std::size_t at = 0; (at = xml.find("<testsuite ", at)) != std::string::npos; ++at)
      ++suites;
    CHECK(suites == 10);
    CHECK_THAT(xml, Catch::Contains("name=\"honest/01-map.cu\""));
  }
}

TEST_CASE("exercise grade: one student's files for Gradescope, --require, the table",
          "[run][grade]") {
  const fs::path sub = work_dir() / "submission";
  write(sub / "01-map.cu", kMapHeader + kHonestMap);
  write(sub / "src" / "03-guard.cu",
        "// gpulab exercise: guard\n__global__ void map_guard(const float* a, float* out, int n) "
        "{}\n");
  const fs::path results = work_dir() / "results.json";
  RunResult r =
      run_gpulab({"exercise", "grade", sub.string(), "--student", "ana", "--seed", "5", "--require",
                  "map,guard,shared", "--timeout", "10", "--gradescope", results.string()},
                 {}, env());
  CAPTURE(r.out, r.err);
  CHECK(r.exit_code == 1);
  // The table: one row per exercise, the verdicts, the containment said.
  CHECK_THAT(r.out, Catch::Contains("ana"));
  CHECK_THAT(r.out, Catch::Contains("PASSED"));
  CHECK_THAT(r.out, Catch::Contains("FAILED"));
  CHECK_THAT(r.out, Catch::Contains("MISSING"));
  CHECK_THAT(r.out, Catch::Contains("1 of 3 passed"));
  CHECK_THAT(r.out, Catch::Contains("contained"));
  std::ifstream in(results);
  const json g = json::parse(in);
  check_gradescope_format(g);
  REQUIRE(g.at("tests").size() == 3);
  CHECK(g.at("score") == 1.0);
  CHECK(g.at("tests")[0].at("status") == "passed");
  CHECK(g.at("tests")[1].at("status") == "failed");
  CHECK_THAT(g.at("tests")[1].at("output").get<std::string>(), Catch::Contains("FAIL  test"));
  CHECK_THAT(g.at("tests")[2].at("output").get<std::string>(), Catch::Contains("09-shared.cu"));
  for (const json& t : g.at("tests")) CHECK(t.at("max_score") == 1.0);

  SECTION("in Chinese") {
    r = run_gpulab(
        {"exercise", "grade", sub.string(), "--student", "ana", "--seed", "5", "--lang", "zh"}, {},
        env());
    CHECK_THAT(r.out, Catch::Contains("通过 1 / 2"));
    CHECK_THAT(r.out, Catch::Contains("未通过"));
  }
  SECTION("--gradescope refuses several students") {
    write(work_dir() / "two" / "a" / "01-map.cu", kMapHeader + kHonestMap);
    write(work_dir() / "two" / "b" / "01-map.cu", kMapHeader + kHonestMap);
    r = run_gpulab(
        {"exercise", "grade", (work_dir() / "two").string(), "--gradescope", results.string()}, {},
        env());
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Catch::Contains("2 students"));
  }
}

TEST_CASE("exercise grade: bad input is one line naming it", "[grade]") {
  const auto usage = [](const std::vector<std::string>& args, const std::string& words) {
    const RunResult r = run_gpulab(args, {}, env());
    CAPTURE(args, r.out, r.err);
    CHECK(r.exit_code == 2);
    CHECK(lines_of(r.err).size() == 1);
    CHECK_THAT(r.err, Catch::Contains(words));
  };
  usage({"exercise", "grade", (work_dir() / "no-such").string()}, "no such file or folder");
  usage({"exercise", "grade", ".", "--require", "map,nope"},
        "--require map,nope: no exercise nope");
  usage({"exercise", "grade", ".", "--jobs", "0"}, "--jobs");
  usage({"exercise", "grade", ".", "--sandbox", "docker"}, "--sandbox");
  usage({"exercise", "grade", ".", "--junit", (work_dir() / "nope" / "x.xml").string()},
        "does not exist");
}

TEST_CASE("exercise grade: Gradescope's run_autograder in docs/teaching.md works as written",
          "[run][grade]") {
  std::ifstream in(fs::path(GPULAB_SOURCE_DIR) / "docs" / "teaching.md");
  const std::string doc((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::size_t at = doc.find("`run_autograder` (run for each submission");
  REQUIRE(at != std::string::npos);
  const std::size_t begin = doc.find("```sh\n", at), end = doc.find("```", begin + 6);
  REQUIRE(end != std::string::npos);
  // The block as the autograder runs it, with /autograder a folder of the test's own.
  const fs::path root = work_dir() / "autograder";
  std::string script;
  for (const std::string& line : lines_of(doc.substr(begin + 6, end - begin - 6))) {
    std::string l = line.starts_with("   ") ? line.substr(3) : line;
    for (std::size_t p = 0; (p = l.find("/autograder", p)) != std::string::npos;
         p += root.string().size()) {
      l.replace(p, 11, root.string());
    }
    script += l + "\n";
  }
  write(root / "submission" / "01-map.cu", kMapHeader + kHonestMap);
  fs::create_directories(root / "results");
  write(root / "run_autograder", script);
  const std::string bin = fs::path(GPULAB_BINARY).parent_path().string();
  std::string vars;
  for (const std::string& e : env()) vars += "'" + e + "' ";
  const std::string command = "cd '" + root.string() + "' && env PATH='" + bin + "':\"$PATH\" " +
                              vars + "bash run_autograder > out.log 2>&1";
  CAPTURE(script);
  CHECK(std::system(command.c_str()) == 0);
  std::ifstream results(root / "results" / "results.json");
  const json g = json::parse(results);
  check_gradescope_format(g);
  // Exercises 9, 10 and 11 required and missing, the map handed in besides: passed.
  REQUIRE(g.at("tests").size() == 4);
  CHECK(g.at("score") == 1.0);
  CHECK(g.at("tests")[0].at("status") == "passed");
  CHECK_THAT(g.at("tests")[1].at("output").get<std::string>(), Catch::Contains("09-shared.cu"));
}
