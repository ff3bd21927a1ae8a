// compute-sanitizer's text output read back into gpulab run's findings (run/sanitizer.hpp), on
// what the tools printed on an H100 for the planted bugs (tests/run_corpus/sanitizer_h100).
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "run/findings.hpp"
#include "run/sanitizer.hpp"

using gpulab::run::parse_sanitizer_output;
using gpulab::run::SanitizerReport;
using nlohmann::json;

namespace {

SanitizerReport recorded(const std::string& program, const std::string& tool) {
  const auto path = std::filesystem::path(GPULAB_SOURCE_DIR) / "tests" / "run_corpus" /
                    "sanitizer_h100" / ("bugs_" + program + "." + tool + ".txt");
  std::ifstream in(path);
  REQUIRE(in);
  std::stringstream ss;
  ss << in.rdbuf();
  return parse_sanitizer_output(tool, ss.str());
}

}  // namespace

TEST_CASE("memcheck on the H100: out of bounds with the nearest allocation", "[sanitizer]") {
  const auto r = recorded("oob_global", "memcheck");
  CHECK(r.errors == 31);             // the failed calls after the fault count too
  REQUIRE(r.findings.size() == 24);  // the 24 reads; the 3 "leaks" after the fault are its echo
  const json& f = r.findings[0];
  CHECK(f["kind"] == "out_of_bounds");
  CHECK(f["where"] == "oob_global.cu:4");
  CHECK(f["kernel"] == "add");
  CHECK(f["block"] == json::array({3, 0, 0}));
  CHECK(f["thread"] == json::array({232, 0, 0}));
  CHECK(f["bytes"] == 4);
  CHECK(f["write"] == false);
  CHECK(f["space"] == "global");
  CHECK(f["region_bytes"] == 4000);
  CHECK(f["offset"] == 4000);  // "1 bytes after": element 1000 of 1000 floats
  CHECK(r.findings[1]["offset"] == 4004);
  CHECK(f["tool"] == "memcheck");
}

TEST_CASE("memcheck on the H100: a host pointer, a shared-memory fault and its echoes, leaks",
          "[sanitizer]") {
  const auto host = recorded("host_pointer", "memcheck");
  CHECK(host.errors == 101);  // not the "1 errors were not printed" line after it
  REQUIRE_FALSE(host.findings.empty());
  CHECK(host.findings[0]["kind"] == "host_memory");
  CHECK(host.findings[0]["where"] == "host_pointer.cu:5");

  // The write; the failed calls after it and the "leaks" of the cudaFree calls that failed are
  // the fault's consequences.
  const auto shared = recorded("oob_shared", "memcheck");
  CHECK(shared.errors == 6);
  REQUIRE(shared.findings.size() == 1);
  CHECK(shared.findings[0]["kind"] == "out_of_bounds");
  CHECK(shared.findings[0]["space"] == "shared");
  CHECK(shared.findings[0]["where"] == "oob_shared.cu:4");
  CHECK(shared.findings[0]["thread"] == json::array({63, 0, 0}));

  const auto leak = recorded("leak", "memcheck");
  CHECK(leak.errors == 1);
  REQUIRE(leak.findings.size() == 1);
  CHECK(leak.findings[0]["kind"] == "leak");
  CHECK(leak.findings[0]["bytes"] == 128);
  // The host frames (cudaMalloc, its template, main), for addr2line to name the line.
  CHECK(leak.findings[0]["host_frames"] == json::array({0x4cb96, 0x9053, 0x8c8f}));
}

TEST_CASE("racecheck, synccheck and initcheck on the H100", "[sanitizer]") {
  const auto race = recorded("race_shared", "racecheck");
  CHECK(race.errors == 1);
  REQUIRE(race.findings.size() == 1);
  CHECK(race.findings[0]["kind"] == "shared_race");
  CHECK(race.findings[0]["kernel"] == "neighbour_sum");
  CHECK(race.findings[0]["where"] == "race_shared.cu:4");
  CHECK(race.findings[0]["other_where"] == "race_shared.cu:5");
  CHECK(race.findings[0]["write"] == true);
  CHECK(race.findings[0]["other_write"] == false);
  CHECK(race.findings[0]["hits"] == 512);

  const auto sync = recorded("divergent_barrier", "synccheck");
  REQUIRE_FALSE(sync.findings.empty());
  CHECK(sync.findings[0]["kind"] == "kernel_fault");
  CHECK(sync.findings[0]["where"] == "divergent_barrier.cu:4");
  CHECK(sync.findings[0]["message"] == "Barrier error detected. Divergent thread(s) in warp.");
  // The barrier that divides whole warps is not a divergence synccheck sees on an H100.
  const auto warps = recorded("divergent_barrier_warps", "synccheck");
  CHECK(warps.errors == 0);
  CHECK(warps.findings.empty());

  const auto init = recorded("uninitialized", "initcheck");
  REQUIRE_FALSE(init.findings.empty());
  CHECK(init.findings[0]["kind"] == "uninitialized_read");
  CHECK(init.findings[0]["where"] == "uninitialized.cu:4");
  CHECK(init.findings[0]["kernel"] == "add");
  const auto copy = recorded("notes_wrong_index", "initcheck");
  CHECK(copy.errors == 2);
  REQUIRE(copy.findings.size() == 2);
  CHECK(copy.findings[0]["kind"] == "uninitialized_copy");
  CHECK(copy.findings[0]["copied"] == 128);
  CHECK(copy.findings[0]["api"] == "cudaMemcpy");
}

TEST_CASE("a failed launch is listed; clean runs are clean", "[sanitizer]") {
  const auto launch = recorded("unchecked_launch", "memcheck");
  REQUIRE(launch.findings.size() == 1);
  CHECK(launch.findings[0]["kind"] == "launch_error");
  CHECK(launch.findings[0]["error"] == "cudaErrorInvalidValue");
  CHECK(launch.findings[0]["api"] == "cudaLaunchKernel");
  for (const char* tool : {"memcheck", "racecheck", "synccheck", "initcheck"}) {
    CAPTURE(tool);
    const auto clean = recorded("race_global", tool);
    CHECK(clean.errors == 0);
    CHECK(clean.findings.empty());
  }
}

TEST_CASE("the older location shape, the hazard report, and a program that prints the words",
          "[sanitizer]") {
  // Written in the shapes NVIDIA's documentation shows (not recorded): the location as
  // "at 0xOFF in FILE:LINE:KERNEL" (cuda-memcheck and early compute-sanitizer) and racecheck's
  // --racecheck-report hazard.
  const auto old = parse_sanitizer_output("memcheck",
                                          "========= Invalid __shared__ write of size 4 bytes\n"
                                          "=========     at 0x000001b0 in /x/tile.cu:6:void "
                                          "tile<32>(int*)\n"
                                          "=========     by thread (31,0,0) in block (1,0,0)\n"
                                          "=========\n"
                                          "========= ERROR SUMMARY: 1 error\n");
  REQUIRE(old.findings.size() == 1);
  CHECK(old.findings[0]["where"] == "/x/tile.cu:6");
  CHECK(old.findings[0]["kernel"] == "tile<32>");
  const auto hazard = parse_sanitizer_output(
      "racecheck",
      "========= Error: Potential RAW hazard detected at __shared__ 0x7c in block (0,0,0) :\n"
      "=========     Write Thread (31,0,0) at reverse(int *)+0x150 in race.cu:8\n"
      "=========     Read Thread (0,0,0) at reverse(int *)+0x1a0 in race.cu:9\n"
      "=========\n"
      "========= RACECHECK SUMMARY: 1 hazard displayed (1 error, 0 warnings)\n");
  REQUIRE(hazard.findings.size() == 1);
  CHECK(hazard.findings[0]["kind"] == "shared_race");
  CHECK(hazard.findings[0]["where"] == "race.cu:8");
  CHECK(hazard.findings[0]["other_where"] == "race.cu:9");
  CHECK(hazard.findings[0]["thread"] == json::array({31, 0, 0}));
  const auto fake =
      parse_sanitizer_output("memcheck", "Invalid __global__ write of size 4 bytes\n");
  CHECK(fake.findings.empty());
  CHECK(fake.errors == -1);
}

TEST_CASE("a shared-memory race's fix: one writer, and __syncwarp() within a warp", "[sanitizer]") {
  const auto text = [](bool write, bool other_write, bool same_warp, gpulab::Lang l) {
    gpulab::RunFinding f;
    f.kind = "shared_race";
    f.where = "k.cu:5";
    f.other_where = "k.cu:4";
    f.facts = {{"message", "race"}, {"write", write}, {"other_write", other_write}};
    if (same_warp) f.facts["same_warp"] = true;
    return gpulab::describe_finding(f, l);
  };
  using gpulab::Lang;
  CHECK_THAT(text(false, true, false, Lang::en),
             Catch::EndsWith("The usual fix: a __syncthreads() between the write and the read."));
  CHECK_THAT(text(true, true, false, Lang::en),
             Catch::EndsWith("let one thread write it, or a __syncthreads() between the writes."));
  const std::string warp = text(false, true, true, Lang::en);
  CHECK_THAT(warp, Catch::Contains("Both threads are in one warp"));
  CHECK_THAT(warp, Catch::EndsWith("a __syncwarp() between the write and the read."));
  CHECK_THAT(text(true, true, true, Lang::zh), Catch::EndsWith("或在两次写之间加 __syncwarp()。"));
  // compute-sanitizer's races (no same_warp) keep the block's barrier.
  CHECK_THAT(text(false, true, false, Lang::zh),
             Catch::EndsWith("在写和读之间加 __syncthreads()。"));
}
