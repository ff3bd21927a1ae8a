// gpulab occupancy: the explained text with its formulas, the JSON facts, Chinese, the charts, and
// one-line errors for bad values.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "support/cli.hpp"
#include "support/run.hpp"
#include "support/says.hpp"

using gpulab::test::check_usage_error;
using gpulab::test::run_gpulab;
using gpulab::test::run_json;
using nlohmann::json;

TEST_CASE("occupancy: registers bind on the H100, every formula with its numbers",
          "[cli][occupancy]") {
  auto r = run_gpulab({"occupancy", "--threads", "256", "--registers", "64", "--model", "h100"});
  CAPTURE(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.out,
             Catch::Contains("Occupancy on NVIDIA H100 SXM5 80GB: compute capability 9.0, Hopper"));
  CHECK_THAT(r.out, Catch::Contains("ceil(256 threads / 32) = 8 warps per block"));
  CHECK(gpulab::test::says(r.out, "64 / 8 = 8 blocks"));
  CHECK_THAT(r.out, Catch::Contains("64 registers x 32 threads = 2,048 per warp"));
  CHECK_THAT(r.out, Catch::Contains("16,384 / 2,048 = 8 warps each, x 4 = 32 warps; 32 / 8 = 4"));
  CHECK_THAT(r.out, Catch::Contains("1,024 B the driver reserves per block"));
  CHECK_THAT(r.out, Catch::Contains("233,472 / 1,024 = 228 blocks"));
  CHECK_THAT(r.out, Catch::Contains("min(8, 32, 4, 228) = 4, limited by registers"));
  CHECK_THAT(r.out, Catch::Contains("4 x 8 = 32 of 64: occupancy 50%"));
  CHECK_THAT(r.out, Catch::Contains("Occupancy against threads per block"));
  CHECK_THAT(r.out, Catch::Contains("Occupancy against registers per thread"));
  CHECK_THAT(r.out, Catch::Contains("Occupancy against shared memory per block"));

  auto zh = run_gpulab({"occupancy", "--threads", "256", "--registers", "64", "--cc", "9.0",
                        "--lang", "zh", "--no-charts"});
  REQUIRE(zh.exit_code == 0);
  CHECK_THAT(zh.out, Catch::Contains("占用率：计算能力 9.0（Hopper）"));
  CHECK_THAT(zh.out, Catch::Contains("受限于寄存器"));
  CHECK_THAT(zh.out, Catch::Contains("占用率 50%"));
  CHECK_THAT(zh.out, !Catch::Contains("Occupancy against"));
}

TEST_CASE("occupancy --json: the same facts, the charts as points", "[cli][occupancy]") {
  json j = run_json({"occupancy", "--threads", "256", "--shared", "48K", "--registers", "16",
                     "--cc", "9.0", "--json"});
  CHECK(j["command"] == "occupancy");
  CHECK(j["cc"] == "9.0");
  CHECK(j["static_shared_bytes"] == 49152);
  CHECK(j["shared"]["per_block_allocated"] == 50176);
  CHECK(j["shared"]["blocks"] == 4);
  CHECK(j["blocks_per_sm"] == 4);
  CHECK(j["limited_by"] == json::array({"shared"}));
  CHECK(j["occupancy"].get<double>() == Approx(0.5));
  REQUIRE(j["charts"]["threads_per_block"].size() == 32);
  CHECK(j["charts"]["threads_per_block"][7] == json::array({256.0, 50.0}));
  CHECK(j["charts"]["registers_per_thread"].size() == 255);

  // The G80 of the notes: 3 blocks of 256 threads fill its 24 warps; an 11th register costs one.
  json g80 = run_json({"occupancy", "--threads", "256", "--registers", "10", "--model", "g80",
                       "--json", "--no-charts"});
  CHECK(g80["blocks_per_sm"] == 3);
  CHECK(g80["occupancy"] == 1.0);
  CHECK(g80["registers"]["per_block_allocated"] == 2560);
  CHECK(g80.find("charts") == g80.end());
  json g80b = run_json({"occupancy", "--threads", "256", "--registers", "11", "--model", "g80",
                        "--json", "--no-charts"});
  CHECK(g80b["blocks_per_sm"] == 2);

  // A launch that cannot run: 0 blocks and the reason, not an error.
  json none =
      run_json({"occupancy", "--threads", "1024", "--registers", "65", "--cc", "9.0", "--json"});
  CHECK(none["blocks_per_sm"] == 0);
  CHECK(none["problem"] == "registers_per_block");
  auto text = run_gpulab({"occupancy", "--threads", "1024", "--registers", "65", "--cc", "9.0"});
  CHECK(text.exit_code == 0);
  CHECK_THAT(text.out, Catch::Contains("cudaErrorLaunchOutOfResources"));

  // The carve-out: 25% of 228 KiB asks for 57 KiB, the next size is 64 KiB.
  json c = run_json({"occupancy", "--threads", "64", "--shared", "8K", "--carveout", "25", "--cc",
                     "9.0", "--json", "--no-charts"});
  CHECK(c["shared"]["per_sm"] == 65536);
  CHECK(c["shared"]["blocks"] == 7);
}

TEST_CASE("occupancy: bad values are one-line usage errors", "[cli][occupancy]") {
  check_usage_error({"occupancy", "--threads", "256"}, "--cc X.Y");
  check_usage_error({"occupancy", "--cc", "9.0"}, "--threads");
  check_usage_error({"occupancy", "--threads", "1025", "--cc", "9.0"}, "--threads 1025");
  check_usage_error({"occupancy", "--threads", "600", "--model", "g80"}, "512");
  check_usage_error({"occupancy", "--threads", "64", "--registers", "256", "--cc", "9.0"},
                    "--registers 256");
  check_usage_error({"occupancy", "--threads", "64", "--shared", "49153", "--cc", "9.0"},
                    "more must be dynamic");
  check_usage_error({"occupancy", "--threads", "64", "--dynamic-shared", "228K", "--cc", "9.0"},
                    "227 KiB");
  check_usage_error({"occupancy", "--threads", "64", "--cc", "4.2"}, "unknown compute capability");
  check_usage_error({"occupancy", "--threads", "64", "--cc", "9"}, "MAJOR.MINOR");
  check_usage_error({"occupancy", "--threads", "64", "--model", "voodoo2"}, "unknown GPU");
  check_usage_error({"occupancy", "--threads", "64", "--cc", "9.0", "--model", "h100"}, "only one");
  check_usage_error({"occupancy", "--threads", "64", "--carveout", "50", "--cc", "6.1"},
                    "no shared-memory carve-out");
  check_usage_error({"occupancy", "--threads", "64", "--carveout", "101", "--cc", "9.0"},
                    "--carveout 101");
}

TEST_CASE("occupancy never loads the CUDA driver", "[cli][occupancy][driver]") {
  auto r = run_gpulab({"occupancy", "--threads", "128", "--cc", "8.6"}, "", {"LD_DEBUG=libs"});
  CHECK(r.exit_code == 0);
  CHECK(r.err.find("libcuda") == std::string::npos);
}
