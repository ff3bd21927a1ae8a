// gpulab run behaves as the GPU does (issue 22): errors surface at the call CUDA names, faults and
// failed asserts are sticky and the program goes on, by-value arguments are bytes. The programs
// of tests/run_corpus/gpu_semantics print what they see at each call; bench/run_semantics.sh runs
// the same programs under nvcc on a GPU to compare.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <set>
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

// `prog` under --check, its JSON report on stderr.
RunResult run_checked(const fs::path& prog) {
  return run_gpulab({"run", "--backend", "cpu", "--check", "--json", prog.string()}, {},
                    {"XDG_CACHE_HOME=" + (work_dir() / "cache").string()});
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

TEST_CASE("run: an assert failing in several lanes of a warp prints each lane's line", "[run]") {
  // As the H100 prints NVIDIA's simpleAssert: each failing lane of the warp, in lane order.
  const Outcome o = run_program("assert_warp");
  check_output("assert_warp", o);
  std::vector<std::string> printed;
  for (const std::string& l : lines_of(o.run.err)) {
    if (l.find("Assertion `v[i] <= limit` failed.") != std::string::npos) printed.push_back(l);
  }
  REQUIRE(printed.size() == 5);
  for (std::size_t k = 0; k < printed.size(); ++k) {
    CAPTURE(printed[k]);
    CHECK(printed[k].find("thread: [" + std::to_string(59 + k) + ",0,0]") != std::string::npos);
  }
  // One finding: the bug is one line.
  REQUIRE(o.report["findings"].size() == 1);
  CHECK(o.report["findings"][0]["where"] == "assert_warp.cu:9");
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

TEST_CASE("run: --check knows a spin lock: accesses under it do not race, others still do",
          "[run]") {
  const auto check = [](const fs::path& prog) {
    const RunResult r = run_checked(prog);
    CAPTURE(r.err);
    return json::parse(r.err);
  };
  // CUDA by Example's dot product: each block's thread 0 adds to the total under an atomicCAS lock.
  CHECK(check(kPrograms / "lock_dot.cu")["findings"].empty());
  // The same lock (taken with atomicCAS, and with atomicExch), then one add outside it: only that
  // add races, at its line.
  const fs::path prog = work_dir() / "lock_outside.cu";
  std::ofstream(prog) << "__global__ void k(int* m, int* n, int* in, int* out) {\n"
                         "  if (threadIdx.x != 0) return;\n"
                         "  while (atomicCAS(m, 0, 1) != 0) {}\n"
                         "  in[0] += 1;\n"
                         "  atomicExch(m, 0);\n"
                         "  while (atomicExch(n, 1) != 0) {}\n"
                         "  in[1] += 1;\n"
                         "  atomicExch(n, 0);\n"
                         "  out[0] += 1;\n}\n"
                         "int main() {\n  int* d; cudaMalloc(&d, 8 * sizeof(int));\n"
                         "  cudaMemset(d, 0, 8 * sizeof(int));\n"
                         "  k<<<4, 32>>>(d, d + 1, d + 2, d + 4);\n  cudaDeviceSynchronize();\n"
                         "  cudaFree(d);\n}\n";
  const json j = check(prog);
  std::vector<std::string> races;
  for (const json& f : j["findings"]) {
    if (f["kind"] == "global_race") races.push_back(f["where"]);
  }
  CHECK(races == std::vector<std::string>{"lock_outside.cu:9"});
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
  // nvcc's words (measured on the H100 machine), at the launch's line.
  CHECK_THAT(r.err, Catch::Contains("big_params.cu:6: error: Formal parameter space overflowed "
                                    "(32776 bytes required, max 32764 bytes allowed)"));
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
  const RunResult r = run_checked(prog);
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

TEST_CASE("run: a graph replays each kind of kernel as a direct launch runs it", "[run]") {
  // Replays run the block's thread loop compiled with the kernel, as direct launches do: a 2-D
  // block, a barrier, a warp shuffle, a by-value argument with a copy constructor, a template
  // and a kernel node added by address, each replayed four times against the host's sums.
  const Outcome o = run_program("graph_replay_forms");
  check_output("graph_replay_forms", o);
  CHECK(o.report["findings"].empty());
  CHECK(o.report["launches_total"] == 4 * 6);
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

// Issue 22, item 1: an access outside the memory a thread may touch fails the launch with
// cudaErrorIllegalAddress at the next synchronising call, without --check too; the report names the
// kernel, the line, the block and thread and what the access missed; the program goes on.
TEST_CASE("run: reading past the dynamic shared memory faults as on a GPU, at its line", "[run]") {
  const Outcome o = run_program("fault_shared");
  check_output("fault_shared", o);
  REQUIRE(o.report["findings"].size() == 1);
  const json& f = o.report["findings"][0];
  CHECK(f["kind"] == "kernel_fault");
  CHECK(f["where"] == "fault_shared.cu:17");
  const std::string message = f["message"];
  CHECK_THAT(message, Catch::Contains("block (0,0,0): thread 255: illegal address: it reads"));
  CHECK_THAT(message,
             Catch::Contains("just past the end of the dynamic shared memory (1024 bytes"));
  // The launch is listed once, with its kernel and error; the emulator's state is intact.
  REQUIRE(o.report["launches"].size() == 1);
  CHECK(o.report["launches"][0]["kernel"] == "scan");
  CHECK(o.report["launches"][0]["error"] == "cudaErrorIllegalAddress");
  CHECK(o.report["launches_total"] == 1);
  // --check finds the same line before the access happens.
  const RunResult checked = run_checked(kPrograms / "fault_shared.cu");
  CAPTURE(checked.err);
  CHECK(checked.exit_code == 1);
  const json j = json::parse(checked.err);
  bool found = false;
  for (const json& finding : j["findings"])
    found =
        found || (finding["kind"] == "kernel_fault" && finding["where"] == "fault_shared.cu:17");
  CHECK(found);
}

TEST_CASE("run: reading far past a cudaMalloc allocation faults and names the allocation",
          "[run]") {
  const Outcome o = run_program("fault_global");
  check_output("fault_global", o);
  REQUIRE(o.report["findings"].size() == 1);
  const json& f = o.report["findings"][0];
  CHECK(f["kind"] == "kernel_fault");
  CHECK(f["where"] == "fault_global.cu:8");
  CHECK_THAT(f["message"].get<std::string>(),
             Catch::Contains("past the end of the 16777216-byte allocation made by cudaMalloc at "
                             "fault_global.cu:16"));
}

TEST_CASE("run: a CUDA thread's stack overflow fails the launch and says so", "[run]") {
  const Outcome o = run_program("fault_stack");
  check_output("fault_stack", o);
  REQUIRE(o.report["findings"].size() == 1);
  CHECK_THAT(o.report["findings"][0]["message"].get<std::string>(),
             Catch::Contains("stack overflowed"));
  CHECK_THAT(o.report["findings"][0]["where"].get<std::string>(),
             Catch::StartsWith("fault_stack.cu:"));
  // Under --check too: the overflow happens in the kernel, not inside the checker's hooks (which
  // named memory_check.cpp and held its lock until --timeout).
  const RunResult c = run_gpulab({"run", "--backend", "cpu", "--check", "--timeout", "60", "--json",
                                  (kPrograms / "fault_stack.cu").string()},
                                 {}, {"XDG_CACHE_HOME=" + (work_dir() / "cache").string()});
  CAPTURE(c.err);
  const json j = json::parse(c.err.substr(c.err.find("\n{") + 1));
  REQUIRE(j["findings"].size() == 1);
  CHECK_THAT(j["findings"][0]["message"].get<std::string>(), Catch::Contains("stack overflowed"));
  CHECK_THAT(j["findings"][0]["where"].get<std::string>(), Catch::StartsWith("fault_stack.cu:"));
  CHECK(j["timed_out"] == false);
}

// Issue 22, item 7: cooperative launches and grid-wide sync, cooperative groups in a warp,
// cuda::barrier and cuda::atomic_ref.
TEST_CASE("run: a cooperative launch syncs its grid; a grid too large is refused", "[run]") {
  const Outcome o = run_program("grid_sync");
  check_output("grid_sync", o);
  CHECK(o.report["findings"].empty());
  // The refused launch is listed with its error and the numbers.
  bool refused = false;
  for (const json& l : o.report["launches"]) {
    if (l.value("error", "") == "cudaErrorCooperativeLaunchTooLarge") {
      refused = true;
      CHECK_THAT(l.value("error_message", ""), Catch::Contains("can be resident at once"));
      // The same facts in Chinese, written in Chinese.
      const std::string zh = l.value("error_message_zh", "");
      CHECK_THAT(zh, Catch::Contains("同时驻留的最多只能有"));
      CHECK_THAT(zh, !Catch::Contains("can be resident"));
    }
  }
  CHECK(refused);
}

// An H100's 132 SMs: a cooperative grid sized as the samples size it (1056 blocks of 256 threads,
// 264 of 1024) has every block resident on the worker threads; shared memory is the block's own
// across grid.sync(); the sum equals a host double-precision one; one block more is refused.
TEST_CASE("run: a cooperative grid of 132 SMs' worth of blocks runs with every block resident",
          "[run]") {
  const Outcome o = run_program("grid_resident");
  check_output("grid_resident", o);
  CHECK(o.report["findings"].empty());
  // Both grids ran (the refused ones are listed with their error).
  std::vector<unsigned> grids;
  for (const json& l : o.report["launches"]) {
    if (!l.contains("error")) grids.push_back(l["grid"][0].get<unsigned>());
  }
  CHECK(grids == std::vector<unsigned>{1056, 264});
}

TEST_CASE("run: grid.sync() outside a cooperative launch is a fault that says why", "[run]") {
  const Outcome o = run_program("grid_sync_misuse");
  check_output("grid_sync_misuse", o);
  REQUIRE(o.report["findings"].size() == 1);
  CHECK(o.report["findings"][0]["where"] == "grid_sync_misuse.cu:11");
  CHECK_THAT(o.report["findings"][0]["message"].get<std::string>(),
             Catch::Contains("not launched with cudaLaunchCooperativeKernel"));
}

TEST_CASE("run: coalesced groups, partitions, cg::reduce and the scans", "[run]") {
  const Outcome o = run_program("cg_groups");
  check_output("cg_groups", o);
  CHECK(o.report["findings"].empty());
}

TEST_CASE("run: cuda::barrier arrive/wait and cuda::atomic_ref in a cooperative grid", "[run]") {
  const Outcome o = run_program("aw_barrier");
  check_output("aw_barrier", o);
  CHECK(o.report["findings"].empty());
}

// Issue 22, items 6 and 5 of issue 25: new and delete in a kernel come from the device heap that
// malloc uses, and --check takes their blocks for device memory.
TEST_CASE("run: new and delete in a kernel share the device heap with malloc", "[run]") {
  const Outcome o = run_program("device_new");
  check_output("device_new", o);
  CHECK(o.report["findings"].empty());
  const RunResult checked = run_checked(kPrograms / "device_new.cu");
  CAPTURE(checked.err);
  CHECK(checked.exit_code == 0);
  CHECK(json::parse(checked.err)["findings"].empty());
}

TEST_CASE("run: a child graph node runs a copy of the child graph where it stands", "[run]") {
  const Outcome o = run_program("child_graph");
  check_output("child_graph", o);
  CHECK(o.report["findings"].empty());
  // Two kernels of the child per parent launch; the node added to the child later is not there.
  CHECK(o.report["launches_total"] == 2 * 2);
}

TEST_CASE("run: memcpy nodes of 3-D copies, a cloned graph, a captured cudaMemcpy3DAsync",
          "[run]") {
  // NVIDIA's simpleCudaGraphs makes its copies this way: a window into a pitched matrix and back.
  const Outcome o = run_program("graph_memcpy3d");
  check_output("graph_memcpy3d", o);
  CHECK(o.report["findings"].empty());
  // The graph's kernel once per launch: the graph and its clone.
  CHECK(o.report["launches_total"] == 2);
}

TEST_CASE("run: peer access answers as a machine with one GPU does", "[run]") {
  // peer_access.out is an H200 host's output with one GPU: no peer to enable, the device itself
  // no peer of its own, device 0 to device 0 copies.
  const Outcome o = run_program("peer_access");
  check_output("peer_access", o);
  CHECK(o.report["findings"].empty());
}

TEST_CASE("run: __fadd_rz and __fmul_rz round toward zero, bit for bit as the H100", "[run]") {
  // round_toward_zero.out is the H100's output: the bits of four pairs' results, how many of 2^20
  // pairs round differently than to nearest (add 463088, mul 513275) and a checksum of all.
  const Outcome o = run_program("round_toward_zero");
  check_output("round_toward_zero", o);
  CHECK(o.report["findings"].empty());
}

TEST_CASE("run: directed-rounding intrinsics (_rz, _rd, _ru), bit for bit as the GPU", "[run]") {
  // directed_rounding.out is the GPU's output: per intrinsic (add, sub, mul, div, sqrt and rcp,
  // float and double, toward zero, down and up), a checksum of its results over 2^18 operand pairs
  // and of the special ones (zeros of both signs, infinities, subnormals, the largest floats).
  const Outcome o = run_program("directed_rounding");
  check_output("directed_rounding", o);
  CHECK(o.report["findings"].empty());
}

TEST_CASE("run: sinf, cosf, logf, atan2f and the like in a kernel, bit for bit as the GPU",
          "[run]") {
  // math_functions.out is the GPU's output (an H200, sm_90, nvcc 13 at -O3 and at -O0 -G alike):
  // for sinf, cosf, sincosf, logf, log2f, log10f, log1pf, atan2f and hypotf, a checksum of the
  // results over 2^20 inputs (special values, random bits, typical arguments) and the results for
  // the special ones; then NVIDIA's blog's unit-circle error 1.192093e-07, where the C library's
  // sinf and cosf give 5.960464e-08.
  const Outcome o = run_program("math_functions");
  check_output("math_functions", o);
  CHECK(o.report["findings"].empty());
}

TEST_CASE("run: integer, conversion and correctly rounded intrinsics, bit for bit as the H100",
          "[run]") {
  // intrinsics.out is the H100's output: per intrinsic, a checksum of its results over 2^16
  // threads' inputs and of its results for special inputs (NaN, infinities, -0, values outside an
  // integer's range): saturating conversions, NaN as 0x7fffffff, __frsqrt_rn rounded once.
  const Outcome o = run_program("intrinsics");
  check_output("intrinsics", o);
  CHECK(o.report["findings"].empty());
}

TEST_CASE("run: device code fuses a * b + c as nvcc's does, host code does not", "[run]") {
  // fused_multiply_add.out is the GPU's output (an H200, nvcc 13's default flags): per expression
  // (a * b + c, a * b - c, c - a * b, a * b + c * a, a __host__ __device__ function, the
  // intrinsics that never fuse, a dot product, two double forms), a checksum of its bits over 2^16
  // operand triples on the device and on the host, and how many results differ between them.
  const Outcome o = run_program("fused_multiply_add");
  check_output("fused_multiply_add", o);
  CHECK(o.report["findings"].empty());
}

TEST_CASE("run: graph memory nodes, explicit and captured, reuse a freed address", "[run]") {
  // graph_memory_nodes.out is the H100's output: an allocation made after a free in the graph's
  // order takes the freed address; a captured cudaMallocAsync/cudaFreeAsync pair becomes two nodes;
  // a graph's allocation freed by cudaFree between launches; a free node for cudaMalloc's memory
  // (cudaErrorInvalidValue) and an allocation node on the host (cudaErrorNotSupported) refused.
  const Outcome o = run_program("graph_memory_nodes");
  check_output("graph_memory_nodes", o);
  CHECK(o.report["findings"].empty());
  // The explicit graph's three kernels per launch (three launches), the captured graph's two (two).
  CHECK(o.report["launches_total"] == 3 * 3 + 2 * 2);
}

TEST_CASE("run: conditional graph nodes: IF, IF/ELSE, WHILE, SWITCH, captured bodies", "[run]") {
  // graph_conditional.out is what an H100 and an H200 print (bench/run_semantics.sh compares
  // it): which bodies ran at each launch, a do-while
  // whose handle is set back to 1 at each launch, a switch past its last body running none, a node
  // added by hand to a stream capture after cudaStreamGetCaptureInfo.
  const Outcome o = run_program("graph_conditional");
  check_output("graph_conditional", o);
  CHECK(o.report["findings"].empty());
}

TEST_CASE(
    "run: warp-synchronous volatile code gives the converged warp's result; --check names "
    "the race",
    "[run]") {
  // warp_synchronous.out holds the host's sums (a tree reduction's last warp through a volatile
  // pointer, in a device function and in the kernel, and a warp's inclusive scan); lanes run one
  // after another would get them wrong (lane 0 would read s[16] before lane 16 had added s[48]).
  // bench/run_semantics.sh compares the GPU's output with the file.
  const Outcome o = run_program("warp_synchronous");
  check_output("warp_synchronous", o);
  CHECK(o.report["findings"].empty());
  // Under --check the same results, and each kernel's race between lanes of one warp, with
  // __syncwarp() as the fix.
  const RunResult r = run_checked(kPrograms / "warp_synchronous.cu");
  CAPTURE(r.err);
  CHECK(r.out == read(kPrograms / "warp_synchronous.out"));
  const json j = json::parse(r.err);
  std::set<std::string> where;
  for (const json& f : j["findings"]) {
    CHECK(f["kind"] == "shared_race");
    CHECK(f["same_warp"] == true);
    CHECK_THAT(f["message"].get<std::string>(), Catch::Contains("__syncwarp()"));
    where.insert(f["where"].get<std::string>());
  }
  CHECK(where == std::set<std::string>{"warp_synchronous.cu:26", "warp_synchronous.cu:59",
                                       "warp_synchronous.cu:74"});
}

TEST_CASE(
    "run: dynamic shared memory in kernels that run as coroutines is transformed, not "
    "compiled as written",
    "[run]") {
  // Professional CUDA C Programming's reduceSmemDyn: `extern __shared__ int smem[];` and the
  // last warp's steps through a volatile pointer, and a shuffle reduction with dynamic shared
  // memory. The .out holds the host's sums; an H200 prints the same (bench/run_semantics.sh).
  const Outcome o = run_program("dynamic_shared_coroutines");
  check_output("dynamic_shared_coroutines", o);
  CHECK(o.report["findings"].empty());
  CHECK(o.report["compiled_as_written"].empty());
  // The volatile steps are the race a converged warp hides: --check names it, same sums.
  const RunResult r = run_checked(kPrograms / "dynamic_shared_coroutines.cu");
  CAPTURE(r.err);
  CHECK(r.out == read(kPrograms / "dynamic_shared_coroutines.out"));
  const json j = json::parse(r.err);
  CHECK(j["compiled_as_written"].empty());
  REQUIRE(j["findings"].size() == 1);
  CHECK(j["findings"][0]["kind"] == "shared_race");
  CHECK(j["findings"][0]["same_warp"] == true);
  CHECK(j["findings"][0]["where"] == "dynamic_shared_coroutines.cu:21");
}

TEST_CASE(
    "run: a volatile buffer written after a warp's ballot and read before the next one is "
    "taken in step",
    "[run]") {
  // Learn CUDA Programming's warp radix sort: the ballot orders the lanes within one turn of the
  // loop, not the write at its end against the read at the start of the next, nor the buffer's
  // load against the first read. warp_radix_sort.out holds an H200's output (every warp sorted).
  const Outcome o = run_program("warp_radix_sort");
  check_output("warp_radix_sort", o);
  CHECK(o.report["findings"].empty());
  CHECK(o.report["compiled_as_written"].empty());
  // --check: the same output, and the race a converged warp hides, with __syncwarp() as the fix.
  const RunResult r = run_checked(kPrograms / "warp_radix_sort.cu");
  CAPTURE(r.err);
  CHECK(r.out == read(kPrograms / "warp_radix_sort.out"));
  const json j = json::parse(r.err);
  REQUIRE(j["findings"].size() == 1);
  CHECK(j["findings"][0]["kind"] == "shared_race");
  CHECK(j["findings"][0]["same_warp"] == true);
}

TEST_CASE("run: cuda::pipeline and memcpy_async: a thread's stages, a block's with roles, barriers",
          "[run]") {
  // async_copy_pipeline.out holds the host's sums: each thread adds its neighbour's element of
  // every tile, copied by another thread through a thread's own four-stage pipeline, a block's
  // pipeline with a producer warp, a block's pipeline with the group form of memcpy_async, a
  // cuda::barrier, cooperative groups' memcpy_async and the pipeline primitives.
  // bench/run_semantics.sh compares the GPU's output with the file.
  const Outcome o = run_program("async_copy_pipeline");
  check_output("async_copy_pipeline", o);
  // Under --check the same sums and no finding: a block pipeline's waits order the stage's
  // copies before its reads, and its releases the reads before the next copies.
  const RunResult r = run_checked(kPrograms / "async_copy_pipeline.cu");
  CAPTURE(r.err);
  CHECK(r.exit_code == 0);
  CHECK(r.out == read(kPrograms / "async_copy_pipeline.out"));
  CHECK(json::parse(r.err)["findings"].empty());
}
