// cg::reduce over a tile or a coalesced group (nvcc: <cooperative_groups/reduce.h>).
#pragma once

#include <source_location>
#include <type_traits>

#include "simt/cg_functional.hpp"
#include "simt/cooperative_groups.hpp"

namespace cooperative_groups {

namespace gpulab_detail {
// One whole warp's butterfly: every lane ends with op over the 32 values, combined in the order a
// GPU combines them.
template <class R, class Op>
R warp_butterfly(R out, Op& op, const std::source_location& where) {
  for (unsigned lane_mask = 16; lane_mask > 0; lane_mask /= 2) {
    out = op(out,
             shuffle(WarpOp::shfl_xor, 0xffffffffu, out, static_cast<int>(lane_mask), 32, where));
  }
  return out;
}
}  // namespace gpulab_detail

// A butterfly over the tile, as CUDA computes it: every lane gets the result, and floating-point
// sums add in the same order as on a GPU.
template <unsigned N, class P, class T, class Op>
auto reduce(const thread_block_tile<N, P>& tile, T value, Op&& op,
            std::source_location where = std::source_location::current())
    -> std::remove_cvref_t<decltype(op(value, value))> {
  using R = std::remove_cvref_t<decltype(op(value, value))>;
  R out = value;
  if constexpr (N <= 32) {
    for (unsigned lane_mask = N / 2; lane_mask > 0; lane_mask /= 2) {
      out = op(out, tile.shfl_xor(out, lane_mask, where));
    }
    return out;
  } else {
    // Several warps: each warp's butterfly, then every thread combines its tile's warp results in
    // warp order, between two block barriers (see thread_block_tile::sync). The per-block scratch
    // is thread_local, like __shared__ memory.
    static_assert(std::is_trivially_copyable_v<R>, "cg::reduce: a trivially copyable type");
    thread_block_tile<N, void>::require_whole_tile(where);
    out = gpulab_detail::warp_butterfly(out, op, where);
    alignas(R) static thread_local unsigned char scratch[32 * sizeof(R)];
    const unsigned rank = gpulab_detail::block_rank();
    if (rank % 32 == 0) std::memcpy(scratch + rank / 32 * sizeof(R), &out, sizeof(R));
    __syncthreads(where);
    const unsigned first = rank / N * (N / 32);
    const unsigned end = (gpulab_detail::block_size() + 31) / 32;
    std::memcpy(&out, scratch + first * sizeof(R), sizeof(R));
    for (unsigned w = first + 1; w < first + N / 32 && w < end; ++w) {
      R next = out;
      std::memcpy(&next, scratch + w * sizeof(R), sizeof(R));
      out = op(out, next);
    }
    __syncthreads(where);
    return out;
  }
}

// A coalesced group of any size: members combine in rank order (a full warp takes the butterfly).
template <class T, class Op>
auto reduce(const coalesced_group& group, T value, Op&& op,
            std::source_location where = std::source_location::current())
    -> std::remove_cvref_t<decltype(op(value, value))> {
  using R = std::remove_cvref_t<decltype(op(value, value))>;
  if (group.size() == 32) return gpulab_detail::warp_butterfly(static_cast<R>(value), op, where);
  R out = group.shfl(static_cast<R>(value), 0, where);
  for (unsigned r = 1; r < group.size(); ++r) {
    out = op(out, group.shfl(static_cast<R>(value), static_cast<int>(r), where));
  }
  return out;
}

}  // namespace cooperative_groups
