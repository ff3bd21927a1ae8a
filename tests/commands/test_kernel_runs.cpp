// The kernel commands' run_* functions: on the emulator against float64 host references, and
// with a deliberately broken backend, to prove the verification catches a wrong kernel.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <random>

#include "backend/backend.hpp"
#include "commands/index_map.hpp"
#include "commands/twonorm.hpp"
#include "commands/twonorm_ladder.hpp"
#include "commands/vecadd.hpp"
#include "commands/warp_measure.hpp"

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
  KernelRun two_norm_ladder(LadderStep, const LaunchShape&, const float*, const float*, double*,
                            long long) override {
    return {};
  }
  KernelRun write_indices(const LaunchShape& s, unsigned* records) override {
    records[6] = 12345;  // thread 0 claims a wrong global index
    (void)s;
    return {};
  }
  KernelRun latency_probe(const LaunchShape& s, const LatencyProbeArgs& p) override {
    const std::uint64_t warps = s.grid.x * s.block.x / 32;
    for (std::uint64_t w = 0; w < warps; ++w) {
      p.ends[w] = p.starts[w];  // every warp claims it never moved
      p.clocks[2 * w] = 0;
      p.clocks[2 * w + 1] = 100;
      p.sms[w] = 0;
    }
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

TEST_CASE("twonorm --kernel all on the emulator: every step matches float64",
          "[kernels][twonorm]") {
  auto backend = make_emulator_backend({});
  const std::uint64_t seed = fresh_seed();
  CAPTURE(seed);
  // Around the block size (256), two blocks' worth (512), and the course kernel's 4096 limit.
  for (auto [rows, cols] : {std::pair<std::int64_t, std::int64_t>{1, 1},
                            {1, 255},
                            {16, 16},
                            {257, 1},
                            {1, 511},
                            {513, 1},
                            {64, 64},
                            {4097, 1},
                            {301, 77}}) {
    CAPTURE(rows, cols);
    TwoNormOptions o;
    o.rows = rows;
    o.cols = cols;
    o.seed = seed;
    o.kernel = TwoNormKernel::all;
    const LadderResult r = run_twonorm_ladder(o, *backend);
    const auto n = static_cast<std::uint64_t>(rows * cols);
    REQUIRE(r.steps.size() == 6);
    CHECK(r.verified());
    CHECK(r.reference > 0);
    CHECK(r.steps[0].skipped_why.empty() == (n <= 4096));
    for (const auto& s : r.steps) {
      CAPTURE(s.name);
      if (!s.skipped_why.empty()) continue;
      CHECK(s.verified);
      CHECK(s.relative_error <= s.tolerance);
      CHECK(std::isfinite(s.result));
    }
    // One element per thread, then two, then the grid-stride grid.
    CHECK(r.steps[1].launches[0].shape.grid.x == (n + 255) / 256);
    CHECK(r.steps[2].launches[0].shape.grid.x == (n + 255) / 256);
    CHECK(r.steps[3].launches[0].shape.grid.x == (n + 511) / 512);
    CHECK(r.steps[4].launches[0].shape.grid.x == (n + 511) / 512);
    CHECK(r.steps[5].launches[0].shape.grid.x == std::min<std::uint64_t>((n + 255) / 256, 1024));
    CHECK(r.steps[5].launches[1].kernel == "two_norm_finish");
    CHECK_FALSE(r.copy.has_value());
  }
}

TEST_CASE("twonorm --kernel all --bench: one copy peak for every step", "[kernels][twonorm]") {
  auto backend = make_emulator_backend({});
  TwoNormOptions o;
  o.rows = 100;
  o.cols = 30;
  o.seed = fresh_seed();
  o.bench_reps = 2;
  const LadderResult r = run_twonorm_ladder(o, *backend);
  REQUIRE(r.copy.has_value());
  CHECK(r.copy->gbs > 0);
  for (const auto& s : r.steps) {
    CAPTURE(s.name);
    REQUIRE(s.bench.has_value());
    CHECK(s.bench->reps == 2);
    CHECK(s.bench->median_ms > 0);
    CHECK(s.bench->copy_gbs == r.copy->gbs);
    CHECK(s.bench->bytes == 2.0 * 3000 * 4);
    CHECK(s.bench->fraction_of_copy == Approx(s.bench->gbs / r.copy->gbs));
  }
}

TEST_CASE("The ladder's verification catches wrong steps", "[kernels][twonorm]") {
  BrokenBackend broken;  // the ladder kernels write nothing and the finish says 1.0
  TwoNormOptions o;
  o.rows = 10;
  o.cols = 10;
  o.seed = fresh_seed();
  const LadderResult r = run_twonorm_ladder(o, broken);
  CHECK_FALSE(r.verified());
  for (const auto& s : r.steps) CHECK_FALSE(s.verified);
}

TEST_CASE("probe_warp_counts: 1, 2, 3, 4, 6, 8, ... up to the SM's maximum", "[kernels][warp]") {
  CHECK(probe_warp_counts(64) == std::vector<int>{1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64});
  CHECK(probe_warp_counts(48) == std::vector<int>{1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48});
  CHECK(probe_warp_counts(32) == std::vector<int>{1, 2, 3, 4, 6, 8, 12, 16, 24, 32});
  CHECK(probe_warp_counts(40) == std::vector<int>{1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 40});
  CHECK(probe_warp_counts(1) == std::vector<int>{1});
}

TEST_CASE("warp-hiding --measure on the emulator: every chain ends where the host says",
          "[kernels][warp]") {
  auto backend = make_emulator_backend({});
  MeasureOptions o;
  o.ops = 8;
  o.steps = 5;
  o.seed = fresh_seed();
  CAPTURE(o.seed);
  const MeasureResult r = run_warp_measure(o, *backend);
  CHECK(r.verified);
  CHECK(r.sms == 1);
  CHECK(r.steps == 5);
  REQUIRE(r.points.size() == probe_warp_counts(64).size());
  for (const auto& p : r.points) {
    CAPTURE(p.warps_per_sm);
    CHECK(p.verified);
    CHECK(p.blocks_per_sm * p.threads_per_block == 32 * p.warps_per_sm);
    CHECK(p.threads_per_block <= 1024);
    CHECK(p.min_warps_seen_per_sm == p.warps_per_sm);
    CHECK(p.max_warps_seen_per_sm == p.warps_per_sm);
    CHECK(p.cycles_per_step > 0);
    CHECK(p.fma_per_cycle_per_sm == Approx(p.warps_per_sm * 8.0 / p.cycles_per_step));
  }
  CHECK(r.best_fma_per_cycle > 0);
  CHECK(r.saturation_warps_per_sm >= 1);
  // The calculator, from the measured latency: ceil(L / (K x C)) per scheduler, times 4.
  CHECK(r.prediction.ops == 8);
  CHECK(r.predicted_warps_per_sm == 4 * r.prediction.warps_needed);
}

TEST_CASE("warp-hiding --measure's check catches a kernel that did not walk", "[kernels][warp]") {
  BrokenBackend broken;
  MeasureOptions o;
  o.steps = 3;
  o.seed = fresh_seed();
  const MeasureResult r = run_warp_measure(o, broken);
  CHECK_FALSE(r.verified);
  for (const auto& p : r.points) CHECK_FALSE(p.verified);
}
