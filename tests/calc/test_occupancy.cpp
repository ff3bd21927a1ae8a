// The occupancy calculator: hand-worked values (G80 of the notes, Volta, Ampere, Hopper), every
// limit binding in turn, and (where the CUDA toolkit is installed) agreement with NVIDIA's own
// calculator, cuda_occupancy.h, for every architecture from 3.0 on over a sweep of configurations.
#include <fmt/format.h>
#include <catch2/catch.hpp>

#include <climits>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "calc/gpu_specs.hpp"
#include "calc/occupancy.hpp"

#ifdef GPULAB_CUDA_OCCUPANCY_H
#include GPULAB_CUDA_OCCUPANCY_H
#endif

using namespace gpulab::calc;

namespace {

ArchInfo arch(int major, int minor) {
  auto a = arch_info(major, minor);
  REQUIRE(a.has_value());
  return *a;
}

Occupancy occ(int major, int minor, int threads, int registers, std::int64_t static_shared = 0,
              std::int64_t dynamic_shared = 0, std::optional<int> carveout = std::nullopt) {
  return occupancy(arch(major, minor),
                   {threads, registers, static_shared, dynamic_shared, carveout});
}

bool limited_by(const Occupancy& o, Limiter l) {
  for (Limiter x : o.limiting) {
    if (x == l) return true;
  }
  return false;
}

}  // namespace

TEST_CASE("G80: the notes' 3 blocks of 256 threads, and one register more costs a block",
          "[calc][occupancy]") {
  // 8 warps round up to 8 (granularity 2); 8 x 32 x 10 = 2560 registers per block, a multiple of
  // 256; 8192 / 2560 = 3 blocks. Warps: 24 / 8 = 3. So 3 blocks, 24 warps, 100%.
  Occupancy o = occ(1, 0, 256, 10);
  CHECK(o.registers_per_block_allocated == 2560);
  CHECK(o.limit_registers == 3);
  CHECK(o.limit_warps == 3);
  CHECK(o.limit_blocks == 8);
  CHECK(o.blocks == 3);
  CHECK(o.active_warps == 24);
  CHECK(o.occupancy == 1.0);
  CHECK(limited_by(o, Limiter::warps));
  CHECK(limited_by(o, Limiter::registers));

  // 11 registers: 8 x 32 x 11 = 2816 -> 8192 / 2816 = 2 blocks, 16 of 24 warps.
  o = occ(1, 0, 256, 11);
  CHECK(o.registers_per_block_allocated == 2816);
  CHECK(o.blocks == 2);
  CHECK(o.limiting == std::vector<Limiter>{Limiter::registers});
  CHECK(o.occupancy == Approx(16.0 / 24));

  // 3 warps (96 threads) round up to 4 for registers: 4 x 32 x 10 = 1280 -> 1280 (unit 256);
  // 8192 / 1280 = 6 blocks; warps allow 24 / 3 = 8; blocks 8: registers bind at 6.
  o = occ(1, 0, 96, 10);
  CHECK(o.registers_per_block_allocated == 1280);
  CHECK(o.blocks == 6);
  // 512 threads is the 1.x block limit; 513 cannot launch.
  CHECK(occ(1, 0, 512, 0).blocks == 1);
  CHECK(occ(1, 0, 513, 0).problem == LaunchProblem::threads_per_block);
  CHECK(occ(1, 0, 513, 0).blocks == 0);
  // Shared memory in units of 512 bytes: 5000 -> 5120; 16384 / 5120 = 3 blocks.
  o = occ(1, 0, 64, 0, 5000);
  CHECK(o.shared_per_block_allocated == 5120);
  CHECK(o.limit_shared == 3);
  CHECK(o.blocks == 3);
}

TEST_CASE("Volta: 128 threads of 37 registers, the spreadsheet's worked example",
          "[calc][occupancy]") {
  // 37 x 32 = 1184 -> 1280 per warp; 65536 / 4 = 16384 per sub-partition, 16384 / 1280 = 12
  // warps each, 48 warps; 48 / 4 = 12 blocks; 48 of 64 warps = 75%.
  Occupancy o = occ(7, 0, 128, 37);
  CHECK(o.registers_per_warp == 1184);
  CHECK(o.registers_per_warp_allocated == 1280);
  CHECK(o.registers_per_partition == 16384);
  CHECK(o.warps_per_partition == 12);
  CHECK(o.warps_by_registers == 48);
  CHECK(o.limit_registers == 12);
  CHECK(o.limit_warps == 16);
  CHECK(o.blocks == 12);
  CHECK(o.occupancy == Approx(0.75));
  CHECK(o.limiting == std::vector<Limiter>{Limiter::registers});
  CHECK(o.shared_per_block == 0);  // no reserve before 8.0
  CHECK(o.limit_shared == INT_MAX);
}

TEST_CASE("Hopper: each limit binds in turn", "[calc][occupancy]") {
  // 256 threads, 32 registers: 8 warps; registers 1024 per warp, 16 per sub-partition, 64 warps
  // = 8 blocks; warps 64 / 8 = 8; 100%.
  Occupancy o = occ(9, 0, 256, 32);
  CHECK(o.blocks == 8);
  CHECK(o.occupancy == 1.0);
  CHECK(limited_by(o, Limiter::warps));
  CHECK(limited_by(o, Limiter::registers));
  // The 1 KiB reserve: a kernel with no shared memory still takes 1024 bytes per block.
  CHECK(o.shared_per_block == 1024);
  CHECK(o.shared_per_sm == 228 * 1024);
  CHECK(o.limit_shared == 228);

  // 64 registers: 2048 per warp, 8 warps per sub-partition, 32 warps, 4 blocks: 50%.
  o = occ(9, 0, 256, 64);
  CHECK(o.blocks == 4);
  CHECK(o.occupancy == 0.5);
  CHECK(o.limiting == std::vector<Limiter>{Limiter::registers});

  // Small blocks: 32 threads with 16 registers: warps allow 64, registers 128 warps, but an SM
  // holds at most 32 blocks: 32 warps, 50%.
  o = occ(9, 0, 32, 16);
  CHECK(o.blocks == 32);
  CHECK(o.limiting == std::vector<Limiter>{Limiter::blocks});
  CHECK(o.occupancy == 0.5);

  // Shared memory: 48 KiB static + 1 KiB reserve = 50176 bytes (a multiple of 128);
  // 233472 / 50176 = 4 blocks of 8 warps: 50%.
  o = occ(9, 0, 256, 16, 48 * 1024);
  CHECK(o.shared_per_block_allocated == 50176);
  CHECK(o.limit_shared == 4);
  CHECK(o.blocks == 4);
  CHECK(o.limiting == std::vector<Limiter>{Limiter::shared});
  CHECK_FALSE(o.needs_opt_in);

  // 100 bytes dynamic: 100 + 1024 = 1124 -> 1152 (units of 128).
  o = occ(9, 0, 128, 0, 0, 100);
  CHECK(o.shared_per_block_allocated == 1152);
  CHECK(o.limit_shared == 233472 / 1152);

  // 227 KiB is the opt-in limit: it fits, one block per SM; one byte more does not.
  o = occ(9, 0, 128, 32, 0, 227 * 1024);
  CHECK(o.needs_opt_in);
  CHECK(o.blocks == 1);
  o = occ(9, 0, 128, 32, 0, 227 * 1024 + 1);
  CHECK(o.problem == LaunchProblem::shared_per_block);
  CHECK(o.blocks == 0);
}

TEST_CASE("Launches that cannot run give 0 blocks and say why", "[calc][occupancy]") {
  // 1024 threads x 65 registers: 65 x 32 = 2080 -> 2304 per warp x 32 warps = 73728 > 65536.
  Occupancy o = occ(9, 0, 1024, 65);
  CHECK(o.problem == LaunchProblem::registers_per_block);
  CHECK(o.blocks == 0);
  CHECK(o.occupancy == 0);
  // 64 registers fit exactly: 2048 x 32 = 65536.
  CHECK(occ(9, 0, 1024, 64).blocks == 1);
  // 992 threads = 31 warps, but the hardware check rounds to 32: 64 registers still fit, 65 not.
  CHECK(occ(9, 0, 992, 64).blocks == 1);
  CHECK(occ(9, 0, 992, 65).problem == LaunchProblem::registers_per_block);
  CHECK(occ(9, 0, 1025, 0).problem == LaunchProblem::threads_per_block);
  CHECK(occ(9, 0, 64, 256).problem == LaunchProblem::registers_per_thread);
  CHECK_THROWS_AS(occ(9, 0, 0, 0), std::invalid_argument);
  CHECK_THROWS_AS(occ(9, 0, 32, -1), std::invalid_argument);
}

TEST_CASE("Carve-out preference: the SM's shared memory follows it unless a block needs more",
          "[calc][occupancy]") {
  const ArchInfo h100 = arch(9, 0);
  CHECK(shared_for_carveout(h100, std::nullopt) == 228 * 1024);
  CHECK(shared_for_carveout(h100, 100) == 228 * 1024);
  CHECK(shared_for_carveout(h100, 50) == 132 * 1024);  // 114 KiB -> the next size, 132
  CHECK(shared_for_carveout(h100, 0) == 0);
  // 25%: 57 KiB -> 64 KiB; blocks of 8 KiB + 1 KiB reserve: 65536 / 9216 = 7.
  Occupancy o = occ(9, 0, 64, 0, 8 * 1024, 0, 25);
  CHECK(o.shared_per_sm == 64 * 1024);
  CHECK(o.limit_shared == 7);
  // 0% asks for no shared memory: the driver takes the smallest size that holds one block.
  o = occ(9, 0, 64, 0, 20 * 1024, 0, 0);
  CHECK(o.shared_per_sm == 32 * 1024);
  CHECK(o.limit_shared == 1);
  // Turing has 32 or 64 KiB only.
  CHECK(shared_for_carveout(arch(7, 5), 10) == 32 * 1024);
  // Before Volta there is no carve-out: the preference changes nothing.
  CHECK(shared_for_carveout(arch(6, 1), 10) == 96 * 1024);
}

TEST_CASE("Every architecture has its allocation figures", "[calc][occupancy][specs]") {
  for (const ArchInfo& a : known_archs()) {
    CAPTURE(a.major, a.minor);
    CHECK(a.max_registers_per_block > 0);
    CHECK(a.max_registers_per_block <= a.registers_per_sm);
    CHECK(a.register_alloc_unit > 0);
    CHECK(a.warp_alloc_granularity > 0);
    CHECK(a.shared_alloc_unit > 0);
    CHECK(a.max_shared_per_block_default_kib > 0);
    CHECK(a.max_shared_per_block_default_kib <= a.max_shared_memory_per_block_kib);
    CHECK(a.registers_per_block == (a.major == 1));
    CHECK(a.reserved_shared_per_block == (a.major >= 8 ? 1024 : 0));
    if (a.major >= 7) {
      REQUIRE_FALSE(a.shared_carveouts_kib.empty());
      CHECK(a.shared_carveouts_kib.back() == a.max_shared_memory_per_sm_kib);
    }
    // One block of 32 threads always fits.
    CHECK(occupancy(a, {32, 16, 0, 0, std::nullopt}).blocks >= 1);
  }
}

#ifdef GPULAB_CUDA_OCCUPANCY_H
TEST_CASE("Agrees with CUDA's cuda_occupancy.h on every architecture from 3.0 on",
          "[calc][occupancy]") {
  long compared = 0, mismatches = 0;
  std::string first_mismatch;
  for (const ArchInfo& a : known_archs()) {
    if (a.major < 3) continue;  // cuda_occupancy.h knows 3.0 and later
    cudaOccDeviceProp p;
    p.computeMajor = a.major;
    p.computeMinor = a.minor;
    p.maxThreadsPerBlock = a.max_threads_per_block;
    p.maxThreadsPerMultiprocessor = a.max_threads_per_sm;
    p.regsPerBlock = a.max_registers_per_block;
    p.regsPerMultiprocessor = a.registers_per_sm;
    p.warpSize = 32;
    p.sharedMemPerBlock = static_cast<size_t>(a.max_shared_per_block_default_kib) * 1024;
    p.sharedMemPerMultiprocessor = static_cast<size_t>(a.max_shared_memory_per_sm_kib) * 1024;
    p.numSms = 1;
    p.sharedMemPerBlockOptin = static_cast<size_t>(a.max_shared_memory_per_block_kib) * 1024;
    p.reservedSharedMemPerBlock = static_cast<size_t>(a.reserved_shared_per_block);
    const std::int64_t optin = static_cast<std::int64_t>(a.max_shared_memory_per_block_kib) * 1024;
    const int carveouts[] = {-1, 0, 25, 50, 100};
    for (int carveout : carveouts) {
      if (carveout >= 0 && a.major < 7) continue;
      for (int threads = 32; threads <= a.max_threads_per_block; threads += 32) {
        for (int regs :
             {0, 8, 16, 24, 32, 37, 40, 48, 56, 63, 64, 65, 72, 96, 128, 168, 200, 255}) {
          if (regs > a.max_registers_per_thread) continue;
          for (std::int64_t stat : {0, 1, 100, 4096, 12 * 1024, 48 * 1024}) {
            for (std::int64_t dyn :
                 {std::int64_t{0}, std::int64_t{129}, std::int64_t{3000}, std::int64_t{20 * 1024},
                  std::int64_t{60 * 1024}, optin - stat, optin - stat + 1}) {
              if (dyn < 0) continue;
              cudaOccFuncAttributes f;
              f.maxThreadsPerBlock = a.max_threads_per_block;
              f.numRegs = regs;
              f.sharedSizeBytes = static_cast<size_t>(stat);
              f.partitionedGCConfig = PARTITIONED_GC_OFF;
              f.shmemLimitConfig = FUNC_SHMEM_LIMIT_OPTIN;
              f.maxDynamicSharedSizeBytes = static_cast<size_t>(optin - stat);
              f.numBlockBarriers = 1;
              cudaOccDeviceState state;
              state.carveoutConfig = carveout;
              cudaOccResult res{};
              const cudaOccError err = cudaOccMaxActiveBlocksPerMultiprocessor(
                  &res, &p, &f, &state, threads, static_cast<size_t>(dyn));
              std::optional<int> pct;
              if (carveout >= 0) pct = carveout;
              const Occupancy o = occupancy(a, {threads, regs, stat, dyn, pct});
              const bool same =
                  err == CUDA_OCC_SUCCESS && o.blocks == res.activeBlocksPerMultiprocessor &&
                  (o.problem != LaunchProblem::none || (o.limit_warps == res.blockLimitWarps &&
                                                        o.limit_blocks == res.blockLimitBlocks &&
                                                        o.limit_registers == res.blockLimitRegs &&
                                                        o.limit_shared == res.blockLimitSharedMem));
              if (!same && ++mismatches == 1) {
                first_mismatch = fmt::format(
                    "cc {}.{} threads {} registers {} static {} dynamic {} carveout {}: gpulab {} "
                    "blocks, cuda_occupancy.h {} (error {})",
                    a.major, a.minor, threads, regs, stat, dyn, carveout, o.blocks,
                    res.activeBlocksPerMultiprocessor, static_cast<int>(err));
              }
              ++compared;
            }
          }
        }
      }
    }
  }
  CAPTURE(first_mismatch);
  CHECK(mismatches == 0);
  CHECK(compared > 100000);
}
#endif
