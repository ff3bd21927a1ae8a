// The progress file: validated on reading, a damaged file set aside instead of lost, entries of
// other lessons kept when two gpulabs save at once, and a failed save that names the path.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/state.hpp"

using namespace gpulab;
namespace fs = std::filesystem;

namespace {

// A fresh XDG_STATE_HOME for one test; the progress file's path.
fs::path fresh_state(const std::string& name) {
  fs::path dir = fs::temp_directory_path() / ("gpulab-state-" + std::to_string(getpid())) / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  setenv("XDG_STATE_HOME", dir.c_str(), 1);
  return dir / "gpulab" / "progress.json";
}

void write(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary) << text;
}

std::string read(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

TEST_CASE("Progress: entries of the wrong type are dropped, the valid ones kept", "[state]") {
  const fs::path path = fresh_state("types");
  write(path, R"({"lessons": {
      "01-a": {"step": "abc", "done": false}, "02-b": 5, "03-c": null,
      "04-d": {"step": 2, "done": false}, "05-e": {"step": -3}, "06-f": {"step": 1e30},
      "07-g": {"step": 1, "done": "yes"}, "08-h": {"step": 3, "done": true}}})");
  SavedProgress p = load_progress();
  REQUIRE(p.lessons.size() == 2);
  CHECK(p.lessons.at("04-d").step == 2);
  CHECK_FALSE(p.lessons.at("04-d").done);
  CHECK(p.lessons.at("08-h").done);
  REQUIRE(p.problems.size() == 6);
  for (const auto& problem : p.problems) {
    CHECK_THAT(problem.en, Catch::StartsWith(path.string()));
    CHECK_THAT(problem.zh, Catch::StartsWith(path.string()));
  }
  CHECK_THAT(p.problems[0].en, Catch::Contains("01-a") && Catch::Contains("\"abc\""));
  // In Chinese too (the entry and the path as they are).
  CHECK_THAT(p.problems[0].zh, Catch::Contains("第 01-a 课") && Catch::Contains("该课从头开始"));

  // Saving keeps the valid entries, adds the new one, and keeps the old file whole aside.
  const std::string before = read(path);
  SaveOutcome s = save_lesson_progress("09-i", {1, false, {}});
  CHECK(s.saved);
  CHECK(read(path.string() + ".bad-1") == before);
  CHECK_THAT(s.messages.back().en, Catch::Contains(".bad-1"));
  CHECK_THAT(s.messages.back().zh,
             Catch::Contains("原文件已原样保存为") && Catch::Contains(".bad-1"));
  SavedProgress after = load_progress();
  CHECK(after.problems.empty());
  CHECK(after.lessons.size() == 3);
  CHECK(after.lessons.at("04-d").step == 2);
  CHECK(after.lessons.at("09-i").step == 1);
}

TEST_CASE("Progress: a damaged file is set aside, never silently overwritten", "[state]") {
  for (const std::string& text :
       {std::string("garbage{"), std::string(""), std::string(R"({"lessons": {"04-amdahl": {"st)"),
        std::string("[1, 2]"), std::string(R"({"lessons": [1]})")}) {
    CAPTURE(text);
    const fs::path path = fresh_state("damaged");
    write(path, text);
    SavedProgress p = load_progress();
    CHECK(p.lessons.empty());
    REQUIRE(p.problems.size() == 1);
    CHECK(fs::exists(path));  // reading never changes the file
    SaveOutcome s = save_lesson_progress("04-amdahl", {2, false, {}});
    CHECK(s.saved);
    CHECK(read(path.string() + ".bad-1") == text);
    CHECK(load_progress().lessons.at("04-amdahl").step == 2);
  }
}

TEST_CASE("Progress: two gpulabs saving different lessons at once lose nothing", "[state]") {
  const fs::path path = fresh_state("concurrent");
  constexpr int kWriters = 6, kSaves = 40;
  std::vector<pid_t> children;
  for (int w = 0; w < kWriters; ++w) {
    pid_t pid = fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
      bool ok = true;
      for (int i = 0; i < kSaves; ++i) {
        ok = save_lesson_progress("lesson-" + std::to_string(w),
                                  {static_cast<std::size_t>(i), false, {}})
                 .saved &&
             ok;
      }
      _exit(ok ? 0 : 1);
    }
    children.push_back(pid);
  }
  for (pid_t pid : children) {
    int status = 0;
    waitpid(pid, &status, 0);
    CHECK((WIFEXITED(status) && WEXITSTATUS(status) == 0));
  }
  SavedProgress p = load_progress();
  CHECK(p.problems.empty());
  REQUIRE(p.lessons.size() == kWriters);
  for (const auto& [id, lp] : p.lessons) {
    CAPTURE(id);
    CHECK(lp.step == kSaves - 1);
  }
  CHECK_FALSE(fs::exists(path.string() + ".bad-1"));
}

TEST_CASE("Progress: a save that fails names the path and the reason", "[state]") {
  const fs::path path = fresh_state("unwritable");
  // The state directory's parent is a file: nothing can be created under it, even by root.
  const fs::path blocker = path.parent_path().parent_path() / "file";
  write(blocker, "x");
  setenv("XDG_STATE_HOME", blocker.c_str(), 1);
  SaveOutcome s = save_lesson_progress("04-amdahl", {1, false, {}});
  CHECK_FALSE(s.saved);
  REQUIRE(s.messages.size() == 1);
  CHECK_THAT(s.messages[0].en, Catch::Contains(blocker.string()));
  CHECK_THAT(s.messages[0].en, Catch::Contains("Not a directory"));
  CHECK_THAT(s.messages[0].en, !Catch::Contains("set HOME"));
  CHECK_THAT(s.messages[0].zh, Catch::Contains("无法把学习进度保存到 " + blocker.string()));
}

TEST_CASE("Progress: the steps answered right are saved, read back and validated", "[state]") {
  const fs::path path = fresh_state("right");
  REQUIRE(save_lesson_progress("04-amdahl", {4, true, std::vector<std::size_t>{0, 3, 4}}).saved);
  const SavedProgress p = load_progress();
  CHECK(p.problems.empty());
  CHECK(p.lessons.at("04-amdahl").right == std::vector<std::size_t>{0, 3, 4});
  CHECK(p.lessons.at("04-amdahl").done);
  // Sorted and without repeats on reading; a list of anything else drops the entry.
  write(path, R"({"lessons": {"01-a": {"step": 1, "right": [3, 1, 3]},
                              "02-b": {"step": 1, "right": [-1]},
                              "03-c": {"step": 1, "right": "all"}}})");
  const SavedProgress q = load_progress();
  CHECK(q.lessons.at("01-a").right == std::vector<std::size_t>{1, 3});
  CHECK(q.lessons.count("02-b") == 0);
  CHECK(q.lessons.count("03-c") == 0);
  CHECK(q.problems.size() == 2);
  // Progress saved before scores were kept has none (not a score of 0).
  write(path, R"({"lessons": {"05-x": {"step": 3, "done": true}}})");
  CHECK_FALSE(load_progress().lessons.at("05-x").right);
}
