// CLI tests of --bench [--reps R] (vecadd, twonorm) on the emulator.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "support/cli.hpp"
#include "support/run.hpp"
#include "support/says.hpp"

using gpulab::test::check_usage_error;
using gpulab::test::lines_of;
using gpulab::test::run_gpulab;
using gpulab::test::run_json;
using nlohmann::json;

namespace {

void check_bench(const json& j, int reps) {
  REQUIRE(j.contains("bench"));
  const json& b = j["bench"];
  CHECK(b["reps"] == reps);
  CHECK(b["median_ms"].get<double>() > 0);
  CHECK(b["gbs"].get<double>() > 0);
  CHECK(b["copy_gbs"].get<double>() > 0);
  const double f = b["fraction_of_copy"].get<double>();
  CHECK(f > 0);
  CHECK(f < 5);
  CHECK(b.contains("theoretical_gbs"));
  CHECK(b["theoretical_gbs"].is_null());  // the emulator: not known
}

}  // namespace

TEST_CASE("vecadd --bench: median time, bandwidth, fraction of the copy", "[cli][bench]") {
  json j = run_json({"vecadd", "--n", "100000", "--seed", "1", "--bench", "--reps", "3",
                     "--backend", "cpu", "--json"});
  CHECK(j["verified"] == true);
  check_bench(j, 3);
  CHECK(j["bench"]["bytes"].get<double>() == 3.0 * 100000 * 4);

  json d =
      run_json({"vecadd", "--n", "1000", "--seed", "1", "--bench", "--backend", "cpu", "--json"});
  check_bench(d, 20);  // the default

  auto text = run_gpulab({"vecadd", "--n", "5000", "--seed", "1", "--bench", "--reps", "2",
                          "--backend", "cpu", "--color", "never"});
  CHECK(text.exit_code == 0);
  CHECK_THAT(text.out, Catch::Contains("CPU time"));
  CHECK_THAT(text.out, Catch::Contains("not known"));
}

TEST_CASE("twonorm --bench: median time, bandwidth, fraction of the copy", "[cli][bench]") {
  for (const char* cols : {"333", "1024"}) {  // unaligned tail and a multiple of 4
    json j = run_json({"twonorm", "--rows", "201", "--cols", cols, "--seed", "7", "--bench",
                       "--reps", "4", "--backend", "cpu", "--json"});
    CHECK(j["verified"] == true);
    CHECK(j["relative_error"].get<double>() < 1e-5);
    check_bench(j, 4);
    CHECK(j["bench"]["bytes"].get<double>() == 2.0 * 201 * std::stod(cols) * 4);
  }
}

TEST_CASE("--reps must be a whole number from 1 to 1000", "[cli][bench]") {
  for (const std::string cmd : {"vecadd", "twonorm"}) {
    std::vector<std::string> base =
        cmd == "vecadd" ? std::vector<std::string>{"vecadd", "--n", "64"}
                        : std::vector<std::string>{"twonorm", "--rows", "8", "--cols", "8"};
    for (const std::string bad : {"0", "1001", "abc"}) {
      auto args = base;
      for (const char* a : {"--bench", "--reps"}) args.emplace_back(a);
      args.push_back(bad);
      args.emplace_back("--backend");
      args.emplace_back("cpu");
      check_usage_error(args, "--reps");
    }
  }
}

TEST_CASE("twonorm --kernel all --bench: the ladder, each step timed against one copy",
          "[cli][bench][twonorm]") {
  json j = run_json({"twonorm", "--rows", "50", "--cols", "81", "--kernel", "all", "--seed", "3",
                     "--bench", "--reps", "2", "--backend", "cpu", "--json"});
  CHECK(j["kernel"] == "all");
  CHECK(j["verified"] == true);
  REQUIRE(j["steps"].size() == 6);
  const std::vector<std::string> names = {"course",    "interleaved",  "sequential",
                                          "first-add", "warp-shuffle", "grid-stride"};
  for (std::size_t i = 0; i < 6; ++i) {
    const json& s = j["steps"][i];
    CAPTURE(i);
    CHECK(s["step"] == i);
    CHECK(s["name"] == names[i]);
    CHECK(s["ran"] == true);
    CHECK(s["verified"] == true);
    CHECK(s["relative_error"].get<double>() <= s["tolerance"].get<double>());
    CHECK(s["result"].get<double>() == Approx(j["reference"].get<double>()).epsilon(1e-4));
    CHECK_FALSE(s["explanation"].get<std::string>().empty());
    check_bench(s, 2);
    CHECK(s["bench"]["copy_gbs"] == j["copy"]["gbs"]);
  }
  CHECK(j["steps"][1]["launches"][0]["kernel"] == "ladder_interleaved");
  CHECK(j["steps"][1]["launches"][0]["grid"] == (50 * 81 + 255) / 256);
  CHECK(j["steps"][3]["launches"][0]["grid"] == (50 * 81 + 511) / 512);
  CHECK(j["steps"][5]["launches"][0]["kernel"] == "two_norm_partials");
}

TEST_CASE("twonorm --kernel all: the course step is skipped past 4096 elements, with the reason",
          "[cli][twonorm]") {
  json j = run_json({"twonorm", "--rows", "65", "--cols", "64", "--kernel", "all", "--seed", "3",
                     "--backend", "cpu", "--json"});
  CHECK(j["verified"] == true);
  CHECK(j["steps"][0]["ran"] == false);
  CHECK_THAT(j["steps"][0]["skipped_why"].get<std::string>(), Catch::Contains("4,160 elements"));
  CHECK_FALSE(j.contains("copy"));
  auto t = run_gpulab({"twonorm", "--rows", "65", "--cols", "64", "--kernel", "all", "--seed", "3",
                       "--bench", "--reps", "1", "--backend", "cpu", "--color", "never"});
  CHECK(t.exit_code == 0);
  CHECK_THAT(t.out, Catch::Contains("skipped"));
  CHECK_THAT(t.out, Catch::Contains("What each step changed"));
  CHECK_THAT(t.out, Catch::Contains("From step 1 to step 5"));
  CHECK_THAT(t.out, Catch::Contains("__shfl_down_sync"));
  auto src = run_gpulab({"twonorm", "--kernel", "all", "--source"});
  CHECK(src.exit_code == 0);
  for (const char* k : {"two_norm_kernel", "ladder_interleaved", "ladder_sequential",
                        "ladder_first_add", "ladder_warp_shuffle", "two_norm_partials"})
    CHECK_THAT(src.out, Catch::Contains(k));
}

TEST_CASE("warp-hiding --measure: the experiment on the emulator, and its option errors",
          "[cli][warp-hiding]") {
  json j = run_json({"warp-hiding", "--measure", "--steps", "3", "--ops", "8", "--seed", "9",
                     "--backend", "cpu", "--json"});
  REQUIRE(j.contains("measure"));
  const json& m = j["measure"];
  CHECK(m["verified"] == true);
  CHECK(m["ops"] == 8);
  CHECK(m["steps"] == 3);
  CHECK(m["seed"] == 9);
  CHECK(m["points"].size() == 12);
  CHECK(m["points"][0]["warps_per_sm"] == 1);
  CHECK(m["points"][11]["warps_per_sm"] == 64);
  CHECK(m["points"][11]["blocks_per_sm"] == 2);
  CHECK(m["points"][11]["threads_per_block"] == 1024);
  CHECK(m["latency_cycles"].get<double>() > 0);
  CHECK(m["prediction"]["warps_per_sm"] == 4 * m["prediction"]["warps_per_scheduler"].get<int>());
  CHECK(m["gpu_model"] == false);

  auto t = run_gpulab(
      {"warp-hiding", "--measure", "--steps", "2", "--backend", "cpu", "--color", "never"});
  CHECK(t.exit_code == 0);
  CHECK_THAT(t.out, Catch::Contains("warps per SM (log scale)"));
  CHECK(gpulab::test::says(t.out, "nothing is hidden"));
  CHECK_THAT(t.out, Catch::Contains("Every warp's chain ended where the host says"));

  check_usage_error({"warp-hiding", "--measure", "--latency", "200"}, "--latency");
  check_usage_error({"warp-hiding", "--measure", "--blocks-per-sm", "2"}, "--blocks-per-sm");
  check_usage_error({"warp-hiding", "--measure", "--ops", "6"}, "--ops 6");
  check_usage_error({"warp-hiding", "--measure", "--ops", "0"}, "--ops 0");
  check_usage_error({"warp-hiding", "--measure", "--steps", "0"}, "--steps 0");
  check_usage_error({"warp-hiding", "--steps", "10"}, "--measure");
  check_usage_error({"warp-hiding", "--seed", "1", "--ops", "4"}, "--measure");
}
