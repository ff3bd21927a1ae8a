// compute-sanitizer's text output read back into gpulab run's findings (run/sanitizer.hpp).
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "run/sanitizer.hpp"

using gpulab::run::parse_sanitizer_output;
using nlohmann::json;

namespace {

std::string fixture(const std::string& name) {
  const auto path = std::filesystem::path(__FILE__).parent_path() / "sanitizer" / name;
  std::ifstream in(path);
  REQUIRE(in);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

TEST_CASE("memcheck: out of bounds with its allocation, leaks, and the fault's echo left out",
          "[sanitizer]") {
  const auto r = parse_sanitizer_output("memcheck", fixture("memcheck_oob.txt"));
  CHECK(r.errors == 4);
  REQUIRE(r.findings.size() == 3);  // two writes and a leak; the failed synchronise is an echo
  const json& f = r.findings[0];
  CHECK(f["kind"] == "out_of_bounds");
  CHECK(f["where"] == "/home/student/oob_global.cu:9");
  CHECK(f["kernel"] == "scale");
  CHECK(f["block"] == json::array({4, 0, 0}));
  CHECK(f["thread"] == json::array({0, 0, 0}));
  CHECK(f["bytes"] == 4);
  CHECK(f["write"] == true);
  CHECK(f["space"] == "global");
  CHECK(f["region_bytes"] == 1024);
  CHECK(f["offset"] == 1024);
  CHECK(r.findings[1]["offset"] == 1028);
  CHECK(r.findings[1]["thread"] == json::array({1, 0, 0}));
  CHECK(r.findings[2]["kind"] == "leak");
  CHECK(r.findings[2]["bytes"] == 1024);
  CHECK(r.findings[2]["tool"] == "memcheck");
}

TEST_CASE("memcheck: the older location shape and shared memory", "[sanitizer]") {
  const auto r = parse_sanitizer_output("memcheck", fixture("memcheck_shared_old.txt"));
  CHECK(r.errors == 1);
  REQUIRE(r.findings.size() == 1);
  CHECK(r.findings[0]["kind"] == "out_of_bounds");
  CHECK(r.findings[0]["space"] == "shared");
  CHECK(r.findings[0]["where"] == "/home/student/oob_shared.cu:6");
  CHECK(r.findings[0]["kernel"] == "tile<32>");
  CHECK(r.findings[0]["block"] == json::array({1, 0, 0}));
  CHECK(r.findings[0]["thread"] == json::array({31, 0, 0}));
}

TEST_CASE("racecheck: both report shapes name the two lines", "[sanitizer]") {
  for (const char* name : {"racecheck.txt", "racecheck_hazard.txt"}) {
    CAPTURE(name);
    const auto r = parse_sanitizer_output("racecheck", fixture(name));
    CHECK(r.errors == 1);
    REQUIRE(r.findings.size() == 1);
    const json& f = r.findings[0];
    CHECK(f["kind"] == "shared_race");
    CHECK(f["kernel"] == "reverse");
    CHECK(f["where"] == "/home/student/race_shared.cu:8");
    CHECK(f["other_where"] == "/home/student/race_shared.cu:9");
    CHECK(f["write"] == true);
    CHECK(f["other_write"] == false);
  }
  CHECK(parse_sanitizer_output("racecheck", fixture("racecheck.txt")).findings[0]["hits"] == 248);
  const auto h = parse_sanitizer_output("racecheck", fixture("racecheck_hazard.txt"));
  CHECK(h.findings[0]["block"] == json::array({0, 0, 0}));
  CHECK(h.findings[0]["thread"] == json::array({31, 0, 0}));
  CHECK(h.findings[0]["other_thread"] == json::array({0, 0, 0}));
}

TEST_CASE("synccheck and initcheck", "[sanitizer]") {
  const auto s = parse_sanitizer_output("synccheck", fixture("synccheck.txt"));
  REQUIRE(s.findings.size() == 1);
  CHECK(s.findings[0]["kind"] == "kernel_fault");
  CHECK(s.findings[0]["where"] == "/home/student/divergent_barrier.cu:7");
  CHECK(s.findings[0]["thread"] == json::array({32, 0, 0}));
  CHECK(s.findings[0]["message"] == "Barrier error detected. Divergent thread(s) in block");
  const auto i = parse_sanitizer_output("initcheck", fixture("initcheck.txt"));
  REQUIRE(i.findings.size() == 1);
  CHECK(i.findings[0]["kind"] == "uninitialized_read");
  CHECK(i.findings[0]["where"] == "/home/student/uninitialized.cu:5");
  CHECK(i.findings[0]["kernel"] == "add_one");
  CHECK(i.findings[0]["bytes"] == 4);
}

TEST_CASE("a clean run, a checked launch error, and output that is not the tool's",
          "[sanitizer]") {
  const auto clean = parse_sanitizer_output("memcheck", fixture("memcheck_clean.txt"));
  CHECK(clean.errors == 0);
  CHECK(clean.findings.empty());
  const auto launch = parse_sanitizer_output("memcheck", fixture("memcheck_checked_launch.txt"));
  REQUIRE(launch.findings.size() == 1);
  CHECK(launch.findings[0]["kind"] == "launch_error");
  CHECK(launch.findings[0]["error"] == "cudaErrorInvalidConfiguration");
  // The program printing the tool's words is not the tool.
  const auto fake = parse_sanitizer_output("memcheck", "Invalid __global__ write of size 4 bytes\n");
  CHECK(fake.findings.empty());
  CHECK(fake.errors == -1);
}
