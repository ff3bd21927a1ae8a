// CLI tests of the kernel commands on the emulator (--backend cpu): they run everywhere.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <random>

#include "support/cli.hpp"
#include "support/run.hpp"

using gpulab::test::check_usage_error;
using gpulab::test::lines_of;
using gpulab::test::run_gpulab;
using gpulab::test::run_json;
using nlohmann::json;

namespace {

std::string fresh_seed() {
  std::random_device rd;
  return std::to_string(rd());
}

}  // namespace

TEST_CASE("vecadd: the notes' 32 elements in blocks of 8", "[cli][vecadd]") {
  const std::string seed = fresh_seed();
  CAPTURE(seed);
  json j = run_json(
      {"vecadd", "--n", "32", "--block", "8", "--seed", seed, "--backend", "cpu", "--json"});
  CHECK(j["backend"] == "cpu-emulator");
  CHECK(j["grid"] == 4);
  CHECK(j["idle_threads"] == 0);
  CHECK(j["verified"] == true);
  REQUIRE(j["elements"].size() == 32);
  const auto& e = j["elements"][21];
  CHECK(e["block"] == 2);
  CHECK(e["thread"] == 5);
  CHECK(e["c"].get<int>() == e["a"].get<int>() + e["b"].get<int>());
  CHECK(j["find"]["index"] == 21);
  // Fresh random inputs: not all zero, and the same seed gives the same inputs.
  int nonzero = 0;
  for (const auto& el : j["elements"]) nonzero += el["a"].get<int>() != 0;
  CHECK(nonzero > 0);
  json again = run_json(
      {"vecadd", "--n", "32", "--block", "8", "--seed", seed, "--backend", "cpu", "--json"});
  CHECK(again["elements"] == j["elements"]);
}

TEST_CASE("vecadd: idle threads of the last block and the guard", "[cli][vecadd]") {
  json j = run_json({"vecadd", "--n", "35", "--block", "8", "--backend", "cpu", "--json"});
  CHECK(j["grid"] == 5);
  CHECK(j["threads"] == 40);
  CHECK(j["idle_threads"] == 5);
  CHECK(j["idle_lanes_per_block"] == 24);
  CHECK(j["verified"] == true);
  auto r = run_gpulab({"vecadd", "--n", "35", "--block", "8", "--backend", "cpu"});
  CHECK_THAT(r.out, Catch::Contains("(35 + 8 - 1) / 8 = 42 / 8 = 5 blocks"));
  CHECK_THAT(r.out, Catch::Contains("threads 3-7 (5 idle threads)"));
  CHECK_THAT(r.out,
             Catch::Contains("tid = blockIdx.x * blockDim.x + threadIdx.x = 2 * 8 + 5 = 21"));
}

TEST_CASE("vecadd: edge sizes verify on the emulator", "[cli][vecadd]") {
  for (const char* n : {"1", "255", "256", "257", "100000"}) {
    CAPTURE(n);
    json j = run_json({"vecadd", "--n", n, "--block", "256", "--backend", "cpu", "--json"});
    CHECK(j["verified"] == true);
    CHECK(j["mismatches"] == 0);
  }
}

TEST_CASE("vecadd: large N elides the table and reports times", "[cli][vecadd]") {
  auto r =
      run_gpulab({"vecadd", "--n", "5000", "--block", "128", "--find", "4000", "--backend", "cpu"});
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::Contains("..."));
  CHECK_THAT(r.out, Catch::Contains("Kernel bandwidth"));
  CHECK_THAT(r.out, Catch::Contains("= 31 * 128 + 32 = 4000"));
  json j = run_json({"vecadd", "--n", "5000", "--backend", "cpu", "--json"});
  CHECK_FALSE(j.contains("elements"));
  json all = run_json({"vecadd", "--n", "2000", "--show", "all", "--backend", "cpu", "--json"});
  CHECK(all["elements"].size() == 2000);
}

TEST_CASE("vecadd: bad values", "[cli][vecadd]") {
  check_usage_error({"vecadd"}, "--n");
  check_usage_error({"vecadd", "--n", "0"}, "--n 0: must be between 1 and 2147483647");
  check_usage_error({"vecadd", "--n", "2147483648"}, "--n 2147483648");
  check_usage_error({"vecadd", "--n", "32", "--block", "0"}, "--block 0");
  check_usage_error(
      {"vecadd", "--n", "32", "--block", "1025"},
      "--block 1025: must be between 1 and 1024 (all threads of a block live on one SM");
  check_usage_error({"vecadd", "--n", "32", "--find", "32"}, "--find 32: must be between 0 and 31");
  check_usage_error({"vecadd", "--n", "32", "--show", "most"}, "--show most");
  check_usage_error({"vecadd", "--n", "32", "--seed", "-1"}, "--seed -1");
  check_usage_error({"vecadd", "--n", "32", "--backend", "tpu"}, "--backend tpu");
}

TEST_CASE("--backend auto: the GPU when usable, else the emulator with one line saying why",
          "[cli][backend]") {
  json d = run_json({"device-info", "--json"});
  auto r = run_gpulab({"vecadd", "--n", "8", "--block", "4", "--json"});
  REQUIRE(r.exit_code == 0);
  json j = json::parse(r.out);
  if (d["gpu_usable"] == true) {
    CHECK(j["backend"] == "cuda");
    CHECK(r.err.empty());
    return;
  }
  CHECK(j["backend"] == "cpu-emulator");
  REQUIRE(lines_of(r.err).size() == 1);
  CHECK_THAT(r.err, Catch::Contains("running on gpulab's CPU emulator"));
  auto gpu = run_gpulab({"vecadd", "--n", "8", "--backend", "gpu"});
  CHECK(gpu.exit_code == 1);
  CHECK_THAT(gpu.err, Catch::Contains("--backend gpu: no GPU is usable"));
}

TEST_CASE("hello: one line per thread, every thread once", "[cli][hello]") {
  json j = run_json({"hello", "--blocks", "2", "--threads", "4", "--backend", "cpu", "--json"});
  CHECK(j["total_threads"] == 8);
  REQUIRE(j["lines"].size() == 8);
  CHECK(j["complete"] == true);
  auto r = run_gpulab({"hello", "--backend", "cpu"});
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::Contains("Hello from block 0, thread 0"));
  CHECK_THAT(r.out, Catch::Contains("cudaDeviceSynchronize()"));
  check_usage_error({"hello", "--threads", "1025"}, "--threads 1025");
  check_usage_error({"hello", "--blocks", "8", "--threads", "1024"}, "more than 4,096");
}

TEST_CASE("twonorm: course and reduce kernels against float64", "[cli][twonorm]") {
  const std::string seed = fresh_seed();
  CAPTURE(seed);
  json c = run_json({"twonorm", "--rows", "32", "--cols", "14", "--kernel", "course", "--seed",
                     seed, "--backend", "cpu", "--json"});
  CHECK(c["verified"] == true);
  CHECK(c["relative_error"].get<double>() < 1e-4);
  CHECK(c["reference"].get<double>() > 1.0);
  json full = run_json({"twonorm", "--rows", "64", "--cols", "64", "--kernel", "course",
                        "--backend", "cpu", "--json"});
  CHECK(full["verified"] == true);
  for (const char* rows : {"1", "255", "256", "257", "1000"}) {
    CAPTURE(rows);
    json r = run_json({"twonorm", "--rows", rows, "--cols", "333", "--kernel", "reduce", "--seed",
                       seed, "--backend", "cpu", "--json"});
    CHECK(r["verified"] == true);
    CHECK(r["relative_error"].get<double>() < 1e-5);
  }
}

TEST_CASE("twonorm: the course kernel refuses what overflows its buffer", "[cli][twonorm]") {
  check_usage_error(
      {"twonorm", "--rows", "65", "--cols", "64", "--kernel", "course"},
      "65 x 64 = 4,160 elements do not fit the kernel's shared buffer of 64*64 = 4,096 floats");
  check_usage_error({"twonorm", "--rows", "0", "--cols", "4"}, "--rows 0");
  check_usage_error({"twonorm", "--rows", "4"}, "--cols");
  check_usage_error({"twonorm", "--rows", "4", "--cols", "4", "--kernel", "fast"}, "--kernel fast");
}

TEST_CASE("index-map --run: a real kernel writes the same indices as the table", "[cli][index]") {
  for (std::vector<std::string> shape :
       {std::vector<std::string>{"4", "8"}, {"2x3", "3x4"}, {"3x2x2", "5x3x2"}, {"7", "1024"}}) {
    CAPTURE(shape);
    json j = run_json({"index-map", "--grid", shape[0], "--block", shape[1], "--run", "--backend",
                       "cpu", "--json"});
    CHECK(j["run"]["verified"] == true);
    CHECK(j["run"]["checked"] == j["total_threads"]);
    CHECK(j["run"]["mismatches"] == 0);
  }
}

TEST_CASE("--source prints the kernel that nvcc compiles", "[cli][source]") {
  auto v = run_gpulab({"vecadd", "--source"});
  CHECK(v.exit_code == 0);
  CHECK_THAT(v.out, Catch::Contains(
                        "__global__ void vector_add(const int* a, const int* b, int* c, int n)"));
  CHECK_THAT(v.out, Catch::Contains("if (tid < n)"));
  auto t = run_gpulab({"twonorm", "--kernel", "course", "--source"});
  CHECK_THAT(t.out, Catch::Contains("__shared__ float a_minus_b[64 * 64];"));
  json j = run_json({"hello", "--source", "--json"});
  CHECK(j["sources"][0]["file"] == "src/kernels/hello.cuh");
}

TEST_CASE("Emulator options: --shuffle-blocks keeps results, --check needs the emulator",
          "[cli][emulator]") {
  json j = run_json({"vecadd", "--n", "1000", "--block", "32", "--shuffle-blocks", "7", "--json"});
  CHECK(j["backend"] == "cpu-emulator");
  CHECK(j["verified"] == true);
  auto bad = run_gpulab({"vecadd", "--n", "8", "--check", "--backend", "gpu"});
  CHECK(bad.exit_code == 2);
  CHECK_THAT(bad.err, Catch::Contains("--check needs --backend cpu"));
  json checked = run_json(
      {"twonorm", "--rows", "40", "--cols", "40", "--kernel", "course", "--check", "--json"});
  CHECK(checked["verified"] == true);
  CHECK(checked["emulator"]["races"].empty());
}
