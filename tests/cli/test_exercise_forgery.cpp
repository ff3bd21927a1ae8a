// gpulab exercise against a student who wants the mark without the work: every forgery of
// tests/exercise/forgeries fails `check` with the words of what was refused, a file named for
// one exercise with another's marker is refused, a naive matmul fails the tiled exercise's
// rules, a replaced cached program is never run, tricks the screen lets through fail on their
// own (tests/exercise/failing), and an honest kernel with printf passes with its output kept out
// of the JSON.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "support/run.hpp"

using namespace gpulab::test;
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

const fs::path& forgery_dir() {
  static const fs::path dir = [] {
    fs::path d = fs::temp_directory_path() / ("gpulab-forgery-test-" + std::to_string(::getpid()));
    fs::remove_all(d);
    fs::create_directories(d / "files");
    return d;
  }();
  return dir;
}

RunResult gpulab_in(const std::vector<std::string>& args) {
  return run_gpulab(args, {},
                    {"XDG_CACHE_HOME=" + (forgery_dir() / "cache").string(),
                     "XDG_STATE_HOME=" + (forgery_dir() / "state").string()});
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string expected_words(const std::string& text) {
  const auto at = text.find("// expect: ");
  if (at == std::string::npos) return "";
  const auto end = text.find('\n', at);
  return text.substr(at + 11, end - at - 11);
}

const fs::path kTests = fs::path(GPULAB_SOURCE_DIR) / "tests/exercise";

}  // namespace

TEST_CASE("exercise check: every forgery is refused, in text and JSON, nothing run",
          "[run][exercise][forgery]") {
  for (const auto& f : fs::directory_iterator(kTests / "forgeries")) {
    const std::string expect = expected_words(slurp(f.path()));
    CAPTURE(f.path().filename().string(), expect);
    RunResult r = gpulab_in({"exercise", "check", f.path().string(), "--seed", "7"});
    CAPTURE(r.out, r.err);
    CHECK(r.exit_code == 1);
    CHECK_THAT(r.out, Catch::Contains("Refused"));
    CHECK_THAT(r.out, Catch::Contains(expect));
    CHECK_THAT(r.out, !Catch::Contains("PASSED"));
    r = gpulab_in({"exercise", "check", f.path().string(), "--json", "--lang", "zh"});
    CHECK(r.exit_code == 1);
    const json j = json::parse(r.out);
    CHECK(j.at("passed") == false);
    CHECK(j.at("verdict") == "refused");
    CHECK_FALSE(j.at("refusals").empty());
    CHECK(j.at("tests").empty());
  }
}

TEST_CASE(
    "exercise check: tricks the screen lets through fail on their own (printed verdicts, stale "
    "outputs, one kernel doing the other's work)",
    "[run][exercise][forgery]") {
  for (const auto& f : fs::directory_iterator(kTests / "failing")) {
    const std::string expect = expected_words(slurp(f.path()));
    CAPTURE(f.path().filename().string(), expect);
    const RunResult r =
        gpulab_in({"exercise", "check", f.path().string(), "--json", "--seed", "5"});
    CAPTURE(r.out, r.err);
    CHECK(r.exit_code == 1);
    const json j = json::parse(r.out);  // kernel printf never reaches the JSON's stream
    CHECK(j.at("verdict") == "failed");
    CHECK(j.at("refusals").empty());
    std::string words;
    for (const json& d : j.at("diagnoses")) words += d.at("message").get<std::string>() + "\n";
    CHECK_THAT(words, Catch::Contains(expect));
  }
}

TEST_CASE("exercise check: the exercise of the file's name must be the marker's",
          "[run][exercise][forgery]") {
  const RunResult r = gpulab_in({"exercise", "check", (kTests / "named/15-matmul.cu").string()});
  CAPTURE(r.out, r.err);
  CHECK(r.exit_code == 1);
  CHECK_THAT(r.out, Catch::Contains("checked as exercise 15 (matmul)"));
  CHECK_THAT(r.out, !Catch::Contains("PASSED"));
}

TEST_CASE("exercise check: a naive matmul fails the tiled exercise's rules",
          "[run][exercise][forgery]") {
  const RunResult r = gpulab_in({"exercise", "check", (kTests / "naive_matmul.cu").string()});
  CAPTURE(r.out, r.err);
  CHECK(r.exit_code == 1);
  CHECK_THAT(r.out, Catch::Contains("shared memory"));
  CHECK_THAT(r.out, Catch::Contains("broken"));
}

TEST_CASE("exercise check: an honest kernel with printf passes; its output stays out of --json",
          "[run][exercise][forgery]") {
  const fs::path file = forgery_dir() / "files" / "01-map.cu";
  std::ofstream(file) << "// gpulab exercise: map\n#include <cstdio>\n"
                         "__global__ void map_add_ten(const float* a, float* out, int n) {\n"
                         "  int i = threadIdx.x;\n"
                         "  if (i == 0) printf(\"hello from thread %d of %d\\n\", i, n);\n"
                         "  out[i] = a[i] + 10.0f;\n"
                         "}\n";
  RunResult r = gpulab_in({"exercise", "check", file.string(), "--json"});
  CAPTURE(r.out, r.err);
  REQUIRE(r.exit_code == 0);
  const json j = json::parse(r.out);  // the whole of stdout is the JSON document
  CHECK(j.at("verdict") == "passed");
  CHECK_THAT(j.at("kernel_output").get<std::string>(), Catch::Contains("hello from thread 0"));
  r = gpulab_in({"exercise", "check", file.string()});
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::Contains("hello from thread 0 of 5"));
  CHECK_THAT(r.out, Catch::Contains("PASSED"));
}

TEST_CASE("exercise check: a replaced cached program is never run", "[run][exercise][forgery]") {
  const fs::path file = forgery_dir() / "files" / "map-cache.cu";
  std::ofstream(file) << "// gpulab exercise: map\n"
                         "__global__ void map_add_ten(const float* a, float* out, int n) {}\n";
  RunResult r = gpulab_in({"exercise", "check", file.string(), "--seed", "3"});
  REQUIRE(r.exit_code == 1);
  // Every cached program replaced by one that would print a pass and exit 0.
  const fs::path cache = forgery_dir() / "cache" / "gpulab" / "run";
  struct stat st {};
  REQUIRE(::stat(cache.c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0700);
  int replaced = 0;
  for (const auto& e : fs::directory_iterator(cache)) {
    if (!fs::exists(e.path() / "program")) continue;
    fs::remove(e.path() / "program");
    std::ofstream(e.path() / "program") << "#!/bin/sh\necho PASSED\nexit 0\n";
    fs::permissions(e.path() / "program", fs::perms::owner_all);
    ++replaced;
  }
  REQUIRE(replaced > 0);
  r = gpulab_in({"exercise", "check", file.string(), "--seed", "3"});
  CAPTURE(r.out, r.err);
  CHECK(r.exit_code == 1);
  CHECK_THAT(r.out, Catch::Contains("never written"));
  CHECK_THAT(r.out, Catch::Contains("compiled in"));  // built again, not taken from the cache
}
