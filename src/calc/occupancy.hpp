// Occupancy: how many blocks of a kernel an SM holds at once, limited by warps, blocks, registers
// and shared memory, each with its allocation granularity (the rules of NVIDIA's occupancy
// calculator and of cudaOccupancyMaxActiveBlocksPerMultiprocessor).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "calc/gpu_specs.hpp"

namespace gpulab::calc {

struct OccupancyInput {
  int threads = 0;                  // per block
  int registers = 0;                // per thread (0: not counted, as for a kernel using none)
  std::int64_t static_shared = 0;   // bytes, __shared__ arrays the compiler sized
  std::int64_t dynamic_shared = 0;  // bytes, the third <<<...>>> argument
  // cudaFuncAttributePreferredSharedMemoryCarveout, percent of the largest shared-memory size;
  // nothing: the default (the largest carve-out). Only where the SM has carve-outs (7.0 and later).
  std::optional<int> carveout_percent;
};

// What can bind: the order is the one the text lists them in.
enum class Limiter { warps, blocks, registers, shared };
std::string_view limiter_name(Limiter l);  // "warps", "blocks", "registers", "shared"

// Why a configuration cannot launch at all (0 blocks per SM).
enum class LaunchProblem {
  none,
  threads_per_block,     // threads > the architecture's block limit
  registers_per_thread,  // registers > the per-thread limit
  registers_per_block,   // a block needs more registers than one block may hold
  shared_per_block,      // static + dynamic shared memory > what one block may use
};

struct Occupancy {
  ArchInfo arch;
  OccupancyInput in;

  // Warps: a block takes whole warps.
  int warps_per_block = 0;  // ceil(threads / 32)
  int limit_warps = 0;      // max warps per SM / warps per block

  int limit_blocks = 0;  // the architecture's blocks per SM

  // Registers. Since 2.0 per warp: R x 32 rounded up to the allocation unit; the register file
  // is split into `warp_alloc_granularity` sub-partitions and a warp's registers come from one.
  // On 1.x per block: the block's warps round up to the granularity, then to the unit.
  bool registers_counted = false;        // registers > 0
  int registers_per_warp = 0;            // R x 32
  int registers_per_warp_allocated = 0;  // rounded up to the unit (per-warp archs)
  int registers_per_block_allocated = 0;
  int registers_per_partition = 0;  // registers per SM / sub-partitions (per-warp archs)
  int warps_per_partition = 0;      // floor(per partition / per warp allocated)
  int warps_by_registers = 0;       // warps_per_partition x sub-partitions
  int limit_registers = 0;          // blocks; INT_MAX when registers are not counted

  // Shared memory: static + reserve + dynamic, rounded up to the allocation unit.
  std::int64_t shared_per_block = 0;            // bytes, with the per-block reserve
  std::int64_t shared_per_block_allocated = 0;  // rounded up to the unit
  std::int64_t shared_block_limit = 0;          // bytes one block may use (opt-in limit + reserve)
  bool needs_opt_in = false;          // more than the default 48 KiB: cudaFuncSetAttribute
  std::int64_t shared_preferred = 0;  // bytes per SM the carve-out preference asks for
  std::int64_t shared_per_sm = 0;     // bytes per SM the driver configures for this kernel
  int limit_shared = 0;               // blocks; INT_MAX when the block uses none

  LaunchProblem problem = LaunchProblem::none;
  int blocks = 0;                 // active blocks per SM: the smallest limit
  std::vector<Limiter> limiting;  // every limit equal to `blocks`
  int active_warps = 0;           // blocks x warps per block
  int max_warps = 0;              // per SM
  double occupancy = 0;           // active / max warps, 0..1
};

// Throws std::invalid_argument for threads < 1, negative registers or shared sizes; the CLI checks
// its options first and says why. An impossible launch is not an error: blocks = 0 and `problem`.
Occupancy occupancy(const ArchInfo& arch, const OccupancyInput& in);

// The architecture's largest shared-memory size per SM, in bytes (the default carve-out), and what
// a carve-out preference of `percent` asks for: percent x largest / 100 rounded up to the next size
// the SM has (cuda_occupancy.h, cudaOccSMemPreferenceVoltaPlus).
std::int64_t shared_for_carveout(const ArchInfo& arch, std::optional<int> percent);

}  // namespace gpulab::calc
