// The run engine's reading of real programs: #include directives and the user's own headers, the
// special registers inline PTX reads, API CUDA 13 removed (from g++'s warnings and nvcc's
// errors), and CUDA runtime API the emulator lacks (from g++'s errors).
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include <unistd.h>

#include "run/cuda_api.hpp"
#include "run/headers.hpp"
#include "run/program.hpp"
#include "run/removed_api.hpp"
#include "run/rewrite.hpp"

using namespace gpulab;
using namespace gpulab::run;
namespace fs = std::filesystem;

TEST_CASE("includes_of: quoted and angled directives, not those in comments", "[run_engine]") {
  const auto found = includes_of(
      "#include \"a.cuh\"\n  #  include <b/c.h>\n// #include \"no.h\"\n/* #include \"no2.h\"\n*/"
      "\n#include_next <no3.h>\n#define X \"#include\"\n#include MACRO\n");
  REQUIRE(found.size() == 2);
  CHECK(found[0].name == "a.cuh");
  CHECK(found[0].quoted);
  CHECK(found[0].line == 1);
  CHECK(found[1].name == "b/c.h");
  CHECK_FALSE(found[1].quoted);
  CHECK(found[1].line == 2);
}

TEST_CASE("user_headers: found as the compiler finds them, the system's and the kit's left out",
          "[run_engine]") {
  const fs::path root =
      fs::temp_directory_path() / ("gpulab-headers-" + std::to_string(::getpid()));
  fs::remove_all(root);
  fs::create_directories(root / "src");
  fs::create_directories(root / "common");
  fs::create_directories(root / "kit");
  std::ofstream(root / "src" / "local.cuh") << "#include \"../common/shared.h\"\n";
  std::ofstream(root / "common" / "shared.h") << "#include \"sibling.h\"\n#include <vector>\n";
  std::ofstream(root / "common" / "sibling.h") << "#include \"local.cuh\"\n";  // not beside it
  std::ofstream(root / "common" / "angled.h") << "// found through -I\n";
  std::ofstream(root / "kit" / "cuda_runtime.h") << "// the kit's\n";
  std::ofstream(root / "common" / "cuda_runtime.h") << "// shadowed by the kit\n";
  HeaderSearch search;
  search.kit_include = root / "kit";
  search.quote_dirs = {root / "src"};
  search.include_dirs = {root / "common"};
  const std::string main_text =
      "#include \"local.cuh\"\n#include <angled.h>\n#include <cuda_runtime.h>\n"
      "#include <cstdio>\n#include \"missing.h\"\n";
  const auto headers = user_headers(root / "src" / "main.cu", main_text, search, read_file);
  std::vector<std::string> names;
  for (const fs::path& h : headers) names.push_back(h.lexically_relative(root).string());
  std::sort(names.begin(), names.end());
  // sibling.h's "local.cuh" resolves through the -iquote folder to the same file: listed once.
  CHECK(names == std::vector<std::string>{"common/angled.h", "common/shared.h", "common/sibling.h",
                                          "src/local.cuh"});
  CHECK(system_header("/usr/include/stdio.h"));
  CHECK(system_header("/opt/cuda/include/x.h"));
  CHECK_FALSE(system_header("/home/student/x.h"));
  const fs::path shadow = shadow_path(root / "build", root / "src" / "local.cuh");
  CHECK(original_of(root / "build", shadow) == root / "src" / "local.cuh");
  CHECK(original_of(root / "build", root / "elsewhere.h").empty());
  fs::remove_all(root);
}

TEST_CASE("rewrite: a header's kernel registration does not clash with its includer's",
          "[run_engine]") {
  const std::string kernel = "__global__ void k(int* p) { *p = 1; }\n";
  const Rewritten a = rewrite_for_emulator(kernel, "/x/a.cuh");
  const Rewritten b = rewrite_for_emulator(kernel, "/x/main.cu");
  const auto name_of = [](const std::string& text) {
    const std::size_t at = text.find("gpulab_kernel_registered_");
    return text.substr(at, text.find(' ', at) - at);
  };
  CHECK(name_of(a.text) != name_of(b.text));
  CHECK(a.text.starts_with("#line 1 \"/x/a.cuh\""));
}

TEST_CASE("rewrite: a kernel template named by address is registered where it is named",
          "[run_engine]") {
  const Rewritten r = rewrite_for_emulator(
      "template <typename T>\n"
      "__global__ void scale(T* p, T k) { *p *= k; }\n"
      "template <typename T, int N> __global__ void fill(T* p) { p[0] = N; }\n"
      "void f(float* p, int* q) {\n"
      "  void* a = (void*)scale<float>;\n"
      "  auto b = &fill<int, 3>;\n"
      "  scale<float><<<1, 1>>>(p, 2.0f);\n"
      "  scale<int><<<1, 1>>>(q, 2);\n"
      "}\n",
      "/x/templates.cu");
  CHECK(r.text.find("(void*)::gpulab::rt::registered(scale<float>, \"scale\")") !=
        std::string::npos);
  CHECK(r.text.find("auto b = ::gpulab::rt::registered(&fill<int, 3>, \"fill\")") !=
        std::string::npos);
  CHECK(r.launches == 2);
  CHECK(r.text.find("registered(scale<int>") == std::string::npos);
}

TEST_CASE("rewrite: a launch written << < ... >> >, as Visual Studio formats it, is a launch",
          "[run_engine]") {
  // nvcc takes the chevrons with blanks between the second and the third (measured with nvcc 13).
  const Rewritten r = rewrite_for_emulator(
      "__global__ void k(int* p) { *p = 1; }\n"
      "void f(int* p, int n) {\n"
      "  k << <n >> 1, 32 >> > (p);\n"
      "  k<<<1, 1>>>(p);\n"
      "  k << <\t2, 2 >>\t> (p);\n"
      "  int x = n << 2, y = n >> 1;\n"
      "}\n",
      "/x/spaced.cu");
  CHECK(r.launches == 3);
  CHECK(r.text.find("config(n >> 1, 32 )") != std::string::npos);
  CHECK(r.text.find("int x = n << 2, y = n >> 1;") != std::string::npos);
  CHECK(r.text.find("<< <") == std::string::npos);
}

TEST_CASE("rewrite: extern __shared__ in a function is bound to the block's window",
          "[run_engine]") {
  // g++ drops an asm label on a block-scope extern in a template (the samples' SharedMemory<T>).
  const Rewritten r = rewrite_for_emulator(
      "namespace n {\nextern __shared__ float top[];\n}\n"
      "template <class T> struct S {\n  __device__ operator T*() {\n"
      "    extern __shared__ int smem[];\n    return (T*)smem;\n  }\n};\n",
      "/x/s.cu");
  // At namespace scope: a pointer to the block's window of dynamic shared memory.
  CHECK(r.text.find("float (*top) __asm__(\"gpulab_simt_dynamic_shared_ptr\")") !=
        std::string::npos);
  CHECK(r.text.find("decltype(gpulab_shared_decl_") != std::string::npos);
  CHECK(r.text.find(")& smem = reinterpret_cast<decltype(gpulab_shared_decl_") !=
        std::string::npos);
  CHECK(r.text.find("dynamic_shared_window()") != std::string::npos);
  CHECK(std::count(r.text.begin(), r.text.end(), '\n') == 1 + 9);  // lines kept
}

TEST_CASE("rewrite: inline PTX reading a special register becomes the emulator's value",
          "[run_engine]") {
  const Rewritten r = rewrite_for_emulator(
      "__device__ unsigned f() {\n  unsigned id, lane;\n"
      "  asm volatile(\"mov.u32 %0, %%smid;\" : \"=r\"(id));\n"
      "  asm(\"mov.u32 %0,%%laneid;\"\n      : \"=r\"(lane));\n"
      "  unsigned long long t;\n  asm volatile(\"mov.u64 %0, %%globaltimer;\" : \"=l\"(t));\n"
      "  return id + lane + t;\n}\n",
      "/x/p.cu");
  CHECK(r.unsupported.empty());
  CHECK(r.text.find("((id) = ::gpulab_rt_ptx_smid())") != std::string::npos);
  CHECK(r.text.find("((lane) = ::gpulab::rt::ptx_laneid())") != std::string::npos);
  CHECK(r.text.find("((t) = ::gpulab_rt_ptx_globaltimer())") != std::string::npos);
  CHECK(r.clock_line == 7);
  // Lines are kept: the two-line asm keeps its newline.
  CHECK(std::count(r.text.begin(), r.text.end(), '\n') ==
        1 + 9);  // the #line directive, then the source's nine lines
  // Any other inline PTX is still refused, at its line.
  const Rewritten other = rewrite_for_emulator(
      "__device__ int g(int x) {\n  int y;\n  asm(\"add.s32 %0, %1, 1;\" : \"=r\"(y) : \"r\"(x));\n"
      "  return y;\n}\n",
      "/x/q.cu");
  REQUIRE(other.unsupported.size() == 1);
  CHECK(other.unsupported[0].line == 3);
}

TEST_CASE("removed API: g++'s warnings name each use once, nvcc's errors are explained",
          "[run_engine]") {
  const std::string gxx =
      "/home/s/p.cu: In function 'int main()':\n"
      "/home/s/p.cu:18:44: warning: 'cudaDeviceProp::clockRate' is deprecated: "
      "gpulab-removed:clockRate [-Wdeprecated-declarations]\n"
      "   18 |   printf(\"%d\", prop.clockRate);\n"
      "/home/s/p.cu:25:9: warning: 'cudaDeviceProp::clockRate' is deprecated: "
      "gpulab-removed:clockRate [-Wdeprecated-declarations]\n"
      "/home/s/h.cuh:3:25: warning: 'cudaError_t cudaThreadSynchronize()' is deprecated: "
      "gpulab-removed:cudaThreadSynchronize [-Wdeprecated-declarations]\n"
      "/home/s/p.cu:2:1: warning: 'x' is deprecated: gpulab-removed:no_such_key\n";
  const auto uses = removed_uses_in(gxx);
  REQUIRE(uses.size() == 2);
  CHECK(uses[0].key == "clockRate");
  CHECK(uses[0].where == "/home/s/p.cu:18");
  CHECK(uses[1].key == "cudaThreadSynchronize");
  CHECK(uses[1].where == "/home/s/h.cuh:3");
  CHECK(removed_sentence(*find_removed_api("clockRate"), "p.cu:18", Lang::en) ==
        "CUDA 13 removed cudaDeviceProp::clockRate (used at p.cu:18); nvcc 13 refuses it: use "
        "cudaDeviceGetAttribute(&value, cudaDevAttrClockRate, device).");
  // nvcc 13.0.88's own words for removed_api.cu (tests/run_corpus/api), recorded.
  const std::string nvcc =
      "removed_api.cu(18): error: class \"cudaDeviceProp\" has no member \"clockRate\"\n"
      "    prop.clockRate == clock_khz ? \"yes\" : \"no\");\n"
      "removed_api.cu(27): error: no suitable constructor exists to convert from \"int\" to "
      "\"cudaMemLocation\"\n"
      "    cudaMemAdvise(v, n * sizeof(int), cudaMemAdviseSetPreferredLocation, 0);\n"
      "removed_api.cu(28): error: no suitable constructor exists to convert from \"int\" to "
      "\"cudaMemLocation\"\n"
      "    cudaMemPrefetchAsync(v, n * sizeof(int), 0);\n"
      "removed_api.cu(30): error: identifier \"cudaThreadSynchronize\" is undefined\n"
      "removed_api.cu(31): error: identifier \"my_own_function\" is undefined\n";
  const std::string explained = explain_nvcc_refusal(nvcc, Lang::en);
  CHECK(explained.find("cudaDeviceProp::clockRate (used at removed_api.cu:18)") !=
        std::string::npos);
  CHECK(
      explained.find("cudaMemAdvise(ptr, bytes, advice, int device) (used at removed_api.cu:27)") !=
      std::string::npos);
  CHECK(explained.find("cudaMemPrefetchAsync(ptr, bytes, int device, stream) (used at "
                       "removed_api.cu:28)") != std::string::npos);
  CHECK(explained.find("cudaThreadSynchronize() (used at removed_api.cu:30)") != std::string::npos);
  CHECK(explained.find("my_own_function") == std::string::npos);
  CHECK(std::count(explained.begin(), explained.end(), '\n') == 4);
  CHECK(explain_nvcc_refusal("p.cu(3): error: expected a \";\"\n", Lang::en).empty());
  CHECK(explain_nvcc_refusal(nvcc, Lang::zh).find("CUDA 13 移除了") != std::string::npos);
  // The warp functions without a mask: nvcc 13.0.88's words for Professional CUDA C
  // Programming's simpleShfl.cu (recorded on the GPU machine).
  const std::string shfl =
      "simpleShfl.cu(26): error: identifier \"__shfl\" is undefined\n"
      "      value = __shfl(value, srcLane, 16);\n"
      "simpleShfl.cu(48): error: identifier \"__shfl_up\" is undefined\n";
  const std::string warp = explain_nvcc_refusal(shfl, Lang::en);
  CHECK(warp.find("CUDA 13 removed __shfl(var, srcLane, width) (used at simpleShfl.cu:26); nvcc "
                  "13 refuses it: use __shfl_sync(mask, var, srcLane, width) (CUDA 9 removed") ==
        0);
  CHECK(warp.find("__shfl_up(var, delta, width) (used at simpleShfl.cu:48)") != std::string::npos);
  CHECK(std::count(warp.begin(), warp.end(), '\n') == 2);
}

TEST_CASE("missing CUDA API: g++'s 'not declared' for a runtime name becomes one line",
          "[run_engine]") {
  CHECK(is_cuda_api_name("cudaMemcpy3DPeer"));
  CHECK(is_cuda_api_name("cudaArray_t"));
  CHECK_FALSE(is_cuda_api_name("cudaMallocc"));
  CHECK(cuda_runtime_functions().size() > 300);
  const auto line = missing_cuda_api(
      "/home/s/p.cu: In function 'int main()':\n"
      "/home/s/p.cu:6:3: error: 'cudaGraphAddChildGraphNode' was not declared in this scope; did "
      "you mean 'cudaGraphAddKernelNode'?\n",
      Lang::en);
  REQUIRE(line.has_value());
  CHECK(*line ==
        "/home/s/p.cu:6: 'cudaGraphAddChildGraphNode' is CUDA runtime API that gpulab's "
        "emulator does not provide (docs/run.md lists what it runs); run the program on "
        "an NVIDIA GPU (--backend gpu)");
  CHECK(missing_cuda_api("/p.cu:2:3: error: 'cudaArray_t' does not name a type\n", Lang::en));
  // g++ in a UTF-8 locale quotes with U+2018 and U+2019.
  CHECK(missing_cuda_api("/p.cu:2:3: error: \xe2\x80\x98"
                         "cudaMemcpy3DPeer"
                         "\xe2\x80\x99 was not declared in this scope\n",
                         Lang::en)
            .value_or("")
            .starts_with("/p.cu:2: 'cudaMemcpy3DPeer' is CUDA runtime API"));
  CHECK_FALSE(missing_cuda_api("/p.cu:2:3: error: 'cudaMallocc' was not declared in this scope\n",
                               Lang::en));
  CHECK_FALSE(missing_cuda_api("/p.cu:2:3: error: expected ';' before 'cudaMalloc'\n", Lang::en));
  // A header of the toolkit's that the kit lacks (simpleAWBarrier's <cuda/barrier>).
  CHECK(missing_cuda_api("/p.cu:33:10: fatal error: cuda/barrier: No such file or directory\n",
                         Lang::en) ==
        "/p.cu:33: <cuda/barrier> is a CUDA toolkit header that gpulab's emulator does not provide "
        "(docs/run.md lists what it runs); run the program on an NVIDIA GPU (--backend gpu)");
  CHECK(missing_cuda_api("/p.cu:1:10: fatal error: cuda/std/atomic: No such file or directory\n",
                         Lang::en));
  CHECK_FALSE(
      missing_cuda_api("/p.cu:1:10: fatal error: mine.h: No such file or directory\n", Lang::en));
}

TEST_CASE("rewrite: a refused family is refused by its API's names, not a program's own",
          "[run_engine]") {
  // A program's own names that share a prefix with a refused API: none is refused.
  const Rewritten own = rewrite_for_emulator(
      "#define cublasCheck(x) (x)\n"
      "int cuDevice = 0, cuDevices = 1, cuCtxCount = 0;\n"
      "int cuDevicesOf(int d) { return d; }\n"
      "void cuMemcpyish();\n"
      "int main() {\n"
      "  cublasCheck(cudaSetDevice(cuDevice));\n"
      "  int cuModules = cuDevices + cuCtxCount;\n"
      "  return cuModules;\n}\n",
      "/x/own.cu");
  for (const Unsupported& u : own.unsupported) UNSCOPED_INFO(u.token << " at line " << u.line);
  CHECK(own.unsupported.empty());
  // The driver API and the complex cuBLAS routines still are, each at its line.
  const Rewritten api = rewrite_for_emulator(
      "int main() {\n"
      "  CUdevice dev;\n  cuDeviceGet(&dev, 0);\n"
      "  cuCtxCreate (&ctx, 0, dev);\n"
      "  cuMemAlloc_v2(&p, 4);\n"
      "  cuMemcpyHtoD(p, h, 4);\n"
      "  cublasCgemm(h, a, b);\n"
      "  cublasZherk(h);\n"
      "  cublasCreate(&h);\n"
      "  cuModuleLoad(&m, \"k.ptx\");\n}\n",
      "/x/api.cu");
  std::vector<std::pair<int, std::string>> found;
  for (const Unsupported& u : api.unsupported) found.emplace_back(u.line, u.token);
  const std::vector<std::pair<int, std::string>> expected = {
      {3, "cuDeviceGet"}, {4, "cuCtxCreate"}, {5, "cuMemAlloc_v2"}, {6, "cuMemcpyHtoD"},
      {7, "cublasCgemm"}, {8, "cublasZherk"}, {10, "cuModuleLoad"}};
  CHECK(found == expected);
}

TEST_CASE("rewrite: __shared__ alignas(N) puts the alignment first", "[run_engine]") {
  // __shared__ is thread_local to g++, after which alignas may not stand (NVIDIA's
  // globalToShmemAsyncCopy declares its tiles so); lines stay where they were.
  const std::string source =
      "__global__ void k(float* p) {\n"
      "  __shared__ alignas(alignof(float4)) float a[4][16];\n"
      "  __shared__ alignas (16) float b[8];\n"
      "  __shared__ float alignas_like[2];\n"
      "  a[0][threadIdx.x] = b[0] = alignas_like[0] = *p;\n}\n";
  const Rewritten r = rewrite_for_emulator(source, "/x/aligned.cu");
  CHECK(r.text.find("alignas(alignof(float4)) __shared__ float a[4][16];") != std::string::npos);
  CHECK(r.text.find("alignas (16) __shared__ float b[8];") != std::string::npos);
  CHECK(r.text.find("__shared__ float alignas_like[2];") != std::string::npos);
  CHECK(std::count(r.text.begin(), r.text.end(), '\n') >=
        std::count(source.begin(), source.end(), '\n'));
}
