// The kernel commands' run_* functions: on the emulator against float64 host references, and
// with a deliberately broken backend, to prove the verification catches a wrong kernel.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <random>

#include "backend/backend.hpp"
#include "commands/index_map.hpp"
#include "commands/twonorm.hpp"
#include "commands/vecadd.hpp"

using namespace gpulab;

namespace {

std::uint64_t fresh_seed() {
  std::random_device rd;
  return (static_cast<std::uint64_t>(rd()) << 32) | rd();
}

// Host memory, and kernels that are wrong on purpose: each breaks one element.
class BrokenBackend final : public Backend {
 public:
  BackendKind kind() const override { return BackendKind::emulator; }
  std::string device_name() const override { return "broken test backend"; }
  void* alloc(std::size_t bytes) override { return ::operator new(bytes == 0 ? 1 : bytes); }
  void release(void* p) noexcept override { ::operator delete(p); }
  double to_device(void* d, const void* s, std::size_t n) override { return copy(d, s, n); }
  double to_host(void* d, const void* s, std::size_t n) override { return copy(d, s, n); }
  double device_copy(void* d, const void* s, std::size_t n) override { return copy(d, s, n); }
  std::size_t free_memory() const override { return SIZE_MAX; }
  KernelRun hello(const LaunchShape&) override { return {}; }
  KernelRun vector_add(const LaunchShape&, const int* a, const int* b, int* c, int n) override {
    for (int i = 0; i < n - 1; ++i) c[i] = a[i] + b[i];  // forgets the last element
    return {};
  }
  KernelRun two_norm_course(const LaunchShape&, const float*, const float*, float* c, int,
                            int) override {
    *c = 1.0f;
    return {};
  }
  KernelRun two_norm_partials(const LaunchShape&, const float*, const float*, double*,
                              long long) override {
    return {};
  }
  KernelRun two_norm_finish(const LaunchShape&, const double*, int, double* result) override {
    *result = 1.0;
    return {};
  }
  KernelRun write_indices(const LaunchShape& s, unsigned* records) override {
    records[6] = 12345;  // thread 0 claims a wrong global index
    (void)s;
    return {};
  }

 private:
  static double copy(void* d, const void* s, std::size_t n) {
    std::memcpy(d, s, n);
    return 0;
  }
};

}  // namespace

TEST_CASE("vecadd on the emulator: exact for edge and random sizes", "[kernels][vecadd]") {
  auto backend = make_emulator_backend({});
  const std::uint64_t seed = fresh_seed();
  CAPTURE(seed);
  std::mt19937_64 gen(seed);
  for (std::int64_t block : {1, 32, 256, 1024}) {
    for (std::int64_t n : {std::int64_t{1}, block - 1, block, block + 1, 3 * block + 7,
                           std::int64_t(gen() % 50000 + 1)}) {
      if (n < 1) continue;
      CAPTURE(block, n);
      VecaddOptions o;
      o.n = n;
      o.block = block;
      o.seed = seed;
      VecaddResult r = run_vecadd(o, *backend);
      CHECK(r.verified);
      CHECK(r.grid == (n + block - 1) / block);
      CHECK(r.idle_threads == r.grid * block - n);
    }
  }
}

TEST_CASE("vecadd's verification catches an element the kernel did not write",
          "[kernels][vecadd]") {
  BrokenBackend broken;
  VecaddOptions o;
  o.n = 100;
  o.block = 32;
  o.seed = fresh_seed();
  VecaddResult r = run_vecadd(o, broken);
  CHECK_FALSE(r.verified);
  CHECK(r.mismatches == 1);
  REQUIRE(r.first_mismatch);
  CHECK(r.first_mismatch->index == 99);
}

TEST_CASE("twonorm on the emulator matches float64 for edge sizes", "[kernels][twonorm]") {
  auto backend = make_emulator_backend({});
  const std::uint64_t seed = fresh_seed();
  CAPTURE(seed);
  for (auto [rows, cols] : {std::pair<std::int64_t, std::int64_t>{1, 1},
                            {1, 255},
                            {16, 16},
                            {257, 1},
                            {64, 64},
                            {33, 77}}) {
    CAPTURE(rows, cols);
    TwoNormOptions o;
    o.rows = rows;
    o.cols = cols;
    o.seed = seed;
    o.kernel = TwoNormKernel::course;
    TwoNormResult c = run_twonorm(o, *backend);
    CHECK(c.verified);
    CHECK(c.relative_error < 1e-4);
    o.kernel = TwoNormKernel::reduce;
    TwoNormResult r = run_twonorm(o, *backend);
    CHECK(r.verified);
    CHECK(r.relative_error < 1e-5);
    CHECK(r.reference > 0);
  }
  TwoNormOptions big;
  big.rows = 1000;
  big.cols = 1001;
  big.seed = seed;
  TwoNormResult r = run_twonorm(big, *backend);
  CHECK(r.verified);
  CHECK(r.launches.size() == 2);
  CHECK(r.launches[0].shape.grid.x == 1024);
}

TEST_CASE("twonorm's verification catches a wrong result", "[kernels][twonorm]") {
  BrokenBackend broken;
  TwoNormOptions o;
  o.rows = 10;
  o.cols = 10;
  o.seed = fresh_seed();
  CHECK_FALSE(run_twonorm(o, broken).verified);
  o.kernel = TwoNormKernel::course;
  CHECK_FALSE(run_twonorm(o, broken).verified);
}

TEST_CASE("index-map --run on the emulator agrees with the table; a wrong kernel does not",
          "[kernels][index]") {
  IndexMapOptions o;
  o.grid = {3, 2, 2};
  o.block = {5, 3, 2};
  o.rank = 3;
  o.run = true;
  auto backend = make_emulator_backend({});
  IndexMapResult r = run_index_map(o, backend.get());
  REQUIRE(r.run);
  CHECK(r.run->checked == 12 * 30);
  CHECK(r.run->mismatches == 0);
  BrokenBackend broken;
  IndexMapResult bad = run_index_map(o, &broken);
  REQUIRE(bad.run);
  CHECK(bad.run->mismatches == 12 * 30);  // nothing but one word was written: all differ
}
