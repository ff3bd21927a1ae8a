// The counting model of gpulab profile (see counting.hpp).
#include "profile/counting.hpp"

#include <algorithm>  // std::sort, std::unique, std::max
#include <bit>        // std::popcount, std::countr_zero

namespace gpulab::profile {

GlobalCost global_cost(const WarpAccess& access) {
  GlobalCost c;
  if (access.active == 0) return c;
  const std::uint64_t width = std::max<std::uint32_t>(access.width, 1);
  // At most 32 lanes x (16 / 32 + 1) sectors each: a small array, sorted, beats a hash set.
  std::array<std::uint64_t, kWarpLanes * 2> sectors{};
  std::size_t n = 0;
  for (unsigned lane = 0; lane < kWarpLanes; ++lane) {
    if ((access.active >> lane & 1u) == 0) continue;
    const std::uint64_t first = access.address[lane] / kSectorBytes;
    const std::uint64_t last = (access.address[lane] + width - 1) / kSectorBytes;
    for (std::uint64_t s = first; s <= last && n < sectors.size(); ++s) sectors[n++] = s;
  }
  std::sort(sectors.begin(), sectors.begin() + static_cast<std::ptrdiff_t>(n));
  const auto end = std::unique(sectors.begin(), sectors.begin() + static_cast<std::ptrdiff_t>(n));
  const auto lanes = static_cast<std::uint64_t>(std::popcount(access.active));
  c.requests = 1;
  c.sectors = static_cast<std::uint64_t>(end - sectors.begin());
  c.bytes_used = lanes * width;
  c.ideal_sectors = (c.bytes_used + kSectorBytes - 1) / kSectorBytes;
  return c;
}

unsigned shared_lanes_per_part(std::uint32_t width) {
  if (width >= 16) return 8;
  if (width >= 8) return 16;
  return 32;
}

SharedCost shared_cost(const WarpAccess& access) {
  SharedCost c;
  if (access.active == 0) return c;
  c.requests = 1;
  const unsigned part_lanes = shared_lanes_per_part(access.width);
  const unsigned words_per_lane = std::max<std::uint32_t>(access.width, kBankBytes) / kBankBytes;
  for (unsigned first = 0; first < kWarpLanes; first += part_lanes) {
    // The part's active lanes, visited one set bit at a time.
    const std::uint32_t part =
        access.active >> first & (part_lanes == kWarpLanes ? ~0u : (1u << part_lanes) - 1u);
    if (part == 0) continue;
    // Nearly always every bank is asked for one word at most: one wavefront, found without
    // sorting. Otherwise: the distinct words this part needs, and how many fall in the busiest
    // bank.
    std::array<std::uint64_t, kBanks> bank_word{};
    std::uint32_t banks_used = 0;
    bool clash = false;
    for (std::uint32_t left = part; left != 0 && !clash; left &= left - 1) {
      const std::uint64_t word = access.address[first + std::countr_zero(left)] / kBankBytes;
      for (std::uint64_t w = word; w < word + words_per_lane; ++w) {
        const auto bank = static_cast<unsigned>(w % kBanks);
        if ((banks_used >> bank & 1u) == 0) {
          banks_used |= 1u << bank;
          bank_word[bank] = w;
        } else if (bank_word[bank] != w) {
          clash = true;
          break;
        }
      }
    }
    if (!clash) {
      c.wavefronts += 1;
      c.ideal_wavefronts += 1;
      c.worst_way = std::max(c.worst_way, 1u);
      continue;
    }
    std::array<std::uint64_t, kWarpLanes> words{};
    std::size_t n = 0;
    for (unsigned lane = first; lane < first + part_lanes; ++lane) {
      if ((access.active >> lane & 1u) == 0) continue;
      const std::uint64_t word = access.address[lane] / kBankBytes;
      for (unsigned k = 0; k < words_per_lane && n < words.size(); ++k) words[n++] = word + k;
    }
    if (n == 0) continue;
    std::sort(words.begin(), words.begin() + static_cast<std::ptrdiff_t>(n));
    const auto end = std::unique(words.begin(), words.begin() + static_cast<std::ptrdiff_t>(n));
    std::array<unsigned, kBanks> per_bank{};
    unsigned way = 0;
    for (auto it = words.begin(); it != end; ++it) way = std::max(way, ++per_bank[*it % kBanks]);
    c.wavefronts += way;
    c.ideal_wavefronts += 1;
    c.worst_way = std::max(c.worst_way, way);
  }
  c.conflicts = c.wavefronts - c.ideal_wavefronts;
  return c;
}

BranchCost branch_cost(std::uint32_t active, std::uint32_t taken) {
  BranchCost c;
  if (active == 0) return c;
  c.branches = 1;
  taken &= active;
  if (taken == 0 || taken == active) {
    c.uniform = 1;
  } else {
    c.divergent = 1;
  }
  return c;
}

void add_to(GlobalCost& a, const GlobalCost& b) {
  a.requests += b.requests;
  a.sectors += b.sectors;
  a.ideal_sectors += b.ideal_sectors;
  a.bytes_used += b.bytes_used;
}

void add_to(SharedCost& a, const SharedCost& b) {
  a.requests += b.requests;
  a.wavefronts += b.wavefronts;
  a.ideal_wavefronts += b.ideal_wavefronts;
  a.conflicts += b.conflicts;
  a.worst_way = std::max(a.worst_way, b.worst_way);
}

void Counters::add_global(const GlobalCost& c, bool store) {
  add_to(store ? global_st : global_ld, c);
}

void Counters::add_shared(const SharedCost& c, bool store) {
  add_to(store ? shared_st : shared_ld, c);
}

void Counters::add(const Counters& o) {
  add_to(global_ld, o.global_ld);
  add_to(global_st, o.global_st);
  add_to(shared_ld, o.shared_ld);
  add_to(shared_st, o.shared_st);
  branch.branches += o.branch.branches;
  branch.uniform += o.branch.uniform;
  branch.divergent += o.branch.divergent;
  inst_executed += o.inst_executed;
  thread_inst_executed += o.thread_inst_executed;
}

bool Counters::empty() const {
  return global_ld.requests == 0 && global_st.requests == 0 && shared_ld.requests == 0 &&
         shared_st.requests == 0 && branch.branches == 0 && inst_executed == 0;
}

double ratio_or_zero(std::uint64_t numerator, std::uint64_t denominator) {
  return denominator == 0 ? 0.0 : static_cast<double>(numerator) / static_cast<double>(denominator);
}

double sectors_per_request(const GlobalCost& c) {
  return ratio_or_zero(c.sectors, c.requests);
}

double thread_inst_per_inst(const Counters& c) {
  return ratio_or_zero(c.thread_inst_executed, c.inst_executed);
}

double branch_uniformity_pct(const Counters& c) {
  // As ncu reports it: 0 when no branch was executed (0 of 0).
  return c.branch.branches == 0 ? 0.0
                                : 100.0 * static_cast<double>(c.branch.uniform) /
                                      static_cast<double>(c.branch.branches);
}

}  // namespace gpulab::profile
