// On a real GPU: every gpulab kernel gives the emulator's results, and bad launches fail with the
// same CUDA error name on both backends. Run on the device machine: ctest -L gpu.
#include <catch2/catch.hpp>

#include <random>
#include <set>

#include "backend/backend.hpp"
#include "commands/hello.hpp"
#include "commands/index_map.hpp"
#include "commands/twonorm.hpp"
#include "commands/twonorm_ladder.hpp"
#include "commands/vecadd.hpp"
#include "commands/warp_measure.hpp"
#include "core/error.hpp"

using namespace gpulab;

#if GPULAB_HAVE_CUDA

namespace {

std::uint64_t fresh_seed() {
  std::random_device rd;
  return (static_cast<std::uint64_t>(rd()) << 32) | rd();
}

std::string launch_error(Backend& b, const LaunchShape& s) {
  DeviceBuffer<int> buf(b, 4);
  try {
    b.vector_add(s, buf.get(), buf.get(), buf.get(), 4);
  } catch (const CudaError& e) {
    return e.error_name();
  }
  return "(no error)";
}

}  // namespace

TEST_CASE("vecadd: the GPU's integers equal the emulator's, bit for bit", "[gpu]") {
  auto gpu = make_cuda_backend(0);
  auto emu = make_emulator_backend({});
  const std::uint64_t seed = fresh_seed();
  CAPTURE(seed);
  for (std::int64_t n : {1, 255, 256, 257, 1000}) {
    CAPTURE(n);
    VecaddOptions o;
    o.n = n;
    o.block = 256;
    o.seed = seed;
    VecaddResult a = run_vecadd(o, *gpu);
    VecaddResult b = run_vecadd(o, *emu);
    CHECK(a.backend == "cuda");
    CHECK(a.verified);
    CHECK(b.verified);
    REQUIRE(a.elements.size() == b.elements.size());
    for (std::size_t i = 0; i < a.elements.size(); ++i) CHECK(a.elements[i].c == b.elements[i].c);
  }
  VecaddOptions big;
  big.n = 1 << 24;
  big.seed = seed;
  CHECK(run_vecadd(big, *gpu).verified);
}

TEST_CASE("twonorm: GPU and emulator agree with float64 and with each other", "[gpu]") {
  auto gpu = make_cuda_backend(0);
  auto emu = make_emulator_backend({});
  const std::uint64_t seed = fresh_seed();
  CAPTURE(seed);
  for (auto [rows, cols] :
       {std::pair<std::int64_t, std::int64_t>{1, 1}, {32, 14}, {64, 64}, {33, 77}}) {
    for (TwoNormKernel k : {TwoNormKernel::course, TwoNormKernel::reduce}) {
      CAPTURE(rows, cols, k == TwoNormKernel::course);
      TwoNormOptions o;
      o.rows = rows;
      o.cols = cols;
      o.kernel = k;
      o.seed = seed;
      TwoNormResult a = run_twonorm(o, *gpu);
      TwoNormResult b = run_twonorm(o, *emu);
      CHECK(a.verified);
      CHECK(b.verified);
      CHECK(a.result == Approx(b.result).epsilon(2 * a.tolerance));
    }
  }
  TwoNormOptions large;
  large.rows = 4096;
  large.cols = 4096;
  large.seed = seed;
  TwoNormResult r = run_twonorm(large, *gpu);
  CHECK(r.verified);
  CHECK(r.relative_error < 1e-5);
}

TEST_CASE("twonorm --kernel all: every step on the GPU matches float64 and the emulator", "[gpu]") {
  auto gpu = make_cuda_backend(0);
  auto emu = make_emulator_backend({});
  const std::uint64_t seed = fresh_seed();
  CAPTURE(seed);
  for (auto [rows, cols] :
       {std::pair<std::int64_t, std::int64_t>{1, 1}, {1, 257}, {64, 64}, {301, 77}, {1000, 1001}}) {
    CAPTURE(rows, cols);
    TwoNormOptions o;
    o.rows = rows;
    o.cols = cols;
    o.seed = seed;
    o.kernel = TwoNormKernel::all;
    const LadderResult a = run_twonorm_ladder(o, *gpu);
    const LadderResult b = run_twonorm_ladder(o, *emu);
    CHECK(a.verified());
    CHECK(b.verified());
    REQUIRE(a.steps.size() == b.steps.size());
    for (std::size_t i = 0; i < a.steps.size(); ++i) {
      CAPTURE(a.steps[i].name);
      CHECK(a.steps[i].skipped_why == b.steps[i].skipped_why);
      if (!a.steps[i].skipped_why.empty()) continue;
      CHECK(a.steps[i].verified);
      CHECK(a.steps[i].result == Approx(b.steps[i].result).epsilon(2 * a.steps[i].tolerance));
    }
  }
  TwoNormOptions large;  // 2^24 elements, every step but the course kernel, timed
  large.rows = 4096;
  large.cols = 4096;
  large.seed = seed;
  large.kernel = TwoNormKernel::all;
  large.bench_reps = 3;
  const LadderResult r = run_twonorm_ladder(large, *gpu);
  CHECK(r.verified());
  CHECK_FALSE(r.steps[0].skipped_why.empty());
  REQUIRE(r.copy.has_value());
  CHECK(r.copy->gbs > 100);
  for (std::size_t i = 1; i < r.steps.size(); ++i) {
    CAPTURE(r.steps[i].name);
    REQUIRE(r.steps[i].bench.has_value());
    CHECK(r.steps[i].relative_error < 1e-5);
    CHECK(r.steps[i].bench->gbs > 0);
  }
  // The ladder climbs: the grid-stride kernel beats the interleaved one by a wide margin.
  CHECK(r.steps[1].bench->median_ms > 2 * r.steps[5].bench->median_ms);
}

TEST_CASE("warp-hiding --measure on the GPU: more warps hide the latency", "[gpu]") {
  auto gpu = make_cuda_backend(0);
  const DeviceFacts f = gpu->device_facts();
  MeasureOptions o;
  o.steps = 200;
  o.seed = fresh_seed();
  CAPTURE(o.seed);
  const MeasureResult r = run_warp_measure(o, *gpu);
  CHECK(r.verified);
  CHECK(r.arch_known);
  CHECK(r.sms == f.sm_count);
  CHECK(r.max_warps_per_sm == f.max_threads_per_sm / 32);
  CHECK(r.table_bytes >= 4 * static_cast<std::uint64_t>(f.l2_bytes));
  // A DRAM access takes hundreds of cycles on every GPU gpulab knows.
  CHECK(r.latency_cycles > 150);
  CHECK(r.latency_cycles < 5000);
  const double limit = static_cast<double>(r.schedulers) / r.cycles_per_fma;
  for (const auto& p : r.points) {
    CAPTURE(p.warps_per_sm);
    CHECK(p.verified);
    // Every SM really held W warps: the blocks spread evenly, as the rate per SM assumes.
    CHECK(p.min_warps_seen_per_sm == p.warps_per_sm);
    CHECK(p.max_warps_seen_per_sm == p.warps_per_sm);
    CHECK(p.fma_per_cycle_per_sm <= 1.02 * limit);
  }
  // Latency hiding: the full SM does several times the work of a lone warp per cycle.
  CHECK(r.points.back().fma_per_cycle_per_sm > 4 * r.points.front().fma_per_cycle_per_sm);
  CHECK(r.saturation_warps_per_sm > 1);
}

TEST_CASE("index-map --run and hello on the GPU", "[gpu]") {
  auto gpu = make_cuda_backend(0);
  IndexMapOptions o;
  o.grid = {3, 2, 2};
  o.block = {5, 3, 2};
  o.rank = 3;
  o.run = true;
  IndexMapResult r = run_index_map(o, gpu.get());
  REQUIRE(r.run);
  CHECK(r.run->backend == "cuda");
  CHECK(r.run->mismatches == 0);
  CHECK(r.run->checked == 360);
  HelloResult h = run_hello({3, 40}, *gpu);
  CHECK(h.complete);
  CHECK(h.lines.size() == 120);
}

TEST_CASE("Bad launches fail with the same CUDA error name on the GPU and the emulator", "[gpu]") {
  auto gpu = make_cuda_backend(0);
  auto emu = make_emulator_backend({});
  const LaunchShape bad[] = {
      {{1, 1, 1}, {1025, 1, 1}, 0},          {{1, 1, 1}, {1, 1, 65}, 0},
      {{1, 1, 1}, {32, 33, 1}, 0},           {{1, 65536, 1}, {32, 1, 1}, 0},
      {{2147483648ULL, 1, 1}, {1, 1, 1}, 0}, {{1, 1, 1}, {32, 1, 1}, 48 * 1024 + 1},
  };
  for (const auto& s : bad) {
    CAPTURE(s.grid.x, s.grid.y, s.block.x, s.block.y, s.block.z, s.shared_bytes);
    const std::string g = launch_error(*gpu, s);
    CHECK(g != "(no error)");
    CHECK(launch_error(*emu, s) == g);
  }
}

#endif
