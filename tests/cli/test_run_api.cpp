// gpulab run with real programs' headers and runtime API, on the emulator: a kernel and its launch
// in an included header, zero-copy memory, the occupancy API (against gpulab occupancy), 2-D and
// 3-D memory, streams and launches, warp and machine queries, API CUDA 13 removed (run, and said
// once), API the emulator lacks (refused by name), and docs/run.md's API list against the kit.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include <unistd.h>

#include "support/run.hpp"

using namespace gpulab::test;
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

const fs::path kCorpus = fs::path(GPULAB_SOURCE_DIR) / "tests" / "run_corpus";

std::string cache_env() {
  static const fs::path dir = [] {
    fs::path d = fs::temp_directory_path() / ("gpulab-run-api-test-" + std::to_string(::getpid()));
    fs::remove_all(d);
    fs::create_directories(d);
    return d;
  }();
  return "XDG_CACHE_HOME=" + dir.string();
}

RunResult run(std::vector<std::string> args) {
  args.insert(args.begin(), {"run", "--backend", "cpu"});
  return run_gpulab(args, {}, {cache_env()});
}

std::string read(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::size_t count_of(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// A folder of its own for files a test writes.
fs::path scratch(const std::string& name) {
  const fs::path d =
      fs::temp_directory_path() / ("gpulab-api-" + name + "-" + std::to_string(::getpid()));
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

}  // namespace

TEST_CASE("run: a kernel, extern __shared__ and a launch in an included header", "[run]") {
  const fs::path dir = kCorpus / "headers";
  // The header through -I (before the files), and from the second file by a relative path.
  RunResult r = run({"-I", (dir / "include").string(), (dir / "main.cu").string(),
                     (dir / "squares.cu").string(), "--json"});
  CAPTURE(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.out == read(dir / "main.out"));
  const json j = json::parse(r.err);
  // The launch in the header is listed at the header's own line, from both files.
  std::size_t in_header = 0;
  for (const json& l : j["launches"]) {
    if (l["kernel"] == "block_sums") {
      CHECK(l["site"].get<std::string>().ends_with("reduce.cuh:26"));
      in_header += l["count"].get<std::size_t>();
    }
  }
  CHECK(in_header == 2);
}

TEST_CASE("run: a .cu file included from a sibling folder (\"../scan/scan.cu\") is CUDA too",
          "[run]") {
  // Learn CUDA Programming's pack_n_split includes "../03_scan/scan_v2.cu": the rewritten copy
  // is found through the shadow of the file's own folder, which must exist to go up from.
  const fs::path dir = scratch("sibling");
  fs::create_directories(dir / "scan");
  fs::create_directories(dir / "pack");
  std::ofstream(dir / "scan" / "scan.cu")
      << "__global__ void twice(int* v) { v[threadIdx.x] = 2 * threadIdx.x; }\n"
         "inline void run_twice(int* v) {\n  twice<<<1, 8>>>(v);\n  cudaDeviceSynchronize();\n}\n";
  std::ofstream(dir / "pack" / "pack.cu")
      << "#include <cstdio>\n#include \"../scan/scan.cu\"\n"
         "int main() {\n  int* v;\n  cudaMallocManaged(&v, 8 * sizeof(int));\n  run_twice(v);\n"
         "  printf(\"%d %d\\n\", v[1], v[7]);\n  return 0;\n}\n";
  const RunResult r = run({(dir / "pack" / "pack.cu").string(), "--json"});
  CAPTURE(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.out == "2 14\n");
  const json j = json::parse(r.err);
  REQUIRE(j["launches"].size() == 1);
  CHECK(j["launches"][0]["site"].get<std::string>().ends_with("scan.cu:3"));
}

TEST_CASE("run: a header's compile error, finding and edit point at the header", "[run]") {
  const fs::path dir = scratch("header");
  fs::create_directories(dir / "inc");
  const auto write_header = [&](const std::string& body) {
    std::ofstream(dir / "inc" / "k.cuh")
        << "// a header\n#pragma once\n"
        << "__global__ void k(int* v, int n) {\n"
        << body << "}\n"
        << "inline void go(int* v, int n) { k<<<1, 64>>>(v, n); }\n";
  };
  std::ofstream(dir / "main.cu") << "#include <cstdio>\n#include \"k.cuh\"\nint main() {\n"
                                    "  int* v;\n  cudaMalloc(&v, 64 * sizeof(int));\n"
                                    "  go(v, 64);\n  int h[64];\n"
                                    "  cudaMemcpy(h, v, sizeof h, cudaMemcpyDeviceToHost);\n"
                                    "  printf(\"%d\\n\", h[63]);\n  cudaFree(v);\n}\n";
  const std::string main_cu = (dir / "main.cu").string();
  // The -I folder, given glued.
  write_header("  v[threadIdx.x] = 1 + undeclared_name;\n");
  RunResult r = run({"-I" + (dir / "inc").string(), main_cu});
  CHECK(r.exit_code == 1);
  CHECK(r.err.find("k.cuh:4:") != std::string::npos);  // the header's own line
  CHECK(r.err.find("main.cpp") == std::string::npos);
  // An access past the end, found by --check at the header's line.
  write_header("  v[threadIdx.x + 1] = 2;  // one past the end for the last thread\n");
  r = run({"--check", "--json", "-I" + (dir / "inc").string(), main_cu});
  CAPTURE(r.err);
  CHECK(r.exit_code == 1);
  const json j = json::parse(r.err);
  bool found = false;
  for (const json& f : j["findings"]) {
    if (f["kind"] == "out_of_bounds") {
      found = true;
      CHECK(f["where"].get<std::string>().ends_with("k.cuh:4"));
    }
  }
  CHECK(found);
  // Editing the header rebuilds the program: the cache key covers it.
  write_header("  v[threadIdx.x] = 5;\n");
  r = run({"-I" + (dir / "inc").string(), main_cu});
  CHECK(r.out == "5\n");
  write_header("  v[threadIdx.x] = 6;\n");
  r = run({"-I" + (dir / "inc").string(), main_cu});
  CHECK(r.out == "6\n");
  CHECK(r.err.find("(cached)") == std::string::npos);
  r = run({"-I" + (dir / "inc").string(), main_cu});
  CHECK(r.out == "6\n");
  CHECK(r.err.find("(cached)") != std::string::npos);
  fs::remove_all(dir);
}

TEST_CASE("run: the runtime API of the samples, with CUDA's semantics and error codes", "[run]") {
  for (const char* name :
       {"zero_copy", "memory_2d3d", "streams_launch", "warp_queries", "pools_graph_params"}) {
    CAPTURE(name);
    const fs::path file = kCorpus / "api" / (std::string(name) + ".cu");
    const RunResult r = run({file.string()});
    CAPTURE(r.err);
    CHECK(r.exit_code == 0);
    CHECK(r.out == read(fs::path(file).replace_extension(".out")));
  }
  // A templated accessor to dynamic shared memory (the reduction sample's SharedMemory<T>), and a
  // .cpp file compiled as plain C++ (its own umin), as nvcc compiles them.
  {
    const fs::path file = kCorpus / "api" / "shared_template.cu";
    const RunResult r =
        run({file.string(), (kCorpus / "api" / "shared_template_host.cpp").string()});
    CAPTURE(r.err);
    CHECK(r.exit_code == 0);
    CHECK(r.out == read(fs::path(file).replace_extension(".out")));
  }
  // --check finds nothing in them: mapped and registered host memory is the device's to use.
  const RunResult c = run({"--check", (kCorpus / "api" / "zero_copy.cu").string()});
  CAPTURE(c.err);
  CHECK(c.exit_code == 0);
}

TEST_CASE("run: stream priorities and callbacks, event and device flags, memory hints", "[run]") {
  // A course's calls as typed: CUDART_CB callbacks and cudaLaunchHostFunc in stream order, the
  // H100's priority range (least 0, greatest -5), cudaEventCreate's C++ overload with flags, the
  // template cudaHostGetDevicePointer, cudaSetDeviceFlags, every cudaMemAdvise advice and
  // cudaMemPrefetchAsync (no effect on the emulator, CUDA's return codes).
  const fs::path file = kCorpus / "api" / "flags_hints.cu";
  const RunResult r = run({file.string()});
  CAPTURE(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.out == read(fs::path(file).replace_extension(".out")));
  CHECK(r.out.find("priorities: least 0, greatest -5\n") != std::string::npos);
  CHECK(r.out.find("stream order: 1 2 3 (3 calls)") != std::string::npos);
  CHECK(count_of(r.out, "cudaMemAdvise(managed, ") == 6);
  CHECK(count_of(r.out, "device 0): cudaSuccess; host: cudaSuccess") == 6);
  // --check finds nothing either: mapped memory is the device's, the hints touch no memory.
  const RunResult c = run({"--check", file.string()});
  CAPTURE(c.err);
  CHECK(c.exit_code == 0);
  CHECK(c.out == r.out);
}

TEST_CASE("run: the occupancy API answers as gpulab occupancy does", "[run]") {
  const fs::path file = kCorpus / "api" / "occupancy.cu";
  const RunResult r = run({file.string()});
  CAPTURE(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.out == read(fs::path(file).replace_extension(".out")));
  // Every "N threads: B blocks per SM" line against the calculator for compute capability 9.0.
  static const std::regex line(
      R"((plain|tiled \(12 KiB static\)|dynamic), +(\d+) threads(?:, +(\d+) bytes)?: +(\d+) blocks per SM)");
  std::size_t compared = 0;
  for (const std::string& l : lines_of(r.out)) {
    std::smatch m;
    if (!std::regex_search(l, m, line)) continue;
    CAPTURE(l);
    const std::string shared = m[1] == "plain" || m[1] == "dynamic" ? "0" : "12288";
    const std::string dynamic = m[3].matched ? m[3].str() : "0";
    const RunResult o =
        run_gpulab({"occupancy", "--cc", "9.0", "--block", m[2].str(), "--registers", "0",
                    "--shared", shared, "--dynamic-shared", dynamic, "--no-charts", "--json"});
    CAPTURE(o.err);
    REQUIRE(o.exit_code == 0);
    CHECK(json::parse(o.out)["blocks_per_sm"].get<int>() == std::stoi(m[4].str()));
    ++compared;
  }
  CHECK(compared == 14);
}

TEST_CASE("run: API CUDA 13 removed runs, and the report says once what replaces it", "[run]") {
  const fs::path file = kCorpus / "api" / "removed_api.cu";
  for (int round = 0; round < 2; ++round) {  // a cached build says it too
    CAPTURE(round);
    const RunResult r = run({file.string()});
    CAPTURE(r.err);
    REQUIRE(r.exit_code == 0);
    CHECK(r.out == read(fs::path(file).replace_extension(".out")));
    CHECK(count_of(r.err, "API that CUDA 13 removed (nvcc 13 refuses it") == 1);
    CHECK(count_of(r.err, "(removed_api.cu:") == 6);  // each once, where it is first used
    CHECK(count_of(r.err, "cudaDeviceProp::clockRate (removed_api.cu:18)") == 1);
    CHECK(r.err.find("cudaDeviceGetAttribute(&value, cudaDevAttrClockRate, device)") !=
          std::string::npos);
    CHECK(count_of(r.err,
                   "cudaThreadSynchronize() (removed_api.cu:30): use "
                   "cudaDeviceSynchronize()") == 1);
    CHECK(count_of(r.err, "cudaMemAdvise(ptr, bytes, advice, int device) (removed_api.cu:27)") ==
          1);
    CHECK(count_of(r.err,
                   "cudaMemPrefetchAsync(ptr, bytes, int device, stream) "
                   "(removed_api.cu:28)") == 1);
    CHECK((round == 0) == (r.err.find("(cached)") == std::string::npos));
  }
  const RunResult j = run({"--json", file.string()});
  const json report = json::parse(j.err);
  REQUIRE(report["removed_in_cuda13"].size() == 6);
  CHECK(report["removed_in_cuda13"][0]["api"] == "cudaDeviceProp::clockRate");
  CHECK(report["removed_in_cuda13"][0]["where"].get<std::string>().ends_with("removed_api.cu:18"));
  // In Chinese too.
  const RunResult zh =
      run_gpulab({"--lang", "zh", "run", "--backend", "cpu", file.string()}, {}, {cache_env()});
  CHECK(zh.err.find("CUDA 13 已移除的 API") != std::string::npos);
  CHECK(zh.err.find("cudaDeviceProp::clockRate (removed_api.cu:18)：请改用") != std::string::npos);
}

TEST_CASE("run: the warp functions without a mask run on the lanes active together, said once",
          "[run]") {
  const fs::path file = kCorpus / "api" / "legacy_warp.cu";
  const RunResult r = run({"--json", file.string()});
  REQUIRE(r.exit_code == 0);
  // Half a warp (16 threads) and full warps: every value as the host computes it.
  CHECK(r.out == read(fs::path(file).replace_extension(".out")));
  CHECK(r.out.find("half warp: 0 of 96 values differ") != std::string::npos);
  const json report = json::parse(r.err);
  CHECK(report["compiled_as_written"].empty());
  std::vector<std::string> apis;
  for (const json& a : report["removed_in_cuda13"]) apis.push_back(a["api"]);
  CHECK(apis == std::vector<std::string>{
                    "__shfl(var, srcLane, width)", "__shfl_up(var, delta, width)",
                    "__shfl_down(var, delta, width)", "__shfl_xor(var, laneMask, width)",
                    "__any(predicate)", "__all(predicate)", "__ballot(predicate)"});
  CHECK(report["removed_in_cuda13"][0]["where"].get<std::string>().ends_with("legacy_warp.cu:9"));
  CHECK(report["removed_in_cuda13"][2]["replacement"] ==
        "__shfl_down_sync(mask, var, delta, width)");
  // In words: the note they share is said once, under the first.
  const RunResult text = run({file.string()});
  CHECK(count_of(text.err, "CUDA 9 removed the warp functions without a mask") == 1);
  CHECK(count_of(text.err,
                 "__ballot(predicate) (legacy_warp.cu:13): use __ballot_sync(mask, "
                 "predicate)") == 1);
}

TEST_CASE("run: a cuRAND handle that is no live generator is answered as an H200's cuRAND does",
          "[run]") {
  // Professional CUDA C Programming's replace-rand.cu generates with a generator handle it never
  // set (a local it forgot to make static); gpulab's cuRAND read through it and the program died
  // of SIGSEGV. An H200 (CUDA 13's cuRAND) returns 999 from curandGenerateUniform for a destroyed
  // or garbage handle and 0 from curandSetPseudoRandomGeneratorSeed.
  const fs::path dir = scratch("curand_handles");
  std::ofstream(dir / "handles.cu")
      << "#include <cstdio>\n#include <cstring>\n#include <cstdlib>\n#include <curand.h>\n"
         "int main() {\n  float* d;\n  cudaMalloc(&d, 64 * sizeof(float));\n"
         "  curandGenerator_t g;\n  curandCreateGenerator(&g, CURAND_RNG_PSEUDO_DEFAULT);\n"
         "  printf(\"live %d\\n\", (int)curandGenerateUniform(g, d, 64));\n"
         "  curandDestroyGenerator(g);\n"
         "  printf(\"destroyed %d %d\\n\", (int)curandGenerateUniform(g, d, 64),\n"
         "         (int)curandSetPseudoRandomGeneratorSeed(g, 7));\n"
         "  void* p = malloc(4096);\n  memset(p, 0xAB, 4096);\n"
         "  g = (curandGenerator_t)p;\n"
         "  printf(\"garbage %d %d\\n\", (int)curandGenerateUniform(g, d, 64),\n"
         "         (int)curandSetPseudoRandomGeneratorSeed(g, 7));\n"
         "  printf(\"none %d\\n\", (int)curandGenerateUniform(nullptr, d, 64));\n"
         "  return 0;\n}\n";
  const RunResult r = run({"-lcurand", (dir / "handles.cu").string()});
  CAPTURE(r.err);
  CHECK(r.exit_code == 0);
  CHECK(r.out == "live 0\ndestroyed 999 0\ngarbage 999 0\nnone 101\n");
}

TEST_CASE("run: a program's own lerp (NVIDIA's helper_math.h) compiles, as under nvcc's C++17",
          "[run]") {
  // libstdc++'s <math.h> in C++20 brings std::lerp into the global namespace; NVIDIA's
  // helper_math.h (Learn CUDA Programming includes it) defines lerp(float, float, float).
  const fs::path dir = scratch("own_lerp");
  std::ofstream(dir / "own_lerp.cu")
      << "#include <math.h>\n#include <cstdio>\n#include <cmath>\n"
         "inline __host__ __device__ float lerp(float a, float b, float t) {\n"
         "  return a + t * (b - a);\n}\n"
         "__global__ void k(float* v) { v[threadIdx.x] = lerp(0.f, 8.f, threadIdx.x / 4.f); }\n"
         "int main() {\n  float* v;\n  cudaMallocManaged(&v, 4 * sizeof(float));\n"
         "  k<<<1, 4>>>(v);\n  cudaDeviceSynchronize();\n"
         "  printf(\"%g %g %g %g %g\\n\", v[0], v[1], v[2], v[3], std::lerp(1.0, 3.0, 0.5));\n"
         "  return 0;\n}\n";
  const RunResult r = run({(dir / "own_lerp.cu").string()});
  CAPTURE(r.err);
  CHECK(r.exit_code == 0);
  CHECK(r.out == "0 2 4 6 2\n");
}

TEST_CASE("run: sm_61's packed dot products, through <sm_61_intrinsics.h>", "[run]") {
  // Every __dp4a/__dp2a form against the host's sums (the program counts the differences; it
  // has not yet been run on a GPU: bench/run_api_h100.sh runs this folder there).
  const fs::path file = kCorpus / "api" / "dot_products.cu";
  const RunResult r = run({file.string()});
  CAPTURE(r.err);
  CHECK(r.exit_code == 0);
  CHECK(r.out == read(fs::path(file).replace_extension(".out")));
  CHECK(r.out.starts_with("0 of 512 dot products differ"));
}

TEST_CASE("run: CUDA runtime API the emulator lacks is refused in one line", "[run]") {
  const fs::path dir = scratch("lacking");
  std::ofstream(dir / "lacking.cu")
      << "#include <cstdio>\nint main() {\n  cudaGraph_t g;\n  cudaGraphCreate(&g, 0);\n"
         "  cudaGraphNode_t n;\n  cudaCtxResetPersistingL2Cache();\n"
         "  return 0;\n}\n";
  const RunResult r = run({(dir / "lacking.cu").string()});
  CHECK(r.exit_code == 1);
  CHECK(r.out.empty());
  CHECK(r.err.find("lacking.cu:6: 'cudaCtxResetPersistingL2Cache' is CUDA runtime API that "
                   "gpulab's emulator does not provide") != std::string::npos);
  CHECK(r.err.find("was not declared") == std::string::npos);  // not g++'s words
  // A name that is no CUDA API keeps the compiler's own diagnostics.
  std::ofstream(dir / "typo.cu") << "int main() {\n  cudaMallocc(nullptr, 4);\n}\n";
  const RunResult t = run({(dir / "typo.cu").string()});
  CHECK(t.exit_code == 1);
  CHECK(t.err.find("cudaMallocc") != std::string::npos);
  CHECK(t.err.find("is CUDA runtime API") == std::string::npos);
  fs::remove_all(dir);
}

TEST_CASE("run: a feature the emulator does not run is refused only where it is compiled",
          "[run]") {
  const fs::path dir = scratch("features");
  fs::create_directories(dir / "inc");
  // As in deviceQuery and the samples' helper_cuda.h: driver API under a false #if, a macro no one
  // uses; and a header whose texture call is compiled.
  std::ofstream(dir / "inc" / "tex.cuh") << "#pragma once\n__global__ void t(float* o) {\n"
                                            "  o[0] = tex1Dfetch<float>(0, 0);\n}\n";
  std::ofstream(dir / "quiet.cu") << "#include <cstdio>\n#if CUDART_VERSION < 5000\n"
                                     "#include <cuda.h>\nvoid f() { cuInit(0); }\n#endif\n"
                                     "#define UNUSED() cuDeviceGet(0, 0)\n"
                                     "int main() { printf(\"ran\\n\"); }\n";
  RunResult r = run({(dir / "quiet.cu").string()});
  CAPTURE(r.err);
  CHECK(r.exit_code == 0);
  CHECK(r.out == "ran\n");
  std::ofstream(dir / "loud.cu") << "#include \"tex.cuh\"\nint main() { return 0; }\n";
  r = run({"-I", (dir / "inc").string(), (dir / "loud.cu").string()});
  CHECK(r.exit_code == 1);
  CHECK(r.err.find("tex.cuh:3: 'tex1Dfetch' needs textures and surfaces") != std::string::npos);
  fs::remove_all(dir);
}

TEST_CASE("run: -Xptxas -v says what ptxas reports and what the emulator knows instead", "[run]") {
  const fs::path dir = scratch("ptxas");
  std::ofstream(dir / "tile.cu")
      << "#include <cstdio>\n__global__ void tile(float* out) {\n"
         "  __shared__ float a[256];\n  __shared__ int flags[8];\n"
         "  a[threadIdx.x] = threadIdx.x;\n  if (threadIdx.x < 8) flags[threadIdx.x] = 1;\n"
         "  __syncthreads();\n  out[threadIdx.x] = a[255 - threadIdx.x] + flags[threadIdx.x % "
         "8];\n}\n"
         "__global__ void plain(float* out) { out[threadIdx.x] += 1; }\n"
         "int main() {\n  float* d;\n  cudaMalloc(&d, 256 * sizeof(float));\n"
         "  tile<<<1, 256>>>(d);\n  plain<<<1, 256>>>(d);\n  plain<<<1, 256>>>(d);\n"
         "  float h[256];\n  cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);\n"
         "  printf(\"%.0f %.0f\\n\", h[0], h[255]);\n  cudaFree(d);\n  return 0;\n}\n";
  const std::string file = (dir / "tile.cu").string();
  // The flags of a course's Makefile, in both spellings.
  for (const std::vector<std::string>& flags :
       {std::vector<std::string>{"-Xptxas", "-v", "-lineinfo", "--use_fast_math"},
        std::vector<std::string>{"--ptxas-options=-v,-warn-spills", "-G", "-std=c++17",
                                 "-arch=sm_90", "-gencode", "arch=compute_90,code=sm_90"},
        std::vector<std::string>{"--resource-usage", "-O3"}}) {
    std::vector<std::string> args = flags;
    args.push_back(file);
    const RunResult r = run(args);
    CAPTURE(r.err);
    REQUIRE(r.exit_code == 0);
    CHECK(r.out == "258 3\n");
    CHECK(r.err.find("ptxas would print each kernel's registers") != std::string::npos);
    // Each kernel once, with the bytes of its __shared__ arrays: 256 floats and 8 ints.
    CHECK(count_of(r.err, "    tile: 1056 bytes of static shared memory") == 1);
    CHECK(count_of(r.err, "    plain: 0 bytes of static shared memory") == 1);
    // Nothing that looks like ptxas's own lines.
    CHECK(r.err.find("ptxas info") == std::string::npos);
    CHECK_FALSE(std::regex_search(r.err, std::regex("Used [0-9]+ registers")));
  }
  // Without the flag, no such paragraph; with --json the bytes are in each launch.
  RunResult r = run({"--json", file});
  REQUIRE(r.exit_code == 0);
  const json j = json::parse(r.err);
  CHECK(j["launches"][0]["kernel"] == "tile");
  CHECK(j["launches"][0]["static_shared_bytes"] == 1056);
  r = run({"-lineinfo", file});
  CHECK(r.err.find("ptxas would print") == std::string::npos);
  // In Chinese too.
  const RunResult zh = run_gpulab(
      {"--lang", "zh", "run", "--backend", "cpu", "-Xptxas", "-v", file}, {}, {cache_env()});
  CHECK(zh.err.find("tile：静态共享内存 1056 字节") != std::string::npos);
  fs::remove_all(dir);
}

TEST_CASE("run: --fmad and -G decide whether device code fuses a * b + c", "[run]") {
  const fs::path dir = scratch("fmad");
  // (1 + 2^-12)^2 - (1 + 2^-11): 2^-24 when the product is not rounded on its own, else 0. The
  // same expression in main (host code) never fuses.
  std::ofstream(dir / "fma.cu")
      << "#include <cstdio>\n"
         "__global__ void k(const float* p, float* out) { *out = p[0] * p[1] + p[2]; }\n"
         "int main() {\n  float h[3] = {1.0f + 0x1p-12f, 1.0f + 0x1p-12f, -(1.0f + 0x1p-11f)};\n"
         "  float *p, *out, r;\n  cudaMalloc(&p, sizeof h);\n  cudaMalloc(&out, 4);\n"
         "  cudaMemcpy(p, h, sizeof h, cudaMemcpyHostToDevice);\n  k<<<1, 1>>>(p, out);\n"
         "  cudaMemcpy(&r, out, 4, cudaMemcpyDeviceToHost);\n"
         "  volatile float a = h[0], b = h[1], c = h[2];\n"
         "  printf(\"%g %g\\n\", r, a * b + c);\n  cudaFree(p);\n  cudaFree(out);\n  return "
         "0;\n}\n";
  const std::string file = (dir / "fma.cu").string();
  // A CPU without FMA instructions fuses nothing (docs/run.md).
#if defined(__x86_64__)
  const bool fma = __builtin_cpu_supports("fma");
#else
  const bool fma = true;
#endif
  const std::string unfused = "0 0\n", fused = fma ? "5.96046e-08 0\n" : unfused;
  for (const auto& [flags, out] :
       {std::pair{std::vector<std::string>{}, fused},
        std::pair{std::vector<std::string>{"-G"}, unfused},
        std::pair{std::vector<std::string>{"--fmad=false"}, unfused},
        std::pair{std::vector<std::string>{"-fmad", "false", "--fmad=true"}, fused},
        std::pair{std::vector<std::string>{"--fmad=true", "-G"}, unfused},
        std::pair{std::vector<std::string>{"--check"}, fused}}) {
    std::vector<std::string> args = flags;
    args.push_back(file);
    const RunResult r = run(args);
    CAPTURE(flags, r.err);
    REQUIRE(r.exit_code == 0);
    CHECK(r.out == out);
    // They have an effect on the emulator: not listed among the flags without one.
    CHECK(r.err.find("no effect on the emulator") == std::string::npos);
  }
  const RunResult bad = run({"--fmad=maybe", file});
  CHECK(bad.exit_code == 2);
  CHECK(bad.err.find("-fmad=maybe: --fmad takes true or false") != std::string::npos);
  fs::remove_all(dir);
}

namespace {

// Runs in `dir` for as long as it lives, as a student runs gpulab in their folder.
struct InFolder {
  fs::path before = fs::current_path();
  explicit InFolder(const fs::path& dir) { fs::current_path(dir); }
  ~InFolder() { fs::current_path(before); }
  InFolder(const InFolder&) = delete;
  InFolder& operator=(const InFolder&) = delete;
};

}  // namespace

TEST_CASE("run: __FILE__ is the path as typed, and findings name each file of the program",
          "[run]") {
  const fs::path dir = kCorpus / "typed";
  const InFolder here(dir);
  const std::string expected = read(dir / "expected.out");
  RunResult r = run({"-I", "inc", "src/main.cu", "src/other.cu"});
  CAPTURE(r.err);
  CHECK(r.out == expected);
  // Typed otherwise, named otherwise, as nvcc would: ./ kept, an absolute path absolute.
  r = run({"-I./inc", "./src/main.cu", (dir / "src" / "other.cu").string()});
  CHECK(r.out ==
        "main: ./src/main.cu\nmacro used at ./src/main.cu:6\nheader: ./inc/where.cuh\n"
        "other: " +
            (dir / "src" / "other.cu").string() + "\n");
  // The bug in the second file is reported at its own line, never at the build's copy.
  r = run({"--check", "--json", "-I", "inc", "src/main.cu", "src/other.cu"});
  CAPTURE(r.err);
  CHECK(r.out == expected);
  const json j = json::parse(r.err);
  REQUIRE(!j["findings"].empty());
  for (const json& f : j["findings"]) {
    CAPTURE(f.dump());
    CHECK(f["where"] == "other.cu:4");
  }
  for (const json& l : j["launches"]) CHECK(l["site"].get<std::string>().ends_with("other.cu:10"));
  CHECK(r.err.find("main_1") == std::string::npos);
}

TEST_CASE("run: an empty -D or -I is named, not taken for the file", "[run]") {
  const std::string file = (kCorpus / "ok" / "notes_hello.cu").string();
  for (const char* flag : {"--define=", "-D=", "-I="}) {
    CAPTURE(flag);
    const RunResult r = run({flag, file});
    CHECK(r.exit_code == 2);
    CHECK(r.err.find("run needs") == std::string::npos);
    CHECK(r.err.find(std::string(flag).starts_with("-I") ? "-I" : "-D") != std::string::npos);
    CHECK(lines_of(r.err).size() == 1);
  }
}

namespace {

// The kit's headers, all of them in one text.
std::string kit_headers() {
  const fs::path kit = fs::path(GPULAB_BINARY).parent_path().parent_path() / "lib/gpulab/run";
  std::string all;
  for (const auto& e : fs::recursive_directory_iterator(kit / "include")) {
    if (e.path().extension() == ".h") all += read(e.path()) + "\n";
  }
  return all;
}

// The runtime API's functions, from the generated list.
std::vector<std::string> cuda_functions() {
  const std::string inc = read(fs::path(GPULAB_SOURCE_DIR) / "src/run/cuda_api_names.inc");
  const std::string functions = inc.substr(0, inc.find("#define GPULAB_CUDA_NAMES"));
  std::vector<std::string> out;
  static const std::regex name("\"(cuda\\w+)\"");
  for (auto it = std::sregex_iterator(functions.begin(), functions.end(), name);
       it != std::sregex_iterator(); ++it) {
    out.push_back((*it)[1].str());
  }
  return out;
}

bool declared_in(const std::string& headers, const std::string& name) {
  return std::regex_search(headers, std::regex("\\b" + name + "\\s*\\("));
}

// The backticked names of the paragraph that follows `heading` in docs/run.md.
std::set<std::string> listed_after(const std::string& doc, const std::string& heading,
                                   std::size_t* count) {
  const std::size_t at = doc.find(heading);
  REQUIRE(at != std::string::npos);
  *count = std::stoul(doc.substr(at + heading.size()));
  const std::size_t begin = doc.find('\n', at) + 1;
  const std::size_t end = doc.find("\n\n", begin);
  const std::string para = doc.substr(begin, end - begin);
  std::set<std::string> out;
  static const std::regex name("`(cuda\\w+)`");
  for (auto it = std::sregex_iterator(para.begin(), para.end(), name); it != std::sregex_iterator();
       ++it) {
    out.insert((*it)[1].str());
  }
  return out;
}

}  // namespace

TEST_CASE("run: docs/run.md lists the runtime API the emulator provides", "[run]") {
  const std::string headers = kit_headers();
  const std::vector<std::string> functions = cuda_functions();
  REQUIRE(functions.size() > 300);
  std::set<std::string> provided, refused;
  for (const std::string& f : functions) (declared_in(headers, f) ? provided : refused).insert(f);
  const std::string doc = read(fs::path(GPULAB_SOURCE_DIR) / "docs/run.md");
  std::size_t runs_count = 0, refused_count = 0;
  const std::set<std::string> runs_listed =
      listed_after(doc, "Runs on the emulator (", &runs_count);
  const std::set<std::string> refused_listed =
      listed_after(doc, "Refused by name at compile time (", &refused_count);
  CHECK(runs_listed == provided);
  CHECK(refused_listed == refused);
  CHECK(runs_count == provided.size());
  CHECK(refused_count == refused.size());
  // The API the issue names is among what runs.
  for (const char* f :
       {"cudaHostRegister", "cudaHostGetDevicePointer", "cudaOccupancyMaxPotentialBlockSize",
        "cudaOccupancyAvailableDynamicSMemPerBlock", "cudaMemAdvise", "cudaMemPrefetchAsync",
        "cudaMemcpy3DAsync", "cudaLaunchKernel", "cudaLaunchHostFunc",
        "cudaStreamCreateWithPriority", "cudaEventRecordWithFlags", "cudaDeviceGetLimit"}) {
    CAPTURE(f);
    CHECK(provided.count(f) == 1);
  }
}

TEST_CASE("run: the kit defines every runtime function it declares (no link error)", "[run]") {
  const fs::path lib =
      fs::path(GPULAB_BINARY).parent_path().parent_path() / "lib/gpulab/run/lib/libgpulab_cudart.a";
  const fs::path listing = scratch("nm") / "symbols.txt";
  const std::string command =
      "nm -C --defined-only '" + lib.string() + "' > '" + listing.string() + "' 2>/dev/null";
  REQUIRE(std::system(command.c_str()) == 0);
  std::set<std::string> defined;
  static const std::regex symbol(R"( [TW] (cuda\w+)\()");
  std::istringstream in(read(listing));
  for (std::string l; std::getline(in, l);) {
    std::smatch m;
    if (std::regex_search(l, m, symbol)) defined.insert(m[1].str());
  }
  REQUIRE(defined.size() > 50);
  const std::string headers = kit_headers();
  std::size_t checked = 0;
  for (const std::string& f : cuda_functions()) {
    if (!declared_in(headers, f)) continue;
    ++checked;
    CAPTURE(f);
    // Defined in the library, or inline (a template or an inline function) in the headers.
    const bool inline_definition =
        std::regex_search(headers, std::regex("\\b" + f + "\\s*\\([^;{]*\\)\\s*\\{"));
    CHECK((defined.count(f) == 1 || inline_definition));
  }
  CHECK(checked > 100);
  fs::remove_all(listing.parent_path());
}
