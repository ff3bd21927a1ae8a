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
          "在线程块没有填满的、超过 32 个线程的分块上调用 sync 或 cg::reduce（线程块大小不是分块"
          "大小的倍数）：GPU 会永远等待分块中缺少的线程束",
          where);
    }
  }

  template <class T>
  T shfl(const T& value, int src_rank,
         std::source_location where = std::source_location::current()) const {
    return tile_shuffle(gpulab_detail::WarpOp::shfl_idx, value, src_rank, where);
  }
  template <class T>
  T shfl_down(const T& value, unsigned delta,
              std::source_location where = std::source_location::current()) const {
    return tile_shuffle(gpulab_detail::WarpOp::shfl_down, value, static_cast<int>(delta), where);
  }
  template <class T>
  T shfl_up(const T& value, unsigned delta,
            std::source_location where = std::source_location::current()) const {
    return tile_shuffle(gpulab_detail::WarpOp::shfl_up, value, static_cast<int>(delta), where);
  }
  template <class T>
  T shfl_xor(const T& value, unsigned lane_mask,
             std::source_location where = std::source_location::current()) const {
    return tile_shuffle(gpulab_detail::WarpOp::shfl_xor, value, static_cast<int>(lane_mask), where);
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
  // One shuffle over the tile's lanes, for shfl, shfl_down, shfl_up and shfl_xor.
  template <class T>
  T tile_shuffle(gpulab_detail::WarpOp op, const T& value, int arg,
                 const std::source_location& where) const {
    static_assert(
        kOneWarp,
        "gpulab: tiles of more than 32 threads have ranks, sizes, sync and cg::reduce only");
    return gpulab_detail::shuffle(op, build_mask(), value, arg, static_cast<int>(N), where);
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
        "tiled_partition(parent, n) needs n a power of 2 from 1 to 32",
        "tiled_partition(parent, n) 要求 n 是 1 到 32 之间的 2 的幂", where);
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

}  // namespace cooperative_groups

// What nvcc keeps in <cooperative_groups/reduce.h> and <cooperative_groups/scan.h>: gpulab run's
// <cooperative_groups.h> defines GPULAB_CG_AS_NVCC, so that a program that calls cg::reduce
// without including reduce.h fails here as it fails under nvcc; gpulab's own code gets all of it.
#ifndef GPULAB_CG_AS_NVCC
#include "simt/cg_reduce.hpp"
#include "simt/cg_scan.hpp"
#endif
