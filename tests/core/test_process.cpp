// Running other programs: exit codes, signals, time and output limits; finding the toolchain.
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <thread>

#include "core/error.hpp"

#include "core/process.hpp"
#include "core/toolchain.hpp"

using namespace gpulab;
using namespace std::chrono_literals;

TEST_CASE("run_capture collects stdout and stderr and the exit code", "[process]") {
  const ProcessResult r = run_capture({"sh", "-c", "echo out; echo err >&2; exit 3"}, 10s);
  REQUIRE(r.started);
  CHECK(r.exit_code == 3);
  CHECK(r.signal == 0);
  CHECK(r.out == "out\n");
  CHECK(r.err == "err\n");
  CHECK_FALSE(r.ok());
  CHECK(r.describe().en == "exit code 3");
  CHECK(r.describe().zh == "退出码 3");
}

TEST_CASE("a program killed by a signal is reported by the signal's name", "[process]") {
  const ProcessResult r = run_capture({"sh", "-c", "kill -SEGV $$"}, 10s);
  REQUIRE(r.started);
  CHECK(r.signal == SIGSEGV);
  CHECK(r.describe().en.find("SIGSEGV") != std::string::npos);
  CHECK(r.describe().zh.find("被 SIGSEGV 终止") != std::string::npos);
}

TEST_CASE("a program past its time limit is stopped", "[process]") {
  const ProcessResult r = run_capture({"sh", "-c", "sleep 30"}, 300ms);
  REQUIRE(r.started);
  CHECK(r.timed_out);
  CHECK(r.signal == 0);
  CHECK(r.wall_ms < 10000);
  CHECK(r.describe().en.find("time limit") != std::string::npos);
  CHECK(r.describe().zh.find("时间上限") != std::string::npos);
}

TEST_CASE("a program that floods its output is stopped at the cap", "[process]") {
  ProcessSpec spec;
  spec.argv = {"yes"};
  spec.max_output_bytes = 10000;
  spec.timeout = 20s;
  const ProcessResult r = run_process(spec);
  CHECK(r.output_capped);
  CHECK_FALSE(r.timed_out);
  CHECK(r.out.size() == 10000);
  CHECK(r.out.substr(0, 4) == "y\ny\n");
}

TEST_CASE("environment, working directory and a missing program", "[process]") {
  ProcessSpec spec;
  spec.argv = {"sh", "-c", "echo \"$GPULAB_TEST_VAR\"; pwd"};
  spec.env = {{"GPULAB_TEST_VAR", "set here"}};
  spec.cwd = "/";
  const ProcessResult r = run_process(spec);
  CHECK(r.ok());
  CHECK(r.out == "set here\n/\n");

  const ProcessResult missing = run_capture({"gpulab-no-such-program-xyz"}, 5s);
  CHECK_FALSE(missing.started);
  CHECK(missing.describe().en.find("could not be started") != std::string::npos);
  CHECK(missing.describe().zh.find("无法启动") != std::string::npos);
}

TEST_CASE("the toolchain finds programs on PATH and names the package of a missing one",
          "[process]") {
  CHECK(toolchain::find_program("sh").has_value());
  CHECK_FALSE(toolchain::find_program("gpulab-no-such-program-xyz").has_value());
  const auto cxx = toolchain::find_cxx();
  REQUIRE(cxx.has_value());
  CHECK_FALSE(cxx->version.empty());
  CHECK(toolchain::missing_message("g++", Lang::en).find("apt install g++") != std::string::npos);
  CHECK(toolchain::missing_message("nvcc", Lang::en).find("CUDA toolkit") != std::string::npos);
  CHECK(toolchain::missing_message("nvcc", Lang::zh).find("CUDA 工具包") != std::string::npos);
}

namespace {

// The pid a test's shell wrote to `file` (0 when none).
pid_t pid_in(const std::filesystem::path& file) {
  std::ifstream in(file);
  pid_t p = 0;
  in >> p;
  return p;
}

bool alive(pid_t p) {
  return p > 0 && (::kill(p, 0) == 0 || errno == EPERM);
}

std::filesystem::path scratch(const std::string& name) {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("gpulab-process-test-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const auto p = dir / name;
  std::filesystem::remove(p);
  return p;
}

}  // namespace

TEST_CASE("a child that outlives main and keeps the output: main returned, the child is ended",
          "[process]") {
  const auto pidfile = scratch("keeper.pid");
  for (const auto mode : {ProcessSpec::Output::capture, ProcessSpec::Output::forward}) {
    CAPTURE(static_cast<int>(mode));
    ProcessSpec spec;
    spec.argv = {"sh", "-c", "sleep 30 & echo $! > " + pidfile.string() + "; echo main; exit 0"};
    spec.timeout = 20s;
    spec.output = mode;
    const ProcessResult r = run_process(spec);
    REQUIRE(r.started);
    CHECK(r.main_returned);
    CHECK(r.exit_code == 0);
    CHECK_FALSE(r.timed_out);
    CHECK(r.leftover_processes == 1);
    CHECK(r.leftovers_held_output);
    CHECK(r.wall_ms < 5000);  // the bound after main returned, not the 20 s limit
    if (mode == ProcessSpec::Output::capture) CHECK(r.out == "main\n");
    CHECK_FALSE(alive(pid_in(pidfile)));
  }
}

TEST_CASE("a child that lets go of the output, or leaves the session, is ended too", "[process]") {
  const auto pidfile = scratch("daemon.pid");
  SECTION("lets go of the output") {
    const ProcessResult r = run_capture(
        {"sh", "-c", "sleep 30 >/dev/null 2>&1 & echo $! > " + pidfile.string() + "; exit 3"}, 20s);
    CHECK(r.main_returned);
    CHECK(r.exit_code == 3);
    CHECK(r.leftover_processes == 1);
    CHECK_FALSE(r.leftovers_held_output);
    CHECK(r.wall_ms < 5000);
  }
  SECTION("leaves the session (setsid): the subreaper still finds it") {
    const ProcessResult r = run_capture({"sh", "-c",
                                         "setsid sh -c 'echo $$ > " + pidfile.string() +
                                             "; exec sleep 30' >/dev/null 2>&1 & "
                                             "while [ ! -s " +
                                             pidfile.string() + " ]; do sleep 0.01; done"},
                                        20s);
    CHECK(r.main_returned);
    CHECK(r.leftover_processes >= 1);
    CHECK(r.wall_ms < 5000);
  }
  CHECK_FALSE(alive(pid_in(pidfile)));
}

TEST_CASE("a program still running at the time limit is not 'main returned'", "[process]") {
  const ProcessResult r = run_capture({"sh", "-c", "sleep 30"}, 300ms);
  CHECK(r.timed_out);
  CHECK_FALSE(r.main_returned);
}

TEST_CASE("SIGTERM, SIGINT and SIGHUP end the program's whole group and throw Interrupted",
          "[process]") {
  const auto pidfile = scratch("signalled.pid");
  struct sigaction before {};
  sigaction(SIGTERM, nullptr, &before);
  for (const int sig : {SIGTERM, SIGINT, SIGHUP}) {
    CAPTURE(sig);
    std::filesystem::remove(pidfile);
    ProcessSpec spec;
    // The grandchild ignores the signal: it must be ended all the same.
    spec.argv = {
        "sh", "-c",
        "sh -c 'trap \"\" INT TERM HUP; echo $$ > " + pidfile.string() + "; exec sleep 30' & wait"};
    spec.timeout = 20s;
    std::thread sender([&] {
      for (int i = 0; i < 500 && pid_in(pidfile) == 0; ++i) std::this_thread::sleep_for(10ms);
      ::kill(::getpid(), sig);
    });
    int caught = 0;
    const auto start = std::chrono::steady_clock::now();
    try {
      run_process(spec);
    } catch (const Interrupted& e) {
      caught = e.signal();
    }
    sender.join();
    CHECK(caught == sig);
    CHECK(std::chrono::steady_clock::now() - start < 10s);
    CHECK_FALSE(alive(pid_in(pidfile)));
  }
  // Outside a run, the handler is the one from before again (here: the test framework's).
  struct sigaction now {};
  sigaction(SIGTERM, nullptr, &now);
  CHECK(now.sa_handler == before.sa_handler);
}

TEST_CASE("forward mode: a stdout that cannot be written is recorded with its reason",
          "[process]") {
  const int saved = ::dup(STDOUT_FILENO);
  const int full = ::open("/dev/full", O_WRONLY);
  REQUIRE(full >= 0);
  ::dup2(full, STDOUT_FILENO);
  ProcessSpec spec;
  spec.argv = {"sh", "-c", "echo hello"};
  spec.output = ProcessSpec::Output::forward;
  spec.timeout = 20s;
  const ProcessResult r = run_process(spec);
  ::dup2(saved, STDOUT_FILENO);
  ::close(saved);
  ::close(full);
  CHECK(r.ok());
  CHECK(r.stdout_errno == ENOSPC);
  CHECK(r.stderr_errno == 0);
}
