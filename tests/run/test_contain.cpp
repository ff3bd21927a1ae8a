// Untrusted programs run contained (run/contain.hpp), for real: a bounded fork bomb, a daemon
// left behind, an endless loop, a memory hog, a file too large, writing outside the folder,
// reading what is hidden, the network; in bubblewrap where it works here, and with the limits
// alone.
#include <catch2/catch.hpp>

#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>

#include "core/process.hpp"
#include "core/toolchain.hpp"
#include "run/contain.hpp"
#include "support/processes.hpp"

using namespace gpulab;
using gpulab::test::processes_with;
using namespace std::chrono_literals;
namespace fs = std::filesystem;

namespace {

ProcessResult contained(const std::string& script, const run::ContainLimits& limits,
                        std::chrono::milliseconds timeout = 20s, std::string* mode = nullptr) {
  ProcessSpec spec;
  spec.argv = {"/bin/sh", "-c", script};
  spec.timeout = timeout;
  spec.max_output_bytes = 1 << 20;
  spec.env = {{"GPULAB_TEST_VAR", "given"}};
  const run::Contained box(spec, limits);
  if (mode != nullptr) *mode = box.used().mode;
  ProcessResult r = run_process(box.spec());
  box.read_back(r);
  return r;
}

struct Folder {
  fs::path dir;
  Folder() {
    std::string t = (fs::temp_directory_path() / "gpulab-contain-test-XXXXXX").string();
    REQUIRE(::mkdtemp(t.data()) != nullptr);
    dir = t;
  }
  ~Folder() {
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
};

void common_checks(run::ContainLimits limits, const std::string& want_mode) {
  std::string mode;
  SECTION("the environment is cleared and the working folder private, empty, and removed after") {
    ::setenv("GPULAB_TEST_SECRET", "the teacher's token", 1);
    const ProcessResult r = contained("env; echo cwd=$(pwd); ls -A | wc -l", limits, 20s, &mode);
    ::unsetenv("GPULAB_TEST_SECRET");
    CAPTURE(r.out, r.err);
    CHECK(mode == want_mode);
    CHECK(r.exit_code == 0);
    CHECK(r.out.find("GPULAB_TEST_SECRET") == std::string::npos);
    CHECK(r.out.find("GPULAB_TEST_VAR=given") != std::string::npos);
    CHECK(r.out.find("PATH=/usr/local/bin:/usr/bin:/bin\n") != std::string::npos);
    const auto cwd = r.out.find("cwd=");
    REQUIRE(cwd != std::string::npos);
    const std::string folder = r.out.substr(cwd + 4, r.out.find('\n', cwd) - cwd - 4);
    CHECK(folder.find("gpulab-contain-") != std::string::npos);
    CHECK(r.out.find("HOME=" + folder + "\n") != std::string::npos);
    CHECK(r.out.substr(r.out.find('\n', cwd) + 1) == "0\n");
    CHECK_FALSE(fs::exists(folder));
  }
  SECTION("a bounded fork bomb is stopped as a whole and leaves no process") {
    limits.processes = 40;
    // 2^8 leaves that sleep, about 500 processes in all: past the limit, bounded if it is not.
    const auto start = std::chrono::steady_clock::now();
    const ProcessResult r = contained(
        "b() { if [ $1 -gt 0 ]; then b $(($1-1)) & b $(($1-1)) & wait; else sleep 41.31; fi; }; b "
        "8",
        limits, 10s);
    const double s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    CAPTURE(r.describe(), r.most_processes, s);
    if (::geteuid() == 0) {
      // The kernel exempts root from RLIMIT_NPROC: gpulab's own count stops it.
      CHECK(r.processes_capped);
      CHECK_FALSE(r.timed_out);
      CHECK(r.most_processes > 40);
      CHECK(r.describe().en.find("process limit") != std::string::npos);
    } else {
      // RLIMIT_NPROC makes its forks fail first (or the count stops it); the time limit ends it.
      CHECK((r.processes_capped || r.timed_out));
      CHECK(r.most_processes < 200);
    }
    CHECK(s < 30);
    CHECK(processes_with("41.31") == 0);
  }
  SECTION("a daemon it leaves behind is ended with it") {
    const ProcessResult r = contained("setsid sleep 41.32 & exit 0", limits);
    CHECK(r.exit_code == 0);
    CHECK(processes_with("41.32") == 0);
  }
  SECTION("an endless loop is stopped by its CPU time") {
    limits.cpu = 1s;
    const ProcessResult r = contained("exec /bin/sh -c 'while :; do :; done'", limits, 30s);
    CAPTURE(r.describe());
    CHECK(r.signal == SIGXCPU);
    CHECK(run::limit_of_signal(r.signal) == "cpu");
    CHECK_FALSE(r.timed_out);
  }
  SECTION("a file larger than the limit is stopped at the limit") {
    limits.file_bytes = 100000;
    const ProcessResult r = contained("exec head -c 1000000 /dev/zero > big", limits);
    CAPTURE(r.describe());
    CHECK(r.signal == SIGXFSZ);
    CHECK(run::limit_of_signal(r.signal) == "file_size");
  }
#if !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
  SECTION("memory past the limit is refused") {
    limits.memory_bytes = 64u << 20;
    // sort keeps what it reads in memory: 200 MB of it cannot fit in 64 MB.
    const ProcessResult r =
        contained("head -c 200000000 /dev/zero | tr '\\0' 'a' | sort -S 150M > /dev/null", limits);
    CAPTURE(r.describe(), r.err);
    CHECK(r.exit_code != 0);
  }
#endif
}

}  // namespace

TEST_CASE("contained with the limits alone", "[contain]") {
  run::ContainLimits limits;
  limits.sandbox = run::ContainLimits::Sandbox::limits;
  common_checks(limits, "limits");
}

TEST_CASE("contained in bubblewrap", "[contain]") {
  const Text& problem = run::bubblewrap_problem();
  if (!problem.empty()) {
    // Said, and the automatic choice falls back to the limits with the reason.
    WARN("bubblewrap does not work here: " + problem.en);
    run::ContainLimits limits;
    const run::Containment c = run::containment_for(limits);
    CHECK(c.mode == "limits");
    CHECK(c.why_not == problem);
    limits.sandbox = run::ContainLimits::Sandbox::bubblewrap;
    CHECK_THROWS(run::containment_for(limits));
    return;
  }
  run::ContainLimits limits;
  common_checks(limits, "bubblewrap");

  Folder outside, hidden;
  { std::ofstream(hidden.dir / "secret.cu") << "another student's work\n"; }
  limits.hidden = {hidden.dir};
  SECTION("the system is read-only, /tmp and home are its own, a hidden folder is empty") {
    const std::string script = "touch /usr/gpulab-x; echo usr=$?; touch " +
                               (outside.dir / "x").string() + "; echo tmp=$?; cat " +
                               (hidden.dir / "secret.cu").string() + "; echo hidden=$?; ls -A " +
                               hidden.dir.string() + " | wc -l";
    const ProcessResult r = contained(script, limits);
    CAPTURE(r.out, r.err);
    CHECK(r.out.find("usr=1") != std::string::npos);
    CHECK(r.out.find("hidden=1") != std::string::npos);
    CHECK(r.out.find("another student") == std::string::npos);
    CHECK_FALSE(fs::exists("/usr/gpulab-x"));
    // Written in the sandbox's own /tmp, never in ours.
    CHECK_FALSE(fs::exists(outside.dir / "x"));
  }
  SECTION("the files it is given: read-only and read-write, nothing else") {
    const fs::path in = outside.dir / "in", out = outside.dir / "out";
    std::ofstream(in) << "input\n";
    std::ofstream(out) << "";
    limits.readable = {in};
    limits.writable = {out};
    const ProcessResult r = contained(
        "cat " + in.string() + " > " + out.string() + "; echo x >> " + in.string() + "; echo in=$?",
        limits);
    CAPTURE(r.out, r.err);
    CHECK(r.out.find("in=0") == std::string::npos);  // refused: read-only
    std::ifstream got(out), kept(in);
    std::string a, b;
    std::getline(got, a);
    std::getline(kept, b);
    CHECK(a == "input");
    CHECK(b == "input");
  }
  SECTION("no network: only its own loopback") {
    const ProcessResult r = contained("cat /proc/net/dev", limits);
    CAPTURE(r.out);
    CHECK(r.out.find("lo:") != std::string::npos);
    std::size_t interfaces = 0;
    for (std::size_t at = 0; (at = r.out.find(':', at)) != std::string::npos; ++at) ++interfaces;
    CHECK(interfaces == 1);
  }
  SECTION("a crash inside is told as the signal, not bubblewrap's exit code") {
    const ProcessResult r = contained("kill -SEGV $$", limits);
    CHECK(r.signal == SIGSEGV);
  }
}
