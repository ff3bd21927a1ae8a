// CLI tests of gpulab's reliability promises (docs/reliability.md): streams that cannot be
// written, empty and huge option values, resource limits, and the "no such GPU" rule.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "support/cli.hpp"
#include "support/run.hpp"

using gpulab::test::check_usage_error;
using gpulab::test::lines_of;
using gpulab::test::run_gpulab;
using nlohmann::json;

namespace {

struct ShellResult {
  int exit_code = -1;
  std::string out;  // the script's stdout (a script redirects what it wants to see into it)
};

// Runs `script` with /bin/sh, $GPULAB naming the binary: for redirections (>/dev/full, 2>&-) and
// limits (ulimit) that run_gpulab cannot set up.
ShellResult sh(const std::string& script) {
  setenv("GPULAB", GPULAB_BINARY, 1);
  unsetenv("LANG");
  unsetenv("LC_ALL");
  unsetenv("LC_MESSAGES");
  ShellResult r;
  FILE* p = popen(script.c_str(), "r");
  REQUIRE(p != nullptr);
  char buf[4096];
  std::size_t n = 0;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) r.out.append(buf, n);
  const int status = pclose(p);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return r;
}

}  // namespace

TEST_CASE("A stderr that cannot be written never aborts gpulab", "[cli][reliability]") {
  struct Case {
    std::string args;
    int code;
  };
  for (const Case& c : {Case{"amdahl --p 2", 2}, Case{"frobnicate", 2}, Case{"amdahl --p 0.5", 0},
                        Case{"--backend auto vecadd --n 10", 0}, Case{"hello --blocks 1", 0}}) {
    for (const char* redirect : {"2>/dev/full", "2>&-"}) {
      CAPTURE(c.args, redirect);
      auto r = sh("\"$GPULAB\" " + c.args + " >/dev/null " + redirect);
      CHECK(r.exit_code == c.code);
    }
  }
  // The notice about the emulator did not stop the run: its output is whole.
  auto r = sh("\"$GPULAB\" --backend auto vecadd --n 10 2>/dev/full");
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::Contains("Verified: all 10 elements"));
}

TEST_CASE("A stdout that cannot be written is exit 1 with one line on stderr",
          "[cli][reliability]") {
  for (const char* args :
       {"amdahl --p 0.5", "amdahl --p 0.5 --json", "--version", "--help", "vecadd --help",
        "hello --backend cpu", "learn", "learn 04 --no-pause", "quiz --answers --seed 1",
        "index-map --grid 4 --block 8", "vecadd --n 10 --backend cpu --source"}) {
    for (const char* redirect : {">/dev/full", ">&-"}) {
      CAPTURE(args, redirect);
      auto r = sh(std::string("\"$GPULAB\" ") + args + " 2>&1 " + redirect + " </dev/null");
      CHECK(r.exit_code == 1);
      REQUIRE(lines_of(r.out).size() == 1);
      CHECK_THAT(r.out, Catch::StartsWith("gpulab: error: cannot write to standard output"));
      CHECK_THAT(r.out, Catch::Contains(std::string(redirect) == ">&-" ? "Bad file descriptor"
                                                                       : "No space left"));
    }
  }
}
