// Every command's text fits the terminal's width (COLUMNS) and splits no word, in en and zh.
#include <catch2/catch.hpp>

#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "support/columns.hpp"
#include "support/run.hpp"

using gpulab::test::columns;
using gpulab::test::letter_runs;
using gpulab::test::lines_of;
using gpulab::test::run_gpulab;

namespace {

gpulab::test::RunResult at_width(std::vector<std::string> args, const std::string& lang,
                                 int width) {
  for (const char* a : {"--lang", lang.c_str(), "--color", "never", "--backend", "cpu"}) {
    args.emplace_back(a);
  }
  return run_gpulab(args, "", {"COLUMNS=" + std::to_string(width)});
}

void check_fits(const std::vector<std::string>& args) {
  for (const std::string lang : {"en", "zh"}) {
    const auto wide = at_width(args, lang, 1000);
    REQUIRE(wide.exit_code == 0);
    const std::set<std::string> known = letter_runs(wide.out);
    for (int width : {60, 80, 100}) {
      CAPTURE(args, lang, width);
      const auto r = at_width(args, lang, width);
      CAPTURE(r.out, r.err);
      REQUIRE(r.exit_code == 0);
      for (const std::string& line : lines_of(r.out)) {
        CAPTURE(line);
        // One unbreakable word (a URL) may be wider than the terminal; nothing else may.
        if (line.find(' ', line.find_first_not_of(' ')) != std::string::npos) {
          CHECK(columns(line) <= static_cast<std::size_t>(width));
        }
        if (lang == "zh") {
          for (const char* mark : {"，", "。", "；", "：", "、", "）"}) {
            CHECK_FALSE(line.substr(line.find_first_not_of(' ') == std::string::npos
                                        ? line.size()
                                        : line.find_first_not_of(' '))
                            .starts_with(mark));
          }
        }
      }
      // Nothing is cut: a row too wide wraps its values under themselves (a "…" is for one word
      // wider than the terminal, which none of these print).
      std::string shown;
      for (const std::string& line : lines_of(r.out)) {
        CAPTURE(line);
        CHECK_FALSE(line.ends_with("…"));
        shown += line + "\n";
      }
      CHECK(r.out.find("were cut to fit") == std::string::npos);
      CHECK(r.out.find("被截断，以适应") == std::string::npos);
      // Words of the layout's own note (a table's columns left out) are new.
      std::set<std::string> allowed = known;
      for (const char* w : {"left", "out", "to", "fit", "columns"}) allowed.insert(w);
      for (const std::string& run : letter_runs(shown)) {
        CAPTURE(run);
        CHECK(allowed.count(run) == 1);
      }
    }
  }
}

}  // namespace

TEST_CASE("Calculators fit 60, 80 and 100 columns, en and zh", "[cli][layout]") {
  check_fits({"amdahl", "--p", "0.9"});
  check_fits({"warp-hiding", "--latency", "400", "--ops", "4", "--cycles-per-op", "4"});
  check_fits({"warp-hiding", "--blocks-per-sm", "4", "--threads-per-block", "256"});
  check_fits({"occupancy", "--cc", "8.6", "--threads", "256", "--registers", "32"});
  check_fits({"index-map", "--grid", "4", "--block", "8", "--find", "21"});
  check_fits({"index-map", "--grid", "2x3", "--block", "3x4"});
  check_fits({"index-map", "--grid", "16", "--block", "4"});
  check_fits({"device-info"});
  check_fits({"device-info", "--model", "h100"});
  check_fits({"quiz", "--answers", "--seed", "1"});
  check_fits({"device-info", "--model", "t4"});
  check_fits({"occupancy", "--block", "256", "--registers", "64", "--shared", "48K", "--model",
              "h100", "--no-charts"});
  check_fits({"index-map", "--grid", "391", "--block", "256"});
  check_fits({"index-map", "--grid", "2x2x2", "--block", "2x2x2", "--find", "43"});
  check_fits({"exercise"});
}

TEST_CASE("Kernel commands fit 60, 80 and 100 columns, en and zh", "[cli][layout]") {
  check_fits({"hello"});
  check_fits({"vecadd", "--n", "1000", "--block", "256", "--seed", "1"});
  check_fits({"twonorm", "--rows", "64", "--cols", "64", "--seed", "1"});
  check_fits({"twonorm", "--kernel", "all", "--rows", "64", "--cols", "64", "--seed", "1"});
}

TEST_CASE("Lessons fit 60, 80 and 100 columns, en and zh", "[cli][layout]") {
  check_fits({"learn"});
  // Lesson 11: its drawing of 4 blocks and the report of `run --check` are wider than 60.
  check_fits({"learn", "11", "--no-pause"});
  check_fits({"learn", "08", "--no-pause"});  // a table
  check_fits({"learn", "04", "--no-pause"});
  check_fits({"learn", "15", "--handout", "--answers"});  // the ladder's table, answers beside
}

TEST_CASE("A wide terminal keeps a table whole; a narrow one says what it left out",
          "[cli][layout]") {
  auto wide = at_width({"amdahl", "--p", "0.9"}, "en", 100);
  CHECK_THAT(wide.out, Catch::Contains("Gustafson"));
  CHECK_THAT(wide.out, !Catch::Contains("left out"));
  auto narrow = at_width({"amdahl", "--p", "0.9"}, "en", 60);
  CHECK_THAT(narrow.out, Catch::Contains("(left out to fit 60 columns: Gustafson)"));
  // The boxes of lesson 11's grid go below one another instead of running off the screen.
  auto grid = at_width({"index-map", "--grid", "4", "--block", "8"}, "en", 60);
  std::size_t boxes = 0;
  for (const std::string& line : lines_of(grid.out)) {
    if (line.starts_with("  block (")) {
      ++boxes;
    }
  }
  CHECK(boxes == 2);  // two bands of two boxes
  CHECK_THAT(grid.out, !Catch::Contains("…"));
}

TEST_CASE("A pipe gets 80 columns, and --json is never wrapped", "[cli][layout]") {
  const auto piped = run_gpulab({"amdahl", "--p", "0.9", "--color", "never"});
  for (const std::string& line : lines_of(piped.out)) {
    CAPTURE(line);
    CHECK(columns(line) <= 80);
  }
  const auto json = run_gpulab({"device-info", "--model", "h100", "--json"}, "", {"COLUMNS=40"});
  const auto json_wide =
      run_gpulab({"device-info", "--model", "h100", "--json"}, "", {"COLUMNS=1000"});
  CHECK(json.out == json_wide.out);
  // A COLUMNS that is no number is passed over, not an error.
  const auto odd = run_gpulab({"amdahl", "--p", "0.9"}, "", {"COLUMNS=wide"});
  CHECK(odd.exit_code == 0);
  CHECK(odd.out == piped.out);
}

TEST_CASE("--source prints the kernel files as they are, at any width", "[cli][layout]") {
  const auto narrow = run_gpulab({"vecadd", "--source"}, "", {"COLUMNS=60"});
  const auto wide = run_gpulab({"vecadd", "--source"}, "", {"COLUMNS=1000"});
  CHECK(narrow.exit_code == 0);
  CHECK(narrow.out == wide.out);
}

TEST_CASE("run's report on stderr fits the width", "[run][layout]") {
  const std::string file = std::string(GPULAB_SOURCE_DIR) + "/tests/run_corpus/bugs/oob_global.cu";
  for (const std::string lang : {"en", "zh"}) {
    const auto r = run_gpulab({"run", "--check", "--lang", lang, "--color", "never", file}, "",
                              {"COLUMNS=60"});
    CAPTURE(lang, r.err);
    CHECK(r.exit_code == 1);
    for (const std::string& line : lines_of(r.err)) {
      CAPTURE(line);
      if (line.find(' ', line.find_first_not_of(' ')) != std::string::npos) {
        CHECK(columns(line) <= 60);
      }
    }
  }
}
