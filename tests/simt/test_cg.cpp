// Tests of cooperative_groups on the emulator against hand-worked values and host references.
#include <catch2/catch.hpp>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "checked_kernels.hpp"
#include "kernels/prelude.cuh"
#include "simt/cooperative_groups.hpp"
#include "simt/simt.hpp"
#include "test_util.hpp"

namespace simt_test::cg_kernels {
#include "cg.cuh"
}  // namespace simt_test::cg_kernels

namespace {

using gpulab::simt::KernelFault;
using gpulab::simt::launch;
using simt_test::DeviceArray;
namespace k = simt_test::cg_kernels;

constexpr unsigned kBlockSizes[] = {1, 31, 32, 33, 40, 64, 1024};

std::vector<int> random_ints(std::mt19937_64& rng, std::size_t n) {
  std::vector<int> v(n);
  for (auto& x : v) x = static_cast<int>(rng() % 2001) - 1000;
  return v;
}

// What one tile operation gives each thread of a block of `threads`, worked out from CUDA's
// definitions by rank within the tile. Lanes past the block's last thread hold no thread: a read
// of one gives 0 (as on an H100), and they do not vote.
std::vector<int> expected_tile(const std::vector<int>& in, unsigned threads, unsigned n, int op,
                               int arg) {
  std::vector<int> out(threads);
  const auto present = [&](unsigned t) { return t < threads; };
  const auto value = [&](unsigned t) { return present(t) ? in[t] : 0; };
  for (unsigned t = 0; t < threads; ++t) {
    const unsigned base = t / n * n;  // n divides 32, so a tile never crosses a warp
    const unsigned rank = t - base;
    const auto ballot = [&](auto pred) {
      unsigned bits = 0;
      for (unsigned r = 0; r < n; ++r) {
        if (present(base + r) && pred(in[base + r])) bits |= 1u << r;
      }
      return bits;
    };
    const auto butterfly = [&](const std::function<int(int, int)>& f) {
      std::vector<int> v(n);
      for (unsigned r = 0; r < n; ++r) v[r] = value(base + r);
      for (unsigned m = n / 2; m > 0; m /= 2) {
        std::vector<int> next(n);
        for (unsigned r = 0; r < n; ++r) next[r] = f(v[r], present(base + (r ^ m)) ? v[r ^ m] : 0);
        v = next;
      }
      return v[rank];
    };
    int r = 0;
    switch (op) {
      case k::kRank:
        r = static_cast<int>(rank);
        break;
      case k::kMetaRank:
        r = static_cast<int>(t / n);
        break;
      case k::kMetaSize:
        r = static_cast<int>((threads + n - 1) / n);
        break;
      case k::kSize:
        r = static_cast<int>(101 * n);
        break;
      case k::kShfl:
        r = value(base + static_cast<unsigned>(((arg % static_cast<int>(n)) + static_cast<int>(n)) %
                                               static_cast<int>(n)));
        break;
      case k::kShflDown:
        r = rank + static_cast<unsigned>(arg) < n ? value(t + static_cast<unsigned>(arg)) : in[t];
        break;
      case k::kShflUp:
        r = rank >= static_cast<unsigned>(arg) ? value(t - static_cast<unsigned>(arg)) : in[t];
        break;
      case k::kShflXor:
        r = value(base + (rank ^ static_cast<unsigned>(arg)));
        break;
      case k::kBallot:
        r = static_cast<int>(ballot([](int x) { return (x & 1) != 0; }));
        break;
      case k::kAny:
        r = ballot([](int x) { return (x & 1) != 0; }) != 0 ? 1 : 0;
        break;
      case k::kAll:
        // CUDA compares the ballot with the tile's full mask: false in a partial tile.
        r = ballot([](int x) { return (x & 1) != 0; }) == (n == 32 ? 0xffffffffu : (1u << n) - 1u);
        break;
      case k::kMatchAny:
        r = static_cast<int>(ballot([&](int x) { return x % 3 == in[t] % 3; }));
        break;
      case k::kReducePlus:
        r = butterfly(std::plus<int>());
        break;
      case k::kReduceLess:
        r = butterfly([](int a, int b) { return std::min(a, b); });
        break;
      case k::kReduceGreater:
        r = butterfly([](int a, int b) { return std::max(a, b); });
        break;
      case k::kReduceAnd:
        r = butterfly(std::bit_and<int>());
        break;
      case k::kReduceOr:
        r = butterfly(std::bit_or<int>());
        break;
      default:
        r = butterfly(std::bit_xor<int>());
        break;
    }
    out[t] = r;
  }
  return out;
}

template <unsigned N>
void check_tile_ops(std::mt19937_64& rng) {
  CAPTURE(N);
  for (const unsigned threads : kBlockSizes) {
    CAPTURE(threads);
    constexpr unsigned kBlocks = 2;
    const std::vector<int> host = random_ints(rng, threads * kBlocks);
    DeviceArray<int> in(host);
    DeviceArray<int> out(threads * kBlocks);
    for (int op = 0; op < k::kCgOps; ++op) {
      CAPTURE(op);
      std::vector<int> args{0};
      if (op == k::kShfl) args = {0, 1, static_cast<int>(N) - 1, 5, -1};
      if (op == k::kShflDown || op == k::kShflUp) args = {1, 2, static_cast<int>(N / 2), 3};
      // Lane masks below N: a larger one reads outside the tile (undefined, see the fault tests).
      if (op == k::kShflXor)
        args = {static_cast<int>(1 % N), static_cast<int>(N / 2), static_cast<int>(N - 1)};
      for (const int arg : args) {
        CAPTURE(arg);
        launch(k::cg_tile_kernel<N>, kBlocks, threads, 0, simt_test::workers(1), in.get(),
               out.get(), op, arg);
        for (unsigned b = 0; b < kBlocks; ++b) {
          const std::vector<int> block_in(host.begin() + b * threads,
                                          host.begin() + (b + 1) * threads);
          const std::vector<int> want = expected_tile(block_in, threads, N, op, arg);
          for (unsigned t = 0; t < threads; ++t) {
            if (out[b * threads + t] != want[t]) {
              INFO("block " << b << " thread " << t);
              REQUIRE(out[b * threads + t] == want[t]);
            }
          }
        }
      }
    }
  }
}

}  // namespace

TEST_CASE("cg: thread_block and grid_group facts", "[simt][cg]") {
  const dim3 grid(3, 2, 1);
  const dim3 block(4, 3, 2);
  const unsigned per_block = 24, total = per_block * 6;
  DeviceArray<unsigned> out(total * 12, 0xdeadu);
  launch(k::cg_block_kernel, grid, block, 0, {}, out.get());
  for (unsigned bz = 0; bz < 1; ++bz) {
    for (unsigned by = 0; by < 2; ++by) {
      for (unsigned bx = 0; bx < 3; ++bx) {
        const unsigned b = bx + 3 * by;
        for (unsigned z = 0; z < 2; ++z) {
          for (unsigned y = 0; y < 3; ++y) {
            for (unsigned x = 0; x < 4; ++x) {
              const unsigned rank = x + 4 * y + 12 * z;
              const unsigned* o = &out[(b * per_block + rank) * 12];
              CAPTURE(b, rank);
              CHECK(o[0] == rank);
              CHECK(o[1] == per_block);
              CHECK(o[2] == per_block);
              CHECK(o[3] == bx + 100 * by);
              CHECK(o[4] == x + 100 * y + 10000 * z);
              CHECK(o[5] == 4 + 300 + 20000);
              CHECK(o[6] == total);
              CHECK(o[7] == 6);
              CHECK(o[8] == b);
              CHECK(o[9] == 10);  // this_thread(): rank 0 of 1
              CHECK(o[10] == rank);
              CHECK(o[11] == 0);  // no cooperative launch: grid.sync() is unavailable
            }
          }
        }
      }
    }
  }
}

TEST_CASE("cg: every tile operation, tiles of 1 to 32, blocks of 1 to 1024", "[simt][cg]") {
  const std::uint64_t seed = simt_test::fresh_seed();
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  check_tile_ops<1>(rng);
  check_tile_ops<2>(rng);
  check_tile_ops<4>(rng);
  check_tile_ops<8>(rng);
  check_tile_ops<16>(rng);
  check_tile_ops<32>(rng);
}

TEST_CASE("cg: hand-worked tile values", "[simt][cg]") {
  std::vector<int> host(64);
  for (int i = 0; i < 64; ++i) host[static_cast<std::size_t>(i)] = i * 3 + 1;  // odd, even, ...
  DeviceArray<int> in(host);
  DeviceArray<int> out(64);
  const auto run = [&](auto kernel, int op, int arg) {
    launch(kernel, 1, 64, 0, {}, in.get(), out.get(), op, arg);
    return out.to_host();
  };
  auto r = run(k::cg_tile_kernel<8>, k::kShflDown, 2);  // thread 13: rank 5 of tile 1 reads rank 7
  CHECK(r[13] == host[15]);
  CHECK(r[14] == host[14]);                      // rank 6 + 2 leaves the tile: its own value
  r = run(k::cg_tile_kernel<8>, k::kBallot, 0);  // values 1, 4, 7, 10, ...: odd at even ranks
  CHECK(r[9] == 0x55);
  r = run(k::cg_tile_kernel<16>, k::kReducePlus, 0);  // tile 1: sum of 3i+1 for i = 16..31
  CHECK(r[20] == 3 * (16 + 31) * 16 / 2 + 16);
  r = run(k::cg_tile_kernel<4>, k::kReduceGreater, 0);
  CHECK(r[5] == 3 * 7 + 1);
  r = run(k::cg_tile_kernel<32>, k::kMetaSize, 0);
  CHECK(r[63] == 2);
}

TEST_CASE("cg: float sums by cg::reduce match a float64 reference; tiles of tiles", "[simt][cg]") {
  const std::uint64_t seed = simt_test::fresh_seed();
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  constexpr unsigned kThreads = 128, kBlocks = 3, kN = kThreads * kBlocks;
  std::vector<float> host(kN);
  for (auto& x : host) x = dist(rng);
  DeviceArray<float> in(host);
  DeviceArray<float> sum32(kN), sum4(kN);
  DeviceArray<int> sub(kN);
  launch(k::cg_float_reduce_kernel, kBlocks, kThreads, 0, {}, in.get(), sum32.get(), sum4.get(),
         sub.get());
  for (unsigned t = 0; t < kN; ++t) {
    double ref32 = 0, ref4 = 0;
    for (unsigned i = t / 32 * 32; i < t / 32 * 32 + 32; ++i) ref32 += host[i];
    for (unsigned i = t / 4 * 4; i < t / 4 * 4 + 4; ++i) ref4 += host[i];
    CHECK(sum32[t] == Approx(ref32).margin(1e-5));
    CHECK(sum4[t] == Approx(ref4).margin(1e-6));
    // Every lane of a tile gets the same bits.
    CHECK(std::bit_cast<std::uint32_t>(sum32[t]) ==
          std::bit_cast<std::uint32_t>(sum32[t / 32 * 32]));
    const unsigned rank16 = (t % kThreads) % 16;
    CHECK(sub[t] == static_cast<int>(rank16 % 4 + 10 * (rank16 / 4) + 100 * 4));
  }
}

TEST_CASE(
    "cg: a thread_group from tiled_partition(block, n) and the Programming Guide's reduce_sum",
    "[simt][cg]") {
  const std::uint64_t seed = simt_test::fresh_seed();
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  // reduce_sum halves the group at each step: exact for a power-of-2 size; otherwise the same
  // steps on the host give the value thread 0 gets.
  const auto simulate = [](std::vector<int> v) {
    for (std::size_t i = v.size() / 2; i > 0; i /= 2) {
      for (std::size_t l = 0; l < i; ++l) v[l] += v[l + i];
    }
    return v.empty() ? 0 : v[0];
  };
  for (const unsigned threads : kBlockSizes) {
    for (const unsigned n : {1u, 2u, 4u, 8u, 16u, 32u}) {
      CAPTURE(threads, n);
      const std::vector<int> host = random_ints(rng, threads);
      DeviceArray<int> in(host);
      DeviceArray<int> block_sum(1), tile_sum(threads);
      DeviceArray<unsigned> facts(threads);
      launch(k::cg_thread_group_kernel, 1, threads, 0, {}, in.get(), block_sum.get(),
             tile_sum.get(), facts.get(), n);
      CHECK(block_sum[0] == simulate(host));
      for (unsigned t = 0; t < threads; ++t) {
        const unsigned base = t / n * n;
        const unsigned size = std::min(n, threads - base);
        CHECK(facts[t] == (t - base) + 100 * size);
        if (t == base) {
          CHECK(tile_sum[t] ==
                simulate(std::vector<int>(host.begin() + base, host.begin() + base + size)));
        }
      }
    }
  }
}

TEST_CASE("cg: coalesced_threads() in a divergent branch", "[simt][cg]") {
  const std::uint64_t seed = simt_test::fresh_seed();
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  for (const unsigned threads : {32u, 40u, 64u}) {
    CAPTURE(threads);
    std::vector<int> host = random_ints(rng, threads);
    host[0] |= 1;  // at least one member per warp
    if (threads > 32) host[32] |= 1;
    DeviceArray<int> in(host);
    DeviceArray<int> out(threads * 8, -1);
    launch(k::cg_coalesced_kernel, 1, threads, 0, {}, in.get(), out.get());
    for (unsigned t = 0; t < threads; ++t) {
      CAPTURE(t);
      const int* o = &out[t * 8];
      if ((host[t] & 1) == 0) {
        CHECK(o[0] == -1);
        continue;
      }
      std::vector<unsigned> members;  // threads of t's warp in the group, in rank order
      for (unsigned u = t / 32 * 32; u < std::min(t / 32 * 32 + 32, threads); ++u) {
        if (host[u] & 1) members.push_back(u);
      }
      const auto size = static_cast<unsigned>(members.size());
      const auto rank =
          static_cast<unsigned>(std::find(members.begin(), members.end(), t) - members.begin());
      CHECK(o[0] == static_cast<int>(size + 100 * rank));
      CHECK(o[1] == host[members[0]]);
      CHECK(o[2] == (rank + 1 < size ? host[members[rank + 1]] : host[t]));
      CHECK(o[3] == (rank >= 2 ? host[members[rank - 2]] : host[t]));
      unsigned bits = 0;
      int sum = 0;
      for (unsigned r = 0; r < size; ++r) {
        if (host[members[r]] & 2) bits |= 1u << r;
        sum += host[members[r]];
      }
      CHECK(o[4] == static_cast<int>(bits));
      CHECK(o[5] == (bits != 0 ? 1 : 0) + 10 * (std::popcount(bits) == static_cast<int>(size)));
      CHECK(o[6] == sum);
      const unsigned quad_size = std::min(4u, size - rank / 4 * 4);
      CHECK(o[7] == static_cast<int>(rank % 4 + 10 * quad_size + 100 * (rank / 4)));
    }
  }
}

TEST_CASE("cg: tile shuffles move any trivially copyable value", "[simt][cg]") {
  DeviceArray<int> out(3 * 32);
  DeviceArray<double> dout(32);
  launch(k::cg_struct_shuffle_kernel, 1, 32, 0, {}, out.get(), dout.get());
  for (int t = 0; t < 32; ++t) {
    const int src = t % 8 == 7 ? t : t + 1;
    CHECK(out[static_cast<std::size_t>(3 * t)] == src);
    CHECK(out[static_cast<std::size_t>(3 * t + 1)] == 10 * src);
    CHECK(out[static_cast<std::size_t>(3 * t + 2)] == 100 * src);
    CHECK(dout[static_cast<std::size_t>(t)] == 0.5 + (t ^ 3));
  }
}

TEST_CASE("cg: tiled_partition(block, n) with n not a power of 2 up to 32", "[simt][cg][fault]") {
  DeviceArray<int> out(64);
  for (const unsigned n : {0u, 3u, 64u}) {
    CAPTURE(n);
    try {
      launch(k::cg_bad_tile_kernel, 1, 64, 0, {}, out.get(), n);
      FAIL("no fault");
    } catch (const KernelFault& f) {
      CHECK(f.kind() == KernelFault::Kind::invalid_argument);
      CHECK_THAT(f.what(), Catch::Contains("block (0,0,0): thread 0 at " +
                                           simt_test::site("cg.cuh", "bad-tile")) &&
                               Catch::Contains("power of 2 from 1 to 32"));
    }
  }
}

TEST_CASE("cg: a 32-wide tile in a partial block reads absent lanes as 0 outside check mode",
          "[simt][cg]") {
  std::vector<int> host(40);
  for (int i = 0; i < 40; ++i) host[static_cast<std::size_t>(i)] = 5 + i;
  DeviceArray<int> in(host);
  DeviceArray<int> out(40);
  launch(k::cg_partial_tile_min_kernel, 1, 40, 0, {}, in.get(), out.get());
  CHECK(out[0] == 5);
  CHECK(out[32] == 0);  // the GPU's answer too: the butterfly met lanes with no thread
}

TEST_CASE("cg: check mode reports a tile reduction that reads lanes with no thread",
          "[simt][cg][fault]") {
  if (!gpulab::simt::check_supported()) return;  // a ThreadSanitizer build has no check mode
  DeviceArray<int> in(64, 1);
  DeviceArray<int> out(64);
  CHECK_NOTHROW(simt_test::checked::partial_tile_min(in.get(), out.get(), 64));
  try {
    simt_test::checked::partial_tile_min(in.get(), out.get(), 40);
    FAIL("no fault");
  } catch (const KernelFault& f) {
    CHECK(f.kind() == KernelFault::Kind::invalid_argument);
    CHECK_THAT(f.what(), Catch::StartsWith(
                             "block (0,0,0): warp 1: lane 0 (thread 32) calls __shfl_xor_sync at " +
                             simt_test::site("cg.cuh", "partial-min") +
                             " and reads lane 16, which holds no thread (the block's last "
                             "warp has 8 threads); lanes 1-7 read outside the mask too"));
  }
}

TEST_CASE("cg: labeled_partition and binary_partition of a tile", "[simt][cg]") {
  const std::uint64_t seed = simt_test::fresh_seed();
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  constexpr unsigned kThreads = 64;
  for (int round = 0; round < 4; ++round) {
    std::vector<int> host = random_ints(rng, kThreads);
    if (round == 0) {
      for (auto& x : host) x |= 1;  // every lane on one side: one group of 32
    }
    DeviceArray<int> in(host);
    DeviceArray<int> out(3 * kThreads);
    launch(k::cg_partition_kernel, 1, kThreads, 0, {}, in.get(), out.get());
    for (unsigned t = 0; t < kThreads; ++t) {
      CAPTURE(round, t);
      const unsigned base = t / 32 * 32;
      const auto facts = [&](const std::function<int(unsigned)>& key) {
        // Members share the caller's key; groups are ranked by their lowest lane.
        std::vector<int> keys;
        unsigned size = 0, rank = 0;
        for (unsigned u = base; u < base + 32; ++u) {
          if (std::find(keys.begin(), keys.end(), key(u)) == keys.end()) keys.push_back(key(u));
          if (key(u) == key(t)) {
            ++size;
            if (u < t) ++rank;
          }
        }
        const auto meta = std::find(keys.begin(), keys.end(), key(t)) - keys.begin();
        return static_cast<int>(size + 100 * rank) + 10000 * static_cast<int>(meta) +
               1000000 * static_cast<int>(keys.size());
      };
      CHECK(out[3 * t] == facts([&](unsigned u) { return host[u] % 3; }));
      // binary_partition: the meta rank is the predicate itself, not the order of the groups.
      const int pred = host[t] & 1;
      int odd = 0;
      for (unsigned u = base; u < base + 32; ++u) odd += host[u] & 1;
      const int side = facts([&](unsigned u) { return host[u] & 1; });
      const int size_rank = side % 10000;
      CHECK(out[3 * t + 1] ==
            (odd == 0 || odd == 32 ? size_rank + 1000000 : size_rank + 10000 * pred + 2000000));
      int sum = 0;
      for (unsigned u = base; u < base + 32; ++u) {
        if (host[u] % 3 == host[t] % 3) sum += host[u];
      }
      CHECK(out[3 * t + 2] == sum);
    }
  }
}

template <unsigned N>
void check_multi_warp(std::mt19937_64& rng) {
  for (const unsigned threads : {N, 96u, 256u, 1024u}) {
    CAPTURE(N, threads);
    constexpr unsigned kBlocks = 2;
    const std::vector<int> host = random_ints(rng, threads * kBlocks);
    DeviceArray<int> in(host);
    DeviceArray<int> out(2 * threads * kBlocks);
    if (threads % N != 0) {
      // The last tile is partial: a GPU waits forever for its missing warps; the emulator faults.
      try {
        launch(k::cg_multi_warp_kernel<N>, kBlocks, threads, 0, {}, in.get(), out.get());
        FAIL("no fault");
      } catch (const KernelFault& f) {
        CHECK(f.kind() == KernelFault::Kind::invalid_argument);
        CHECK_THAT(f.what(),
                   Catch::Contains("thread " + std::to_string(threads / N * N) + " at ") &&
                       Catch::Contains("a GPU waits forever"));
      }
      continue;
    }
    launch(k::cg_multi_warp_kernel<N>, kBlocks, threads, 0, {}, in.get(), out.get());
    for (unsigned b = 0; b < kBlocks; ++b) {
      for (unsigned r = 0; r < threads; ++r) {
        const unsigned t = b * threads + r;
        const unsigned first = r / N * N;
        int sum = 0;
        for (unsigned u = first; u < first + N; ++u) sum += host[b * threads + u];
        if (out[2 * t] != sum) {
          INFO("thread " << t);
          REQUIRE(out[2 * t] == sum);
        }
        CHECK(out[2 * t + 1] ==
              static_cast<int>(r % N + 10000 * (r / N) + 1000000 * (threads / N)));
      }
    }
  }
}

TEST_CASE("cg: tiles of 64 to 1024 threads: cg::reduce, ranks, sync; a partial one faults",
          "[simt][cg]") {
  const std::uint64_t seed = simt_test::fresh_seed();
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  check_multi_warp<64>(rng);
  check_multi_warp<128>(rng);
  check_multi_warp<256>(rng);
  check_multi_warp<1024>(rng);
}

TEST_CASE("cg: tile.sync() orders shared memory within the tile, block.sync() across it",
          "[simt][cg][race]") {
  if (!gpulab::simt::check_supported()) return;  // a ThreadSanitizer build has no check mode
  DeviceArray<int> out(64);
  const auto races_of = [&](int mode) {
    CAPTURE(mode);
    const gpulab::simt::LaunchStats stats = simt_test::checked::exchange(out.get(), mode);
    for (unsigned t = 0; t < 64; ++t) {
      const unsigned src = mode >= 2 ? (t + 32) % 64 : t ^ 1u;
      if (mode == 1 || mode == 3) CHECK(out[t] == static_cast<int>(src) + 10);
    }
    return stats.races_found;
  };
  CHECK(races_of(0) > 0);
  CHECK(races_of(1) == 0);
  CHECK(races_of(2) > 0);
  CHECK(races_of(3) == 0);
}
