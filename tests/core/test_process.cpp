// Running other programs: exit codes, signals, time and output limits; finding the toolchain.
#include <catch2/catch.hpp>

#include <csignal>

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
  CHECK(r.describe() == "exit code 3");
}

TEST_CASE("a program killed by a signal is reported by the signal's name", "[process]") {
  const ProcessResult r = run_capture({"sh", "-c", "kill -SEGV $$"}, 10s);
  REQUIRE(r.started);
  CHECK(r.signal == SIGSEGV);
  CHECK(r.describe().find("SIGSEGV") != std::string::npos);
}

TEST_CASE("a program past its time limit is stopped", "[process]") {
  const ProcessResult r = run_capture({"sh", "-c", "sleep 30"}, 300ms);
  REQUIRE(r.started);
  CHECK(r.timed_out);
  CHECK(r.signal == 0);
  CHECK(r.wall_ms < 10000);
  CHECK(r.describe().find("time limit") != std::string::npos);
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
  CHECK(missing.describe().find("could not be started") != std::string::npos);
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
