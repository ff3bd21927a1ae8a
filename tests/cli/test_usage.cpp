// The commands a student would guess: gpulab help, -v, "did you mean", one-line usage errors in
// gpulab's words, the global options in every command's help, the help in Chinese, the man page
// and the shell completion made from the same help.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "support/cli.hpp"
#include "support/run.hpp"

using gpulab::test::check_usage_error;
using gpulab::test::lines_of;
using gpulab::test::run_gpulab;
using gpulab::test::run_json;
using nlohmann::json;

namespace {

// Every command gpulab lists in its help.
const std::vector<std::string> kCommands = {
    "learn",       "quiz",      "run",     "hello",  "vecadd",      "index-map", "twonorm",
    "warp-hiding", "occupancy", "inspect", "amdahl", "device-info", "help"};

bool has_cjk(const std::string& s) {
  // Every CJK ideograph and full-width mark is a 3-byte UTF-8 sequence starting 0xE2..0xEF.
  for (unsigned char c : s) {
    if (c >= 0xE2 && c <= 0xEF) return true;
  }
  return false;
}

bool has_letters(const std::string& s) {
  for (char c : s) {
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) return true;
  }
  return false;
}

// The paragraphs of a man page that hold help text: the line after each .TP tag, and the line
// after each .SS heading.
std::vector<std::string> man_descriptions(const std::string& page) {
  std::vector<std::string> out;
  const auto lines = lines_of(page);
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (lines[i] == ".TP" && i + 2 < lines.size() && !lines[i + 1].starts_with(".B ")) {
      out.push_back(lines[i + 2]);
    } else if (lines[i].starts_with(".SS ") && i + 1 < lines.size()) {
      out.push_back(lines[i + 1]);
    }
  }
  return out;
}

std::string shell_output(const std::string& script) {
  std::string out;
  FILE* p = popen(script.c_str(), "r");
  REQUIRE(p != nullptr);
  char buf[4096];
  std::size_t n = 0;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  pclose(p);
  return out;
}

}  // namespace

TEST_CASE("gpulab help and gpulab help COMMAND are the --help texts", "[cli][usage]") {
  auto all = run_gpulab({"help"});
  CHECK(all.exit_code == 0);
  CHECK(all.out == run_gpulab({"--help"}).out);
  for (const auto& cmd : kCommands) {
    CAPTURE(cmd);
    CHECK_THAT(all.out, Catch::Contains(cmd));
    auto one = run_gpulab({"help", cmd});
    CHECK(one.exit_code == 0);
    CHECK(one.out == run_gpulab({cmd, "--help"}).out);
    CHECK_THAT(one.out, Catch::Contains("gpulab " + cmd));
  }
  check_usage_error({"help", "vecad"}, "help vecad: no such command; did you mean vecadd?");
  check_usage_error({"help", "frobnicate"}, "the commands are: learn, quiz");
}

TEST_CASE("-v is --version", "[cli][usage]") {
  auto v = run_gpulab({"-v"});
  CHECK(v.exit_code == 0);
  CHECK_THAT(v.out, Catch::StartsWith("gpulab 0."));
  CHECK(v.out == run_gpulab({"--version"}).out);
}

TEST_CASE("A misspelt command or option gets a 'did you mean'", "[cli][usage]") {
  check_usage_error({"vecad", "--n", "10"}, "unknown command 'vecad'; did you mean vecadd?");
  check_usage_error({"amdhal", "--p", "0.5"}, "unknown command 'amdhal'; did you mean amdahl?");
  check_usage_error({"index_map", "--grid", "4", "--block", "8"},
                    "unknown command 'index_map'; did you mean index-map?");
  check_usage_error({"amdahl", "--p", "0.5", "--jsn"},
                    "unknown option '--jsn' for amdahl; did you mean --json?");
  check_usage_error({"amdahl", "-p", "0.5"},
                    "unknown option '-p' for amdahl; did you mean --p? (long options take two "
                    "dashes)");
  check_usage_error({"vecadd", "--n", "10", "--blok", "32"}, "did you mean --block?");
  check_usage_error({"--jsn", "amdahl", "--p", "0.5"},
                    "unknown option '--jsn'; did you mean --json?");
  check_usage_error({"--p", "0.5", "amdahl"},
                    "--p is an option of amdahl: write it after the command");
  check_usage_error({"frobnicate"}, "unknown command 'frobnicate'; the commands are: learn,");
  check_usage_error({"amdahl", "--p", "0.9", "--bogus"}, "unknown option '--bogus' for amdahl");
}

TEST_CASE("The parser's own messages never reach the user", "[cli][usage]") {
  struct Case {
    std::vector<std::string> args;
    std::string says;
  };
  const std::vector<Case> cases = {
      {{}, "no command given; try gpulab help"},
      {{"--bogus"}, "unknown option '--bogus'"},
      {{"--json"}, "no command given"},
      {{"hello", "vecadd"}, "one command at a time: 'hello' and then 'vecadd'"},
      {{"--backend", "amdahl", "--p", "0.5"},
       "--backend amdahl: --backend takes auto|gpu|cpu, and 'amdahl' is a command; give the value "
       "first, then the command (e.g. gpulab --backend auto amdahl)"},
      {{"--lang", "amdahl", "--p", "0.5"}, "'amdahl' is a command"},
      {{"amdahl"}, "amdahl needs --p P: Parallel fraction P"},
      {{"amdahl", "0.5"}, "unexpected argument '0.5' for amdahl: it takes options only"},
      {{"vecadd", "--n"}, "--n needs a value (N) after it"},
      {{"amdahl", "--json=banana", "--p", "0.5"}, "--json is a switch and takes no value"},
      {{"run"}, "run needs FILE.cu"},
      {{"learn", "04", "05"}, "unexpected argument '05' for learn"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.args);
    auto r = run_gpulab(c.args);
    CAPTURE(r.err);
    check_usage_error(c.args, c.says);
    for (const char* leak :
         {"At Most", "required but received", "A subcommand is required", "is required",
          "not expected", "Could not convert", "unknown command '0.5'", "required TEXT missing"}) {
      CHECK_THAT(r.err, !Catch::Contains(leak));
    }
  }
}

TEST_CASE("Zh: the usage errors in Chinese too", "[cli][usage]") {
  auto r = run_gpulab({"--lang", "zh", "vecad"});
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains("未知命令 'vecad'；你是想输入 vecadd 吗？"));
  auto o = run_gpulab({"amdahl", "-p", "0.5"}, "", {"LANG=zh_CN.UTF-8"});
  CHECK(o.exit_code == 2);
  CHECK_THAT(o.err, Catch::Contains("你是想输入 --p 吗"));
}

TEST_CASE("A command's help lists the global options and marks what it needs", "[cli][usage]") {
  auto h = run_gpulab({"amdahl", "--help"});
  REQUIRE(h.exit_code == 0);
  CHECK_THAT(h.out, Catch::Contains("Global options (before or after the command)"));
  for (const char* opt : {"--json", "--lang", "--backend", "--color", "--check"}) {
    CHECK_THAT(h.out, Catch::Contains(opt));
  }
  CHECK_THAT(h.out, Catch::Contains("--p P (required)"));
  CHECK_THAT(h.out, !Catch::Contains("--n N1,N2,... (required)"));
  auto v = run_gpulab({"vecadd", "--help"});
  CHECK_THAT(v.out, Catch::Contains("--n N (required)"));
  auto i = run_gpulab({"index-map", "--help"});
  CHECK_THAT(i.out, Catch::Contains("--grid G (required)"));
  CHECK_THAT(i.out, Catch::Contains("--block B (required)"));
  auto r = run_gpulab({"run", "--help"});
  CHECK_THAT(r.out, Catch::Contains("FILE.cu ... (required)"));  // several files, as with nvcc
  // The root help lists the global options once, not twice.
  auto root = run_gpulab({"--help"});
  CHECK_THAT(root.out, !Catch::Contains("Global options (before or after"));
}

TEST_CASE("--grid and --block take 2,3 as they take 2x3", "[cli][usage]") {
  json x = run_json({"index-map", "--grid", "2x3", "--block", "3x4", "--json"});
  json c = run_json({"index-map", "--grid", "2,3", "--block", "3,4", "--json"});
  CHECK(x == c);
  json three = run_json({"index-map", "--grid", "1,1,2", "--block", "2,1,1", "--json"});
  CHECK(three["threads"].size() == 4);
  check_usage_error({"index-map", "--grid", "2,,3", "--block", "1"}, "--grid 2,,3");
  check_usage_error({"index-map", "--grid", "1,2,3,4", "--block", "1"}, "more than 3 dimensions");
}

TEST_CASE("hello takes --grid/--block as the other kernels do; --blocks/--threads still work",
          "[cli][usage]") {
  // One emulator worker: the blocks' lines then come in one order, the same in both runs (with
  // several workers the order of blocks, like a GPU's, may differ between two runs).
  json a = run_json(
      {"hello", "--grid", "2", "--block", "3", "--backend", "cpu", "--emu-threads", "1", "--json"});
  json b = run_json({"hello", "--blocks", "2", "--threads", "3", "--backend", "cpu",
                     "--emu-threads", "1", "--json"});
  CHECK(a == b);
  CHECK(a["lines"].size() == 6);
  check_usage_error({"hello", "--threads", "1025"}, "--threads 1025");
  check_usage_error({"hello", "--block", "1025"}, "--block 1025");
  check_usage_error({"hello", "--grid", "2", "--blocks", "3"},
                    "--blocks is the old name of --grid");
  // occupancy and inspect: --block too, their --threads kept.
  json ob = run_json({"occupancy", "--block", "256", "--cc", "9.0", "--no-charts", "--json"});
  json ot = run_json({"occupancy", "--threads", "256", "--cc", "9.0", "--no-charts", "--json"});
  CHECK(ob == ot);
  check_usage_error({"occupancy", "--block", "1025", "--cc", "9.0"}, "--block 1025");
  check_usage_error({"occupancy", "--cc", "9.0"}, "occupancy needs --block B");
  check_usage_error({"occupancy", "--block", "256", "--threads", "256", "--cc", "9.0"},
                    "--threads is the old name of --block");
  CHECK_THAT(run_gpulab({"occupancy", "--help"}).out, Catch::Contains("--block B (required)"));
  auto h = run_gpulab({"hello", "--help"}, "", {"COLUMNS=100"});
  CHECK_THAT(h.out, Catch::Contains("also --blocks"));
  CHECK_THAT(h.out, Catch::Contains("also --threads"));
}

TEST_CASE("Zh: all of --help in Chinese", "[cli][usage][zh]") {
  for (const auto& env :
       {std::vector<std::string>{"LANG=zh_CN.UTF-8"}, std::vector<std::string>{}}) {
    std::vector<std::string> args = {"vecadd", "--help"};
    if (env.empty()) args.push_back("--lang=zh");
    auto r = run_gpulab(args, "", env);
    CAPTURE(args, env, r.out);
    REQUIRE(r.exit_code == 0);
    for (const char* zh : {"用法", "选项", "全局选项", "（必需）", "元素个数"}) {
      CHECK_THAT(r.out, Catch::Contains(zh));
    }
    for (const char* en : {"Usage", "OPTIONS", "Options", "REQUIRED", "Print this help"}) {
      CHECK_THAT(r.out, !Catch::Contains(en));
    }
  }
  auto root = run_gpulab({"--lang", "zh", "--help"});
  CHECK_THAT(root.out, Catch::Contains("退出码"));
  CHECK_THAT(root.out, Catch::Contains("命令"));
  CHECK_THAT(root.out, !Catch::Contains("Subcommands"));
}

TEST_CASE("Zh: every help string has its translation", "[cli][usage][zh]") {
  // The man page holds every description of every command and option; a string given only in
  // English would show up as a paragraph without Chinese.
  auto en = run_gpulab({"__man", "--lang", "en"});
  auto zh = run_gpulab({"__man", "--lang", "zh"});
  REQUIRE(en.exit_code == 0);
  REQUIRE(zh.exit_code == 0);
  const auto en_text = man_descriptions(en.out);
  const auto zh_text = man_descriptions(zh.out);
  CHECK(en_text.size() == zh_text.size());
  CHECK(en_text.size() > 80);
  for (const auto& d : zh_text) {
    CAPTURE(d);
    CHECK(has_cjk(d));
  }
  for (const auto& d : en_text) {
    CAPTURE(d);
    CHECK(has_letters(d));
    CHECK_FALSE(has_cjk(d));
  }
  CHECK_THAT(en.out, Catch::Contains("gpulab \\- learn how GPUs work"));
  CHECK_THAT(zh.out, Catch::Contains("gpulab \\- 运行真实的"));
  // Each command, in each language.
  for (const auto& cmd : kCommands) {
    CAPTURE(cmd);
    CHECK_THAT(en.out, Catch::Contains(".SS \"gpulab " + cmd + "\""));
    CHECK_THAT(zh.out, Catch::Contains(".SS \"gpulab " + cmd + "\""));
  }
}

TEST_CASE("The man page is valid roff that man can format", "[cli][usage][man]") {
  for (const char* lang : {"en", "zh"}) {
    CAPTURE(lang);
    const std::string script = std::string("\"") + GPULAB_BINARY + "\" __man --lang " + lang +
                               " | groff -k -man -Tutf8 -ww -z 2>&1 >/dev/null"
                               // Chinese has no spaces to stretch: not an error.
                               " | grep -v -e 'cannot adjust line' -e \"can't break line\"";
    const std::string warnings = shell_output(script);
    CHECK(warnings.empty());
    const std::string text = shell_output(std::string("\"") + GPULAB_BINARY + "\" __man --lang " +
                                          lang + " | groff -k -man -Tutf8 2>/dev/null | col -b");
    CHECK_THAT(text, Catch::Contains("--backend"));
    CHECK_THAT(text, Catch::Contains("index-map"));
  }
}

TEST_CASE("Completion asks the binary: commands, options, values, lessons",
          "[cli][usage][complete]") {
  auto words = [](std::vector<std::string> args) {
    args.insert(args.begin(), "__complete");
    auto r = run_gpulab(args);
    CAPTURE(args, r.err);
    CHECK(r.exit_code == 0);
    return lines_of(r.out);
  };
  auto contains = [](const std::vector<std::string>& v, const std::string& s) {
    return std::find(v.begin(), v.end(), s) != v.end();
  };
  const auto all = words({""});
  for (const auto& cmd : kCommands) CHECK(contains(all, cmd));
  CHECK(words({"vec"}) == std::vector<std::string>{"vecadd"});
  const auto opts = words({"amdahl", "--"});
  CHECK(contains(opts, "--p"));
  CHECK(contains(opts, "--json"));
  CHECK(contains(opts, "--backend"));
  CHECK_FALSE(contains(opts, "--grid"));
  CHECK(words({"--backend", ""}) == std::vector<std::string>{"auto", "gpu", "cpu"});
  CHECK(words({"vecadd", "--show", "a"}) == std::vector<std::string>{"auto", "all"});
  CHECK(words({"help", "w"}) == std::vector<std::string>{"warp-hiding"});
  CHECK(words({"run", ""}) == std::vector<std::string>{"@file"});
  for (const char* cmd : {"occupancy", "device-info", "warp-hiding"}) {
    const auto models = words({cmd, "--model", ""});
    CHECK(contains(models, "h100"));
    CHECK(contains(models, "g80"));
  }
  const auto lessons = words({"learn", ""});
  CHECK(contains(lessons, "04-amdahl"));
  CHECK(contains(lessons, "amdahl"));
  CHECK(words({"learn", "04", ""}).empty());  // one lesson at a time
  // A command's own commands: gpulab exercise start.
  CHECK(contains(words({"exercise", ""}), "start"));
  CHECK(words({"exercise", "che"}) == std::vector<std::string>{"check"});
}

TEST_CASE("The bash completion script completes through the binary", "[cli][usage][complete]") {
  const std::string script =
      std::string("bash -c '. \"") + GPULAB_SOURCE_DIR +
      "/packaging/gpulab.bash\"; COMP_WORDS=(\"" + GPULAB_BINARY +
      "\" $0 $1); COMP_CWORD=2; _gpulab; printf \"%s\\n\" \"${COMPREPLY[@]}\"'";
  CHECK(shell_output(script + " amdahl --j") == "--json\n");
  CHECK(shell_output(script + " --lang z") == "zh\n");
  CHECK(shell_output(script + " help vec") == "vecadd\n");
}
