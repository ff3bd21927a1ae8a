// gpulab run with the CUDA libraries on the emulator: cuRAND's sequences against an H100's
// recording, cuBLAS against a float64 reference, thrust on the CPU device system.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <unistd.h>

#include "support/run.hpp"

using namespace gpulab::test;
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

const fs::path kSource = fs::path(GPULAB_SOURCE_DIR);

std::string library_cache_env() {
  static const fs::path dir = [] {
    fs::path d = fs::temp_directory_path() / ("gpulab-run-lib-test-" + std::to_string(::getpid()));
    fs::remove_all(d);
    fs::create_directories(d);
    return d;
  }();
  return "XDG_CACHE_HOME=" + dir.string();
}

std::vector<json> json_lines(const std::string& text) {
  std::vector<json> out;
  for (const std::string& l : lines_of(text)) {
    if (!l.empty()) out.push_back(json::parse(l));
  }
  return out;
}

}  // namespace

TEST_CASE("run: cuRAND on the emulator gives the H100's sequences", "[run]") {
  // bench/curand_h100.cu printed tests/run_corpus/curand_h100.jsonl on an H100; the same program,
  // unmodified, on the emulator.
  const RunResult r =
      run_gpulab({"run", "--backend", "cpu", (kSource / "bench/curand_h100.cu").string()}, {},
                 {library_cache_env()});
  CAPTURE(r.err);
  REQUIRE(r.exit_code == 0);
  std::ifstream in(kSource / "tests/run_corpus/curand_h100.jsonl");
  std::stringstream ss;
  ss << in.rdbuf();
  const std::vector<json> gpu = json_lines(ss.str());
  const std::vector<json> emu = json_lines(r.out);
  REQUIRE(gpu.size() == 30);
  REQUIRE(emu.size() == gpu.size());
  std::size_t exact = 0, compared = 0;
  for (std::size_t line = 0; line < gpu.size(); ++line) {
    for (const auto& [key, value] : gpu[line].items()) {
      if (key == "n_generated" || key == "n_recorded") continue;
      REQUIRE(emu[line].contains(key));
      const json& mine = emu[line][key];
      // Normals: a GPU's __sincosf/logf and the CPU's differ in the last bits (recorded: at most
      // 1.8e-6 for floats, 9e-16 for doubles). Everything else is bit for bit.
      const bool normal = key.find("normal") != std::string::npos ||
                          (key == "values" && gpu[line]["call"] == "normal");
      const json a = value.is_array() ? value : json::array({value});
      const json b = mine.is_array() ? mine : json::array({mine});
      REQUIRE(b.size() >= a.size());
      for (std::size_t i = 0; i < a.size(); ++i) {
        CAPTURE(line, key, i, a[i], b[i]);
        ++compared;
        if (a[i] == b[i]) {
          ++exact;
          continue;
        }
        REQUIRE(normal);
        const double x = a[i].get<double>(), y = b[i].get<double>();
        CHECK(std::fabs(x - y) <=
              (key == "normal_double" ? 1e-12 : 1e-5) * std::max(1.0, std::fabs(x)));
      }
    }
  }
  CHECK(compared > 90000);
  CHECK(exact > 75000);  // every integer, uniform and double uniform
}

TEST_CASE("run: cuBLAS words an invalid argument as the H100's cuBLAS does", "[run]") {
  // bench/run/cublas_xerbla.cu printed this on an H100 (cuBLAS 13, 2026-11-27): the routine's
  // name padded to six columns, the strided batched GEMM by its own name, gemv silent.
  const RunResult r = run_gpulab(
      {"run", "--backend", "cpu", (kSource / "bench/run/cublas_xerbla.cu").string(), "-lcublas"},
      {}, {library_cache_env()});
  CAPTURE(r.err);
  CHECK(r.exit_code == 0);
  CHECK(r.out ==
        " ** On entry to SGER   parameter number 5 had an illegal value\n"
        "sger: 7\n"
        "sgemv: 7\n"
        " ** On entry to SGEMM  parameter number 8 had an illegal value\n"
        "sgemm: 7\n"
        " ** On entry to DGEMM  parameter number 8 had an illegal value\n"
        "dgemm: 7\n"
        " ** On entry to SgemmStridedBatched parameter number 8 had an illegal value\n"
        "batched: 7\n");
}

TEST_CASE("run: what the emulator does not run is refused by name before compiling", "[run]") {
  struct Case {
    const char* code;
    const char* token;
    const char* feature;
  };
  const Case cases[] = {
      {"cuInit(0);", "cuInit", "the CUDA driver API"},
      {"cudaGraphicsGLRegisterBuffer(0, 0, 0);", "cudaGraphicsGLRegisterBuffer",
       "graphics interop"},
      {"nvrtcProgram p;", "nvrtcProgram", "NVRTC"},
      {"cudaIpcMemHandle_t h;", "cudaIpcMemHandle_t", "CUDA IPC"},
      {"curandStateMRG32k3a s;", "curandStateMRG32k3a", "MRG32k3a"},
      {"cublasHandle_t h; cublasCreate(&h); cublasCgemm(0);", "cublasCgemm",
       "complex-valued cuBLAS"},
      {"cub::DeviceReduce::Sum(0, 0, 0, 0, 0);", "cub", "CUB"},
  };
  const fs::path dir = fs::temp_directory_path() / ("gpulab-refused-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  for (const Case& c : cases) {
    CAPTURE(c.code);
    const fs::path file = dir / "refused.cu";
    std::ofstream(file) << "#include <cstdio>\nint main() {\n  " << c.code << "\n  return 0;\n}\n";
    const RunResult r =
        run_gpulab({"run", "--backend", "cpu", file.string()}, {}, {library_cache_env()});
    CHECK(r.exit_code == 1);
    CHECK(r.out.empty());
    CHECK(r.err.find("refused.cu:3: '" + std::string(c.token) + "'") != std::string::npos);
    CHECK(r.err.find(c.feature) != std::string::npos);
    CHECK(r.err.find("g++") == std::string::npos);  // named by gpulab, not a compile error
  }
  fs::remove_all(dir);
}

TEST_CASE("run: a thrust header g++ cannot find names the package that brings it", "[run]") {
  // A header no thrust has: the compile fails as it does where libthrust-dev is missing.
  const fs::path dir = fs::temp_directory_path() / ("gpulab-thrust-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const fs::path file = dir / "no_thrust.cu";
  std::ofstream(file) << "#include <thrust/gpulab_no_such_header.h>\nint main() { return 0; }\n";
  const RunResult r =
      run_gpulab({"run", "--backend", "cpu", file.string()}, {}, {library_cache_env()});
  CAPTURE(r.err);
  CHECK(r.exit_code == 1);
  CHECK(r.err.find("thrust/gpulab_no_such_header.h: No such file") != std::string::npos);
  CHECK(r.err.find("thrust on the emulator needs libthrust-dev") != std::string::npos);
  // Any other missing header: the compiler's words alone.
  std::ofstream(file) << "#include <gpulab_no_such_header.h>\nint main() { return 0; }\n";
  const RunResult other =
      run_gpulab({"run", "--backend", "cpu", file.string()}, {}, {library_cache_env()});
  CHECK(other.exit_code == 1);
  CHECK(other.err.find("gpulab_no_such_header.h: No such file") != std::string::npos);
  CHECK(other.err.find("libthrust-dev") == std::string::npos);
  fs::remove_all(dir);
}

TEST_CASE("run takes nvcc's command line: several files, -rdc, flags anywhere, -- for the program",
          "[run]") {
  const fs::path dir = kSource / "tests/run_corpus/multi";
  const std::string inc = (dir / "include").string();
  const std::string main_cu = (dir / "main.cu").string(), kernels = (dir / "kernels.cu").string(),
                    reference = (dir / "reference.cpp").string();
  const auto run = [](std::vector<std::string> args) {
    args.insert(args.begin(), {"run", "--backend", "cpu"});
    return run_gpulab(args, {}, {library_cache_env()});
  };
  // -I before the file, -D glued, flags between the files, the program's own -n=64 after --.
  RunResult r = run({"-I" + inc, "-DOFFSET=7", main_cu, "-rdc=true", kernels, "-arch=sm_90",
                     reference, "-lineinfo", "--", "-n=64"});
  CAPTURE(r.err);
  CHECK(r.exit_code == 0);
  CHECK(r.out == "n=64 last=196 matches the host\n");
  // The flags a GPU build uses are named in the report, not dropped in silence.
  CHECK(r.err.find("no effect on the emulator: -rdc=true -arch=sm_90 -lineinfo") !=
        std::string::npos);
  CHECK(r.err.find("Built with it: kernels.cu reference.cpp") != std::string::npos);
  // GPU-only flags of the samples' Makefiles and courses: accepted and named.
  r = run({"-I" + inc, "-DOFFSET=7", main_cu, kernels, reference, "--ptxas-options=-v", "-Xptxas",
           "-O3", "-maxrregcount=32", "--expt-relaxed-constexpr"});
  CAPTURE(r.err);
  CHECK(r.exit_code == 0);
  for (const char* flag :
       {"-Xptxas=-v", "-Xptxas=-O3", "-maxrregcount=32", "--expt-relaxed-constexpr"}) {
    CHECK(r.err.find(flag) != std::string::npos);
  }
  // The other spellings: -I DIR, --include-path DIR, -D NAME=VALUE apart, -dc, -Xcompiler, -l.
  r = run({"--include-path", inc, "-D", "OFFSET=2", "-dc", "-Xcompiler", "-Wall,-O1", main_cu,
           kernels, reference, "-lcudadevrt", "-lm", "--json"});
  CAPTURE(r.err);
  CHECK(r.exit_code == 0);
  CHECK(r.out == "n=100 last=299 matches the host\n");
  const json j = json::parse(r.err);
  CHECK(j["more_files"].size() == 2);
  CHECK(j["flags_without_effect"] == json::array({"-dc"}));
  // Without the macro, kernels.cu does not compile, and the error names it.
  r = run({"-I", inc, main_cu, kernels, reference});
  CHECK(r.exit_code == 1);
  CHECK(r.err.find("kernels.cu:") != std::string::npos);
  CHECK(r.err.find("OFFSET") != std::string::npos);
  // -U undoes a -D, as with nvcc.
  r = run({"-I", inc, "-DOFFSET=3", "-UOFFSET", main_cu, kernels, reference});
  CHECK(r.exit_code == 1);
  // An nvcc flag gpulab does not know: one line, exit 2.
  r = run({"-I", inc, "-DOFFSET=7", main_cu, kernels, reference, "-fancy-flag"});
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("-fancy-flag: an nvcc flag gpulab run does not know") != std::string::npos);
  CHECK(lines_of(r.err).size() == 1);
  // A word that is no source, before --: refused by name.
  r = run({"notes.txt"});
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("notes.txt") != std::string::npos);
}

TEST_CASE("run: the cache key covers every file of the program", "[run]") {
  const fs::path dir = fs::temp_directory_path() / ("gpulab-multi-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::ofstream(dir / "main.cu") << "#include <cstdio>\nint value();\n__global__ void k() {}\n"
                                    "int main() { k<<<1, 1>>>(); cudaDeviceSynchronize(); "
                                    "printf(\"%d\\n\", value()); }\n";
  std::ofstream(dir / "value.cpp") << "int value() { return 1; }\n";
  const std::vector<std::string> args = {"run", "--backend", "cpu", (dir / "main.cu").string(),
                                         (dir / "value.cpp").string()};
  RunResult r = run_gpulab(args, {}, {library_cache_env()});
  CHECK(r.out == "1\n");
  std::ofstream(dir / "value.cpp") << "int value() { return 2; }\n";
  r = run_gpulab(args, {}, {library_cache_env()});
  CHECK(r.out == "2\n");
  CHECK(r.err.find("(cached)") == std::string::npos);
  fs::remove_all(dir);
}
