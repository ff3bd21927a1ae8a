// CLI tests of --bench [--reps R] (vecadd, twonorm) on the emulator.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "support/cli.hpp"
#include "support/run.hpp"

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
