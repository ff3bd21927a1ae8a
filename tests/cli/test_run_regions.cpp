// gpulab run's region loops (docs/simt.md, "Region loops"): kernels split at their barriers give
// the host's answers in any block order, keep the barrier statistics, and fail as the other paths
// do; a kernel they cannot prove keeps the coroutine path and its divergent-barrier report.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <unistd.h>

#include "support/run.hpp"

using namespace gpulab::test;
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

const fs::path kCorpus = fs::path(GPULAB_SOURCE_DIR) / "tests" / "run_corpus";

fs::path scratch() {
  static const fs::path dir = [] {
    fs::path d = fs::temp_directory_path() / ("gpulab-regions-test-" + std::to_string(::getpid()));
    fs::remove_all(d);
    fs::create_directories(d / "cache");
    return d;
  }();
  return dir;
}

RunResult run_program(const std::vector<std::string>& args) {
  std::vector<std::string> all = {"run", "--backend", "cpu", "--json"};
  all.insert(all.end(), args.begin(), args.end());
  return run_gpulab(all, {}, {"XDG_CACHE_HOME=" + (scratch() / "cache").string()});
}

std::string read(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

fs::path write(const std::string& name, const std::string& text) {
  const fs::path p = scratch() / name;
  std::ofstream(p) << text;
  return p;
}

// A kernel with two barriers at its top level (region loops), 64 threads a block.
std::string program(const std::string& fault) {
  return "#include <cstdio>\n"
         "#include <cassert>\n"
         "__global__ void k(int* out) {\n"
         "  __shared__ int s[64];\n"
         "  int t = threadIdx.x;\n"
         "  s[t] = t;\n"
         "  __syncthreads();\n" +
         fault +
         "\n"
         "  out[blockIdx.x * 64 + t] = s[63 - t];\n"
         "  __syncthreads();\n"
         "}\n"
         "int main() {\n"
         "  int* out;\n"
         "  cudaMallocManaged(&out, 128 * sizeof(int));\n"
         "  k<<<2, 64>>>(out);\n"
         "  std::printf(\"%s\\n\", cudaGetErrorName(cudaDeviceSynchronize()));\n"
         "  return 0;\n"
         "}\n";
}

}  // namespace

TEST_CASE("run: region loops give the host's answers in any block order", "[run][regions]") {
  const fs::path file = kCorpus / "ok" / "region_loops.cu";
  for (const char* shuffle : {"", "7"}) {
    CAPTURE(shuffle);
    std::vector<std::string> args = {file.string()};
    if (*shuffle != '\0') args.insert(args.begin(), {"--shuffle-blocks", shuffle});
    const RunResult r = run_program(args);
    CHECK(r.exit_code == 0);
    CHECK(r.out == read(fs::path(file).replace_extension(".out")));
    const json j = json::parse(r.err);
    CHECK(j["findings"].empty());
    // One crossing per barrier per block, as on the other paths: reduce's 391 blocks cross 9
    // barriers each (1 + 8 rounds of the tree), matmul's 16 blocks 2 per tile of 4.
    REQUIRE(j["launches"].size() == 5);
    CHECK(j["launches"][0]["kernel"] == "reduce");
    CHECK(j["launches"][0]["barriers"] == 391 * 9);
    CHECK(j["launches"][1]["barriers"] == 16 * 8);
  }
}

TEST_CASE("run: a fault in a region loop names its thread and line", "[run][regions]") {
  {
    const RunResult r =
        run_program({write("trap.cu", program("  if (t == 37) __trap();")).string()});
    CHECK(r.out == "cudaErrorLaunchFailure\n");
    const json j = json::parse(r.err);
    REQUIRE(j["findings"].size() == 1);
    CHECK(j["findings"][0]["where"] == "trap.cu:8");
    CHECK(j["findings"][0]["message"].get<std::string>().find(
              "block (0,0,0): thread 37 called __trap() at trap.cu:8") != std::string::npos);
  }
  {
    // An access far outside every allocation, by thread 5 of block 1.
    const RunResult r = run_program(
        {write("wild.cu", program("  if (blockIdx.x == 1 && t == 5) s[t] = out[1 << 28];"))
             .string()});
    CHECK(r.out == "cudaErrorIllegalAddress\n");
    const json j = json::parse(r.err);
    REQUIRE(j["findings"].size() == 1);
    CHECK(j["findings"][0]["where"] == "wild.cu:8");
    CHECK(j["findings"][0]["message"].get<std::string>().find("thread 5") != std::string::npos);
  }
  {
    // Every thread writes one past its element: the last thread's write leaves the dynamic shared
    // memory, in a region whose loop has no call (the thread it names is set before each thread).
    const RunResult r = run_program({(kCorpus / "bugs" / "oob_shared.cu").string()});
    const json j = json::parse(r.err);
    REQUIRE(j["findings"].size() == 1);
    CHECK(j["findings"][0]["where"] == "oob_shared.cu:4");
    CHECK(j["findings"][0]["message"].get<std::string>().find("block (0,0,0): thread 63:") !=
          std::string::npos);
  }
}

TEST_CASE("run: a barrier under a thread's condition keeps its divergent-barrier report",
          "[run][regions]") {
  const RunResult r = run_program({(kCorpus / "bugs" / "divergent_barrier.cu").string()});
  const json j = json::parse(r.err);
  REQUIRE(j["findings"].size() == 1);
  CHECK(j["findings"][0]["kind"] == "kernel_fault");
  CHECK(j["findings"][0]["where"] == "divergent_barrier.cu:4");
  CHECK(j["findings"][0]["message"] ==
        "kernel fault: block (0,0,0): __syncthreads() is not reached by every thread of the "
        "block: threads 0-15 wait at divergent_barrier.cu:4; threads 16-31 returned");
}
