// gpulab run behaves as the GPU does (issue 22): errors surface at the call CUDA names, faults and
// failed asserts are sticky and the program goes on, by-value arguments are bytes. The programs
// of tests/run_corpus/gpu_semantics print what they see at each call; bench/run_semantics.sh runs
// the same programs under nvcc on a GPU to compare.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <unistd.h>

#include "support/run.hpp"

using namespace gpulab::test;
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

const fs::path kPrograms = fs::path(GPULAB_SOURCE_DIR) / "tests" / "run_corpus" / "gpu_semantics";

fs::path work_dir() {
  static const fs::path dir = [] {
    fs::path d = fs::temp_directory_path() / ("gpulab-run-sem-" + std::to_string(::getpid()));
    fs::remove_all(d);
    fs::create_directories(d);
    return d;
  }();
  return dir;
}

std::string read(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

struct Outcome {
  RunResult run;  // the program's own stdout and stderr
  json report;
};

Outcome run_program(const std::string& name) {
  const fs::path report = work_dir() / (name + ".json");
  Outcome o;
  o.run = run_gpulab({"run", "--backend", "cpu", "--json", "--report", report.string(),
                      (kPrograms / (name + ".cu")).string()},
                     {}, {"XDG_CACHE_HOME=" + (work_dir() / "cache").string()});
  o.report = json::parse(read(report));
  return o;
}

// The program's stdout equals its .out file, and each line of its .err file is in its stderr.
void check_output(const std::string& name, const Outcome& o) {
  CAPTURE(name, o.run.err);
  CHECK(o.run.exit_code == 0);
  CHECK(o.run.out == read(kPrograms / (name + ".out")));
  if (const fs::path err = kPrograms / (name + ".err"); fs::exists(err)) {
    for (const std::string& line : lines_of(read(err)))
      CHECK_THAT(o.run.err, Catch::Contains(line));
  }
}

}  // namespace

TEST_CASE("run: a bad launch fails at the launch, a kernel fault at the next wait, and sticks",
          "[run]") {
  const Outcome o = run_program("errors_at_sync");
  check_output("errors_at_sync", o);
  // The faulting launch ran (its kernel fault is reported at the __trap line); the launch after
  // the fault did not run, as a faulted context runs nothing.
  const json& launches = o.report["launches"];
  REQUIRE(launches.size() == 3);
  CHECK(launches[2]["kernel"] == "stop");
  REQUIRE(o.report["findings"].size() == 1);
  CHECK(o.report["findings"][0]["kind"] == "kernel_fault");
  CHECK(o.report["findings"][0]["where"] == "errors_at_sync.cu:12");
}

TEST_CASE("run: a failed device-side assert prints the GPU's message and fails the launch",
          "[run]") {
  const Outcome o = run_program("device_assert");
  check_output("device_assert", o);
  // Once: the one thread whose element is bad.
  const std::string message = "Assertion `v[i] > 0` failed.";
  const std::size_t first = o.run.err.find(message);
  REQUIRE(first != std::string::npos);
  CHECK(o.run.err.find(message, first + 1) == std::string::npos);
  REQUIRE(o.report["findings"].size() == 1);
  CHECK(o.report["findings"][0]["where"] == "device_assert.cu:8");
}

TEST_CASE("run: a by-value kernel argument is bytes: no constructor or destructor per thread",
          "[run]") {
  check_output("byvalue_destructor", run_program("byvalue_destructor"));
  // CUDA by Example's lock: a struct whose destructor frees the lock's memory, passed by value.
  const Outcome lock = run_program("lock_dot");
  check_output("lock_dot", lock);
  CHECK(lock.report["findings"].empty());
}

TEST_CASE("run: a thread spinning on a volatile flag or an atomic lets its block's others run",
          "[run]") {
  // Each kernel waits for a later thread of its block: on a GPU since Volta every thread makes
  // progress; the emulator must let the others run while one spins, or it never finishes.
  const Outcome o = run_program("spin_wait");
  check_output("spin_wait", o);
  CHECK(o.report["findings"].empty());
}

TEST_CASE("run: kernel parameters past CUDA's 32764 bytes do not compile", "[run]") {
  const fs::path prog = work_dir() / "big_params.cu";
  std::ofstream(prog) << "struct Big { char bytes[32768]; };\n"
                         "__global__ void k(Big b, int* out) { *out = b.bytes[0]; }\n"
                         "int main() {\n  Big b{};\n  int* out; cudaMalloc(&out, 4);\n"
                         "  k<<<1, 1>>>(b, out);\n  return 0;\n}\n";
  const RunResult r = run_gpulab({"run", "--backend", "cpu", prog.string()}, {},
                                 {"XDG_CACHE_HOME=" + (work_dir() / "cache").string()});
  CHECK(r.exit_code == 1);
  CHECK_THAT(r.err, Catch::Contains("32764"));
  CHECK_THAT(r.err, Catch::Contains("big_params.cu:6"));
}

TEST_CASE("run: malloc and free in a kernel use the device heap, which --check knows", "[run]") {
  const Outcome o = run_program("device_heap");
  check_output("device_heap", o);
  CHECK(o.report["findings"].empty());
  // Memory from the device heap is device memory to --check: a write past a block is out of
  // bounds of that block (not "host memory"), and blocks freed and made again are no race.
  const fs::path prog = work_dir() / "heap_oob.cu";
  std::ofstream(prog) << "__global__ void k(int* out) {\n"
                         "  int* a = (int*)malloc(4 * sizeof(int));\n"
                         "  a[threadIdx.x] = 1;\n"
                         "  out[threadIdx.x] = a[0];\n"
                         "  free(a);\n}\n"
                         "int main() {\n  int* out; cudaMalloc(&out, 8 * sizeof(int));\n"
                         "  k<<<1, 8>>>(out);\n  cudaDeviceSynchronize();\n  cudaFree(out);\n}\n";
  const RunResult r = run_gpulab({"run", "--backend", "cpu", "--check", "--json", prog.string()},
                                 {}, {"XDG_CACHE_HOME=" + (work_dir() / "cache").string()});
  CAPTURE(r.err);
  const json j = json::parse(r.err);
  bool oob = false;
  for (const json& f : j["findings"]) {
    CHECK(f["kind"] != "host_memory");
    CHECK(f["kind"] != "global_race");
    if (f["kind"] == "out_of_bounds" && f["where"] == "heap_oob.cu:3") oob = true;
  }
  CHECK(oob);
}

TEST_CASE("run: CUDA graphs, captured and explicit, run in dependency order", "[run]") {
  const Outcome o = run_program("graphs");
  check_output("graphs", o);
  CHECK(o.report["findings"].empty());
  // 3 launches of the captured graph and 1 of the updated one (3 kernels each), 2 of the
  // explicit graph (2 kernels each).
  CHECK(o.report["launches_total"] == 3 * 3 + 3 + 2 * 2);
}

TEST_CASE("run: a kernel launches kernels (CUDA 12): children, tail launch, fire-and-forget",
          "[run]") {
  const Outcome o = run_program("child_launch");
  check_output("child_launch", o);
  CHECK(o.report["findings"].empty());
  // The parent, four children, the tail launch and the fire-and-forget one.
  CHECK(o.report["launches_total"] == 1 + 4 + 1 + 1);
  // A device-side cudaDeviceSynchronize, which CUDA 12 removed (nvcc does not compile it), fails
  // the launch and says why.
  const fs::path prog = work_dir() / "device_sync.cu";
  std::ofstream(prog)
      << "#include <cstdio>\n__global__ void child() {}\n"
         "__global__ void parent() { child<<<1, 1>>>(); cudaDeviceSynchronize(); }\n"
         "int main() {\n  parent<<<1, 1>>>();\n"
         "  printf(\"%s\\n\", cudaGetErrorName(cudaDeviceSynchronize()));\n}\n";
  const RunResult r = run_gpulab({"run", "--backend", "cpu", prog.string()}, {},
                                 {"XDG_CACHE_HOME=" + (work_dir() / "cache").string()});
  CHECK(r.exit_code == 0);
  CHECK(r.out == "cudaErrorLaunchFailure\n");
  CHECK_THAT(r.err, Catch::Contains("CUDA 12"));
}
