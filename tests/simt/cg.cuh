// Test kernels for cooperative_groups: plain CUDA (nvcc or the emulator), no namespace of their
// own.
#include "kernels/prelude.cuh"
#if defined(__CUDACC__)
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#else
#include "simt/cooperative_groups.hpp"
#endif

namespace cg = cooperative_groups;

// Per thread, 12 words: the block group's facts, then the grid group's.
__global__ void cg_block_kernel(unsigned* out) {
  const cg::thread_block block = cg::this_thread_block();
  const cg::grid_group grid = cg::this_grid();
  const unsigned long long me = grid.thread_rank();
  unsigned* o = out + me * 12;
  o[0] = block.thread_rank();
  o[1] = block.size();
  o[2] = block.num_threads();
  o[3] = block.group_index().x + 100 * block.group_index().y + 10000 * block.group_index().z;
  o[4] = block.thread_index().x + 100 * block.thread_index().y + 10000 * block.thread_index().z;
  o[5] = block.dim_threads().x + 100 * block.dim_threads().y + 10000 * block.dim_threads().z;
  o[6] = static_cast<unsigned>(grid.size());
  o[7] = static_cast<unsigned>(grid.num_blocks());
  o[8] = static_cast<unsigned>(grid.block_rank());
  o[9] = static_cast<unsigned>(cg::this_thread().thread_rank() + 10 * cg::this_thread().size());
  o[10] = static_cast<unsigned>(cg::thread_rank(block) + 0 * cg::group_size(block));
  block.sync();
  cg::sync(block);
  o[11] = grid.is_valid() ? 1u : 0u;
}

enum CgOp {
  kRank,
  kMetaRank,
  kMetaSize,
  kSize,
  kShfl,
  kShflDown,
  kShflUp,
  kShflXor,
  kBallot,
  kAny,
  kAll,
  kMatchAny,
  kReducePlus,
  kReduceLess,
  kReduceGreater,
  kReduceAnd,
  kReduceOr,
  kReduceXor,
  kCgOps,
};

// One tile operation of thread_block_tile<N>, chosen by `op`, on the tile of the caller.
template <unsigned N>
__global__ void cg_tile_kernel(const int* in, int* out, int op, int arg) {
  const cg::thread_block block = cg::this_thread_block();
  const cg::thread_block_tile<N, cg::thread_block> tile = cg::tiled_partition<N>(block);
  const unsigned t = block.thread_rank() + blockIdx.x * block.size();
  const int v = in[t];
  int r = 0;
  switch (op) {
    case kRank:
      r = static_cast<int>(tile.thread_rank());
      break;
    case kMetaRank:
      r = static_cast<int>(tile.meta_group_rank());
      break;
    case kMetaSize:
      r = static_cast<int>(tile.meta_group_size());
      break;
    case kSize:
      r = static_cast<int>(tile.size() + 100 * tile.num_threads());
      break;
    case kShfl:
      r = tile.shfl(v, arg);
      break;
    case kShflDown:
      r = tile.shfl_down(v, static_cast<unsigned>(arg));
      break;
    case kShflUp:
      r = tile.shfl_up(v, static_cast<unsigned>(arg));
      break;
    case kShflXor:
      r = tile.shfl_xor(v, static_cast<unsigned>(arg));
      break;
    case kBallot:
      r = static_cast<int>(tile.ballot(v & 1));
      break;
    case kAny:
      r = tile.any(v & 1);
      break;
    case kAll:
      r = tile.all(v & 1);
      break;
    case kMatchAny:
      r = static_cast<int>(tile.match_any(v % 3));
      break;
    case kReducePlus:
      r = cg::reduce(tile, v, cg::plus<int>());
      break;
    case kReduceLess:
      r = cg::reduce(tile, v, cg::less<int>());
      break;
    case kReduceGreater:
      r = cg::reduce(tile, v, cg::greater<int>());
      break;
    case kReduceAnd:
      r = cg::reduce(tile, v, cg::bit_and<int>());
      break;
    case kReduceOr:
      r = cg::reduce(tile, v, cg::bit_or<int>());
      break;
    default:
      r = cg::reduce(tile, v, cg::bit_xor<int>());
      break;
  }
  out[t] = r;
}

// A tile's float sum by cg::reduce, and the same through a tile of the tile (16 then 4 lanes).
__global__ void cg_float_reduce_kernel(const float* in, float* sum32, float* sum4, int* sub) {
  const cg::thread_block block = cg::this_thread_block();
  const cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
  const auto quad = cg::tiled_partition<4>(cg::tiled_partition<16>(block));
  const unsigned t = block.thread_rank() + blockIdx.x * block.size();
  sum32[t] = cg::reduce(tile, in[t], cg::plus<float>());
  sum4[t] = cg::reduce(quad, in[t], cg::plus<float>());
  sub[t] = static_cast<int>(quad.thread_rank() + 10 * quad.meta_group_rank() +
                            100 * quad.meta_group_size());
}

// The CUDA Programming Guide's reduction over any thread_group: with the block, then with tiles
// of `tile_size` threads from tiled_partition(block, n). temp holds one int per thread.
__device__ int reduce_sum(cg::thread_group g, int* temp, int val) {
  const int lane = static_cast<int>(g.thread_rank());
  for (int i = static_cast<int>(g.size()) / 2; i > 0; i /= 2) {
    temp[lane] = val;
    g.sync();
    if (lane < i) val += temp[lane + i];
    g.sync();
  }
  return val;
}

__global__ void cg_thread_group_kernel(const int* in, int* block_sum, int* tile_sum,
                                       unsigned* facts, unsigned tile_size) {
  __shared__ int temp[1024];
  const cg::thread_block block = cg::this_thread_block();
  const unsigned t = block.thread_rank();
  const int v = in[t];
  const int total = reduce_sum(block, temp, v);
  if (t == 0) block_sum[0] = total;
  block.sync();
  const cg::thread_group tile = cg::tiled_partition(block, tile_size);
  const unsigned base = t / tile_size * tile_size;
  tile_sum[t] = reduce_sum(tile, temp + base, v);
  facts[t] = static_cast<unsigned>(tile.thread_rank() + 100 * tile.size());
}

// Lanes whose input is odd form a coalesced group; 8 words per thread, -1 for the others.
__global__ void cg_coalesced_kernel(const int* in, int* out) {
  const unsigned t = threadIdx.x;
  const int v = in[t];
  int* o = out + t * 8;
  if (v & 1) {
    const cg::coalesced_group active = cg::coalesced_threads();
    o[0] = static_cast<int>(active.size() + 100 * active.thread_rank());
    o[1] = active.shfl(v, 0);
    o[2] = active.shfl_down(v, 1);
    o[3] = active.shfl_up(v, 2);
    o[4] = static_cast<int>(active.ballot(v & 2));
    o[5] = active.any(v & 2) + 10 * active.all(v & 2);
    o[6] = cg::reduce(active, v, cg::plus<int>());
    const cg::coalesced_group quad = cg::tiled_partition(active, 4);
    o[7] = static_cast<int>(quad.thread_rank() + 10 * quad.size() + 100 * quad.meta_group_rank());
    active.sync();
  }
}

// tiled_partition(block, n) with a size CUDA rejects.
__global__ void cg_bad_tile_kernel(int* out, unsigned n) {
  const cg::thread_group tile = cg::tiled_partition(cg::this_thread_block(), n);  // site:bad-tile
  out[threadIdx.x] = static_cast<int>(tile.size());
}

// A 32-wide tile's minimum: in a block of 40, the second tile has 8 threads, and its butterfly
// reads lanes 8-31, which hold no thread.
__global__ void cg_partial_tile_min_kernel(const int* in, int* out) {
  const cg::thread_block_tile<32> tile = cg::tiled_partition<32>(cg::this_thread_block());
  out[threadIdx.x] = cg::reduce(tile, in[threadIdx.x], cg::less<int>());  // site:partial-min
}

// Generic values through a tile shuffle: a struct of 12 bytes and a double.
struct CgTriple {
  int a, b, c;
};
__global__ void cg_struct_shuffle_kernel(int* out, double* dout) {
  const cg::thread_block_tile<8> tile = cg::tiled_partition<8>(cg::this_thread_block());
  const int t = static_cast<int>(threadIdx.x);
  const CgTriple mine{t, 10 * t, 100 * t};
  const CgTriple other = tile.shfl_down(mine, 1);
  out[3 * t] = other.a;
  out[3 * t + 1] = other.b;
  out[3 * t + 2] = other.c;
  dout[t] = tile.shfl_xor(0.5 + t, 3u);
}

// labeled_partition and binary_partition of a 32-wide tile; 3 words per thread.
__global__ void cg_partition_kernel(const int* in, int* out) {
  const cg::thread_block_tile<32> tile = cg::tiled_partition<32>(cg::this_thread_block());
  const unsigned t = threadIdx.x;
  const int v = in[t];
  const cg::coalesced_group same = cg::labeled_partition(tile, v % 3);
  const cg::coalesced_group side = cg::binary_partition(tile, (v & 1) != 0);
  out[3 * t] = static_cast<int>(same.size() + 100 * same.thread_rank() +
                                10000 * same.meta_group_rank() + 1000000 * same.meta_group_size());
  out[3 * t + 1] =
      static_cast<int>(side.size() + 100 * side.thread_rank() + 10000 * side.meta_group_rank() +
                       1000000 * side.meta_group_size());
  out[3 * t + 2] = cg::reduce(same, v, cg::plus<int>());
}
