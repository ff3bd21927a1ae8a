// Tests of warp shuffles, votes, __activemask and block barriers against hand-worked expectations.
#include <catch2/catch.hpp>

#include <algorithm>
#include <bit>
#include <cfenv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "checked_kernels.hpp"
#include "kernels/prelude.cuh"
#include "simt/simt.hpp"
#include "test_util.hpp"

namespace simt_test::primitives {
#include "primitives.cuh"
}  // namespace simt_test::primitives

namespace {

using gpulab::simt::launch;
using simt_test::DeviceArray;
namespace k = simt_test::primitives;

// Expected source lane of each shuffle, from the CUDA Programming Guide's wording (not from the
// emulator's PTX-based code): the warp is cut into segments of `width` lanes.
unsigned expected_source(int mode, unsigned lane, int arg, int width) {
  const unsigned w = static_cast<unsigned>(width);
  const unsigned seg = lane / w * w;
  const unsigned pos = lane % w;
  switch (mode) {
    case 0: {  // srcLane modulo width, within the segment
      const int m = ((arg % width) + width) % width;
      return seg + static_cast<unsigned>(m);
    }
    case 1:  // up: lanes whose position is below delta keep their value
      return pos >= static_cast<unsigned>(arg) ? lane - static_cast<unsigned>(arg) : lane;
    case 2:  // down: lanes whose source would leave the segment keep their value
      return pos + static_cast<unsigned>(arg) < w ? lane + static_cast<unsigned>(arg) : lane;
    default: {  // xor: earlier segments may be read, later ones give the lane's own value
      const unsigned j = lane ^ static_cast<unsigned>(arg);
      return j < seg + w ? j : lane;
    }
  }
}

template <class T>
std::vector<T> random_values(std::mt19937_64& rng, std::size_t n) {
  std::vector<T> v(n);
  for (auto& x : v) {
    const std::uint64_t r = rng();
    if constexpr (std::is_floating_point_v<T>) {
      x = static_cast<T>(static_cast<double>(r % 2000001) / 7.0 - 140000.0 + 0.25);
    } else {
      x = static_cast<T>(r | 1u);  // never zero
    }
  }
  return v;
}

template <class T>
void check_shuffles(std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  constexpr unsigned kThreads = 64, kBlocks = 3, kN = kThreads * kBlocks;
  const std::vector<T> host = random_values<T>(rng, kN);
  DeviceArray<T> in(host);
  DeviceArray<T> out(kN);
  const int args[] = {0, 1, 2, 3, 5, 7, 8, 13, 16, 17, 31, -1, -6, 40};
  for (int mode = 0; mode < 4; ++mode) {
    for (const int width : {32, 16, 8, 4, 2, 1}) {
      for (const int arg : args) {
        if (mode != 0 && (arg < 0 || arg > 31)) continue;  // deltas and lane masks are 0..31
        launch(k::shuffle_kernel<T>, kBlocks, kThreads, 0, simt_test::workers(1), in.get(),
               out.get(), mode, arg, width);
        for (unsigned t = 0; t < kN; ++t) {
          const unsigned lane = t % 32;
          const unsigned src = t - lane + expected_source(mode, lane, arg, width);
          if (out[t] != host[src]) {
            INFO("mode " << mode << " width " << width << " arg " << arg << " thread " << t);
            REQUIRE(out[t] == host[src]);
          }
        }
      }
    }
  }
}

}  // namespace

TEST_CASE("shuffles follow CUDA for every variant, value type and width", "[simt][shuffle]") {
  const std::uint64_t seed = simt_test::fresh_seed();
  CAPTURE(seed);
  check_shuffles<int>(seed);
  check_shuffles<unsigned>(seed + 1);
  check_shuffles<long long>(seed + 2);
  check_shuffles<unsigned long long>(seed + 3);
  check_shuffles<float>(seed + 4);
  check_shuffles<double>(seed + 5);
}

TEST_CASE("shuffles: hand-worked lanes", "[simt][shuffle]") {
  const std::uint64_t seed = simt_test::fresh_seed();
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  const std::vector<int> host = random_values<int>(rng, 32);
  DeviceArray<int> in(host);
  DeviceArray<int> out(32);
  const auto run = [&](int mode, int arg, int width) {
    launch(k::shuffle_kernel<int>, 1, 32, 0, {}, in.get(), out.get(), mode, arg, width);
    return out.to_host();
  };
  auto r = run(0, 3, 8);  // segment of lane 13 is 8-15: its lane 3 is lane 11
  CHECK(r[13] == host[11]);
  CHECK(r[2] == host[3]);
  r = run(0, -1, 8);  // -1 modulo 8 is 7
  CHECK(r[9] == host[15]);
  r = run(0, 35, 32);  // 35 modulo 32 is 3
  CHECK(r[20] == host[3]);
  r = run(1, 2, 8);  // up 2: lane 9 is at position 1 of its segment, keeps its own value
  CHECK(r[9] == host[9]);
  CHECK(r[10] == host[8]);
  CHECK(r[0] == host[0]);
  r = run(2, 3, 16);  // down 3: lane 13 would read lane 16, in the next segment
  CHECK(r[13] == host[13]);
  CHECK(r[12] == host[15]);
  CHECK(r[31] == host[31]);
  r = run(3, 16,
          16);  // xor 16 with width 16: lane 3 would read a later segment, lane 19 an earlier
  CHECK(r[3] == host[3]);
  CHECK(r[19] == host[3]);
  r = run(3, 1, 32);  // butterfly
  CHECK(r[6] == host[7]);
  CHECK(r[7] == host[6]);
  // Deltas and lane masks count by their low 5 bits, as measured on an H100 (CUDA 13).
  r = run(1, 33, 32);
  CHECK(r[5] == host[4]);
  r = run(2, 32, 32);
  CHECK(r[5] == host[5]);
  r = run(3, 35, 32);
  CHECK(r[0] == host[3]);
}

TEST_CASE("a shuffle over a partial mask", "[simt][shuffle]") {
  const std::uint64_t seed = simt_test::fresh_seed();
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  const std::vector<int> host = random_values<int>(rng, 64);
  DeviceArray<int> in(host);
  DeviceArray<int> out(64, -3);
  launch(k::partial_shuffle_kernel, 1, 64, 0, {}, in.get(), out.get());
  for (unsigned t = 0; t < 64; ++t) {
    const unsigned lane = t % 32;
    if (lane >= 16) {
      CHECK(out[t] == -3);
    } else if (lane < 8) {
      CHECK(out[t] == host[t + 8]);
    } else {
      CHECK(out[t] == 0);  // source outside the mask: undefined; 0, as an H100 returned
    }
  }
}

TEST_CASE("check mode reports a shuffle that reads outside its mask", "[simt][shuffle]") {
  if (!gpulab::simt::check_supported()) return;  // a ThreadSanitizer build has no check mode
  DeviceArray<int> in(64, 7);
  DeviceArray<int> out(64, -3);
  try {
    simt_test::checked::partial_shuffle(in.get(), out.get());
    FAIL("no fault");
  } catch (const gpulab::simt::KernelFault& f) {
    CHECK(f.kind() == gpulab::simt::KernelFault::Kind::invalid_argument);
    CHECK(std::string(f.what()) ==
          "block (0,0,0): warp 0: lane 8 (thread 8) calls __shfl_down_sync at " +
              simt_test::site("primitives.cuh", "partial-shuffle") +
              " and reads lane 16, which is outside the mask 0x0000ffff; lanes 9-15 read outside "
              "the mask too. The value read is undefined on a GPU (an H100 gave 0 or the source "
              "lane's value): include "
              "the source lane in the mask, or do not use the value");
  }
}

TEST_CASE("ballot, any and all with full and partial masks", "[simt][vote]") {
  const std::uint64_t seed = simt_test::fresh_seed();
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  constexpr unsigned kThreads = 96;
  constexpr unsigned kSentinel = 0xdeadbeefu;
  for (const unsigned mask : {0xffffffffu, 0x55555555u, 0x0000ff00u, 0x80000001u, 0x00000010u}) {
    for (const int density : {0, 30, 100}) {  // percent of true predicates
      CAPTURE(mask, density);
      std::vector<int> pred(kThreads);
      for (auto& p : pred) {
        p = static_cast<int>(rng() % 100) < density ? static_cast<int>(rng() % 1000) + 1 : 0;
      }
      DeviceArray<int> d_pred(pred);
      DeviceArray<unsigned> ballot(kThreads, kSentinel);
      DeviceArray<int> any(kThreads, -7), all(kThreads, -7);
      launch(k::vote_kernel, 1, kThreads, 0, {}, d_pred.get(), ballot.get(), any.get(), all.get(),
             mask);
      for (unsigned t = 0; t < kThreads; ++t) {
        const unsigned lane = t % 32, base = t - lane;
        if ((mask >> lane & 1u) == 0) {
          CHECK(ballot[t] == kSentinel);
          CHECK(any[t] == -7);
          continue;
        }
        unsigned expect = 0;
        for (unsigned l = 0; l < 32; ++l) {
          if ((mask >> l & 1u) != 0 && pred[base + l] != 0) expect |= 1u << l;
        }
        CHECK(ballot[t] == expect);
        CHECK(any[t] == (expect != 0 ? 1 : 0));
        CHECK(all[t] == (expect == mask ? 1 : 0));
      }
    }
  }
}

TEST_CASE("__activemask reports the lanes that reach it together", "[simt][vote]") {
  for (const unsigned threads : {64u, 40u}) {
    for (const unsigned limit : {32u, 20u, 3u}) {
      CAPTURE(threads, limit);
      DeviceArray<unsigned> first(threads, 0xdeadbeefu), second(threads, 0xdeadbeefu);
      launch(k::activemask_kernel, 1, threads, 0, {}, first.get(), second.get(), limit);
      for (unsigned t = 0; t < threads; ++t) {
        const unsigned lane = t % 32, base = t - lane;
        const unsigned in_warp = std::min(32u, threads - base);
        const unsigned live = std::min(limit, in_warp);
        const unsigned all_live = live == 32 ? 0xffffffffu : (1u << live) - 1;
        if (lane >= limit) {
          CHECK(first[t] == 0xdeadbeefu);
          continue;
        }
        CHECK(first[t] == all_live);
        if (lane < 5) {
          CHECK(second[t] == (1u << std::min(5u, live)) - 1);
        }
      }
    }
  }
}

TEST_CASE("__syncthreads_count, _and, _or and barrier statistics", "[simt][barrier]") {
  const std::uint64_t seed = simt_test::fresh_seed();
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  constexpr unsigned kThreads = 100, kBlocks = 6;
  std::vector<int> pred(kThreads * kBlocks);
  for (unsigned b = 0; b < kBlocks; ++b) {
    // Block 0 all true, block 1 all false, the others random densities.
    const unsigned density = b == 0 ? 100 : b == 1 ? 0 : static_cast<unsigned>(rng() % 100);
    for (unsigned t = 0; t < kThreads; ++t) {
      pred[b * kThreads + t] = rng() % 100 < density ? static_cast<int>(rng() % 50) + 1 : 0;
    }
  }
  DeviceArray<int> d_pred(pred);
  DeviceArray<int> count(pred.size(), -1), all(pred.size(), -1), any(pred.size(), -1);
  const auto stats = launch(k::block_vote_kernel, kBlocks, kThreads, 0, simt_test::workers(2),
                            d_pred.get(), count.get(), all.get(), any.get());
  for (unsigned b = 0; b < kBlocks; ++b) {
    int n = 0;
    for (unsigned t = 0; t < kThreads; ++t) n += pred[b * kThreads + t] != 0;
    for (unsigned t = 0; t < kThreads; ++t) {
      const unsigned i = b * kThreads + t;
      CHECK(count[i] == n);
      CHECK(all[i] == (n == static_cast<int>(kThreads) ? 1 : 0));
      CHECK(any[i] == (n > 0 ? 1 : 0));
    }
  }
  CHECK(stats.barriers_crossed == 3 * kBlocks);
  CHECK(stats.blocks_on_fibers == kBlocks);
  CHECK(stats.warps_per_block == 4);
  CHECK(stats.idle_lanes_last_warp == 28);
}

TEST_CASE("threadIdx in 3D blocks, before and after a barrier", "[simt][barrier]") {
  const dim3 block(4, 3, 5), grid(2, 3, 2);
  const unsigned per_block = 60, n = per_block * 12;
  for (const int use_barrier : {0, 1}) {
    CAPTURE(use_barrier);
    DeviceArray<unsigned> out(n, 0xffffffffu), after(n, 0xffffffffu);
    const auto stats = launch(k::index_kernel, grid, block, 0, simt_test::workers(2), out.get(),
                              after.get(), use_barrier);
    for (unsigned i = 0; i < n; ++i) {
      const unsigned t = i % per_block;
      const unsigned expect = (t % 4) | ((t / 4) % 3) << 10 | (t / 12) << 20;
      REQUIRE(out[i] == expect);
      REQUIRE(after[i] == expect);
    }
    CHECK(stats.barriers_crossed == (use_barrier != 0 ? 12u : 0u));
    CHECK(stats.blocks_on_fibers == (use_barrier != 0 ? 12u : 0u));
  }
}

TEST_CASE("warp reduction with __shfl_down_sync", "[simt][shuffle]") {
  const std::uint64_t seed = simt_test::fresh_seed();
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  constexpr unsigned kN = 256 * 4;
  std::vector<int> in(kN);
  for (auto& v : in) v = static_cast<int>(rng() % 20001) - 10000;
  DeviceArray<int> d_in(in);
  DeviceArray<int> out(kN / 32, 0x7fffffff);
  const auto stats = launch(k::warp_sum_kernel, 4, 256, 0, {}, d_in.get(), out.get());
  for (unsigned w = 0; w < kN / 32; ++w) {
    int sum = 0;
    for (unsigned l = 0; l < 32; ++l) sum += in[w * 32 + l];
    CHECK(out[w] == sum);
  }
  CHECK(stats.warp_collectives == 5 * kN / 32);
  CHECK(stats.barriers_crossed == 0);
}

TEST_CASE("__match_any_sync and __reduce_*_sync", "[simt][vote]") {
  const std::uint64_t seed = simt_test::fresh_seed();
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  std::vector<unsigned> in(32);
  for (auto& v : in) v = static_cast<unsigned>(rng() % 4) * 311 + 17;  // few distinct values
  DeviceArray<unsigned> d_in(in);
  DeviceArray<unsigned> match(32), sum(32), minimum(32);
  DeviceArray<int> smax(32);
  launch(k::match_reduce_kernel, 1, 32, 0, {}, d_in.get(), match.get(), sum.get(), minimum.get(),
         smax.get());
  unsigned total = 0, lowest = 0xffffffffu;
  int highest = -2147483647;
  for (unsigned v : in) {
    total += v;
    lowest = std::min(lowest, v);
    highest = std::max(highest, static_cast<int>(v) - 500);
  }
  for (unsigned l = 0; l < 32; ++l) {
    unsigned same = 0;
    for (unsigned o = 0; o < 32; ++o) same |= (in[o] == in[l] ? 1u : 0u) << o;
    CHECK(match[l] == same);
    CHECK(sum[l] == total);
    CHECK(minimum[l] == lowest);
    CHECK(smax[l] == highest);
  }
}

TEST_CASE("many barriers in a loop keep every thread's state", "[simt][barrier]") {
  constexpr int kRounds = 40;
  constexpr unsigned kThreads = 256, kBlocks = 3;
  DeviceArray<int> out(kThreads * kBlocks, -1);
  const auto stats = launch(k::barrier_loop_kernel, kBlocks, kThreads, 0, simt_test::workers(2),
                            out.get(), kRounds);
  for (unsigned i = 0; i < kThreads * kBlocks; ++i) {
    const int t = static_cast<int>(i % kThreads);
    const int expect =
        kRounds * (kRounds - 1) / 2 + kRounds * ((t + 1) % static_cast<int>(kThreads));
    REQUIRE(out[i] == expect);
  }
  CHECK(stats.barriers_crossed == 2 * kRounds * kBlocks);
}

TEST_CASE("printf from a thread that runs on a fiber", "[simt][printf]") {
  DeviceArray<int> out(64, -1);
  const auto stats = launch(k::printf_kernel, 2, 64, 0, {}, out.get());
  CHECK(out[0] ==
        static_cast<int>(std::strlen("simt_tests: printf from block 0, thread 0, on a fiber: "
                                     "2.500\n")));
  CHECK(out[1] == 0);
  CHECK(stats.blocks_on_fibers == 2);
}

TEST_CASE("__syncwarp orders a warp-synchronous exchange", "[simt][barrier]") {
  DeviceArray<int> out(64, -1);
  const auto stats = launch(k::syncwarp_exchange_kernel, 1, 64, 0, {}, out.get());
  for (unsigned t = 0; t < 64; ++t) CHECK(out[t] == static_cast<int>(t ^ 1u) * 7 + 3);
  CHECK(stats.warp_collectives == 2);
}

namespace {

// a + b and a * b as the CPU rounds them toward zero (fesetround), the reference for the GPU's
// __fadd_rz and __fmul_rz. The operands go through volatile so that nothing is computed before
// the rounding mode is set.
float host_toward_zero(float a, float b, bool multiply) {
  volatile float x = a, y = b;
  const int mode = std::fegetround();
  std::fesetround(FE_TOWARDZERO);
  volatile float r = multiply ? x * y : x + y;
  std::fesetround(mode);
  return r;
}

}  // namespace

TEST_CASE("__fadd_rz and __fmul_rz round toward zero", "[simt][intrinsics]") {
  // Hand-worked: 1 + 0.75 ulp is 1 toward zero (1 + 1 ulp to nearest); (1 + 2^-23)^2 loses its
  // 2^-46 toward zero, as to nearest; an overflow stops at the largest float.
  const float ulp = std::ldexp(1.0f, -23);
  CHECK(__fadd_rn(1.0f, 0.75f * ulp) == 1.0f + ulp);
  CHECK(__fadd_rz(1.0f, 0.75f * ulp) == 1.0f);
  CHECK(__fadd_rz(-1.0f, -0.75f * ulp) == -1.0f);
  CHECK(__fmul_rz(1.0f + ulp, 1.0f + ulp) == 1.0f + 2 * ulp);
  CHECK(__fmul_rz(1.0f + 3 * ulp, 1.0f + 3 * ulp) == 1.0f + 6 * ulp);  // 9 * 2^-46 dropped
  CHECK(__fmul_rn(1.0f + 3 * ulp, 1.0f + 3 * ulp) == 1.0f + 6 * ulp);
  CHECK(__fmul_rz(3e38f, 10.0f) == std::numeric_limits<float>::max());
  CHECK(__fadd_rz(-3e38f, -3e38f) == -std::numeric_limits<float>::max());
  CHECK(std::isinf(__fmul_rz(std::numeric_limits<float>::infinity(), 2.0f)));
  // Random operands over the whole exponent range, against the CPU's own rounding toward zero.
  const std::uint64_t seed = simt_test::fresh_seed();
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> mantissa(1.0f, 2.0f);
  std::uniform_int_distribution<int> exponent(-140, 127), sign(0, 1);
  const auto draw = [&] {
    const float v = std::ldexp(mantissa(rng), exponent(rng));
    return sign(rng) ? -v : v;
  };
  int rounded_differently = 0;
  for (int i = 0; i < 200000; ++i) {
    const float a = draw(), b = i % 4 == 0 ? a * mantissa(rng) : draw();
    CAPTURE(a, b);
    const float add = host_toward_zero(a, b, false), mul = host_toward_zero(a, b, true);
    REQUIRE(std::bit_cast<std::uint32_t>(__fadd_rz(a, b)) == std::bit_cast<std::uint32_t>(add));
    REQUIRE(std::bit_cast<std::uint32_t>(__fmul_rz(a, b)) == std::bit_cast<std::uint32_t>(mul));
    rounded_differently += mul != a * b;
  }
  CHECK(rounded_differently > 10000);  // the cases where toward zero is not to nearest were met
}
