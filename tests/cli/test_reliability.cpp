// CLI tests of gpulab's reliability promises (docs/reliability.md): streams that cannot be
// written, empty and huge option values, resource limits, and the "no such GPU" rule.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <sys/wait.h>

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
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

// Whether gpulab starts at all under `limit` (a sanitizer build needs terabytes of address space,
// so tests of address-space limits skip themselves there).
bool starts_within(const std::string& limit) {
  if (sh(limit + "\"$GPULAB\" --version >/dev/null 2>&1").exit_code == 0) return true;
  WARN("skipped: this build cannot start under '" << limit << "' (a sanitizer build)");
  return false;
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

TEST_CASE("An empty value is a usage error, not the default", "[cli][reliability]") {
  for (const auto& [args, option] : std::vector<std::pair<std::vector<std::string>, std::string>>{
           {{"--lang", "", "amdahl", "--p", "0.5"}, "--lang"},
           {{"--emu-threads", "", "vecadd", "--n", "5"}, "--emu-threads"},
           {{"--shuffle-blocks", "", "vecadd", "--n", "5"}, "--shuffle-blocks"},
           {{"vecadd", "--n", "5", "--seed", ""}, "--seed"},
           {{"vecadd", "--n", "5", "--find", ""}, "--find"},
           {{"vecadd", "--n", "5", "--bench", "--reps", ""}, "--reps"},
           {{"warp-hiding", "--steps", ""}, "--steps"},
           {{"device-info", "--model", ""}, "--model"},
           {{"device-info", "--device", ""}, "--device"},
           {{"quiz", "--answers", "--seed", ""}, "--seed"}}) {
    check_usage_error(args, option + " '': empty");
  }
}

TEST_CASE("--source checks the other options first", "[cli][reliability]") {
  check_usage_error({"vecadd", "--source", "--n", "abc"}, "--n abc: not a whole number");
  check_usage_error({"vecadd", "--source", "--block", "2048"}, "--block 2048");
  check_usage_error({"hello", "--source", "--blocks", "0"}, "--blocks 0");
  check_usage_error({"index-map", "--source", "--grid", "0"}, "--grid 0");
  check_usage_error({"index-map", "--source", "--grid", "2", "--block", "2", "--find", "9"},
                    "--find 9");
  check_usage_error({"twonorm", "--source", "--rows", "x"}, "--rows x");
  check_usage_error({"twonorm", "--source", "--kernel", "fast"}, "--kernel fast");
  // Alone, or with good values, it still prints the source.
  for (const std::vector<std::string>& args : {std::vector<std::string>{"vecadd", "--source"},
                                               {"vecadd", "--source", "--n", "5"},
                                               {"index-map", "--source"},
                                               {"twonorm", "--source", "--kernel", "all"}}) {
    CAPTURE(args);
    auto r = run_gpulab(args);
    CHECK(r.exit_code == 0);
    CHECK_THAT(r.out, Catch::Contains("__global__"));
  }
}

TEST_CASE("Numbers past 2^63 - 1 are told the real limit", "[cli][reliability]") {
  const std::string big = "9223372036854775808";
  check_usage_error({"vecadd", "--n", "5", "--seed", big}, "must be at most 9223372036854775807");
  check_usage_error({"--shuffle-blocks", big, "vecadd", "--n", "5"},
                    "must be at most 9223372036854775807");
  check_usage_error({"vecadd", "--n", "5", "--find", big}, "must be between 0 and 4");
  check_usage_error({"index-map", "--grid", "2", "--block", "2", "--find", big},
                    "must be between 0 and 3");
  check_usage_error({"amdahl", "--p", "0.5", "--n", big},
                    "item " + big + " must be between 1 and 1000000000000");
}

TEST_CASE("learn: a progress file with wrong entries warns and keeps what is valid",
          "[cli][reliability][learn]") {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("gpulab-reliability-" + std::to_string(getpid())) / "progress";
  std::filesystem::create_directories(dir / "gpulab");
  std::ofstream(dir / "gpulab" / "progress.json")
      << R"({"lessons": {"04-amdahl": {"step": "abc"}, "05-school-model": null,
             "01-computer-and-cpu": {"step": 99, "done": false},
             "02-cpu-vs-gpu": {"step": 2, "done": false}}})";
  const std::string env = "XDG_STATE_HOME=" + dir.string();
  auto r = run_gpulab({"learn", "--json"}, "", {env});
  CAPTURE(r.err);
  REQUIRE(r.exit_code == 0);
  const json lessons = json::parse(r.out)["lessons"];
  auto find = [&](const std::string& id) {
    for (const auto& l : lessons)
      if (l["id"] == id) return l;
    FAIL("no lesson " << id);
    return json();
  };
  CHECK(find("04-amdahl")["status"] == "new");
  CHECK(find("05-school-model")["status"] == "new");
  CHECK(find("01-computer-and-cpu")["status"] == "new");
  CHECK(find("02-cpu-vs-gpu")["status"] == "in progress");
  CHECK(find("02-cpu-vs-gpu")["step"] == 2);
  const auto warnings = lines_of(r.err);
  CHECK(warnings.size() == 3);
  for (const auto& w : warnings) CHECK_THAT(w, Catch::StartsWith("gpulab: warning: "));
  CHECK_THAT(r.err, Catch::Contains("\"step\": \"abc\" is not a step number"));
  CHECK_THAT(r.err, Catch::Contains("step 100, past its 4 steps"));
  auto text = run_gpulab({"learn"}, "", {env});
  CHECK(text.exit_code == 0);
  CHECK_THAT(text.out, Catch::Contains("in progress (3/4)"));
  CHECK_THAT(text.out, !Catch::Contains("100/"));
}

TEST_CASE("The emulator runs with the worker threads the system lets it start",
          "[cli][reliability]") {
  // 300 MB of address space holds gpulab and some, but not 64, thread stacks of 8 MiB.
  const std::string limit = "ulimit -v 300000 && ";
  if (!starts_within(limit)) return;
  auto r =
      sh(limit + "\"$GPULAB\" --emu-threads 64 vecadd --n 100000 --backend cpu --show none 2>&1");
  CAPTURE(r.out);
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::Contains("Verified: all 100,000 elements"));
  CHECK_THAT(r.out, !Catch::Contains("terminate"));
}

TEST_CASE("quiz: a huge answer line is not read whole; control bytes are not echoed raw",
          "[cli][reliability][quiz]") {
  const std::string huge(5'000'000, '1');
  // Unreadable answers are asked again (the topic keeps every answer a number).
  auto r = run_gpulab({"quiz", "--count", "3", "--seed", "1", "--topic", "amdahl"},
                      "\x1b[31mred\x1b[0m\n" + huge + "\n4.98\n");
  CAPTURE(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.size() < 4000);
  CHECK(r.out.find('\x1b') == std::string::npos);
  CHECK_THAT(r.out, Catch::Contains("'\\x1b[31mred\\x1b[0m' is not a number"));
  CHECK_THAT(r.out, Catch::Contains("Longer than 1024 bytes, so not read"));
  auto j = run_gpulab({"quiz", "--count", "2", "--seed", "1", "--topic", "amdahl", "--json"},
                      huge + "\n1\n2\n");
  REQUIRE(j.exit_code == 0);
  CHECK(j.out.size() < 20000);
  CHECK(json::parse(j.out)["answered"] == 2);
}

TEST_CASE("Memory is counted buffer by buffer and refused before anything is allocated",
          "[cli][reliability]") {
  struct Case {
    std::vector<std::string> args;
    std::vector<std::string> says;
  };
  for (const Case& c : {Case{{"vecadd", "--n", "2147483647", "--show", "all"},
                             {"vecadd --n 2147483647 needs", "a, b, c on the host 24 GiB",
                              "a, b, c on the device 24 GiB", "(--show all)"}},
                        Case{{"twonorm", "--rows", "2147483647", "--cols", "100"},
                             {"a, b on the host 1.56 TiB", "a, b on the device 1.56 TiB"}}}) {
    // Many emulator threads, so that the run is not refused for its length first.
    std::vector<std::string> args = {"--backend", "cpu", "--emu-threads", "256"};
    args.insert(args.end(), c.args.begin(), c.args.end());
    CAPTURE(args);
    auto r = run_gpulab(args);
    CAPTURE(r.err);
    CHECK(r.exit_code == 1);
    CHECK(r.out.empty());
    CHECK(lines_of(r.err).size() == 1);
    CHECK_THAT(r.err, Catch::Contains("host memory") && Catch::Contains("nothing was allocated"));
    for (const auto& s : c.says) CHECK_THAT(r.err, Catch::Contains(s));
  }
}

TEST_CASE("An emulator run of an hour is refused with the estimate", "[cli][reliability]") {
  auto r = run_gpulab({"--backend", "cpu", "--emu-threads", "1", "twonorm", "--kernel", "all",
                       "--rows", "2147483647", "--cols", "1"});
  CAPTURE(r.err);
  CHECK(r.exit_code == 1);
  CHECK(lines_of(r.err).size() == 1);
  CHECK_THAT(r.err, Catch::Contains("would run for about 45 minutes or more on the emulator"));
}

TEST_CASE("index-map --show all streams its rows: a million rows in little memory",
          "[cli][reliability][index-map]") {
  // 600 MB of address space: the whole table held as cells took 1.3 GB.
  const std::string limit = "ulimit -v 600000 && ";
  if (!starts_within(limit)) return;
  auto r =
      sh(limit + "\"$GPULAB\" index-map --grid 1024 --block 1024 --show all | grep -c '^ *[0-9]'");
  CHECK(r.exit_code == 0);
  CHECK(std::stoul(r.out) >= 1024u * 1024u);
  // The streamed table is aligned as a Table: every row as wide as the header, 2-D coordinates
  // left-aligned.
  auto t = run_gpulab({"index-map", "--grid", "3x2", "--block", "4x5", "--show", "all"});
  REQUIRE(t.exit_code == 0);
  const auto lines = lines_of(t.out);
  CHECK(lines.at(4) == "  global  blockIdx  threadIdx  block#  thread#  warp");
  CHECK(lines.at(5) == "       0  (0,0)     (0,0)           0        0     0");
  CHECK(lines.at(124) == "     119  (2,1)     (3,4)           5       19     0");
}

namespace {

// A folder of its own for one hostile case: the program, the cache ($XDG_CACHE_HOME) and the
// temporary folder ($TMPDIR), so that what is left behind can be counted.
struct Scratch {
  std::filesystem::path dir;
  explicit Scratch(const std::string& name) {
    dir = std::filesystem::temp_directory_path() /
          ("gpulab-hostile-" + std::to_string(::getpid()) + "-" + name);
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir / "cache");
    std::filesystem::create_directories(dir / "tmp");
  }
  ~Scratch() {
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
  }
  std::filesystem::path write(const std::string& name, const std::string& text) const {
    std::ofstream(dir / name, std::ios::binary) << text;
    return dir / name;
  }
  // `script` with $D the folder, the cache and TMPDIR in it.
  ShellResult run(const std::string& script) const {
    // LEFTOVERS: says "leftover-process" when a process still runs a file of the cache (the
    // program, the compiler on the build folder); "ru[n]" keeps grep from finding itself.
    return sh(
        "LEFTOVERS() { for p in /proc/[0-9]*; do { tr '\\0' ' ' < $p/cmdline; } 2>/dev/null | "
        "grep -q \"$D/cache/gpulab/ru[n]\" && echo leftover-process; done; }; "
        "D='" +
        dir.string() + "'; export D COLUMNS=1000 XDG_CACHE_HOME=\"$D/cache\" TMPDIR=\"$D/tmp\"; " +
        script);
  }
  // Entries of the cache's run folder whose names start with `prefix`.
  std::size_t cache_entries(const std::string& prefix) const {
    std::size_t n = 0;
    std::error_code ec;
    for (const auto& e : std::filesystem::directory_iterator(dir / "cache" / "gpulab" / "run", ec))
      n += e.path().filename().string().rfind(prefix, 0) == 0;
    return n;
  }
};

// The text with every run of white space as one space: the report is laid out for the terminal,
// and a long line may be wrapped anywhere.
std::string flat(const std::string& text) {
  return std::regex_replace(text, std::regex(R"(\s+)"), " ");
}

const char* kHello = R"(#include <cstdio>
__global__ void hello() { printf("hello from thread %d\n", threadIdx.x); }
int main() {
  hello<<<1, 2>>>();
  cudaDeviceSynchronize();
  return 0;
}
)";

}  // namespace

TEST_CASE("run: a child that outlives main is ended and said so; main returned, not timed out",
          "[run][reliability]") {
  const Scratch s("fork");
  s.write("fork.cu", R"(#include <cstdio>
#include <unistd.h>
int main() {
  if (fork() == 0) {  // keeps stdout open for 30 s
    sleep(30);
    return 0;
  }
  std::printf("main done\n");
  return 0;
}
)");
  auto r = s.run(
      "\"$GPULAB\" run --backend cpu --timeout 20 \"$D/fork.cu\" --json 2>\"$D/report\"; "
      "echo \"rc=$?\"; cat \"$D/report\"");
  CAPTURE(r.out);
  REQUIRE_THAT(r.out, Catch::Contains("main done\nrc=0\n"));
  const json j = json::parse(r.out.substr(r.out.find("rc=0\n") + 5));
  CHECK(j["main_returned"] == true);
  CHECK(j["timed_out"] == false);
  CHECK(j["exit_code"] == 0);
  CHECK(j["leftover_processes"] == 1);
  CHECK(j["run_ms"].get<double>() < 10000);  // not the 20 s of --timeout, nor the child's 30 s
  auto text = s.run("\"$GPULAB\" run --backend cpu \"$D/fork.cu\" 2>&1 >/dev/null");
  CHECK_THAT(text.out, Catch::Contains("main returned: exit code 0"));
  CHECK_THAT(flat(text.out), Catch::Contains("1 process(es) it started were still running"));
}

TEST_CASE(
    "run: SIGTERM, SIGHUP and SIGINT end the program's whole group, exit 128+N, no files left",
    "[run][reliability]") {
  const Scratch s("signals");
  s.write("sleeper.cu", R"(#include <cstdio>
#include <unistd.h>
int main(int argc, char** argv) {
  if (fork() == 0) {  // a child of its own, which must go too
    sleep(60);
    return 0;
  }
  FILE* f = std::fopen(argv[1], "w");
  std::fprintf(f, "%d\n", getpid());
  std::fclose(f);
  sleep(60);
  return 0;
}
)");
  for (const auto& [name, code] :
       std::vector<std::pair<std::string, int>>{{"TERM", 143}, {"HUP", 129}, {"INT", 130}}) {
    CAPTURE(name);
    auto r = s.run(
        "rm -f \"$D/pid\"; \"$GPULAB\" run --backend cpu \"$D/sleeper.cu\" -- \"$D/pid\" "
        "2>\"$D/err\" & g=$!; i=0; while [ ! -s \"$D/pid\" ] && [ $i -lt 600 ]; do "
        "sleep 0.1; i=$((i+1)); done; kill -" +
        name +
        " $g; wait $g; echo \"rc=$?\"; "
        "p=$(cat \"$D/pid\"); sleep 0.2; kill -0 \"$p\" 2>/dev/null && echo program-alive; "
        "LEFTOVERS; cat \"$D/err\"");
    CAPTURE(r.out);
    CHECK_THAT(r.out, Catch::Contains("rc=" + std::to_string(code)));
    CHECK_THAT(r.out, !Catch::Contains("program-alive"));
    CHECK_THAT(r.out, !Catch::Contains("leftover-process"));
    CHECK_THAT(r.out, Catch::Contains("gpulab: stopped by SIG" + name));
    CHECK(s.cache_entries("report-") == 0);
  }
}

TEST_CASE("run: Ctrl-C during the compile ends the compiler and leaves no build files",
          "[run][reliability]") {
  const Scratch s("compile");
  s.write("waits.cu", "#include \"fifo.h\"\nint main() { return 0; }\n");
  // The compiler blocks on reading a FIFO: a compile that never ends by itself.
  auto r = s.run(
      "mkfifo \"$D/fifo.h\"; \"$GPULAB\" run --backend cpu \"$D/waits.cu\" 2>\"$D/err\" & "
      "g=$!; i=0; while ! grep -qs fifo.h /proc/[0-9]*/cmdline /proc/[0-9]*/fd 2>/dev/null "
      "&& [ $i -lt 50 ]; do sleep 0.2; i=$((i+1)); done; sleep 1; kill -INT $g; wait $g; "
      "echo \"rc=$?\"; sleep 0.2; LEFTOVERS; "
      "ls -A \"$D/tmp\"; cat \"$D/err\"");
  CAPTURE(r.out);
  CHECK_THAT(r.out, Catch::Contains("rc=130"));
  CHECK_THAT(r.out, !Catch::Contains("leftover-process"));
  CHECK_THAT(r.out, Catch::Contains("gpulab: stopped by SIGINT"));
  CHECK(s.cache_entries("build-") == 0);
  CHECK(s.cache_entries("report-") == 0);
  CHECK(std::filesystem::is_empty(s.dir / "tmp"));  // the compiler's own files went with it
}

TEST_CASE("run: output that cannot be written is exit 1, the program's or the report's",
          "[run][reliability]") {
  const Scratch s("full");
  s.write("hello.cu", kHello);
  auto out = s.run(
      "\"$GPULAB\" run --backend cpu \"$D/hello.cu\" >/dev/full 2>\"$D/err\"; "
      "echo \"rc=$?\"; tail -n 1 \"$D/err\"");
  CAPTURE(out.out);
  CHECK_THAT(out.out, Catch::Contains("rc=1\n"));
  CHECK_THAT(
      out.out,
      Catch::EndsWith("gpulab: error: cannot write to standard output: No space left on device\n"));
  auto err = s.run("\"$GPULAB\" run --backend cpu \"$D/hello.cu\" 2>/dev/full; echo \"rc=$?\"");
  CHECK_THAT(err.out, Catch::Contains("hello from thread 1\nrc=1\n"));
  auto rep = s.run(
      "\"$GPULAB\" run --backend cpu \"$D/hello.cu\" --report /dev/full 2>&1; "
      "echo \"rc=$?\"");
  CHECK_THAT(rep.out,
             Catch::Contains("--report /dev/full: cannot write the report: No space left"));
  CHECK_THAT(rep.out, Catch::Contains("rc=1\n"));
}

TEST_CASE("run: a cache that cannot be written is said once, and the program still runs",
          "[run][reliability]") {
  const Scratch s("cache");
  s.write("hello.cu", kHello);
  s.write("not-a-folder", "");
  auto r = s.run(
      "XDG_CACHE_HOME=\"$D/not-a-folder\" \"$GPULAB\" run --backend cpu \"$D/hello.cu\" "
      "2>&1; echo \"rc=$?\"");
  CAPTURE(r.out);
  CHECK_THAT(r.out, Catch::Contains("rc=0"));
  CHECK_THAT(r.out, Catch::Contains("hello from thread 1"));
  CHECK_THAT(flat(r.out), Catch::Contains("cannot write the compile cache at " + s.dir.string() +
                                          "/not-a-folder/gpulab/run: Not a directory"));
  CHECK(std::filesystem::is_empty(s.dir / "tmp"));  // the build folder went after the run
  // A read-only and a full file system, where this machine lets a test mount one.
  auto probe = sh("unshare -rm sh -c 'mount -t tmpfs -o size=64k tmpfs /mnt' 2>&1 && echo ok");
  if (probe.out.find("ok") == std::string::npos) {
    WARN("skipped the read-only and full caches: unshare -rm cannot mount a tmpfs here");
    return;
  }
  auto ro = s.run(
      "unshare -rm sh -c 'mount -t tmpfs -o ro tmpfs \"$D/cache\" && "
      "\"$GPULAB\" run --backend cpu \"$D/hello.cu\" 2>&1; echo \"rc=$?\"'");
  CAPTURE(ro.out);
  CHECK_THAT(ro.out, Catch::Contains("rc=0"));
  CHECK_THAT(flat(ro.out), Catch::Contains("cannot write the compile cache at " + s.dir.string() +
                                           "/cache/gpulab/run: Read-only file system"));
  auto full = s.run(
      "unshare -rm sh -c 'mount -t tmpfs -o size=64k tmpfs \"$D/cache\" && "
      "mkdir -p \"$D/cache/gpulab/run\" && "
      "dd if=/dev/zero of=\"$D/cache/fill\" bs=4k 2>/dev/null; "
      "\"$GPULAB\" run --backend cpu \"$D/hello.cu\" 2>&1; echo \"rc=$?\"'");
  CAPTURE(full.out);
  CHECK_THAT(full.out, Catch::Contains("rc=0"));
  CHECK_THAT(flat(full.out), Catch::Contains("cannot write the compile cache at " + s.dir.string() +
                                             "/cache/gpulab/run: no space left on device"));
  CHECK_THAT(full.out, !Catch::Contains("could not compile"));
}

TEST_CASE("run, inspect, exercise check: empty paths, folders and unreadable files",
          "[cli][reliability]") {
  for (const std::vector<std::string>& cmd :
       {std::vector<std::string>{"run", "--backend", "cpu"}, {"inspect"}, {"exercise", "check"}}) {
    CAPTURE(cmd);
    auto with = [&](const std::string& file) {
      std::vector<std::string> args = cmd;
      args.push_back(file);
      return args;
    };
    // inspect's FILE is optional: an empty one reads as none given.
    check_usage_error(with(""),
                      cmd[0] == "inspect" ? "inspect needs a file" : "an empty path names no file");
    check_usage_error(with("/tmp"), "/tmp: is a folder, not a file");
    check_usage_error(with("/dev/null"), "/dev/null: not a regular file");
  }
  // Unreadable: a file without read permission, tried as a user it applies to.
  const Scratch s("unreadable");
  const auto file = s.write("secret.cu", "int main() { return 0; }\n");
  std::filesystem::permissions(file, std::filesystem::perms::none);
  std::filesystem::permissions(s.dir, std::filesystem::perms::all);
  const std::string as_user =
      ::geteuid() == 0 ? "setpriv --reuid=65534 --regid=65534 --clear-groups " : "";
  for (const char* cmd : {"run --backend cpu", "inspect", "exercise check"}) {
    CAPTURE(cmd);
    auto r = s.run(as_user + "\"$GPULAB\" " + cmd + " \"$D/secret.cu\" 2>&1; echo \"rc=$?\"");
    CHECK_THAT(r.out, Catch::Contains("secret.cu: cannot read it: Permission denied"));
    CHECK_THAT(r.out, Catch::Contains("rc=2"));
  }
}

TEST_CASE("Escape bytes in what the user typed are shown escaped, never sent raw",
          "[cli][reliability]") {
  auto file = run_gpulab({"run", "--backend", "cpu", "\x1b[31mx.cu"});
  CHECK(file.exit_code == 2);
  CHECK(file.err.find('\x1b') == std::string::npos);
  CHECK_THAT(file.err, Catch::Contains("\\x1b[31mx.cu: no such file"));
  auto option = run_gpulab({"vecadd", "--n", "\x1b[31m64", "--backend", "cpu"});
  CHECK(option.exit_code == 2);
  CHECK(option.err.find('\x1b') == std::string::npos);
  CHECK_THAT(option.err, Catch::Contains("\\x1b[31m64"));
  auto c1 = run_gpulab({"amdahl", "--p",
                        "\xc2\x9b"
                        "31m"});
  CHECK(c1.exit_code == 2);
  CHECK(c1.err.find("\xc2\x9b") == std::string::npos);
  CHECK_THAT(c1.err, Catch::Contains("\\u009b31m"));
}

TEST_CASE("Escape bytes in relayed compiler output are shown escaped", "[run][reliability]") {
  const Scratch s("escape");
  s.write("bad.cu", "int main() { return undefined_name(\"\x1b[2J\x1b[31m\"); }\n");
  auto r = s.run("\"$GPULAB\" run --backend cpu \"$D/bad.cu\" 2>&1; echo \"rc=$?\"");
  CAPTURE(r.out);
  CHECK_THAT(r.out, Catch::Contains("rc=1"));
  CHECK_THAT(r.out, Catch::Contains("undefined_name"));
  CHECK(r.out.find('\x1b') == std::string::npos);
  CHECK_THAT(r.out, Catch::Contains("\\x1b[2J"));
}

TEST_CASE("run: a write past a __shared__ array is reported at its line, in its launch",
          "[run][reliability]") {
  const Scratch s("shared");
  s.write("past.cu", R"(#include <cstdio>
__global__ void tile_sum(int* out) {
  __shared__ int tile[32];
  tile[threadIdx.x] = threadIdx.x;
  __syncthreads();
  tile[threadIdx.x * 65536] = 1;
  out[threadIdx.x] = tile[threadIdx.x];
}
int main() {
  int* out;
  cudaMalloc(&out, 64 * sizeof(int));
  tile_sum<<<2, 32>>>(out);
  cudaDeviceSynchronize();
  std::printf("%s\n", cudaGetErrorString(cudaGetLastError()));
  return 0;
}
)");
  auto r = s.run("\"$GPULAB\" run --backend cpu \"$D/past.cu\" 2>&1; echo \"rc=$?\"");
  CAPTURE(r.out);
  // As on a GPU (compute-sanitizer names line 6 on an H100): the launch fails with an illegal
  // address at the next synchronising call and the program goes on to its end.
  CHECK_THAT(r.out, Catch::Contains("rc=0"));
  CHECK_THAT(r.out, Catch::Contains("an illegal memory access was encountered"));
  CHECK_THAT(flat(r.out), Catch::Contains("tile_sum <<<(2,1,1), (32,1,1)>>> past.cu:12"));
  CHECK_THAT(flat(r.out), Catch::Contains("launch failed: cudaErrorIllegalAddress"));
  CHECK_THAT(flat(r.out), Catch::Contains("kernel fault past.cu:6"));
  CHECK_THAT(flat(r.out), Catch::Contains("thread 1: illegal address: it writes"));
  CHECK_THAT(r.out, Catch::Contains("main returned"));
  CHECK_THAT(r.out, !Catch::Contains("No kernel was launched"));
  // Never a block the launch does not have.
  const std::regex block(R"(block \((\d+),(\d+),(\d+)\))");
  for (std::sregex_iterator it(r.out.begin(), r.out.end(), block), end; it != end; ++it) {
    CHECK(std::stoul((*it)[1].str()) < 2);
    CHECK((*it)[2].str() == "0");
  }
}

TEST_CASE("run: --timeout names the kernel that was running", "[run][reliability]") {
  const Scratch s("spin");
  s.write("spin.cu", R"(__global__ void spin(volatile int* flag) {
  while (*flag == 0) {
  }
}
int main() {
  int* flag;
  cudaMalloc(&flag, sizeof(int));
  cudaMemset(flag, 0, sizeof(int));
  spin<<<1, 1>>>(flag);
  cudaDeviceSynchronize();
  return 0;
}
)");
  auto r = s.run("\"$GPULAB\" run --backend cpu --timeout 2 \"$D/spin.cu\" 2>&1; echo \"rc=$?\"");
  CAPTURE(r.out);
  CHECK_THAT(r.out, Catch::Contains("rc=1"));
  CHECK_THAT(flat(r.out),
             Catch::Contains("stopped: still running after 2 s (--timeout), in kernel spin "
                             "(launched at spin.cu:9)"));
  CHECK_THAT(r.out, Catch::Contains("still running when --timeout stopped the program"));
  CHECK_THAT(r.out, !Catch::Contains("No kernel was launched"));
  CHECK_THAT(r.out, !Catch::Contains("main returned"));
}
