// Hand-worked counts of the profile model: each case is a textbook access pattern, its numbers
// worked out on paper from the addresses (docs/profile.md explains the rules).
#include <catch2/catch.hpp>

#include "profile/counting.hpp"

using namespace gpulab::profile;

namespace {

constexpr std::uint64_t kBase = 0x10000;  // 256-byte aligned, as cudaMalloc returns

// Lane l accesses base + offset(l), `width` bytes, for the lanes of `active`.
template <class F>
WarpAccess warp(F offset, std::uint32_t width = 4, std::uint32_t active = 0xffffffffu) {
  WarpAccess a;
  a.width = width;
  a.active = active;
  for (unsigned l = 0; l < kWarpLanes; ++l) a.address[l] = kBase + offset(l);
  return a;
}

}  // namespace

TEST_CASE("global: a coalesced float load is one request of 4 sectors", "[profile]") {
  const GlobalCost c = global_cost(warp([](unsigned l) { return 4u * l; }));
  CHECK(c.requests == 1);
  CHECK(c.sectors == 4);
  CHECK(c.ideal_sectors == 4);
  CHECK(c.bytes_used == 128);
}

TEST_CASE("global: strided float loads touch one sector per lane", "[profile]") {
  // Stride 32 floats (128 bytes): every lane in a sector of its own.
  CHECK(global_cost(warp([](unsigned l) { return 128u * l; })).sectors == 32);
  // Stride 2 floats: 256 bytes spanned, 8 sectors, half of each unused.
  CHECK(global_cost(warp([](unsigned l) { return 8u * l; })).sectors == 8);
  // Stride 8 floats (32 bytes): one sector per lane again.
  CHECK(global_cost(warp([](unsigned l) { return 32u * l; })).sectors == 32);
  CHECK(global_cost(warp([](unsigned l) { return 32u * l; })).ideal_sectors == 4);
}

TEST_CASE("global: a load misaligned by one float needs a fifth sector", "[profile]") {
  const GlobalCost c = global_cost(warp([](unsigned l) { return 4u + 4u * l; }));
  CHECK(c.sectors == 5);
  CHECK(c.ideal_sectors == 4);
  // A lane whose bytes straddle a sector boundary counts both sectors.
  WarpAccess one = warp([](unsigned) { return 30u; }, 4, 1u);
  CHECK(global_cost(one).sectors == 2);
}

TEST_CASE("global: a float4 load is one request of 16 sectors, its ideal", "[profile]") {
  const GlobalCost c = global_cost(warp([](unsigned l) { return 16u * l; }, 16));
  CHECK(c.requests == 1);
  CHECK(c.sectors == 16);
  CHECK(c.ideal_sectors == 16);
  CHECK(c.bytes_used == 512);
  // double: 8 sectors.
  CHECK(global_cost(warp([](unsigned l) { return 8u * l; }, 8)).sectors == 8);
}

TEST_CASE("global: partial warps count only their active lanes", "[profile]") {
  // The last warp of a block of 48 threads: 16 lanes.
  const GlobalCost c = global_cost(warp([](unsigned l) { return 4u * l; }, 4, 0x0000ffffu));
  CHECK(c.requests == 1);
  CHECK(c.sectors == 2);
  CHECK(c.ideal_sectors == 2);
  CHECK(c.bytes_used == 64);
  // An if (i < n) guard that leaves 3 lanes: one sector.
  CHECK(global_cost(warp([](unsigned l) { return 4u * l; }, 4, 0x7u)).sectors == 1);
  // No lane: no request.
  CHECK(global_cost(warp([](unsigned l) { return 4u * l; }, 4, 0u)).requests == 0);
}

TEST_CASE("global: all lanes reading one float is one sector", "[profile]") {
  const GlobalCost c = global_cost(warp([](unsigned) { return 64u; }));
  CHECK(c.sectors == 1);
  CHECK(c.ideal_sectors == 4);  // the ideal counts bytes asked for, not bytes distinct
}

TEST_CASE("global: naive transpose of a 32x32 float matrix, one warp per row", "[profile]") {
  // out[x * 32 + y] = in[y * 32 + x], lane = x: the read is a row, the write a column.
  const GlobalCost read = global_cost(warp([](unsigned x) { return 4u * x; }));
  const GlobalCost write = global_cost(warp([](unsigned x) { return 4u * (x * 32u); }));
  CHECK(read.sectors == 4);
  CHECK(write.sectors == 32);
  // Tiled through shared memory, the write is a row too.
  CHECK(global_cost(warp([](unsigned x) { return 4u * (5u * 32u + x); })).sectors == 4);
}

TEST_CASE("shared: consecutive floats are one wavefront", "[profile]") {
  const SharedCost c = shared_cost(warp([](unsigned l) { return 4u * l; }));
  CHECK(c.requests == 1);
  CHECK(c.wavefronts == 1);
  CHECK(c.ideal_wavefronts == 1);
  CHECK(c.conflicts == 0);
}

TEST_CASE("shared: a broadcast is one wavefront, no conflict", "[profile]") {
  const SharedCost c = shared_cost(warp([](unsigned) { return 40u; }));
  CHECK(c.wavefronts == 1);
  CHECK(c.conflicts == 0);
  // Two words in two banks, each read by 16 lanes: still one wavefront.
  CHECK(shared_cost(warp([](unsigned l) { return 4u * (l % 2); })).wavefronts == 1);
  // Bytes of one word (char loads): the same word, one wavefront.
  CHECK(shared_cost(warp([](unsigned l) { return l % 4; }, 1)).wavefronts == 1);
}

TEST_CASE("shared: stride 2 floats is a 2-way conflict", "[profile]") {
  // Lane l reads word 2l: banks 0, 2, ..., 30, then 0, 2, ... again, each with 2 words.
  const SharedCost c = shared_cost(warp([](unsigned l) { return 8u * l; }));
  CHECK(c.wavefronts == 2);
  CHECK(c.ideal_wavefronts == 1);
  CHECK(c.conflicts == 1);
  CHECK(c.worst_way == 2);
}

TEST_CASE("shared: a column of tile[32][32] is a 32-way conflict; [32][33] none", "[profile]") {
  // tile[lane][c]: word lane*32 + c, bank c for every lane.
  const SharedCost column = shared_cost(warp([](unsigned l) { return 4u * (l * 32u + 7u); }));
  CHECK(column.wavefronts == 32);
  CHECK(column.conflicts == 31);
  CHECK(column.worst_way == 32);
  // Padded: word lane*33 + c, bank (lane + c) % 32, all different.
  const SharedCost padded = shared_cost(warp([](unsigned l) { return 4u * (l * 33u + 7u); }));
  CHECK(padded.wavefronts == 1);
  CHECK(padded.conflicts == 0);
  // The row of the tile (tile[r][lane]) never conflicts.
  CHECK(shared_cost(warp([](unsigned l) { return 4u * (3u * 32u + l); })).wavefronts == 1);
}

TEST_CASE("shared: 64-bit accesses go by half-warps, 128-bit by quarter-warps", "[profile]") {
  CHECK(shared_lanes_per_part(4) == 32);
  CHECK(shared_lanes_per_part(8) == 16);
  CHECK(shared_lanes_per_part(16) == 8);
  // Consecutive doubles: each half-warp 128 bytes, all 32 banks once: 2 wavefronts, the ideal.
  const SharedCost d = shared_cost(warp([](unsigned l) { return 8u * l; }, 8));
  CHECK(d.wavefronts == 2);
  CHECK(d.ideal_wavefronts == 2);
  CHECK(d.conflicts == 0);
  // Doubles 16 bytes apart: in a half-warp, lanes i and i+8 share banks: 2 x 2 wavefronts.
  const SharedCost d2 = shared_cost(warp([](unsigned l) { return 16u * l; }, 8));
  CHECK(d2.wavefronts == 4);
  CHECK(d2.conflicts == 2);
  // Consecutive float4: each quarter-warp 128 bytes: 4 wavefronts, no conflict.
  const SharedCost f4 = shared_cost(warp([](unsigned l) { return 16u * l; }, 16));
  CHECK(f4.wavefronts == 4);
  CHECK(f4.ideal_wavefronts == 4);
  CHECK(f4.conflicts == 0);
  // A half-warp alone (16 active lanes) of doubles: one part, one wavefront.
  const SharedCost half = shared_cost(warp([](unsigned l) { return 8u * l; }, 8, 0xffffu));
  CHECK(half.wavefronts == 1);
  CHECK(half.ideal_wavefronts == 1);
}

TEST_CASE("shared: a partial warp conflicts only among its lanes", "[profile]") {
  // 8 lanes with stride 32 floats: 8-way.
  const SharedCost c = shared_cost(warp([](unsigned l) { return 128u * l; }, 4, 0xffu));
  CHECK(c.wavefronts == 8);
  CHECK(c.conflicts == 7);
}

TEST_CASE("branches: uniform when every active lane goes the same way", "[profile]") {
  CHECK(branch_cost(0xffffffffu, 0xffffffffu).uniform == 1);
  CHECK(branch_cost(0xffffffffu, 0u).uniform == 1);
  const BranchCost odd = branch_cost(0xffffffffu, 0xaaaaaaaau);  // if (threadIdx.x % 2)
  CHECK(odd.branches == 1);
  CHECK(odd.divergent == 1);
  CHECK(odd.uniform == 0);
  // A partial warp whose 8 lanes all go one way is uniform; lanes that are not active do not count.
  CHECK(branch_cost(0xffu, 0xffffff00u | 0xffu).uniform == 1);
  CHECK(branch_cost(0u, 0u).branches == 0);
}

TEST_CASE("counters: sums and the ratios ncu reports", "[profile]") {
  Counters c;
  for (int w = 0; w < 4; ++w) {
    c.add_global(global_cost(warp([](unsigned l) { return 128u * l; })), false);
    c.add_global(global_cost(warp([](unsigned l) { return 4u * l; })), true);
  }
  CHECK(c.global_ld.requests == 4);
  CHECK(c.global_ld.sectors == 128);
  CHECK(sectors_per_request(c.global_ld) == 32.0);
  CHECK(sectors_per_request(c.global_st) == 4.0);
  // A block of 48 threads running 10 instructions: warp 0 with 32 lanes, warp 1 with 16.
  c.inst_executed = 20;
  c.thread_inst_executed = 10 * 32 + 10 * 16;
  CHECK(thread_inst_per_inst(c) == 24.0);
  // One divergent branch out of four.
  for (std::uint32_t taken : {0u, 0xffffffffu, 0u, 0xffffu}) {
    const BranchCost b = branch_cost(0xffffffffu, taken);
    c.branch.branches += b.branches;
    c.branch.uniform += b.uniform;
    c.branch.divergent += b.divergent;
  }
  CHECK(branch_uniformity_pct(c) == 75.0);
  Counters twice = c;
  twice.add(c);
  CHECK(twice.global_ld.sectors == 256);
  CHECK(twice.branch.divergent == 2);
  CHECK_FALSE(twice.empty());
  CHECK(Counters{}.empty());
  // No branch at all: ncu says 0%, and so does the model.
  CHECK(branch_uniformity_pct(Counters{}) == 0.0);
  CHECK(thread_inst_per_inst(Counters{}) == 0.0);
}
