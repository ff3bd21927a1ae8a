// The screen of a student's exercise file (src/exercise/screen.hpp): every course solution,
// starter and planted mistake passes it; every forgery of tests/exercise/forgeries is refused
// with words naming what (its "// expect:" line), on the line where it stands.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "exercise/catalog.hpp"
#include "exercise/screen.hpp"

namespace fs = std::filesystem;
using namespace gpulab::exercise;

namespace {

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string expected_words(const std::string& text) {
  const auto at = text.find("// expect: ");
  if (at == std::string::npos) return "";
  const auto end = text.find('\n', at);
  return text.substr(at + 11, end - at - 11);
}

std::string all_messages(const std::vector<Refusal>& r) {
  std::string s;
  for (const Refusal& f : r) s += f.text.en + "\n";
  return s;
}

}  // namespace

TEST_CASE("exercise screen: course solutions, starters and planted mistakes are accepted",
          "[exercise][screen]") {
  for (const Exercise& e : all()) {
    CAPTURE(e.id);
    CHECK(all_messages(screen_source(starter_file(e, gpulab::Lang::en))).empty());
    CHECK(all_messages(screen_source(starter_file(e, gpulab::Lang::zh))).empty());
    CHECK(all_messages(screen_source(e.solution)).empty());
    for (const Mistake& m : e.mistakes) {
      CAPTURE(m.name);
      CHECK(all_messages(screen_source(m.code)).empty());
    }
    CHECK_FALSE(kernel_declarations(e.starter).empty());
  }
}

TEST_CASE("exercise screen: honest device code is accepted", "[exercise][screen]") {
  const std::string honest = R"(// gpulab exercise: dot
#include <cstdio>
#include <cmath>
#define BLOCK 256
constexpr int kWarp = 32;
__constant__ float kScale = 2.0f;
__device__ int hits = 0;
namespace helpers {
template <typename T>
__device__ __forceinline__ T square(T v) { return v * v; }
}
struct Pair {
  float a, b;
  __device__ float sum() const { return a + b; }
};
__device__ float warp_sum(float v) {
  for (int o = kWarp / 2; o > 0; o /= 2) v += __shfl_down_sync(0xffffffffu, v, o);
  return v;
}
__global__ void dot(const float* a, const float* b, float* out, int n) {
  __shared__ float partial[BLOCK];
  extern __shared__ float more[];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = i < n ? a[i] * b[i] : 0.0f;
  if (i == 0) printf("thread %d: %f\n", i, v);
  Pair p{v, 0.0f};
  partial[threadIdx.x] = helpers::square(sqrtf(fabsf(p.sum())));
  __syncthreads();
  if (threadIdx.x == 0) atomicAdd(out, warp_sum(partial[0]) * kScale);
}
)";
  CHECK(all_messages(screen_source(honest)).empty());
}

TEST_CASE("exercise screen: every forgery is refused with words naming what, at its line",
          "[exercise][screen]") {
  const fs::path dir = fs::path(GPULAB_SOURCE_DIR) / "tests/exercise/forgeries";
  int files = 0;
  for (const auto& f : fs::directory_iterator(dir)) {
    const std::string text = slurp(f.path());
    const std::string expect = expected_words(text);
    CAPTURE(f.path().filename().string(), expect);
    REQUIRE_FALSE(expect.empty());
    const std::vector<Refusal> r = screen_source(text);
    REQUIRE_FALSE(r.empty());
    CHECK_THAT(all_messages(r), Catch::Contains(expect));
    for (const Refusal& x : r) {
      CHECK(x.line > 2);  // the marker and the expect line are comments
      CHECK_FALSE(x.text.zh.empty());
      CHECK(x.text.en.rfind("line " + std::to_string(x.line) + ": ", 0) == 0);
    }
    ++files;
  }
  CHECK(files >= 30);
}

TEST_CASE("exercise screen: the kernels a starter declares", "[exercise][screen]") {
  const auto d = kernel_declarations(
      "#define TILE 16\n__global__ void k(const float* a,\n    int n) {\n}\n"
      "__global__ void finish(float* s) {}\n");
  REQUIRE(d.size() == 2);
  CHECK(d[0] == "__global__ void k(const float* a,\n    int n);");
  CHECK(d[1] == "__global__ void finish(float* s);");
}
