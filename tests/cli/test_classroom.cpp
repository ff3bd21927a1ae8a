// What a class reads and a teacher uses: true sentences, readable screens, the CLI's answers to a
// mistyped command, singular and plural, and the teacher's tools (sheets, handouts, merged
// results).
#include <fmt/format.h>
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "support/cli.hpp"
#include "support/columns.hpp"
#include "support/run.hpp"

using gpulab::test::check_usage_error;
using gpulab::test::columns;
using gpulab::test::lines_of;
using gpulab::test::run_gpulab;
using gpulab::test::run_json;
using nlohmann::json;

namespace {

std::string temp_dir(const std::string& name) {
  const auto d = std::filesystem::temp_directory_path() /
                 ("gpulab-classroom-" + std::to_string(getpid())) / name;
  std::filesystem::remove_all(d);
  std::filesystem::create_directories(d);
  return d.string();
}

std::string read(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string lesson_source(const std::string& lang, const std::string& file) {
  return read(std::string(GPULAB_SOURCE_DIR) + "/lessons/" + lang + "/" + file);
}

// A lesson printed whole, as a handout, in one language at one width.
std::string handout(const std::string& lesson, const std::string& lang, int columns = 80) {
  auto r = run_gpulab(
      {"learn", lesson, "--handout", "--lang", lang}, "",
      {"COLUMNS=" + std::to_string(columns), "XDG_STATE_HOME=" + temp_dir("state-" + lesson)});
  CAPTURE(lesson, lang, r.err);
  REQUIRE(r.exit_code == 0);
  return r.out;
}

}  // namespace

TEST_CASE("Lesson 13 says what compute-sanitizer's tools find, and where recursion is allowed",
          "[cli][classroom]") {
  const std::string en = lesson_source("en", "13-kernel-rules.md");
  const std::string zh = lesson_source("zh", "13-kernel-rules.md");
  // The default tool is memcheck; races need racecheck, which sees shared memory only.
  CHECK(en.find("finds out-of-bounds accesses and races") == std::string::npos);
  CHECK(en.find("default tool, memcheck") != std::string::npos);
  CHECK(en.find("--tool racecheck") != std::string::npos);
  CHECK(en.find("shared memory only") != std::string::npos);
  CHECK(zh.find("越界访问和数据竞争。") == std::string::npos);
  CHECK(zh.find("默认工具 memcheck") != std::string::npos);
  CHECK(zh.find("--tool racecheck") != std::string::npos);
  // __global__ functions do not recurse, __device__ functions may, kernels may launch kernels.
  CHECK(en.find("no recursion for `__global__` functions") == std::string::npos);
  CHECK(en.find("`__device__`\n  functions may recurse") != std::string::npos);
  CHECK(en.find("dynamic parallelism") != std::string::npos);
  CHECK(zh.find("`__device__` 函数可以递归") != std::string::npos);
  CHECK(zh.find("动态并行") != std::string::npos);
}

TEST_CASE("synccheck is described by what the H100 measured, not by a rule", "[cli][classroom]") {
  // As prose, wherever its lines break.
  std::string run_md = read(std::string(GPULAB_SOURCE_DIR) + "/docs/run.md");
  std::replace(run_md.begin(), run_md.end(), '\n', ' ');
  CHECK(run_md.find("synccheck does not see on an H100") == std::string::npos);
  CHECK(run_md.find("reported 16 errors for a 32-thread block where 16 threads reach the "
                    "barrier, and 0 for a 64-thread block where threads 0-15 reach it") !=
        std::string::npos);
}

TEST_CASE("device-info --model g80 in Chinese has no English left", "[cli][classroom]") {
  auto r = run_gpulab({"device-info", "--model", "g80", "--lang", "zh"});
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("said of every GPU") == std::string::npos);
  CHECK(r.out.find("说是所有 GPU 都如此") != std::string::npos);
  auto x = run_gpulab({"device-info", "--model", "rtx4090", "--lang", "zh"});
  REQUIRE(x.exit_code == 0);
  CHECK(x.out.find("3rd Gen") == std::string::npos);
}

TEST_CASE("relu_scale's hint says fmaxf is not ReLU for NaN", "[cli][classroom]") {
  for (const char* lang : {"en", "zh"}) {
    auto r = run_gpulab({"exercise", "hint", "relu_scale", "--lang", lang});
    CAPTURE(lang, r.out, r.err);
    REQUIRE(r.exit_code == 0);
    CHECK(r.out.find("NaN") != std::string::npos);
    CHECK(r.out.find("torch.relu") != std::string::npos);
  }
}

TEST_CASE("Handouts show inline code without backticks and bold without stars",
          "[cli][classroom]") {
  for (const char* lang : {"en", "zh"}) {
    for (const char* lesson : {"08", "11", "13", "14", "15"}) {
      const std::string out = handout(lesson, lang);
      for (const std::string& line : lines_of(out)) {
        if (line.starts_with("      ")) continue;  // code and demo output, as written
        CAPTURE(lang, lesson, line);
        CHECK(line.find('`') == std::string::npos);
        CHECK(line.find("**") == std::string::npos);
      }
    }
  }
}

TEST_CASE("Lessons point at no file the student does not have; --files writes the programs",
          "[cli][classroom]") {
  const std::regex run_file(R"(gpulab run (?:--check )?(?:DIR/)?([A-Za-z0-9_]+\.cu))");
  // A path of gpulab's source tree: only in a step that says it is in the source repository.
  const std::regex tree_path(R"(\b(?:src|bench|python|tests|docs)/[A-Za-z0-9_./-]+)");
  for (const char* lang : {"en", "zh"}) {
    for (const auto& entry :
         std::filesystem::directory_iterator(std::string(GPULAB_SOURCE_DIR) + "/lessons/" + lang)) {
      const std::string text = read(entry.path().string());
      const std::string id = entry.path().filename().string().substr(0, 2);
      CAPTURE(lang, entry.path().string());
      CHECK(text.find("docs/") == std::string::npos);
      std::size_t start = 0;
      while (start < text.size()) {
        const std::size_t end = std::min(text.find("\n---\n", start), text.size());
        const std::string step = text.substr(start, end - start);
        std::smatch m;
        if (std::regex_search(step, m, tree_path)) {
          CAPTURE(m[0].str());
          CHECK((step.find("source repository") != std::string::npos ||
                 step.find("源代码仓库") != std::string::npos));
        }
        start = end + 5;
      }
      for (std::sregex_iterator it(text.begin(), text.end(), run_file), end; it != end; ++it) {
        const std::string file = (*it)[1];
        if (file == "prog.cu") continue;  // "your own program"
        const std::string dir = temp_dir("files-" + id + "-" + lang);
        auto r = run_gpulab({"learn", id, "--files", dir, "--lang", lang});
        CAPTURE(file, r.err);
        CHECK(r.exit_code == 0);
        CHECK(std::filesystem::exists(dir + "/" + file));
      }
    }
  }
  // An existing file is kept (the student's edits), and a lesson without files says so.
  const std::string dir = temp_dir("keep");
  std::ofstream(dir + "/wrong.cu") << "mine\n";
  auto r = run_gpulab({"learn", "11", "--files", dir});
  CHECK(r.exit_code == 0);
  CHECK(r.out.find("kept") != std::string::npos);
  CHECK(read(dir + "/wrong.cu") == "mine\n");
  check_usage_error({"learn", "04", "--files", dir}, "no files");
}

TEST_CASE("The answer key keeps the answer and the solution apart", "[cli][classroom]") {
  auto r = run_gpulab({"quiz", "--answers", "--seed", "3", "--count", "20"});
  REQUIRE(r.exit_code == 0);
  const auto ls = lines_of(r.out);
  int answers = 0;
  for (std::size_t i = 0; i < ls.size(); ++i) {
    if (ls[i].find("Answer:") == std::string::npos) continue;
    ++answers;
    CAPTURE(ls[i]);
    REQUIRE(i + 1 < ls.size());
    CHECK(ls[i + 1].find("Solution:") != std::string::npos);
  }
  CHECK(answers == 20);
  // One question: "1 question", not "1 questions".
  auto one = run_gpulab({"quiz", "--answers", "--seed", "3", "--count", "1"});
  CHECK(one.out.find("1 question)") != std::string::npos);
}

TEST_CASE("A wrong quiz answer says the answer once, then the solution", "[cli][classroom]") {
  // Over many seeds: wrong answers everywhere, and no word said twice in a row.
  const std::regex doubled(R"(\b([A-Za-z]+)[:,.]? \1\b)", std::regex::icase);
  for (int seed = 1; seed <= 15; ++seed) {
    std::string wrong;
    for (int i = 0; i < 10; ++i) wrong += "12345\n";
    auto r = run_gpulab({"quiz", "--seed", std::to_string(seed), "--count", "10"}, wrong);
    REQUIRE(r.exit_code == 0);
    for (const std::string& line : lines_of(r.out)) {
      std::smatch m;
      CAPTURE(seed, line);
      CHECK_FALSE(std::regex_search(line, m, doubled));
    }
  }
}

TEST_CASE("Command groups list their commands, and mistakes in them are named",
          "[cli][classroom]") {
  auto help = run_gpulab({"exercise", "--help"});
  REQUIRE(help.exit_code == 0);
  for (const char* sub : {"list", "start", "check", "hint", "solution"}) {
    CAPTURE(sub, help.out);
    CHECK(std::regex_search(help.out, std::regex(std::string("\\n  ") + sub + "\\b")));
  }
  // A missing argument names itself.
  check_usage_error({"exercise", "start"}, "exercise start needs");
  check_usage_error({"exercise", "hint"}, "exercise hint needs");
  check_usage_error({"exercise", "check"}, "exercise check needs");
  // Did you mean, for a command of the group and for an option of the command.
  check_usage_error({"exercise", "chek"}, "did you mean exercise check?");
  check_usage_error({"exercise", "strat", "map"}, "did you mean exercise start?");
  check_usage_error({"exercise", "start", "map", "--forse"}, "did you mean --force?");
  // An unknown command is an error even with --help.
  check_usage_error({"exercise", "nonsense", "--help"}, "unknown command 'exercise nonsense'");
  check_usage_error({"nonsense", "--help"}, "unknown command 'nonsense'");
}

TEST_CASE("--check's help says what it finds", "[cli][classroom]") {
  auto r = run_gpulab({"help"}, "", {"COLUMNS=100"});
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("report races on shared memory") == std::string::npos);
  CHECK(r.out.find("out-of-bounds") != std::string::npos);
}

TEST_CASE("One of a thing is singular, in English; Chinese has no plural", "[cli][classroom]") {
  auto one = run_gpulab({"index-map", "--grid", "1", "--block", "1"});
  REQUIRE(one.exit_code == 0);
  CAPTURE(one.out);
  CHECK(one.out.find("1 block x 1 thread = 1 thread") != std::string::npos);
  CHECK(one.out.find("Each block is 1 warp of 32") != std::string::npos);
  CHECK(one.out.find("; it has 31 idle lanes") != std::string::npos);
  CHECK(one.out.find("warp(s)") == std::string::npos);
  auto many = run_gpulab({"index-map", "--grid", "2", "--block", "40"});
  REQUIRE(many.exit_code == 0);
  CHECK(many.out.find("2 blocks x 40 threads = 80 threads") != std::string::npos);
  CHECK(many.out.find("Each block is 2 warps of 32") != std::string::npos);
  CHECK(many.out.find("; the last has 24 idle lanes") != std::string::npos);
  auto zh = run_gpulab({"index-map", "--grid", "1", "--block", "1", "--lang", "zh"});
  REQUIRE(zh.exit_code == 0);
  CHECK(zh.out.find("1 个线程块 x 1 个线程 = 1 个线程") != std::string::npos);

  auto v = run_gpulab({"vecadd", "--n", "1", "--block", "32", "--backend", "cpu"});
  REQUIRE(v.exit_code == 0);
  CHECK(v.out.find("all 1 elements") == std::string::npos);
  CHECK(v.out.find("the 1 element equals") != std::string::npos);

  auto w = run_gpulab({"warp-hiding", "--latency", "200", "--ops", "1", "--cycles-per-op", "4",
                       "--blocks-per-sm", "3", "--threads-per-block", "256", "--model", "G80"});
  REQUIRE(w.exit_code == 0);
  CHECK(w.out.find("K = 1 independent operation of") != std::string::npos);

  auto o = run_gpulab(
      {"occupancy", "--block", "32", "--registers", "32", "--model", "h100", "--no-charts"});
  REQUIRE(o.exit_code == 0);
  CHECK(o.out.find("1 warps per block") == std::string::npos);

  auto g80 = run_gpulab({"device-info", "--model", "g80"});
  REQUIRE(g80.exit_code == 0);
  CHECK(g80.out.find("scheduler(s)") == std::string::npos);

  // The course kernel on a 1 x 1 matrix: one row, one busy thread, one block on a fiber.
  auto t = run_gpulab({"twonorm", "--rows", "1", "--cols", "1", "--kernel", "course", "--backend",
                       "cpu", "--seed", "1"},
                      "", {"COLUMNS=200"});
  REQUIRE(t.exit_code == 0);
  CAPTURE(t.out);
  CHECK(t.out.find("1 row keeps 1 thread busy, 511 of 512 threads have no row") !=
        std::string::npos);
  CHECK(t.out.find("adds the 1 row sum and takes sqrtf: 0 serial adds") != std::string::npos);
  CHECK(t.out.find("Emulator: 2 barrier crossings; 1 block needed fibers") != std::string::npos);
  auto m = run_gpulab({"warp-hiding", "--measure", "--steps", "2", "--backend", "cpu"}, "",
                      {"COLUMNS=200"});
  REQUIRE(m.exit_code == 0);
  CHECK(m.out.find("SM(s)") == std::string::npos);
  CHECK(m.out.find("W warps on each of 1 SM,") != std::string::npos);
}

TEST_CASE("No faint text; --projector is bold, inverse and narrow", "[cli][classroom]") {
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"learn", "04", "--handout"},
        {"quiz", "--answers", "--seed", "1", "--count", "5"},
        {"index-map", "--grid", "2", "--block", "8"},
        {"occupancy", "--block", "256", "--registers", "64", "--model", "h100"}}) {
    std::vector<std::string> colour = args;
    colour.insert(colour.end(), {"--color", "always"});
    auto r = run_gpulab(colour, "", {"XDG_STATE_HOME=" + temp_dir("faint")});
    CAPTURE(args, r.err);
    REQUIRE(r.exit_code == 0);
    CHECK(r.out.find("\x1b[") != std::string::npos);  // coloured at all
    CHECK(r.out.find("\x1b[2m") == std::string::npos);
    CHECK(r.out.find(";2m") == std::string::npos);

    std::vector<std::string> projector = colour;
    projector.insert(projector.begin(), "--projector");
    auto p = run_gpulab(projector, "", {"XDG_STATE_HOME=" + temp_dir("projector")});
    REQUIRE(p.exit_code == 0);
    CHECK(p.out.find("\x1b[2m") == std::string::npos);
    CHECK(std::regex_search(p.out, std::regex("\x1b\\[1;7m")));
    CHECK_FALSE(std::regex_search(p.out, std::regex("\x1b\\[[0-9;]*3[0-7]m")));  // no colour
  }
  // Prose at most 64 columns, so that a large font fits.
  auto p = run_gpulab({"--projector", "learn", "13", "--handout"}, "",
                      {"COLUMNS=120", "XDG_STATE_HOME=" + temp_dir("projector-width")});
  REQUIRE(p.exit_code == 0);
  for (const std::string& line : lines_of(p.out)) {
    CAPTURE(line);
    CHECK(line.size() <= 64 * 3);  // bytes; the columns are checked below for ASCII lines
    if (std::all_of(line.begin(), line.end(), [](char c) { return c > 0; }))
      CHECK(line.size() <= 64);
  }
}

TEST_CASE("index-map draws a large grid summarised: first and last blocks, a legend",
          "[cli][classroom]") {
  auto r = run_gpulab({"index-map", "--grid", "391", "--block", "256"});
  REQUIRE(r.exit_code == 0);
  CAPTURE(r.out);
  CHECK(r.out.find("block 0") != std::string::npos);
  CHECK(r.out.find("block 1 ") != std::string::npos);
  CHECK(r.out.find("block 390") != std::string::npos);
  CHECK(r.out.find("99,840 .. 100,095") != std::string::npos);
  CHECK(r.out.find("... stands for blocks 2 to 389 (388 blocks), not drawn.") != std::string::npos);
  CHECK(r.out.find("too large to draw") == std::string::npos);
}

TEST_CASE("quiz --sheet: the questions only, the same bytes for the same seed",
          "[cli][classroom]") {
  auto a = run_gpulab({"quiz", "--sheet", "--seed", "student-7", "--count", "6"});
  auto b = run_gpulab({"quiz", "--sheet", "--seed", "student-7", "--count", "6"});
  REQUIRE(a.exit_code == 0);
  CHECK(a.out == b.out);
  const json key = run_json({"quiz", "--answers", "--seed", "student-7", "--count", "6", "--json"});
  for (const auto& q : key["questions"]) {
    // Each question of the key is on the sheet, and its answer is not.
    const std::string prompt = q["prompt"];
    CHECK(a.out.find(prompt.substr(0, 40)) != std::string::npos);
  }
  CHECK(a.out.find("Answer: ____") != std::string::npos);
  CHECK(a.out.find("Solution") == std::string::npos);
  auto c = run_gpulab({"quiz", "--sheet", "--seed", "student-8", "--count", "6"});
  CHECK(c.out != a.out);
  check_usage_error({"quiz", "--sheet", "--answers"}, "--sheet");
}

TEST_CASE("Every lesson printed whole, en and zh at 60 and 100 columns: nothing cut or too wide",
          "[cli][classroom]") {
  // The teacher's copy runs every demo (the student's handout leaves out those after a question).
  for (const char* lang : {"en", "zh"}) {
    for (int width : {60, 100}) {
      for (int n = 1; n <= 16; ++n) {
        const std::string id = fmt::format("{:02}", n);
        auto r = run_gpulab(
            {"learn", id, "--handout", "--answers", "--lang", lang, "--color", "never"}, "",
            {"COLUMNS=" + std::to_string(width), "XDG_STATE_HOME=" + temp_dir("whole")});
        CAPTURE(lang, width, id, r.err);
        REQUIRE(r.exit_code == 0);
        CHECK(r.err.empty());
        CHECK(r.out.find("were cut to fit") == std::string::npos);  // the layout's note
        CHECK(r.out.find("被截断，以适应") == std::string::npos);
        for (const std::string& line : lines_of(r.out)) {
          CAPTURE(line);
          CHECK_FALSE(line.ends_with("…"));
          // One unbreakable word (a URL of a source) may be wider than the page; nothing else.
          if (line.find(' ', line.find_first_not_of(' ')) != std::string::npos) {
            CHECK(columns(line) <= static_cast<std::size_t>(width));
          }
        }
      }
    }
  }
}

TEST_CASE("A handout is the same sheet each time it is printed with one seed", "[cli][classroom]") {
  // Every lesson, the student's handout and the teacher's copy (every demo: times show as "?",
  // a measurement as where to see it).
  for (int n = 1; n <= 16; ++n) {
    const std::string id = fmt::format("{:02}", n);
    CAPTURE(id);
    CHECK(handout(id, "en") == handout(id, "en"));
    auto teacher = [&id] {
      return run_gpulab({"learn", id, "--handout", "--answers"}, "",
                        {"XDG_STATE_HOME=" + temp_dir("teacher")})
          .out;
    };
    CHECK(teacher() == teacher());
  }
  CHECK(handout("14", "zh") == handout("14", "zh"));
  auto seeded = run_gpulab({"learn", "11", "--handout", "--seed", "5"}, "",
                           {"XDG_STATE_HOME=" + temp_dir("seeded")});
  REQUIRE(seeded.exit_code == 0);
  CHECK(seeded.out != handout("11", "en"));  // other demo data
  // A time is "?", never a regular expression's guess: code such as t % (2s) stays as it is.
  const std::string ladder = run_gpulab({"learn", "15", "--handout", "--answers"}, "",
                                        {"COLUMNS=100", "XDG_STATE_HOME=" + temp_dir("ladder")})
                                 .out;
  CHECK(ladder.find("t % (2s) == 0") != std::string::npos);
  CHECK(ladder.find("(times vary from run to run: shown as ?)") != std::string::npos);
  // warp-hiding's calculator demos take no --seed: they print their numbers, not an error.
  const std::string hiding = run_gpulab({"learn", "07", "--handout", "--answers"}, "",
                                        {"COLUMNS=100", "XDG_STATE_HOME=" + temp_dir("hiding")})
                                 .out;
  CHECK(hiding.find("error") == std::string::npos);
  CHECK(hiding.find("a measurement: its numbers change from run to run") != std::string::npos);
}

TEST_CASE("quiz --merge lists each student's score and who has not finished", "[cli][classroom]") {
  const std::string dir = temp_dir("merge");
  // ann finishes 3 of 3; bob stops after 1 of 3; cem is on the roster with no result.
  // Amdahl questions: any number is an answer that is read (right or wrong).
  auto ann = run_gpulab({"quiz", "--seed", "ann", "--count", "3", "--topic", "amdahl", "--results",
                         dir + "/ann.jsonl"},
                        "1\n2\n3\n");
  auto bob = run_gpulab({"quiz", "--seed", "bob", "--count", "3", "--topic", "amdahl", "--results",
                         dir + "/bob.jsonl"},
                        "1\n");
  REQUIRE(ann.exit_code == 0);
  REQUIRE(bob.exit_code == 0);
  std::ofstream(dir + "/roster.txt") << "ann\nbob\ncem\n";
  auto r = run_gpulab(
      {"quiz", "--merge", dir + "/ann.jsonl", dir + "/bob.jsonl", "--roster", dir + "/roster.txt"},
      "", {"COLUMNS=100"});
  CAPTURE(r.out, r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("stopped after 1 of 3") != std::string::npos);
  CHECK(r.out.find("Not finished (1): bob") != std::string::npos);
  CHECK(r.out.find("No result (1): cem") != std::string::npos);
  const json j = run_json({"quiz", "--merge", dir + "/ann.jsonl", dir + "/bob.jsonl", "--roster",
                           dir + "/roster.txt", "--json"});
  CHECK(j["unfinished"] == json::array({"bob"}));
  CHECK(j["no_result"] == json::array({"cem"}));
  CHECK(j["students"].size() == 2);
  // Not a result file: the file and line named, exit 1.
  std::ofstream(dir + "/bad.jsonl") << "{\"hello\": 1}\n";
  auto bad = run_gpulab({"quiz", "--merge", dir + "/bad.jsonl"});
  CHECK(bad.exit_code == 1);
  CHECK(bad.err.find("bad.jsonl line 1") != std::string::npos);
  check_usage_error({"quiz", "--roster", dir + "/roster.txt"}, "--merge");
}

TEST_CASE("The findings a lesson shows are what gpulab run reports on the lesson's file", "[run]") {
  // Lesson, file, arguments: the numbered findings ("1. race on global memory  wrong.cu:5") that
  // the lesson prints under its command must be the ones gpulab run prints for its file.
  struct Case {
    const char* lesson;
    const char* file;
    bool check;
    bool findings = true;  // the lesson shows findings (lesson 16's program is a correct one)
  };
  for (const Case& c : {Case{"11", "wrong.cu", true}, Case{"14", "two_norm.cu", true},
                        Case{"15", "reduce.cu", false}, Case{"16", "relu_scale.cu", true, false}}) {
    const std::string dir = temp_dir(std::string("shown-") + c.lesson);
    REQUIRE(run_gpulab({"learn", c.lesson, "--files", dir}).exit_code == 0);
    std::vector<std::string> args = {"run"};
    if (c.check) args.push_back("--check");
    args.push_back(dir + "/" + c.file);
    args.insert(args.end(), {"--backend", "cpu"});
    const std::regex finding(R"(^\s+(\d+\. .*\S)\s*$)");
    for (const char* lang : {"en", "zh"}) {
      std::vector<std::string> in_lang = args;
      in_lang.insert(in_lang.end(), {"--lang", lang});
      auto r = run_gpulab(in_lang, "", {"COLUMNS=100"});
      CAPTURE(c.lesson, lang, r.out, r.err);
      std::string text;
      for (const auto& entry : std::filesystem::directory_iterator(std::string(GPULAB_SOURCE_DIR) +
                                                                   "/lessons/" + lang)) {
        if (entry.path().filename().string().starts_with(c.lesson)) text = read(entry.path());
      }
      int shown = 0;
      for (const std::string& line : lines_of(text)) {
        std::smatch m;
        if (!line.starts_with("    ") || !std::regex_match(line, m, finding)) continue;
        if (m[1].str().find(c.file) == std::string::npos) continue;
        ++shown;
        CAPTURE(lang, m[1].str());
        CHECK(r.err.find(m[1].str()) != std::string::npos);
      }
      CHECK(shown >= (c.findings ? 1 : 0));
      // Lesson 16's program is right: it runs clean and checks itself (a NaN stays NaN).
      if (!c.findings) {
        CHECK(r.exit_code == 0);
        CHECK(r.out.find("1000 elements, alpha 1.5: 0 wrong; y[0] = nan") != std::string::npos);
        CHECK(r.out.find("y[1..6] = 0.0 0.0 0.0 1.5 3.0 4.5") != std::string::npos);
      }
    }
  }
}

TEST_CASE("The teacher's week in docs/teaching.md works as written", "[cli][classroom]") {
  const std::string doc = read(std::string(GPULAB_SOURCE_DIR) + "/docs/teaching.md");
  const std::size_t section = doc.find("## A course week, end to end");
  REQUIRE(section != std::string::npos);
  const std::size_t section_end = doc.find("\n## ", section + 1);
  // The section's blocks, in order: 1 print (teacher), 2 answer (one student), 3 merge (teacher).
  std::vector<std::string> blocks;
  for (std::size_t at = doc.find("```sh\n", section); at < section_end;
       at = doc.find("```sh\n", at + 1)) {
    const std::size_t end = doc.find("```", at + 6);
    REQUIRE(end != std::string::npos);
    std::string script;
    for (const std::string& line : lines_of(doc.substr(at + 6, end - at - 6))) {
      script += (line.starts_with("   ") ? line.substr(3) : line) + "\n";  // under a list item
    }
    blocks.push_back(script);
  }
  REQUIRE(blocks.size() == 3);
  const std::string bin = std::filesystem::path(GPULAB_BINARY).parent_path().string();
  // Runs one block in `dir` as the doc's reader would: gpulab on PATH, bash -e.
  auto run_block = [&](const std::string& dir, const std::string& script, const std::string& env,
                       const std::string& input) {
    std::ofstream(dir + "/block.sh") << script;
    std::ofstream(dir + "/input.txt") << input;
    const std::string command = "cd '" + dir + "' && " + env + " PATH='" + bin +
                                "':\"$PATH\" XDG_STATE_HOME='" + dir +
                                "/state' bash -e block.sh < input.txt > block.log 2>&1";
    const int status = std::system(command.c_str());
    CAPTURE(script, read(dir + "/block.log"));
    REQUIRE(status == 0);
  };
  const std::string dir = temp_dir("week");
  std::ofstream(dir + "/roster.txt") << "s2026-001\ns2026-002\ns2026-003\n";
  run_block(dir, blocks[0], "", "");
  CHECK(read(dir + "/handout-11.txt").find("Your answer: ____") != std::string::npos);
  CHECK(read(dir + "/handout-11-teacher.txt").find("teacher's copy") != std::string::npos);
  for (const char* id : {"s2026-001", "s2026-002", "s2026-003"}) {
    const std::string sheet = read(dir + "/sheets/" + std::string(id) + ".txt");
    const std::string key = read(dir + "/keys/" + std::string(id) + ".txt");
    CHECK(sheet.find("Answer: ____") != std::string::npos);
    CHECK(key.find("Solution:") != std::string::npos);
  }
  // Printed again, the handouts and sheets are the same bytes.
  const std::string again = temp_dir("week-again");
  std::ofstream(again + "/roster.txt") << read(dir + "/roster.txt");
  run_block(again, blocks[0], "", "");
  for (const char* file :
       {"handout-11.txt", "handout-11-teacher.txt", "sheets/s2026-002.txt", "keys/s2026-002.txt"}) {
    CAPTURE(file);
    CHECK(read(dir + "/" + file) == read(again + "/" + file));
  }
  // Step 3: s2026-001 answers every question (a number, then a yes/no: whichever the question
  // reads), s2026-002 stops after the first; s2026-003 never answers.
  std::string all;
  for (int i = 0; i < 10; ++i) all += "1\ny\n";
  run_block(dir, blocks[1], "ID=s2026-001", all);
  run_block(dir, blocks[1], "ID=s2026-002", "1\n");
  // Step 4: the merge names who did not finish and who has no result.
  run_block(dir, blocks[2], "", "");
  const std::string merged = read(dir + "/merged.txt");
  CAPTURE(merged);
  CHECK(merged.find("Not finished (1): s2026-002") != std::string::npos);
  CHECK(merged.find("No result (1): s2026-003") != std::string::npos);
  CHECK(merged.find("s2026-001") != std::string::npos);
  CHECK(std::filesystem::exists(dir + "/results/s2026-001.jsonl"));
}
