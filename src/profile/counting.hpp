// What Nsight Compute counts for one warp-level access or branch: global requests and 32-byte
// sectors, shared-memory wavefronts and bank conflicts, branch uniformity (pure functions).
//
// The model (docs/profile.md):
// - Global memory: one request per warp-level instruction; its sectors are the distinct 32-byte
//   aligned sectors the active lanes' bytes touch. The ideal is what the same bytes would need
//   if they were contiguous and aligned: ceil(active lanes x width / 32).
// - Shared memory: 32 banks of 4 bytes (bank = (address / 4) % 32). Accesses of up to 4 bytes are
//   served for the whole warp at once; 8-byte accesses one half-warp at a time, 16-byte accesses
//   one quarter-warp at a time (each part its own wavefront at best). In each part, a bank that
//   must deliver n different 4-byte words costs n wavefronts (an n-way conflict); lanes reading
//   the same word share it (broadcast). Bank conflicts = wavefronts - the ideal (one wavefront per
//   part with an active lane).
// - Branches: a warp-level branch is uniform when all its active lanes go the same way.
#pragma once

#include <array>
#include <cstdint>

namespace gpulab::profile {

inline constexpr unsigned kWarpLanes = 32;
inline constexpr unsigned kSectorBytes = 32;
inline constexpr unsigned kBanks = 32;
inline constexpr unsigned kBankBytes = 4;

// One warp-level memory instruction: the address each active lane accessed, `width` bytes each.
struct WarpAccess {
  std::array<std::uint64_t, kWarpLanes> address{};
  std::uint32_t active = 0;  // bit l: lane l took part
  std::uint32_t width = 4;   // bytes per lane: 1, 2, 4, 8 or 16
};

struct GlobalCost {
  std::uint64_t requests = 0;       // 1 when a lane is active
  std::uint64_t sectors = 0;        // distinct 32-byte sectors touched
  std::uint64_t ideal_sectors = 0;  // ceil(active x width / 32)
  std::uint64_t bytes_used = 0;     // active x width
};

struct SharedCost {
  std::uint64_t requests = 0;
  std::uint64_t wavefronts = 0;
  std::uint64_t ideal_wavefronts = 0;  // parts (whole, half or quarter warps) with an active lane
  std::uint64_t conflicts = 0;         // wavefronts - ideal_wavefronts
  unsigned worst_way = 0;              // the largest n of an n-way conflict in any part
};

GlobalCost global_cost(const WarpAccess& access);
SharedCost shared_cost(const WarpAccess& access);

// Lanes served together in shared memory for this width: 32, 16 (8 bytes) or 8 (16 bytes).
unsigned shared_lanes_per_part(std::uint32_t width);

// One warp-level branch: `active` lanes reached it, `taken` of them went to the branch target.
struct BranchCost {
  std::uint64_t branches = 0;  // 1 when a lane is active
  std::uint64_t uniform = 0;   // 1 when every active lane went the same way
  std::uint64_t divergent = 0;
};
BranchCost branch_cost(std::uint32_t active, std::uint32_t taken);

// Sums over many accesses, branches and executed instructions: the metrics Nsight Compute names.
struct Counters {
  GlobalCost global_ld, global_st;
  SharedCost shared_ld, shared_st;
  BranchCost branch;
  // Warp-level instructions executed and the active threads summed over them (the ratio is the
  // average active threads per executed instruction).
  std::uint64_t inst_executed = 0;
  std::uint64_t thread_inst_executed = 0;

  void add_global(const GlobalCost& c, bool store);
  void add_shared(const SharedCost& c, bool store);
  void add(const Counters& other);
  bool empty() const;
};

// a += b: every count summed (worst_way: the larger of the two).
void add_to(GlobalCost& a, const GlobalCost& b);
void add_to(SharedCost& a, const SharedCost& b);

// Derived values, as ncu prints them; 0 where nothing was counted (a kernel without branches has a
// branch uniformity of 0%, as in ncu).
double ratio_or_zero(std::uint64_t numerator, std::uint64_t denominator);
double sectors_per_request(const GlobalCost& c);
double thread_inst_per_inst(const Counters& c);
double branch_uniformity_pct(const Counters& c);

}  // namespace gpulab::profile
