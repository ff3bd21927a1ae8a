// The occupancy calculator (see occupancy.hpp). The order of the checks and the roundings follow
// CUDA's cuda_occupancy.h, which the tests compare against for every architecture it knows.
#include "calc/occupancy.hpp"

#include <algorithm>
#include <climits>
#include <stdexcept>

#include "core/enum_names.hpp"

namespace gpulab::calc {
namespace {

constexpr int kWarpSize = 32;

std::int64_t round_up(std::int64_t x, std::int64_t unit) {
  return unit <= 0 ? x : (x + unit - 1) / unit * unit;
}

// Blocks the registers allow on a per-warp architecture with `partitions` sub-partitions; fills
// the per-warp facts of `o`.
int register_limit_per_warp(Occupancy& o, int partitions) {
  const ArchInfo& a = o.arch;
  o.registers_per_warp_allocated =
      static_cast<int>(round_up(o.registers_per_warp, a.register_alloc_unit));
  o.registers_per_block_allocated = o.registers_per_warp_allocated * o.warps_per_block;
  // The hardware checks a block as if its warps were spread over every sub-partition at once.
  const auto assumed = static_cast<std::int64_t>(o.registers_per_warp_allocated) *
                       round_up(o.warps_per_block, partitions);
  if (assumed > a.max_registers_per_block ||
      o.registers_per_block_allocated > a.max_registers_per_block) {
    o.problem = LaunchProblem::registers_per_block;
    return 0;
  }
  o.registers_per_partition = a.registers_per_sm / partitions;
  o.warps_per_partition = o.registers_per_partition / o.registers_per_warp_allocated;
  o.warps_by_registers = o.warps_per_partition * partitions;
  return o.warps_by_registers / o.warps_per_block;
}

int register_limit(Occupancy& o) {
  const ArchInfo& a = o.arch;
  const int r = o.in.registers;
  if (r == 0) return INT_MAX;
  o.registers_counted = true;
  o.registers_per_warp = r * kWarpSize;
  if (a.max_registers_per_thread > 0 && r > a.max_registers_per_thread) {
    o.problem = LaunchProblem::registers_per_thread;
    return 0;
  }
  if (a.registers_per_block) {
    // 1.x: the block's warps round up to the granularity, the block's registers to the unit.
    o.registers_per_block_allocated = static_cast<int>(
        round_up(round_up(o.warps_per_block, a.warp_alloc_granularity) * kWarpSize * r,
                 a.register_alloc_unit));
    if (o.registers_per_block_allocated > a.max_registers_per_block) {
      o.problem = LaunchProblem::registers_per_block;
      return 0;
    }
    return a.registers_per_sm / o.registers_per_block_allocated;
  }
  int limit = register_limit_per_warp(o, a.warp_alloc_granularity);
  // GP100 (6.0) has 2 sub-partitions, its Pascal siblings 4; CUDA refuses on 6.0 what would not
  // run on the others, so that a binary runs on every Pascal.
  if (a.major == 6 && a.minor == 0 && limit > 0) {
    Occupancy sibling = o;
    if (register_limit_per_warp(sibling, 4) == 0) {
      o.problem = sibling.problem;
      limit = 0;
    }
  }
  return limit;
}

// The smallest carve-out that holds `bytes`, or -1 when none does.
std::int64_t carveout_at_least(const ArchInfo& a, std::int64_t bytes) {
  for (int kib : a.shared_carveouts_kib) {
    if (static_cast<std::int64_t>(kib) * 1024 >= bytes)
      return static_cast<std::int64_t>(kib) * 1024;
  }
  return -1;
}

int shared_limit(Occupancy& o) {
  const ArchInfo& a = o.arch;
  const std::int64_t user = o.in.static_shared + o.in.dynamic_shared;
  o.shared_per_block = user + a.reserved_shared_per_block;
  o.shared_per_block_allocated = round_up(o.shared_per_block, a.shared_alloc_unit);
  const std::int64_t default_limit =
      static_cast<std::int64_t>(a.max_shared_per_block_default_kib) * 1024;
  o.needs_opt_in = user > default_limit;
  o.shared_block_limit =
      (o.needs_opt_in ? static_cast<std::int64_t>(a.max_shared_memory_per_block_kib) * 1024
                      : default_limit) +
      a.reserved_shared_per_block;
  o.shared_preferred = shared_for_carveout(a, o.in.carveout_percent);
  if (o.shared_per_block_allocated > o.shared_block_limit) {
    o.problem = LaunchProblem::shared_per_block;
    o.shared_per_sm = o.shared_preferred;
    return 0;
  }
  // The preference holds while one block fits in it; otherwise the driver configures the
  // smallest carve-out that holds one block.
  if (o.shared_preferred >= o.shared_per_block_allocated) {
    o.shared_per_sm = o.shared_preferred;
  } else if (!a.shared_carveouts_kib.empty()) {
    o.shared_per_sm = carveout_at_least(a, o.shared_per_block_allocated);
  } else {
    o.shared_per_sm = static_cast<std::int64_t>(a.max_shared_memory_per_sm_kib) * 1024;
  }
  if (o.shared_per_block_allocated == 0) return INT_MAX;
  return static_cast<int>(o.shared_per_sm / o.shared_per_block_allocated);
}

}  // namespace

std::string_view limiter_name(Limiter l) {
  static constexpr std::array<std::string_view, 4> kNames{"warps", "blocks", "registers", "shared"};
  static_assert(kNames.size() == static_cast<std::size_t>(Limiter::shared) + 1);
  return enum_name(l, kNames);
}

std::int64_t shared_for_carveout(const ArchInfo& a, std::optional<int> percent) {
  const std::int64_t largest = static_cast<std::int64_t>(a.max_shared_memory_per_sm_kib) * 1024;
  if (!percent || a.shared_carveouts_kib.empty()) return largest;
  const std::int64_t asked = *percent * largest / 100;
  const std::int64_t size = carveout_at_least(a, asked);
  return size < 0 ? largest : size;
}

Occupancy occupancy(const ArchInfo& arch, const OccupancyInput& in) {
  if (in.threads < 1 || in.registers < 0 || in.static_shared < 0 || in.dynamic_shared < 0 ||
      (in.carveout_percent && (*in.carveout_percent < 0 || *in.carveout_percent > 100))) {
    throw std::invalid_argument("occupancy: threads >= 1, registers, shared sizes >= 0");
  }
  Occupancy o;
  o.arch = arch;
  o.in = in;
  o.max_warps = arch.max_warps_per_sm;
  o.warps_per_block = (in.threads + kWarpSize - 1) / kWarpSize;

  // Each resource's limit is computed even when another already makes the launch impossible, so
  // that the text can show every formula; the first problem found is the one reported.
  LaunchProblem first = LaunchProblem::none;
  if (in.threads > arch.max_threads_per_block) {
    first = LaunchProblem::threads_per_block;
    o.limit_warps = 0;
  } else {
    o.limit_warps = o.max_warps / o.warps_per_block;
  }
  o.limit_blocks = arch.max_blocks_per_sm;
  o.limit_registers = register_limit(o);
  if (first == LaunchProblem::none) first = o.problem;
  o.limit_shared = shared_limit(o);
  if (first == LaunchProblem::none) first = o.problem;
  o.problem = first;

  o.blocks = std::min({o.limit_warps, o.limit_blocks, o.limit_registers, o.limit_shared});
  if (o.problem != LaunchProblem::none) o.blocks = 0;
  const std::pair<Limiter, int> limits[] = {{Limiter::warps, o.limit_warps},
                                            {Limiter::blocks, o.limit_blocks},
                                            {Limiter::registers, o.limit_registers},
                                            {Limiter::shared, o.limit_shared}};
  for (const auto& [which, blocks] : limits) {
    if (blocks == o.blocks) o.limiting.push_back(which);
  }
  o.active_warps = o.blocks * o.warps_per_block;
  o.occupancy = o.max_warps > 0 ? static_cast<double>(o.active_warps) / o.max_warps : 0.0;
  return o;
}

}  // namespace gpulab::calc
