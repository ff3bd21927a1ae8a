// Tests of atomics under parallel blocks, static and dynamic shared memory, and block order.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <random>
#include <set>
#include <vector>

#include "kernels/prelude.cuh"
#include "simt/simt.hpp"
#include "test_util.hpp"

namespace simt_test::memory {
GPULAB_SIMT_DYNAMIC_SHARED(float, dyn_f);
GPULAB_SIMT_DYNAMIC_SHARED(int, dyn_i);
GPULAB_SIMT_DYNAMIC_SHARED(float4, dyn_v);
#include "memory.cuh"
}  // namespace simt_test::memory

namespace {

using gpulab::simt::launch;
using simt_test::DeviceArray;
namespace k = simt_test::memory;

}  // namespace

TEST_CASE("atomics of every type are exact with blocks on parallel OS threads", "[simt][atomic]") {
  const std::uint64_t seed = simt_test::fresh_seed();
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  constexpr unsigned kBlocks = 1000, kThreads = 64, kN = kBlocks * kThreads;
  std::vector<unsigned> values(kN);
  for (auto& v : values) v = static_cast<unsigned>(rng() % 1000000) + 1;

  k::Counters init{};
  init.sub_i = 5000000;
  init.sub_u = 7000000u;
  init.min_i = 2147483647;
  init.max_i = -2147483647;
  init.min_u = 0xffffffffu;
  init.max_u = 0;
  init.min_ll = 0;
  init.max_ll = -(1ll << 62);
  init.min_ull = ~0ull;
  init.max_ull = 0;
  init.and_u = 0xffffffffu;
  init.or_u = 0x10000000u;
  init.xor_u = 0x12345678u;
  init.and_i = -1;
  init.or_i = 0;
  init.xor_i = 0x0badf00d;
  init.and_ull = ~0ull;
  init.or_ull = 1;
  init.xor_ull = 0xfeedfacecafebeefull;
  init.cas_u = 11;
  init.cas_ull = 13;
  init.cas_i = 17;
  init.exch = -1;
  DeviceArray<k::Counters> c(1, init);
  DeviceArray<unsigned> d_values(values);
  DeviceArray<int> exch_old(kN, -5);

  gpulab::simt::RunOptions options;
  options.workers = 4;  // more OS threads than cores: blocks interleave for real
  const auto stats = launch(k::atomics_kernel, kBlocks, kThreads, 0, options, c.get(),
                            d_values.get(), exch_old.get());
  CHECK(stats.workers == 4);

  k::Counters e = init;
  long long sum_small = 0;
  double d = 0;
  unsigned long long ull = 0;
  for (unsigned v : values) {
    const int small = static_cast<int>(v % 7) + 1;
    sum_small += small;
    ull += static_cast<unsigned long long>(v) << 20;
    d += static_cast<double>(v) * 0.5;
    e.min_i = std::min(e.min_i, static_cast<int>(v) - 1000000);
    e.max_i = std::max(e.max_i, static_cast<int>(v) - 1000000);
    e.min_u = std::min(e.min_u, v);
    e.max_u = std::max(e.max_u, v);
    e.min_ll = std::min(e.min_ll, -static_cast<long long>(v) * 4096);
    e.max_ll = std::max(e.max_ll, -static_cast<long long>(v) * 4096);
    e.min_ull = std::min(e.min_ull, static_cast<unsigned long long>(v) * 3);
    e.max_ull = std::max(e.max_ull, static_cast<unsigned long long>(v) * 3);
    e.and_u &= v | 0x80000001u;
    e.or_u |= v & 0x0f0f0f0fu;
    e.xor_u ^= v;
    e.and_i &= static_cast<int>(v | 0x40000001u);
    e.or_i |= static_cast<int>(v & 0x00f0f0f0u);
    e.xor_i ^= static_cast<int>(v);
    e.and_ull &= (static_cast<unsigned long long>(v) << 32) | 0xffffffffull;
    e.or_ull |= static_cast<unsigned long long>(v & 0xffu) << 40;
    e.xor_ull ^= static_cast<unsigned long long>(v) << 16;
  }
  const k::Counters& r = c[0];
  CHECK(r.i == sum_small);
  CHECK(r.u == static_cast<unsigned>(sum_small));
  CHECK(r.ull == ull);
  CHECK(r.f == static_cast<float>(sum_small));  // integers below 2^24: every float add is exact
  CHECK(r.d == Approx(d).epsilon(1e-12));
  CHECK(r.sub_i == init.sub_i - sum_small);
  CHECK(r.sub_u == init.sub_u - static_cast<unsigned>(sum_small));
  CHECK(r.min_i == e.min_i);
  CHECK(r.max_i == e.max_i);
  CHECK(r.min_u == e.min_u);
  CHECK(r.max_u == e.max_u);
  CHECK(r.min_ll == e.min_ll);
  CHECK(r.max_ll == e.max_ll);
  CHECK(r.min_ull == e.min_ull);
  CHECK(r.max_ull == e.max_ull);
  CHECK(r.and_u == e.and_u);
  CHECK(r.or_u == e.or_u);
  CHECK(r.xor_u == e.xor_u);
  CHECK(r.and_i == e.and_i);
  CHECK(r.or_i == e.or_i);
  CHECK(r.xor_i == e.xor_i);
  CHECK(r.and_ull == e.and_ull);
  CHECK(r.or_ull == e.or_ull);
  CHECK(r.xor_ull == e.xor_ull);
  CHECK(r.inc == kN % 10);              // atomicInc(9) counts 0..9 and wraps
  CHECK(r.dec == (10 - kN % 10) % 10);  // atomicDec(9) counts down from 0 to 9, 8, ...
  CHECK(r.cas_u == init.cas_u + 3 * kN);
  CHECK(r.cas_ull == init.cas_ull + 5ull * kN);
  CHECK(r.cas_i == init.cas_i - 2 * static_cast<int>(kN));
  // atomicExch: the initial value, every value returned and the final one are each seen once.
  std::vector<int> seen = exch_old.to_host();
  seen.push_back(r.exch);
  std::sort(seen.begin(), seen.end());
  std::vector<int> expect(kN + 1);
  std::iota(expect.begin(), expect.end(), -1);
  CHECK(seen == expect);
}

TEST_CASE("static __shared__ memory is private to each block", "[simt][shared]") {
  DeviceArray<int> bad(1, 0);
  const auto stats =
      launch(k::per_block_shared_kernel, 200, 128, 0, simt_test::workers(4), bad.get(), 20);
  CHECK(bad[0] == 0);
  CHECK(stats.barriers_crossed == 200 * 2 * 20);
  CHECK(stats.static_shared_bytes == 128 * sizeof(int));
  CHECK(gpulab::simt::static_shared_bytes(k::per_block_shared_kernel) == 512);
}

TEST_CASE("dynamic shared memory: sized at launch, extern arrays alias", "[simt][shared]") {
  const std::uint64_t seed = simt_test::fresh_seed();
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  for (const unsigned threads : {1u, 37u, 256u, 1024u}) {
    constexpr unsigned kBlocks = 5;
    std::vector<float> in(threads * kBlocks);
    for (auto& v : in) v = static_cast<float>(rng() % 100000) * 0.5f + 1.0f;
    DeviceArray<float> d_in(in);
    DeviceArray<float> out(in.size(), -1.0f);
    const auto stats = launch(k::reverse_kernel, kBlocks, threads, threads * sizeof(float),
                              simt_test::workers(2), d_in.get(), out.get());
    for (unsigned b = 0; b < kBlocks; ++b) {
      for (unsigned t = 0; t < threads; ++t) {
        REQUIRE(out[b * threads + t] == in[b * threads + threads - 1 - t]);
      }
    }
    CHECK(stats.dynamic_shared_bytes == threads * sizeof(float));
    CHECK(stats.static_shared_bytes == 0);
  }

  // Opt in to 200 KiB and use all of it.
  const unsigned words = 200 * 1024 / 4;
  gpulab::simt::set_max_dynamic_shared_bytes(k::big_dynamic_kernel, words * 4);
  DeviceArray<unsigned long long> out(2, 0);
  launch(k::big_dynamic_kernel, 3, 128, words * 4, simt_test::workers(2), out.get(), words);
  unsigned long long expect = 0;
  for (unsigned w = 0; w < words; ++w) expect += w * 2654435761u;
  CHECK(out[0] == expect);
  CHECK(out[1] == 1);
}

TEST_CASE("atomics on a block's shared memory need no lock: only its OS thread reaches it",
          "[simt][shared][atomic]") {
  // Static and dynamic shared memory are the block's own; global memory and the stack are not
  // (an atomic there stays a real one: other blocks run on other OS threads).
  constexpr int kBlocks = 6;
  DeviceArray<int> out(4 * kBlocks, -1);
  launch(k::private_memory_kernel, kBlocks, 32, 64 * sizeof(float), simt_test::workers(2),
         out.get());
  for (int b = 0; b < kBlocks; ++b) {
    CAPTURE(b);
    CHECK(out[4 * b + 0] == 1);
    CHECK(out[4 * b + 1] == 1);
    CHECK(out[4 * b + 2] == 0);
    CHECK(out[4 * b + 3] == 0);
  }
}

TEST_CASE("a template kernel with static and class-typed dynamic shared memory", "[simt][shared]") {
  const std::uint64_t seed = simt_test::fresh_seed();
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  constexpr unsigned kBlocks = 7, kBlock = 64;
  std::vector<float> in(kBlocks * kBlock * 4);
  for (auto& v : in) v = static_cast<float>(rng() % 512) + 1.0f;
  DeviceArray<float> d_in(in);
  DeviceArray<float> out(kBlocks, -1.0f);
  const auto stats = launch(k::tile_sum_kernel<kBlock>, kBlocks, kBlock, kBlock * sizeof(float4),
                            simt_test::workers(2), d_in.get(), out.get());
  for (unsigned b = 0; b < kBlocks; ++b) {
    float sum = 0.0f;
    for (unsigned i = 0; i < kBlock * 4; ++i) sum += in[b * kBlock * 4 + i];
    CHECK(out[b] == sum);  // small integers: exact whatever the order
  }
  CHECK(stats.static_shared_bytes == kBlock * sizeof(float));
  CHECK(stats.barriers_crossed == 2 * kBlocks);
}

TEST_CASE("blocks start in index order unless shuffled", "[simt][order]") {
  constexpr unsigned kBlocks = 64;
  const auto run = [&](std::optional<std::uint64_t> seed) {
    DeviceArray<unsigned> order(kBlocks, 0xffffffffu), counter(1, 0);
    gpulab::simt::RunOptions options;
    options.workers = 1;
    options.shuffle_seed = seed;
    launch(k::order_kernel, kBlocks, 32, 0, options, order.get(), counter.get());
    return order.to_host();
  };
  std::vector<unsigned> identity(kBlocks);
  std::iota(identity.begin(), identity.end(), 0u);
  CHECK(run(std::nullopt) == identity);

  const std::uint64_t seed = simt_test::fresh_seed();
  CAPTURE(seed);
  const auto a = run(seed);
  CHECK(a != identity);  // the identity has probability 1/64!
  auto sorted = a;
  std::sort(sorted.begin(), sorted.end());
  CHECK(sorted == identity);  // each block ran exactly once
  CHECK(run(seed) == a);      // a seed gives one order
  CHECK(run(seed + 1) != a);

  // A shuffled grid of a size that is not a power of two still runs every block once.
  DeviceArray<unsigned> order(1000, 0xffffffffu), counter(1, 0);
  gpulab::simt::RunOptions options;
  options.shuffle_seed = seed;
  options.workers = 3;
  launch(k::order_kernel, 1000, 32, 0, options, order.get(), counter.get());
  std::vector<unsigned> got = order.to_host();
  std::sort(got.begin(), got.end());
  std::vector<unsigned> all(1000);
  std::iota(all.begin(), all.end(), 0u);
  CHECK(got == all);
}

TEST_CASE("a barrier-free kernel runs without fibers", "[simt][launch]") {
  const std::uint64_t seed = simt_test::fresh_seed();
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  const int n = 100000;
  std::vector<float> a(n), b(n);
  for (int i = 0; i < n; ++i) {
    a[static_cast<std::size_t>(i)] = static_cast<float>(rng() % 1000) + 0.5f;
    b[static_cast<std::size_t>(i)] = static_cast<float>(rng() % 1000) - 0.25f;
  }
  DeviceArray<float> da(a), db(b), dc(n, -1.0f);
  const unsigned blocks = (n + 255) / 256;
  const auto stats = launch(k::vecadd_kernel, blocks, 256, 0, {}, da.get(), db.get(), dc.get(), n);
  for (int i = 0; i < n; ++i) {
    const auto u = static_cast<std::size_t>(i);
    REQUIRE(dc[u] == a[u] + b[u]);
  }
  CHECK(stats.blocks == blocks);
  CHECK(stats.threads == blocks * 256ull);
  CHECK(stats.blocks_on_fibers == 0);
  CHECK(stats.barriers_crossed == 0);
  CHECK(stats.elapsed_ms >= 0.0);
}
