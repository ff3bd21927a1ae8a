// cg::inclusive_scan and cg::exclusive_scan (nvcc: <cooperative_groups/scan.h>).
#pragma once

#include <source_location>
#include <type_traits>

#include "simt/cg_functional.hpp"
#include "simt/cooperative_groups.hpp"

namespace cooperative_groups {

// ---- cg::inclusive_scan and cg::exclusive_scan (<cooperative_groups/scan.h>) --------------------

// A tile of up to 32 threads: the rank-i thread gets op over the values of ranks 0..i, combined in
// rank order (Kogge-Stone over shfl_up).
template <unsigned N, class P, class T, class Op>
auto inclusive_scan(const thread_block_tile<N, P>& tile, T value, Op&& op,
                    std::source_location where = std::source_location::current())
    -> std::remove_cvref_t<decltype(op(value, value))> {
  static_assert(N <= 32, "gpulab: cg::inclusive_scan and exclusive_scan on tiles of up to 32");
  using R = std::remove_cvref_t<decltype(op(value, value))>;
  R out = value;
  const unsigned rank = tile.thread_rank();
  for (unsigned delta = 1; delta < N; delta *= 2) {
    const R before = tile.shfl_up(out, delta, where);
    if (rank >= delta) out = op(before, out);
  }
  return out;
}

// A coalesced group: member by member, in rank order.
template <class T, class Op>
auto inclusive_scan(const coalesced_group& group, T value, Op&& op,
                    std::source_location where = std::source_location::current())
    -> std::remove_cvref_t<decltype(op(value, value))> {
  using R = std::remove_cvref_t<decltype(op(value, value))>;
  const unsigned rank = group.thread_rank();
  R out = group.shfl(static_cast<R>(value), 0, where);
  for (unsigned r = 1; r < group.size(); ++r) {
    const R next = group.shfl(static_cast<R>(value), static_cast<int>(r), where);
    if (r <= rank) out = op(out, next);
  }
  return out;
}

template <class Group, class T>
auto inclusive_scan(const Group& group, T value,
                    std::source_location where = std::source_location::current())
    -> std::remove_cvref_t<T> {
  return inclusive_scan(group, value, plus<std::remove_cvref_t<T>>(), where);
}

// The rank-i thread gets op over ranks 0..i-1. Rank 0 has nothing before it: CUDA leaves its result
// undefined; the emulator gives a value-initialized T (0 for numbers).
template <class Group, class T, class Op>
auto exclusive_scan(const Group& group, T value, Op&& op,
                    std::source_location where = std::source_location::current())
    -> std::remove_cvref_t<decltype(op(value, value))> {
  using R = std::remove_cvref_t<decltype(op(value, value))>;
  const R inclusive = inclusive_scan(group, value, op, where);
  const R before = group.shfl_up(inclusive, 1, where);
  return group.thread_rank() == 0 ? R{} : before;
}

template <class Group, class T>
auto exclusive_scan(const Group& group, T value,
                    std::source_location where = std::source_location::current())
    -> std::remove_cvref_t<T> {
  return exclusive_scan(group, value, plus<std::remove_cvref_t<T>>(), where);
}

}  // namespace cooperative_groups
