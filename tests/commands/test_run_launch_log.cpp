// gpulab run --backend gpu: the launch log linked into an nvcc-built program lists each launch,
// and addr2line turns its frames into the kernel's name and the launch's line. Needs only nvcc:
// without a GPU every launch fails (no driver) and is still listed, with its error.
#include <unistd.h>
#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "core/toolchain.hpp"
#include "run/program.hpp"

namespace fs = std::filesystem;
using namespace gpulab;

TEST_CASE("run: the GPU build lists each launch with its kernel, shape and line", "[run]") {
  const auto kit = run::kit_dir();
  if (!kit || !fs::exists(*kit / "lib/libgpulab_launch_log.a") || !toolchain::find_nvcc()) {
    WARN("no nvcc or no launch log in this build: nothing to test");
    return;
  }
  const fs::path dir =
      fs::temp_directory_path() / ("gpulab-launch-log-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const fs::path source = dir / "launches.cu";
  std::ofstream(source) << R"(#include <cstdio>
template <int N>
__global__ void fill(int* out) { out[threadIdx.x] = N; }
__global__ void twice(float* a) { a[threadIdx.x] *= 2; }
static void go(float* a) {
  twice<<<dim3(4, 2), 40, 128>>>(a);
}
int main() {
  fill<3><<<2, 64>>>(nullptr);
  for (int i = 0; i < 3; ++i) go(nullptr);
  float* a = nullptr;
  void* args[] = {&a};
  cudaLaunchKernel((void*)twice, dim3(5), dim3(32), args, 0, 0);
  cudaLaunchCooperativeKernel((void*)fill<7>, dim3(2), dim3(16), args, 8, 0);
  cudaLaunchConfig_t config = {};
  config.gridDim = dim3(3);
  config.blockDim = dim3(96);
  cudaLaunchKernelEx(&config, twice, a);
  std::printf("%d\n", static_cast<int>(cudaDeviceSynchronize()));
  return 0;
}
)";
  run::BuildRequest b;
  b.source = source;
  b.target = run::Target::gpu;
  b.gpu_arch = "sm_90";
  b.use_cache = false;
  const run::Build build = run::build_program(b);
  run::ExecRequest x;
  x.program = build.program;
  x.timeout = std::chrono::seconds(60);
  x.max_output_bytes = 1 << 20;
  const run::Execution e = run::execute(x);
  // Four launches through <<<>>>, three the program calls itself, then the count at exit.
  REQUIRE(e.report.size() == 8);
  std::vector<std::vector<std::uint64_t>> frames;
  for (int i = 0; i < 7; ++i) {
    CAPTURE(i, e.report[i].dump());
    CHECK(e.report[i].at("event") == "launch");
    frames.push_back(e.report[i].at("frames").get<std::vector<std::uint64_t>>());
  }
  CHECK(e.report[0].at("grid") == nlohmann::json({2, 1, 1}));
  CHECK(e.report[0].at("block") == nlohmann::json({64, 1, 1}));
  CHECK(e.report[1].at("grid") == nlohmann::json({4, 2, 1}));
  CHECK(e.report[1].at("block") == nlohmann::json({40, 1, 1}));
  CHECK(e.report[1].at("shared_bytes") == 128);
  CHECK(e.report[4].at("grid") == nlohmann::json({5, 1, 1}));
  CHECK(e.report[5].at("block") == nlohmann::json({16, 1, 1}));
  CHECK(e.report[5].at("shared_bytes") == 8);
  CHECK(e.report[6].at("grid") == nlohmann::json({3, 1, 1}));
  CHECK(e.report[6].at("block") == nlohmann::json({96, 1, 1}));
  CHECK(e.report[7].at("event") == "gpu_exit");
  CHECK(e.report[7].at("launches") == 7);
  const std::vector<run::GpuLaunchSite> sites = run::gpu_launch_sites(build.program, frames);
  REQUIRE(sites.size() == 7);
  CHECK(sites[0].kernel == "fill<3>");
  CHECK(sites[0].site == source.string() + ":9");
  for (int i = 1; i < 4; ++i) {
    CHECK(sites[i].kernel == "twice");
    CHECK(sites[i].site == source.string() + ":6");
  }
  // A direct launch names its kernel from the function it passed: after other launches too.
  CHECK(sites[4].kernel == "twice");
  CHECK(sites[4].site == source.string() + ":13");
  CHECK(sites[5].kernel == "fill<7>");
  CHECK(sites[5].site == source.string() + ":14");
  CHECK(sites[6].kernel == "twice");
  CHECK(sites[6].site == source.string() + ":18");
  fs::remove_all(dir);
}

TEST_CASE("run: the GPU build names a file as typed and passes ptxas's lines on", "[run]") {
  // As the emulator's build does: __FILE__ is the path as typed (nvcc runs in the folder gpulab
  // runs in), and `-Xptxas -v` prints ptxas's own lines, from the cache too.
  if (!toolchain::find_nvcc()) {
    WARN("no nvcc: nothing to test");
    return;
  }
  const fs::path dir = fs::temp_directory_path() / ("gpulab-typed-" + std::to_string(::getpid()));
  fs::create_directories(dir / "sub");
  std::ofstream(dir / "sub" / "typed.cu") << R"(#include <cstdio>
__global__ void twice(float* a) { a[threadIdx.x] *= 2; }
int main() {
  std::printf("%s\n", __FILE__);
  twice<<<1, 32>>>(nullptr);
  return 0;
}
)";
  const fs::path was = fs::current_path();
  const char* cache_was = std::getenv("XDG_CACHE_HOME");
  const std::string cache_before = cache_was != nullptr ? cache_was : "";
  struct Restore {
    fs::path dir;
    std::string cache;
    bool had_cache;
    ~Restore() {
      std::error_code ec;
      fs::current_path(dir, ec);
      if (had_cache) {
        ::setenv("XDG_CACHE_HOME", cache.c_str(), 1);
      } else {
        ::unsetenv("XDG_CACHE_HOME");
      }
    }
  } restore{was, cache_before, cache_was != nullptr};
  ::setenv("XDG_CACHE_HOME", (dir / "cache").c_str(), 1);
  fs::current_path(dir);
  run::BuildRequest b;
  b.source = dir / "sub" / "typed.cu";
  b.as_typed = {"sub/typed.cu"};
  b.target = run::Target::gpu;
  b.gpu_arch = "sm_90";
  b.nvcc_flags = {"-Xptxas=-v"};
  for (const bool cached : {false, true}) {
    CAPTURE(cached);
    const run::Build build = run::build_program(b);
    CHECK(build.cached == cached);
    bool registers = false;
    for (const std::string& line : build.ptxas_lines) {
      CAPTURE(line);
      CHECK((line.starts_with("ptxas ") || line.starts_with(" ")));
      if (line.find("registers") != std::string::npos) registers = true;
    }
    CHECK(registers);
    run::ExecRequest x;
    x.program = build.program;
    x.timeout = std::chrono::seconds(60);
    x.max_output_bytes = 1 << 20;
    x.capture = true;
    const run::Execution e = run::execute(x);
    CHECK(e.out == "sub/typed.cu\n");
  }
  fs::remove_all(dir);
}
