// CUDA's cooperative_groups for the SIMT emulator: blocks, tiles, coalesced groups, the grid,
// cg::reduce and the scans.
//
// Every group operation is one of the emulator's own barriers or warp collectives (device_api.hpp),
// called with the user's call site, so that the faults and race checks of __syncthreads() and
// __shfl_sync() apply to cg code unchanged. Semantics follow CUDA 13's <cooperative_groups.h>:
// a static tile's mask covers all N lanes even in a block's partial last warp (those lanes are
// absent to the emulator, as on a GPU), so tile.all() there is false and a tile shuffle that reads
// an absent lane is undefined (check mode reports it). Grid synchronisation needs a cooperative
// launch (simt/cooperative_launch.hpp). Not emulated: multi-grid and cluster groups,
// memcpy_async; tiles of more than 32 threads have ranks, sizes, sync and cg::reduce only, and
// fault where the block leaves their last tile partial (a GPU deadlocks there).
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>
#include <source_location>
#include <type_traits>

#include "simt/device_api.hpp"

namespace cooperative_groups {

namespace gpulab_detail {

using gpulab::simt::detail::WarpOp;

inline unsigned block_rank() {
  return threadIdx.x + threadIdx.y * blockDim.x + threadIdx.z * blockDim.x * blockDim.y;
}
inline unsigned block_size() {
  return blockDim.x * blockDim.y * blockDim.z;
}
inline unsigned lane_id() {
  return block_rank() & 31u;
}
inline unsigned lanes_below() {
  return (1u << lane_id()) - 1u;
}
// The lane of the rank-th set bit of mask (rank counts from 0); 32 if there is none.
inline unsigned lane_of_rank(unsigned mask, unsigned rank) {
  for (; mask != 0; mask &= mask - 1) {
    if (rank-- == 0) return static_cast<unsigned>(std::countr_zero(mask));
  }
  return 32;
}
// Bits of lane_bits that are members of mask, packed in rank order.
inline unsigned pack_lanes(unsigned mask, unsigned lane_bits) {
  unsigned out = 0, rank = 0;
  for (; mask != 0; mask &= mask - 1, ++rank) {
    if ((lane_bits & mask & (~mask + 1)) != 0) out |= 1u << rank;
  }
  return out;
}

// Moves any trivially copyable value through the emulator's shuffle, 8 bytes per collective (a GPU
// moves 4 bytes at a time, with the same result).
template <class T>
T shuffle(WarpOp op, unsigned mask, const T& value, int arg, int width,
          const std::source_location& where) {
  static_assert(std::is_trivially_copyable_v<T>,
                "cooperative_groups: shuffles move trivially copyable types only");
  T out = value;
  unsigned char bytes[sizeof(T)];
  std::memcpy(bytes, &value, sizeof(T));
  for (std::size_t at = 0; at < sizeof(T); at += 8) {
    const std::size_t n = sizeof(T) - at < 8 ? sizeof(T) - at : 8;
    std::uint64_t piece = 0;
    std::memcpy(&piece, bytes + at, n);
    piece = gpulab::simt::detail::warp_collective(op, mask, piece, arg, width, where);
    std::memcpy(bytes + at, &piece, n);
  }
  std::memcpy(&out, bytes, sizeof(T));
  return out;
}

template <class>
inline constexpr bool always_false = false;

struct group_access;

}  // namespace gpulab_detail

class coalesced_group;

// The type-erased group: a block, or a set of lanes of one warp (a tile or a coalesced group).
class thread_group {
 public:
  unsigned long long size() const { return num_threads(); }
  unsigned long long num_threads() const {
    return kind_ == kind::block ? gpulab_detail::block_size() : static_cast<unsigned>(size_);
  }
  unsigned long long thread_rank() const {
    return kind_ == kind::block
               ? gpulab_detail::block_rank()
               : static_cast<unsigned>(std::popcount(mask_ & gpulab_detail::lanes_below()));
  }
  void sync(std::source_location where = std::source_location::current()) const {
    if (kind_ == kind::block) {
      __syncthreads(where);
    } else {
      __syncwarp(mask_, where);
    }
  }
  unsigned get_type() const { return static_cast<unsigned>(kind_); }

 protected:
  enum class kind : unsigned char { block, coalesced };
  explicit thread_group(kind k, unsigned mask = 0, unsigned size = 0, unsigned meta_rank = 0,
                        unsigned meta_size = 1, bool tiled = false)
      : kind_(k),
        tiled_(tiled),
        size_(size),
        mask_(mask),
        meta_rank_(meta_rank),
        meta_size_(meta_size) {}

  kind kind_;
  bool tiled_;
  unsigned size_;
  unsigned mask_;
  unsigned meta_rank_, meta_size_;

  friend thread_group tiled_partition(const thread_group& parent, unsigned tile_size,
                                      std::source_location where);
  friend coalesced_group tiled_partition(const coalesced_group& parent, unsigned tile_size,
                                         std::source_location where);
  friend struct gpulab_detail::group_access;
};

// The scratch CUDA needs for tiles of more than 32 threads; the emulator needs none.
template <unsigned MaxBlockSize = 1024>
struct block_tile_memory {};

class thread_block : public thread_group {
 public:
  static void sync(std::source_location where = std::source_location::current()) {
    __syncthreads(where);
  }
  static unsigned size() { return gpulab_detail::block_size(); }
  static unsigned num_threads() { return gpulab_detail::block_size(); }
  static unsigned thread_rank() { return gpulab_detail::block_rank(); }
  static dim3 group_index() { return dim3(blockIdx.x, blockIdx.y, blockIdx.z); }
  static dim3 thread_index() { return dim3(threadIdx.x, threadIdx.y, threadIdx.z); }
  static dim3 group_dim() { return blockDim; }
  static dim3 dim_threads() { return blockDim; }

 private:
  thread_block() : thread_group(kind::block) {}
  friend thread_block this_thread_block();
  template <unsigned MaxBlockSize>
  friend thread_block this_thread_block(block_tile_memory<MaxBlockSize>&);
};

inline thread_block this_thread_block() {
  return thread_block();
}

template <unsigned MaxBlockSize>
thread_block this_thread_block(block_tile_memory<MaxBlockSize>&) {
  return thread_block();
}

}  // namespace cooperative_groups

namespace gpulab::simt::detail {
// The grid barrier of a cooperative launch (simt/cooperative_launch.cpp): a KernelFault that says
// why when the kernel was not launched cooperatively or a block cannot reach it.
void grid_sync(const std::source_location& where);
bool grid_is_cooperative();
}  // namespace gpulab::simt::detail

namespace cooperative_groups {

// The whole grid. grid.sync() waits for every thread of every block: it needs a cooperative launch
// (cudaLaunchCooperativeKernel), whose blocks are all resident at once; is_valid() says whether the
// kernel was launched so, as on a GPU.
class grid_group {
 public:
  static bool is_valid() { return gpulab::simt::detail::grid_is_cooperative(); }
  // Every thread of the block arrives, thread 0 waits for the other blocks, then the block goes
  // on together.
  static void sync(std::source_location where = std::source_location::current()) {
    __syncthreads(where);
    if (gpulab_detail::block_rank() == 0) gpulab::simt::detail::grid_sync(where);
    __syncthreads(where);
  }
  static unsigned long long num_blocks() {
    return static_cast<unsigned long long>(gridDim.x) * gridDim.y * gridDim.z;
  }
  static unsigned long long block_rank() {
    return blockIdx.x + static_cast<unsigned long long>(gridDim.x) *
                            (blockIdx.y + static_cast<unsigned long long>(gridDim.y) * blockIdx.z);
  }
  static unsigned long long size() { return num_blocks() * gpulab_detail::block_size(); }
  static unsigned long long num_threads() { return size(); }
  static unsigned long long thread_rank() {
    return block_rank() * gpulab_detail::block_size() + gpulab_detail::block_rank();
  }
  static dim3 group_dim() { return gridDim; }
  static dim3 dim_blocks() { return gridDim; }
  static dim3 block_index() { return dim3(blockIdx.x, blockIdx.y, blockIdx.z); }
  static dim3 dim_threads() {
    return dim3(gridDim.x * blockDim.x, gridDim.y * blockDim.y, gridDim.z * blockDim.z);
  }

 private:
  grid_group() = default;
  friend grid_group this_grid();
};

inline grid_group this_grid() {
  return grid_group();
}

// Lanes of one warp that shuffle among themselves, ranked from the lowest lane.
class coalesced_group : public thread_group {
 public:
  unsigned num_threads() const { return size_; }
  unsigned size() const { return size_; }
  unsigned thread_rank() const {
    return static_cast<unsigned>(std::popcount(mask_ & gpulab_detail::lanes_below()));
  }
  unsigned meta_group_rank() const { return meta_rank_; }
  unsigned meta_group_size() const { return meta_size_; }
  void sync(std::source_location where = std::source_location::current()) const {
    __syncwarp(mask_, where);
  }

  template <class T>
  T shfl(const T& value, int src_rank,
         std::source_location where = std::source_location::current()) const {
    const unsigned lane = gpulab_detail::lane_of_rank(mask_, static_cast<unsigned>(src_rank));
    return gpulab_detail::shuffle(gpulab_detail::WarpOp::shfl_idx, mask_, value,
                                  static_cast<int>(lane), 32, where);
  }
  // Ranks past the group's end read the caller's own value, as CUDA's implementation does.
  template <class T>
  T shfl_down(const T& value, unsigned delta,
              std::source_location where = std::source_location::current()) const {
    const unsigned rank = thread_rank() + delta;
    const unsigned lane =
        rank < size_ ? gpulab_detail::lane_of_rank(mask_, rank) : gpulab_detail::lane_id();
    return gpulab_detail::shuffle(gpulab_detail::WarpOp::shfl_idx, mask_, value,
                                  static_cast<int>(lane), 32, where);
  }
  template <class T>
  T shfl_up(const T& value, unsigned delta,
            std::source_location where = std::source_location::current()) const {
    const unsigned rank = thread_rank();
    const unsigned lane =
        rank >= delta ? gpulab_detail::lane_of_rank(mask_, rank - delta) : gpulab_detail::lane_id();
    return gpulab_detail::shuffle(gpulab_detail::WarpOp::shfl_idx, mask_, value,
                                  static_cast<int>(lane), 32, where);
  }
  int any(int predicate, std::source_location where = std::source_location::current()) const {
    return __ballot_sync(mask_, predicate, where) != 0;
  }
  int all(int predicate, std::source_location where = std::source_location::current()) const {
    return __ballot_sync(mask_, predicate, where) == mask_;
  }
  unsigned ballot(int predicate,
                  std::source_location where = std::source_location::current()) const {
    return gpulab_detail::pack_lanes(mask_, __ballot_sync(mask_, predicate, where));
  }
  template <class T>
  unsigned match_any(T value, std::source_location where = std::source_location::current()) const {
    return gpulab_detail::pack_lanes(mask_, __match_any_sync(mask_, value, where));
  }
  template <class T>
  unsigned match_all(T value, int& pred,
                     std::source_location where = std::source_location::current()) const {
    return gpulab_detail::pack_lanes(mask_, __match_all_sync(mask_, value, &pred, where));
  }

 private:
  explicit coalesced_group(unsigned mask, unsigned meta_rank = 0, unsigned meta_size = 1,
                           bool tiled = false)
      : thread_group(kind::coalesced, mask, static_cast<unsigned>(std::popcount(mask)), meta_rank,
                     meta_size, tiled) {}
  friend coalesced_group coalesced_threads(std::source_location where);
  friend coalesced_group tiled_partition(const coalesced_group& parent, unsigned tile_size,
                                         std::source_location where);
  friend thread_group tiled_partition(const thread_group& parent, unsigned tile_size,
                                      std::source_location where);
  friend struct gpulab_detail::group_access;
};

namespace gpulab_detail {
struct group_access {
  static unsigned mask(const thread_group& g) { return g.mask_; }
  static coalesced_group make(unsigned mask, unsigned meta_rank, unsigned meta_size) {
    return coalesced_group(mask, meta_rank, meta_size);
  }
};
}  // namespace gpulab_detail

// The lanes of the caller's warp that reach this call together (__activemask()).
inline coalesced_group coalesced_threads(
    std::source_location where = std::source_location::current()) {
  return coalesced_group(__activemask(where));
}

template <unsigned N, class Parent = void>
class thread_block_tile;

// N lanes of one warp, N a power of 2 up to 32; tile k of a warp holds lanes k*N to k*N+N-1.
template <unsigned N>
class thread_block_tile<N, void> : public thread_group {
  static_assert(N >= 1 && N <= 1024 && (N & (N - 1)) == 0,
                "cooperative_groups: a tile has a power of 2 from 1 to 1024 threads");
  static constexpr bool kOneWarp = N <= 32;

 public:
  static unsigned thread_rank() { return gpulab_detail::block_rank() & (N - 1); }
  static constexpr unsigned num_threads() { return N; }
  static constexpr unsigned size() { return N; }
  unsigned meta_group_rank() const { return meta_rank_; }
  unsigned meta_group_size() const { return meta_size_; }
  // A tile of several warps synchronizes with a block barrier: every thread of the block must
  // reach it together (stricter than CUDA, which needs only the tile's threads).
  static void sync(std::source_location where = std::source_location::current()) {
    if constexpr (kOneWarp) {
      __syncwarp(build_mask(), where);
    } else {
      require_whole_tile(where);
      __syncthreads(where);
    }
  }
  // CUDA synchronizes a tile of several warps by waiting until all N/32 of its warps have arrived
  // (cooperative_groups/details/sync.h); a block whose size is not a multiple of N leaves a last
  // tile with fewer warps, and its sync or cg::reduce never returns (an H100 hangs there).
  static void require_whole_tile(const std::source_location& where) {
    const unsigned block = gpulab_detail::block_size();
    if (block % N != 0 && gpulab_detail::block_rank() / N == block / N) {
      gpulab::simt::detail::invalid_device_call(
          "sync or cg::reduce on a tile of more than 32 threads that the block does not fill (its "
          "size is not a multiple of the tile's): a GPU waits forever for the tile's missing warps",
          where);
    }
  }

  template <class T>
  T shfl(const T& value, int src_rank,
         std::source_location where = std::source_location::current()) const {
    static_assert(
        kOneWarp,
        "gpulab: tiles of more than 32 threads have ranks, sizes, sync and cg::reduce only");
    return gpulab_detail::shuffle(gpulab_detail::WarpOp::shfl_idx, build_mask(), value, src_rank,
                                  static_cast<int>(N), where);
  }
  template <class T>
  T shfl_down(const T& value, unsigned delta,
              std::source_location where = std::source_location::current()) const {
    static_assert(
        kOneWarp,
        "gpulab: tiles of more than 32 threads have ranks, sizes, sync and cg::reduce only");
    return gpulab_detail::shuffle(gpulab_detail::WarpOp::shfl_down, build_mask(), value,
                                  static_cast<int>(delta), static_cast<int>(N), where);
  }
  template <class T>
  T shfl_up(const T& value, unsigned delta,
            std::source_location where = std::source_location::current()) const {
    static_assert(
        kOneWarp,
        "gpulab: tiles of more than 32 threads have ranks, sizes, sync and cg::reduce only");
    return gpulab_detail::shuffle(gpulab_detail::WarpOp::shfl_up, build_mask(), value,
                                  static_cast<int>(delta), static_cast<int>(N), where);
  }
  template <class T>
  T shfl_xor(const T& value, unsigned lane_mask,
             std::source_location where = std::source_location::current()) const {
    static_assert(
        kOneWarp,
        "gpulab: tiles of more than 32 threads have ranks, sizes, sync and cg::reduce only");
    return gpulab_detail::shuffle(gpulab_detail::WarpOp::shfl_xor, build_mask(), value,
                                  static_cast<int>(lane_mask), static_cast<int>(N), where);
  }
  // As CUDA computes them: from a ballot over the tile's full mask, in which absent lanes (past a
  // partial block's last thread) do not vote; so all() is false in a partial tile.
  int any(int predicate, std::source_location where = std::source_location::current()) const {
    static_assert(
        kOneWarp,
        "gpulab: tiles of more than 32 threads have ranks, sizes, sync and cg::reduce only");
    return __ballot_sync(build_mask(), predicate, where) != 0;
  }
  int all(int predicate, std::source_location where = std::source_location::current()) const {
    static_assert(
        kOneWarp,
        "gpulab: tiles of more than 32 threads have ranks, sizes, sync and cg::reduce only");
    return __ballot_sync(build_mask(), predicate, where) == build_mask();
  }
  unsigned ballot(int predicate,
                  std::source_location where = std::source_location::current()) const {
    static_assert(
        kOneWarp,
        "gpulab: tiles of more than 32 threads have ranks, sizes, sync and cg::reduce only");
    return __ballot_sync(build_mask(), predicate, where) >> first_lane();
  }
  template <class T>
  unsigned match_any(T value, std::source_location where = std::source_location::current()) const {
    static_assert(
        kOneWarp,
        "gpulab: tiles of more than 32 threads have ranks, sizes, sync and cg::reduce only");
    return __match_any_sync(build_mask(), value, where) >> first_lane();
  }
  template <class T>
  unsigned match_all(T value, int& pred,
                     std::source_location where = std::source_location::current()) const {
    static_assert(
        kOneWarp,
        "gpulab: tiles of more than 32 threads have ranks, sizes, sync and cg::reduce only");
    return __match_all_sync(build_mask(), value, &pred, where) >> first_lane();
  }

  template <class P>
  thread_block_tile(const thread_block_tile<N, P>& tile)  // NOLINT: implicit, as in CUDA
      : thread_block_tile(tile.meta_group_rank(), tile.meta_group_size()) {}

 protected:
  thread_block_tile(unsigned meta_rank, unsigned meta_size)
      : thread_group(kind::coalesced, build_mask(), N, meta_rank, meta_size, true) {}

  static unsigned first_lane() { return gpulab_detail::lane_id() & ~(N - 1); }
  static unsigned build_mask() {
    if constexpr (N < 32) {
      return ((1u << N) - 1u) << first_lane();
    } else {
      return 0xffffffffu;
    }
  }

  template <unsigned, class>
  friend class thread_block_tile;
  friend thread_block_tile<1, void> this_thread();
};

// A tile that remembers its parent's type (what tiled_partition<N>(parent) returns); it converts to
// thread_block_tile<N> and to thread_group.
template <unsigned N, class Parent>
class thread_block_tile : public thread_block_tile<N, void> {
 public:
  explicit thread_block_tile(const Parent& parent)
      : thread_block_tile<N, void>(static_cast<unsigned>(parent.thread_rank() / N),
                                   static_cast<unsigned>((parent.num_threads() + N - 1) / N)) {}
};

template <unsigned N, class Parent>
thread_block_tile<N, Parent> tiled_partition(const Parent& parent) {
  if constexpr (!std::is_same_v<Parent, thread_block>) {
    static_assert(N < Parent::num_threads(),
                  "cooperative_groups: a tile must be smaller than the tile it partitions");
  }
  return thread_block_tile<N, Parent>(parent);
}

inline thread_block_tile<1, void> this_thread() {
  return thread_block_tile<1, void>(0, 1);
}

// tiled_partition(parent, n): tiles of n threads (a power of 2 up to 32) of a block, a tile or a
// coalesced group, as a thread_group; the last tile of a partial warp holds the threads that exist.
inline thread_group tiled_partition(const thread_group& parent, unsigned tile_size,
                                    std::source_location where = std::source_location::current()) {
  if (tile_size == 0 || tile_size > 32 || (tile_size & (tile_size - 1)) != 0) {
    gpulab::simt::detail::invalid_device_call(
        "tiled_partition(parent, n) needs n a power of 2 from 1 to 32", where);
  }
  const auto size = static_cast<unsigned>(parent.num_threads());
  const auto rank = static_cast<unsigned>(parent.thread_rank());
  if (parent.kind_ == thread_group::kind::coalesced && !parent.tiled_) {
    // Ranks of a coalesced group need not be contiguous lanes: take the members of rank
    // k*n .. k*n+n-1.
    const unsigned first = rank / tile_size * tile_size;
    unsigned mask = 0;
    for (unsigned r = first; r < first + tile_size && r < size; ++r) {
      mask |= 1u << gpulab_detail::lane_of_rank(parent.mask_, r);
    }
    return thread_group(thread_group::kind::coalesced, mask,
                        static_cast<unsigned>(std::popcount(mask)), rank / tile_size,
                        (size + tile_size - 1) / tile_size, false);
  }
  if (parent.kind_ == thread_group::kind::coalesced && size <= tile_size) return parent;
  const unsigned base = rank & ~(tile_size - 1);
  const unsigned length = size - base < tile_size ? size - base : tile_size;
  const unsigned mask = (0xffffffffu >> (32 - length))
                        << (gpulab_detail::lane_id() & ~(tile_size - 1));
  const unsigned meta_size = parent.kind_ == thread_group::kind::block
                                 ? (size + tile_size - 1) / tile_size
                                 : size / tile_size;
  return thread_group(thread_group::kind::coalesced, mask,
                      static_cast<unsigned>(std::popcount(mask)), rank / tile_size, meta_size,
                      true);
}

inline coalesced_group tiled_partition(
    const coalesced_group& parent, unsigned tile_size,
    std::source_location where = std::source_location::current()) {
  const thread_group g =
      tiled_partition(static_cast<const thread_group&>(parent), tile_size, where);
  return coalesced_group(g.mask_, g.meta_rank_, g.meta_size_, g.tiled_);
}

// binary_partition / labeled_partition: the members of a tile or coalesced group that share the
// caller's predicate or label, as CUDA computes them (from the parent's mask: a tile in a partial
// warp counts its absent lanes in a group's size, as on a GPU).
template <class Group>
coalesced_group binary_partition(const Group& parent, bool pred,
                                 std::source_location where = std::source_location::current()) {
  const unsigned mask = gpulab_detail::group_access::mask(parent);
  const unsigned set = __ballot_sync(mask, pred, where);
  if (set == mask || set == 0) return gpulab_detail::group_access::make(mask, 0, 1);
  return gpulab_detail::group_access::make(mask & (pred ? set : ~set), pred ? 1u : 0u, 2);
}

template <class Group, class Label>
coalesced_group labeled_partition(const Group& parent, Label label,
                                  std::source_location where = std::source_location::current()) {
  static_assert(std::is_integral_v<Label> || std::is_pointer_v<Label>,
                "labeled_partition predicate must be an integral or pointer type");
  if constexpr (std::is_same_v<Label, bool>) {
    return binary_partition(parent, label, where);
  } else {
    const unsigned mask = gpulab_detail::group_access::mask(parent);
    unsigned long long key = 0;
    if constexpr (std::is_pointer_v<Label>) {
      key = reinterpret_cast<unsigned long long>(label);
    } else {
      key = static_cast<unsigned long long>(label);
    }
    const unsigned sub = __match_any_sync(mask, key, where);
    const auto leader = static_cast<unsigned>(std::countr_zero(sub));
    const unsigned leaders = __ballot_sync(mask, leader == gpulab_detail::lane_id(), where);
    return gpulab_detail::group_access::make(
        sub, static_cast<unsigned>(std::popcount(leaders & ((1u << leader) - 1u))),
        static_cast<unsigned>(std::popcount(leaders)));
  }
}

template <class Group>
void sync(const Group& group, std::source_location where = std::source_location::current()) {
  group.sync(where);
}
template <class Group>
auto thread_rank(const Group& group) -> decltype(group.thread_rank()) {
  return group.thread_rank();
}
template <class Group>
auto group_size(const Group& group) -> decltype(group.num_threads()) {
  return group.num_threads();
}
template <class Group>
auto num_threads(const Group& group) -> decltype(group.num_threads()) {
  return group.num_threads();
}

// ---- cg::reduce and its operators --------------------------------------------------------------

template <class T>
struct plus {
  T operator()(T a, T b) const { return a + b; }
};
template <class T>
struct less {
  T operator()(T a, T b) const { return (b < a) ? b : a; }
};
template <class T>
struct greater {
  T operator()(T a, T b) const { return (a < b) ? b : a; }
};
template <class T>
struct bit_and {
  T operator()(T a, T b) const { return a & b; }
};
template <class T>
struct bit_or {
  T operator()(T a, T b) const { return a | b; }
};
template <class T>
struct bit_xor {
  T operator()(T a, T b) const { return a ^ b; }
};

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
    for (unsigned lane_mask = 16; lane_mask > 0; lane_mask /= 2) {
      out = op(out, gpulab_detail::shuffle(gpulab_detail::WarpOp::shfl_xor, 0xffffffffu, out,
                                           static_cast<int>(lane_mask), 32, where));
    }
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
  if (group.size() == 32) {
    R out = value;
    for (unsigned lane_mask = 16; lane_mask > 0; lane_mask /= 2) {
      out = op(out, gpulab_detail::shuffle(gpulab_detail::WarpOp::shfl_xor, 0xffffffffu, out,
                                           static_cast<int>(lane_mask), 32, where));
    }
    return out;
  }
  R out = group.shfl(static_cast<R>(value), 0, where);
  for (unsigned r = 1; r < group.size(); ++r) {
    out = op(out, group.shfl(static_cast<R>(value), static_cast<int>(r), where));
  }
  return out;
}

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
