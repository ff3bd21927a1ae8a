// gpulab inspect on the course notes' kernels (vector add, two-norm, relu+scale) and a tiled
// matmul: its registers and shared memory equal what nvcc --resource-usage itself prints, for
// several architectures; the listings, the occupancy, and the errors. Needs nvcc (CI has it).
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <array>
#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>
#include <regex>
#include <string>

#include "support/cli.hpp"
#include "support/run.hpp"

using gpulab::test::check_usage_error;
using gpulab::test::run_gpulab;
using gpulab::test::run_json;
using nlohmann::json;

namespace {

std::string corpus(const std::string& name) {
  return std::string(GPULAB_TESTS_DIR) + "/inspect/" + name;
}

std::string find_nvcc() {
  for (const char* p : {"/usr/local/cuda/bin/nvcc"}) {
    if (std::filesystem::exists(p)) return p;
  }
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen("command -v nvcc", "r"), pclose);
  std::array<char, 512> buf{};
  if (pipe && fgets(buf.data(), buf.size(), pipe.get()) != nullptr) {
    std::string s = buf.data();
    while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.pop_back();
    return s;
  }
  return {};
}

struct Usage {
  int registers = -1;
  long long shared = 0;
};

// nvcc's own report, read independently of gpulab: mangled kernel -> registers, static shared.
std::map<std::string, Usage> nvcc_resource_usage(const std::string& nvcc, const std::string& file,
                                                 const std::string& arch) {
  const std::string out = (std::filesystem::temp_directory_path() /
                           ("gpulab-test-" + std::to_string(getpid()) + ".cubin"))
                              .string();
  const std::string cmd =
      nvcc + " -arch=" + arch + " -cubin --resource-usage -o " + out + " " + file + " 2>&1";
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen(cmd.c_str(), "r"), pclose);
  std::string text;
  std::array<char, 4096> buf{};
  while (pipe && fgets(buf.data(), buf.size(), pipe.get()) != nullptr) text += buf.data();
  std::filesystem::remove(out);
  std::map<std::string, Usage> m;
  std::string current;
  static const std::regex entry(R"(entry function '([^']+)')");
  static const std::regex used(R"(Used (\d+) registers)");
  static const std::regex smem(R"((\d+) bytes smem)");
  std::smatch g;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    const std::string line = text.substr(start, end - start);
    start = end + 1;
    if (std::regex_search(line, g, entry)) current = g[1];
    if (!current.empty() && std::regex_search(line, g, used)) {
      m[current].registers = std::stoi(g[1]);
      if (std::regex_search(line, g, smem)) m[current].shared = std::stoll(g[1]);
    }
  }
  return m;
}

}  // namespace

TEST_CASE("inspect reports the registers and shared memory nvcc --resource-usage reports",
          "[cli][inspect]") {
  const std::string nvcc = find_nvcc();
  if (nvcc.empty()) {
    WARN("nvcc is not installed: inspect cannot be compared");
    return;
  }
  const std::map<std::string, std::string> kernels = {{"vector_add.cu", "vector_add"},
                                                      {"two_norm.cu", "two_norm_kernel"},
                                                      {"relu_scale.cu", "fused_relu_scale_kernel"},
                                                      {"matmul_tiled.cu", "matmul_tiled"}};
  int compared = 0;
  for (const auto& [file, kernel] : kernels) {
    for (const std::string arch : {"sm_75", "sm_80", "sm_90"}) {
      CAPTURE(file, arch);
      const auto want = nvcc_resource_usage(nvcc, corpus(file), arch);
      REQUIRE(want.size() == 1);
      json j = run_json({"inspect", corpus(file), "--arch", arch, "--json"});
      REQUIRE(j["kernels"].size() == 1);
      const json& k = j["kernels"][0];
      CHECK(k["name"] == kernel);
      REQUIRE(want.count(k["mangled"].get<std::string>()) == 1);
      const Usage& u = want.at(k["mangled"].get<std::string>());
      CHECK(k["registers"] == u.registers);
      CHECK(k["static_shared_bytes"] == u.shared);
      CHECK(k["occupancy"]["registers_per_thread"] == u.registers);
      CHECK(k["occupancy"]["static_shared_bytes"] == u.shared);
      CHECK(k["constant_bank0_bytes"].get<long long>() > 0);
      ++compared;
    }
  }
  CHECK(compared == 12);
}

TEST_CASE("inspect --ptx interleaves the source and explains instructions", "[cli][inspect]") {
  if (find_nvcc().empty()) return;
  auto r = run_gpulab(
      {"inspect", corpus("matmul_tiled.cu"), "--ptx", "--arch", "sm_90", "--threads", "256"});
  CAPTURE(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.out,
             Catch::Contains("Kernel matmul_tiled(float const*, float const*, float*, int)"));
  CHECK_THAT(r.out, Catch::Contains("int row = blockIdx.y * TILE + threadIdx.y;"));
  CHECK_THAT(r.out, Catch::Contains("ld.shared"));
  CHECK_THAT(r.out, Catch::Contains("bar.sync    __syncthreads()"));
  CHECK_THAT(r.out, Catch::Contains("fma.rn.f32  fused multiply-add"));
  CHECK_THAT(r.out, Catch::Contains("limited by warps and registers"));
  json j = run_json({"inspect", corpus("two_norm.cu"), "--ptx", "--json", "--arch", "sm_90"});
  const json& ptx = j["kernels"][0]["ptx"];
  bool source_seen = false;
  for (const json& line : ptx) {
    if (line.contains("source") && line["line"] == 13 &&
        line["source"].get<std::string>().find("a_minus_b[row * m + col] =") != std::string::npos) {
      source_seen = true;
    }
  }
  CHECK(source_seen);
  // The course two-norm kernel: 16 KiB static shared, so 512-thread blocks of it fill an H100 SM
  // 4 times (warps: 64 / 16 = 4) before shared memory binds (233472 / 17408 = 13).
  json occ = run_json({"inspect", corpus("two_norm.cu"), "--json", "--arch", "sm_90", "--threads",
                       "512"})["kernels"][0]["occupancy"];
  CHECK(occ["shared"]["per_block_allocated"] == 16384 + 1024);
  CHECK(occ["blocks_per_sm"] == 4);
}

TEST_CASE("inspect: --sass shows SASS or says what to install; bad input", "[cli][inspect]") {
  if (find_nvcc().empty()) return;
  auto r = run_gpulab({"inspect", corpus("vector_add.cu"), "--sass"});
  CAPTURE(r.out, r.err);
  REQUIRE(r.exit_code == 0);
  if (r.out.find("--sass needs nvdisasm or cuobjdump") == std::string::npos) {
    CHECK_THAT(r.out, Catch::Contains("SASS of vector_add"));
    CHECK_THAT(r.out, Catch::Contains("LDG"));
  } else {
    // Without a SASS tool: said on the screen, with what to install, and the PTX shown instead.
    CHECK_THAT(r.out, Catch::Contains("install"));
    CHECK_THAT(r.out, Catch::Contains("PTX of vector_add"));
    CHECK_THAT(r.out, Catch::Contains("ld.global"));
    const auto j = run_json({"inspect", corpus("vector_add.cu"), "--sass", "--json"});
    CHECK(j["sass_missing"].get<std::string>().find("cuobjdump") != std::string::npos);
  }
  check_usage_error({"inspect", corpus("vector_add.cu"), "--kernel", "nope"},
                    "its kernels: vector_add");
  check_usage_error({"inspect", corpus("vector_add.cu"), "--arch", "90"}, "sm_XY");
  check_usage_error({"inspect", corpus("vector_add.cu"), "--arch", "sm_42"}, "--arch sm_42");
  check_usage_error({"inspect", corpus("vector_add.cu"), "--threads", "2048"}, "--threads 2048");
  check_usage_error({"inspect", "no-such-file.cu"}, "no such file");
  check_usage_error({"inspect"}, "FILE.cu");

  // A file that does not compile: nvcc's message, exit 1.
  const std::string bad =
      (std::filesystem::temp_directory_path() / ("gpulab-bad-" + std::to_string(getpid()) + ".cu"))
          .string();
  {
    FILE* f = fopen(bad.c_str(), "w");
    REQUIRE(f != nullptr);
    fputs("__global__ void k(int* p) { p[0] = undeclared; }\n", f);
    fclose(f);
  }
  auto c = run_gpulab({"inspect", bad});
  std::filesystem::remove(bad);
  CHECK(c.exit_code == 1);
  CHECK_THAT(c.err, Catch::Contains("nvcc could not compile"));
  CHECK_THAT(c.err, Catch::Contains("undeclared"));
}
