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

// The main() of the one-kernel programs below: k<<<1, 64>>> into managed memory, then three of
// its 64 results.
const std::string kMain =
    "int main() {\n"
    "  int* out;\n"
    "  cudaMallocManaged(&out, 64 * sizeof(int));\n"
    "  k<<<1, 64>>>(out);\n"
    "  cudaDeviceSynchronize();\n"
    "  printf(\"%d %d %d\\n\", out[0], out[1], out[63]);\n"
    "  cudaFree(out);\n"
    "}\n";

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

namespace {

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// The compiled copies that gpulab run keeps of a program's files and headers in its cache
// entry (under `cache`): the text of each file named `name` there.
std::string cached(const fs::path& cache, const std::string& name) {
  std::string all;
  for (const auto& e : fs::recursive_directory_iterator(cache)) {
    if (e.path().filename() == name) all += read(e.path());
  }
  return all;
}

RunResult run_cached(const fs::path& cache, const std::vector<std::string>& args) {
  std::vector<std::string> all = {"run", "--backend", "cpu", "--json"};
  all.insert(all.end(), args.begin(), args.end());
  return run_gpulab(all, {}, {"XDG_CACHE_HOME=" + cache.string()});
}

constexpr const char* kRegionStart = "::gpulab::simt::region::begin()";

// A correct corpus program run with its blocks in order, or shuffled with seed `shuffle`: its
// expected output and no finding; the report.
json run_correct(const fs::path& cache, const fs::path& file, const char* shuffle) {
  std::vector<std::string> args = {file.string()};
  if (*shuffle != '\0') args.insert(args.begin(), {"--shuffle-blocks", shuffle});
  const RunResult r = run_cached(cache, args);
  CAPTURE(r.err);
  CHECK(r.exit_code == 0);
  CHECK(r.out == read(fs::path(file).replace_extension(".out")));
  const json j = json::parse(r.err);
  CHECK(j["findings"].empty());
  return j;
}

}  // namespace

TEST_CASE("run: a kernel in a user header runs as region loops, its faults at its own lines",
          "[run][regions]") {
  const fs::path dir = scratch() / "header";
  fs::create_directories(dir / "inc");
  std::ofstream(dir / "inc" / "tiles.cuh")
      << "// A block's sum, kept in a header as the samples keep their kernels.\n"
         "#pragma once\n"
         "__global__ void block_sum(const int* in, int* out, int trap_thread) {\n"
         "  __shared__ int s[64];\n"
         "  const int t = threadIdx.x;\n"
         "  s[t] = in[blockIdx.x * 64 + t];\n"
         "  __syncthreads();\n"
         "  if (t == trap_thread) __trap();\n"
         "  for (int stride = 32; stride > 0; stride /= 2) {\n"
         "    if (t < stride) s[t] += s[t + stride];\n"
         "    __syncthreads();\n"
         "  }\n"
         "  if (t == 0) out[blockIdx.x] = s[0];\n"
         "}\n";
  std::ofstream(dir / "main.cu")
      << "#include <cstdio>\n#include <cstdlib>\n#include \"tiles.cuh\"\n"
         "int main(int argc, char** argv) {\n"
         "  const int trap = argc > 1 ? std::atoi(argv[1]) : -1;\n"
         "  int *in, *out;\n"
         "  cudaMallocManaged(&in, 4 * 64 * sizeof(int));\n"
         "  cudaMallocManaged(&out, 4 * sizeof(int));\n"
         "  for (int k = 0; k < 4 * 64; ++k) in[k] = k;\n"
         "  block_sum<<<4, 64>>>(in, out, trap);\n"
         "  const cudaError_t e = cudaDeviceSynchronize();\n"
         "  if (e != cudaSuccess) std::printf(\"%s\\n\", cudaGetErrorName(e));\n"
         "  else std::printf(\"%d %d %d %d\\n\", out[0], out[1], out[2], out[3]);\n"
         "  cudaFree(in);\n"
         "  cudaFree(out);\n"
         "}\n";
  const fs::path cache = scratch() / "header-cache";
  const std::string include = "-I" + (dir / "inc").string();
  const std::string main_cu = (dir / "main.cu").string();
  RunResult r = run_cached(cache, {include, main_cu});
  CAPTURE(r.err);
  CHECK(r.exit_code == 0);
  CHECK(r.out == "2016 6112 10208 14304\n");
  json j = json::parse(r.err);
  CHECK(j["findings"].empty());
  REQUIRE(j["launches"].size() == 1);
  CHECK(j["launches"][0]["barriers"] == 4 * 7);  // 1 + 6 rounds of the tree, each block
  // The header's compiled copy holds the region loops (the file's has no kernel).
  CHECK(count(cached(cache, "tiles.cuh"), kRegionStart) == 1);
  CHECK(count(cached(cache, "main.cpp"), kRegionStart) == 0);
  // Thread 37's trap, inside the first region's loop, named at the header's own line.
  r = run_cached(cache, {include, main_cu, "--", "37"});
  CHECK(r.out == "cudaErrorLaunchFailure\n");
  j = json::parse(r.err);
  REQUIRE(j["findings"].size() == 1);
  CHECK(j["findings"][0]["where"] == "tiles.cuh:8");
  CHECK(j["findings"][0]["message"].get<std::string>().find(
            "block (0,0,0): thread 37 called __trap() at tiles.cuh:8") != std::string::npos);
}

TEST_CASE(
    "run: barriers under a block's own condition and a block group's sync run as region "
    "loops",
    "[run][regions]") {
  const fs::path file = kCorpus / "ok" / "uniform_barriers.cu";
  const fs::path cache = scratch() / "uniform-cache";
  for (const char* shuffle : {"", "7"}) {
    CAPTURE(shuffle);
    const json j = run_correct(cache, file, shuffle);
    // One crossing per barrier per block, as on the other paths: 40 blocks; bin_counts crosses
    // 2, block_scan 1 + 7, add_block_sums 1 in each block but the first.
    REQUIRE(j["launches"].size() == 3);
    CHECK(j["launches"][0]["barriers"] == 40 * 2);
    CHECK(j["launches"][1]["barriers"] == 40 * 8);
    CHECK(j["launches"][2]["barriers"] == 39);
  }
  // All three kernels are region loops.
  CHECK(count(cached(cache, "main.cpp"), kRegionStart) == 3);
}

TEST_CASE("run: barriers behind a bounds check run as region loops where the block agrees on it",
          "[run][regions]") {
  const fs::path file = kCorpus / "ok" / "guarded_barriers.cu";
  const fs::path cache = scratch() / "guarded-cache";
  for (const char* shuffle : {"", "5"}) {
    CAPTURE(shuffle);
    const json j = run_correct(cache, file, shuffle);
    // 16 blocks of the product cross 2 barriers in each of its 4 tiles; 8 blocks of the sum 7.
    REQUIRE(j["launches"].size() == 2);
    CHECK(j["launches"][0]["barriers"] == 16 * 8);
    CHECK(j["launches"][1]["barriers"] == 8 * 7);
    // The launches are where the file has them: the code as written, copied after each
    // kernel's region loops, keeps the lines of what follows.
    CHECK(j["launches"][0]["site"].get<std::string>().ends_with("guarded_barriers.cu:57"));
    CHECK(j["launches"][1]["site"].get<std::string>().ends_with("guarded_barriers.cu:79"));
  }
  // Both kernels are region loops behind their guard.
  CHECK(count(cached(cache, "main.cpp"), "::gpulab::simt::region::begin(true)") == 2);

  // Where the threads of a block disagree, the block runs as written, and a barrier that only
  // some of them reach is reported as before, at the line of the code as written.
  const std::string early =
      "#include <cstdio>\n"
      "__global__ void k(int* out, int n) {\n"
      "  __shared__ int s[64];\n"
      "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
      "  if (i >= n) return;\n"
      "  s[threadIdx.x] = i;\n"
      "  __syncthreads();\n"
      "  out[i] = s[63 - threadIdx.x];\n"
      "}\n"
      "int main(int argc, char**) {\n"
      "  int* out;\n"
      "  cudaMallocManaged(&out, 128 * sizeof(int));\n"
      "  k<<<2, 64>>>(out, argc > 1 ? 100 : 128);\n"
      "  const cudaError_t e = cudaDeviceSynchronize();\n"
      "  printf(\"%s %d\\n\", cudaGetErrorName(e), out[127]);\n"
      "  return 0;\n"
      "}\n";
  const fs::path program = write("early_return.cu", early);
  const RunResult agree = run_cached(cache, {program.string()});
  CHECK(agree.out == "cudaSuccess 64\n");
  const RunResult split = run_cached(cache, {program.string(), "--", "short"});
  CHECK(split.out == "cudaErrorLaunchFailure 0\n");
  const json j = json::parse(split.err);
  REQUIRE(j["findings"].size() == 1);
  CHECK(j["findings"][0]["where"] == "early_return.cu:7");
  CHECK(j["findings"][0]["message"] ==
        "kernel fault: block (1,0,0): __syncthreads() is not reached by every thread of the "
        "block: threads 0-35 wait at early_return.cu:7; threads 36-63 returned");
  CHECK(count(cached(cache, "main.cpp"), "::gpulab::simt::region::begin(true)") == 3);
}

TEST_CASE("run: a block group's sync under a thread's condition keeps its divergent-barrier report",
          "[run][regions]") {
  const RunResult r =
      run_program({write("cg_divergent.cu",
                         "#include <cooperative_groups.h>\n"
                         "namespace cg = cooperative_groups;\n"
                         "__global__ void k(int* out) {\n"
                         "  cg::thread_block block = cg::this_thread_block();\n"
                         "  if (threadIdx.x < 16) block.sync();\n"
                         "  out[threadIdx.x] = 1;\n"
                         "}\n"
                         "int main() {\n"
                         "  int* out;\n"
                         "  cudaMallocManaged(&out, 32 * sizeof(int));\n"
                         "  k<<<1, 32>>>(out);\n"
                         "  return cudaDeviceSynchronize() == cudaSuccess ? 0 : 1;\n"
                         "}\n")
                       .string()});
  const json j = json::parse(r.err);
  REQUIRE(j["findings"].size() == 1);
  CHECK(j["findings"][0]["kind"] == "kernel_fault");
  CHECK(j["findings"][0]["where"] == "cg_divergent.cu:5");
  CHECK(j["findings"][0]["message"] ==
        "kernel fault: block (0,0,0): __syncthreads() is not reached by every thread of the "
        "block: threads 0-15 wait at cg_divergent.cu:5; threads 16-31 returned");
}

TEST_CASE("run: a local made of threadIdx through a macro is each thread's own in region loops",
          "[run][regions]") {
  // `TID` is an ALL_CAPS name, but no constant: each thread's t is its own index.
  const RunResult r = run_program({write("macro_tid.cu",
                                         "#include <cstdio>\n"
                                         "#define TID threadIdx.x\n"
                                         "__global__ void k(int* out) {\n"
                                         "  __shared__ int s[64];\n"
                                         "  const int t = TID;\n"
                                         "  s[t] = t;\n"
                                         "  __syncthreads();\n"
                                         "  out[t] = s[63 - t];\n"
                                         "}\n" +
                                             kMain)
                                       .string()});
  CHECK(r.exit_code == 0);
  CHECK(r.out == "63 62 0\n");
}

TEST_CASE("run: a file whose transformation g++ refuses runs as written, and the report says so",
          "[run][regions]") {
  // The declaration of v comes from a macro, which the lexical transformation cannot see: the
  // region after the barrier names a v that no longer exists there, and g++ refuses the file.
  const fs::path file = write("macro_declaration.cu",
                              "#include <cstdio>\n"
                              "#define DECLARE_INDEX int v = threadIdx.x\n"
                              "__global__ void k(int* out) {\n"
                              "  __shared__ int s[64];\n"
                              "  DECLARE_INDEX;\n"
                              "  s[v] = v;\n"
                              "  __syncthreads();\n"
                              "  out[v] = s[63 - v];\n"
                              "}\n" +
                                  kMain);
  const RunResult r = run_program({file.string()});
  CHECK(r.exit_code == 0);
  CHECK(r.out == "63 62 0\n");
  const json j = json::parse(r.err);
  REQUIRE(j["compiled_as_written"].size() == 1);
  CHECK(j["compiled_as_written"][0]["file"] == file.string());
  CHECK_FALSE(j["compiled_as_written"][0]["behaviour_changed"].get<bool>());
  CHECK_THAT(j["compiled_as_written"][0]["compiler_error"].get<std::string>(),
             Catch::Contains("macro_declaration.cu:8") && Catch::Contains("error: "));
  // The words, in both languages, from the cached build too.
  for (const auto& [lang, words] : std::vector<std::pair<std::string, std::string>>{
           {"en", "macro_declaration.cu for the emulator did not compile"},
           {"zh", "改写 macro_declaration.cu 的结果无法编译"}}) {
    const RunResult text = run_gpulab({"run", "--backend", "cpu", "--lang", lang, file.string()},
                                      {}, {"XDG_CACHE_HOME=" + (scratch() / "cache").string()});
    CHECK(text.exit_code == 0);
    std::string flat = text.err;
    for (std::size_t p; (p = flat.find("\n  ")) != std::string::npos;) flat.replace(p, 3, " ");
    CAPTURE(text.err);
    CHECK_THAT(flat, Catch::Contains(words));
  }
}

TEST_CASE("run: a local type or a structured binding across a barrier keeps the transformation",
          "[run][regions]") {
  // Each construct made g++ refuse the region form (its per-thread copies, declared ahead of the
  // first region, could not name the type or the bindings), and the file ran as written; such
  // kernels now take the coroutine form.
  const RunResult r = run_program({write("local_types.cu",
                                         "#include <cstdio>\n"
                                         "__global__ void k(int* out) {\n"
                                         "  __shared__ int s[64];\n"
                                         "  typedef int I;\n"
                                         "  using U = unsigned;\n"
                                         "  enum { K = 2 };\n"
                                         "  I i = threadIdx.x;\n"
                                         "  U u = K * threadIdx.x;\n"
                                         "  decltype(threadIdx.x) d = threadIdx.x;\n"
                                         "  auto [x, y] = make_int2(1, 2);\n"
                                         "  s[i] = i;\n"
                                         "  __syncthreads();\n"
                                         "  out[i] = s[63 - i] + (int)u - (int)d + x + y;\n"
                                         "}\n" +
                                             kMain)
                                       .string()});
  CHECK(r.exit_code == 0);
  CHECK(r.out == "66 66 66\n");
  const json j = json::parse(r.err);
  CHECK(j["compiled_as_written"].empty());
}
