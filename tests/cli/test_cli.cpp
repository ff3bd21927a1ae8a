// CLI tests: run the real gpulab binary and check exit codes, text, JSON and error lines.
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

TEST_CASE("--version and --help", "[cli]") {
  auto v = run_gpulab({"--version"});
  CHECK(v.exit_code == 0);
  CHECK_THAT(v.out, Catch::StartsWith("gpulab 0.1.0"));
  auto h = run_gpulab({"--help"});
  CHECK(h.exit_code == 0);
  for (const char* cmd :
       {"hello", "vecadd", "twonorm", "index-map", "warp-hiding", "amdahl", "device-info"}) {
    CHECK_THAT(h.out, Catch::Contains(cmd));
  }
  auto sub = run_gpulab({"vecadd", "--help"});
  CHECK(sub.exit_code == 0);
  CHECK_THAT(sub.out, Catch::Contains("--block"));
}

TEST_CASE("No subcommand, an unknown one, or an unknown option is a usage error", "[cli]") {
  check_usage_error({}, "no command given");
  check_usage_error({"frobnicate"}, "frobnicate");
  check_usage_error({"amdahl", "--p", "0.5", "--bogus"}, "--bogus");
}

TEST_CASE("amdahl: the notes' P = 0.95 row, worked and in JSON", "[cli][amdahl]") {
  auto r = run_gpulab({"amdahl", "--p", "0.95"});
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::Contains("1 / (0.95/10 + 0.05)"));
  CHECK_THAT(r.out, Catch::Contains("6.9"));
  CHECK_THAT(r.out, Catch::Contains("1 / (1 - P) = 1 / 0.05 = 20x"));
  json j = run_json({"amdahl", "--p", "0.95", "--json"});
  CHECK(j["command"] == "amdahl");
  REQUIRE(j["rows"].size() == 5);
  CHECK(j["rows"][0]["n"] == 10);
  CHECK(j["rows"][0]["speedup"].get<double>() == Approx(6.896552).epsilon(1e-6));
  CHECK(j["rows"][3]["speedup"].get<double>() == Approx(19.96).epsilon(1e-3));
  CHECK(j["limit"].get<double>() == Approx(20.0));
  json custom = run_json({"--json", "amdahl", "--p", "0.5", "--n", "1,2,4"});
  REQUIRE(custom["rows"].size() == 3);
  CHECK(custom["rows"][2]["speedup"].get<double>() == Approx(1.6));
  json one = run_json({"amdahl", "--p", "1", "--json"});
  CHECK(one["limit"].is_null());
}

TEST_CASE("amdahl: bad values", "[cli][amdahl]") {
  check_usage_error({"amdahl"}, "--p");
  check_usage_error({"amdahl", "--p", "1.5"}, "--p 1.5: must be between 0 and 1");
  check_usage_error({"amdahl", "--p", "-0.1"}, "--p -0.1");
  check_usage_error({"amdahl", "--p", "abc"}, "--p abc: not a number");
  check_usage_error({"amdahl", "--p", "nan"}, "--p nan");
  check_usage_error({"amdahl", "--p", "0.9", "--n", "10,0"}, "item 0 must be between 1");
  check_usage_error({"amdahl", "--p", "0.9", "--n", "10,,20"}, "empty item");
}

TEST_CASE("warp-hiding: the notes' two questions", "[cli][warp]") {
  auto r = run_gpulab({"warp-hiding", "--latency", "200", "--ops", "4", "--cycles-per-op", "4"});
  REQUIRE(r.exit_code == 0);
  CHECK(gpulab::test::says(r.out, "200 / 16 = 12.5 -> ceil = 13"));
  json j =
      run_json({"warp-hiding", "--latency", "200", "--ops", "4", "--cycles-per-op", "4", "--json"});
  CHECK(j["warps_needed"] == 13);
  json w =
      run_json({"warp-hiding", "--blocks-per-sm", "3", "--threads-per-block", "256", "--json"});
  CHECK(w["warps"] == 24);
  CHECK(w["resident"]["threads"] == 768);
  auto t = run_gpulab({"warp-hiding", "--blocks-per-sm", "3", "--threads-per-block", "256"});
  CHECK_THAT(t.out, Catch::Contains("3 blocks x 8 warps = 24 warps"));
}

TEST_CASE("warp-hiding: bad values", "[cli][warp]") {
  check_usage_error({"warp-hiding"}, "--latency");
  check_usage_error({"warp-hiding", "--latency", "200"}, "go together");
  check_usage_error({"warp-hiding", "--latency", "200", "--ops", "0", "--cycles-per-op", "4"},
                    "--ops 0");
  check_usage_error({"warp-hiding", "--blocks-per-sm", "3", "--threads-per-block", "1025"},
                    "--threads-per-block 1025: must be between 1 and 1024");
  check_usage_error({"warp-hiding", "--blocks-per-sm", "3"}, "go together");
}

TEST_CASE("index-map: the notes' 4 blocks of 8 threads, element 21", "[cli][index]") {
  json j = run_json({"index-map", "--grid", "4", "--block", "8", "--find", "21", "--json"});
  REQUIRE(j["threads"].size() == 32);
  CHECK(j["find"]["block"] == json::array({2, 0, 0}));
  CHECK(j["find"]["thread"] == json::array({5, 0, 0}));
  CHECK(j["threads"][21]["global"] == 21);
  auto r = run_gpulab({"index-map", "--grid", "4", "--block", "8", "--find", "21"});
  CHECK_THAT(r.out,
             Catch::Contains("global = blockIdx.x * blockDim.x + threadIdx.x = 2 * 8 + 5 = 21"));
}

TEST_CASE("index-map: the notes' 2x3 grid of 3x4 blocks is drawn", "[cli][index]") {
  auto r = run_gpulab({"index-map", "--grid", "2x3", "--block", "3x4"});
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::Contains("block (1,2)"));
  CHECK(gpulab::test::says(r.out, "= 5 * (3 * 4 * 1) + 11 = 71"));
  // The first row of block (1,0) holds threads 12, 13, 14.
  CHECK_THAT(r.out, Catch::Contains("| 12 13 14 |"));
  json j = run_json({"index-map", "--grid", "2x3", "--block", "3x4", "--json"});
  CHECK(j["threads"].size() == 72);
  CHECK(j["threads"][71]["block"] == json::array({1, 2, 0}));
  CHECK(j["threads"][71]["thread"] == json::array({2, 3, 0}));
}

TEST_CASE("index-map: the hardware limits, at and just past each edge", "[cli][index]") {
  CHECK(run_gpulab({"index-map", "--grid", "1", "--block", "1024", "--show", "none"}).exit_code ==
        0);
  CHECK(run_gpulab({"index-map", "--grid", "2147483647", "--block", "1", "--show", "none"})
            .exit_code == 0);
  CHECK(run_gpulab({"index-map", "--grid", "1x65535x65535", "--block", "1x1x64", "--show", "none"})
            .exit_code == 0);
  check_usage_error({"index-map", "--grid", "1", "--block", "1025"},
                    "1025 threads per block exceeds the limit 1024");
  check_usage_error({"index-map", "--grid", "1", "--block", "33x32"}, "1056 threads per block");
  check_usage_error({"index-map", "--grid", "1", "--block", "1x1x65"}, "block z = 65");
  check_usage_error({"index-map", "--grid", "2147483648", "--block", "1"}, "grid x = 2147483648");
  check_usage_error({"index-map", "--grid", "1x65536", "--block", "1"},
                    "--grid 1x65536: grid y = 65536");
  check_usage_error({"index-map", "--grid", "0", "--block", "1"}, "at least 1");
  check_usage_error({"index-map", "--grid", "4", "--block", "8", "--find", "32"},
                    "--find 32: must be between 0 and 31");
  check_usage_error({"index-map", "--grid", "4x", "--block", "8"}, "--grid 4x");
  check_usage_error({"index-map", "--grid", "4097", "--block", "1024", "--run"},
                    "--run: 4,195,328 threads is more than 4,194,304");
}

TEST_CASE("Colour follows --color, NO_COLOR and the terminal", "[cli][output]") {
  auto plain = run_gpulab({"amdahl", "--p", "0.9"});
  CHECK(plain.out.find('\x1b') == std::string::npos);  // stdout is a pipe
  auto forced = run_gpulab({"amdahl", "--p", "0.9", "--color", "always"});
  CHECK(forced.out.find('\x1b') != std::string::npos);
  check_usage_error({"amdahl", "--p", "0.9", "--color", "sometimes"}, "--color sometimes");
}

TEST_CASE("--lang and LANG pick the language", "[cli][output]") {
  auto zh = run_gpulab({"amdahl", "--p", "0.9", "--lang", "zh"});
  CHECK_THAT(zh.out, Catch::Contains("阿姆达尔定律"));
  auto env = run_gpulab({"amdahl", "--p", "0.9"}, "", {"LANG=zh_CN.UTF-8"});
  CHECK_THAT(env.out, Catch::Contains("阿姆达尔定律"));
  auto en = run_gpulab({"amdahl", "--p", "0.9", "--lang", "en"}, "", {"LANG=zh_CN.UTF-8"});
  CHECK_THAT(en.out, Catch::Contains("Amdahl's law"));
  check_usage_error({"amdahl", "--p", "0.9", "--lang", "fr"}, "--lang fr");
}

TEST_CASE("A pure calculator never loads the CUDA driver", "[cli][driver]") {
  // LD_DEBUG=libs makes the dynamic loader report every library it looks for, found or not.
  for (std::vector<std::string> args :
       {std::vector<std::string>{"amdahl", "--p", "0.9"},
        {"warp-hiding", "--latency", "200", "--ops", "4", "--cycles-per-op", "4"},
        {"index-map", "--grid", "2x3", "--block", "3x4"},
        {"vecadd", "--help"}}) {
    CAPTURE(args);
    auto r = run_gpulab(args, "", {"LD_DEBUG=libs"});
    CHECK(r.exit_code == 0);
    CHECK(r.err.find("libcuda") == std::string::npos);
  }
}
