// gpulab profile's results: the child's "profile" report lines turned into per-launch and per-line
// counters with Nsight Compute's metric names, and the findings (uncoalesced loads, bank
// conflicts, divergent branches) ranked worst first and explained in numbers. No I/O.
#pragma once

#include <nlohmann/json.hpp>

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "core/i18n.hpp"
#include "profile/counting.hpp"

namespace gpulab::profile {

struct SourcePlace {
  std::string file;  // as the user named it (short)
  int line = 0;      // 0: unknown
  bool operator<(const SourcePlace& o) const {
    return file != o.file ? file < o.file : line < o.line;
  }
  bool operator==(const SourcePlace& o) const { return file == o.file && line == o.line; }
};

// One memory instruction of the kernel, summed over its launches.
struct AccessSite {
  SourcePlace where;
  bool shared = false, store = false;
  unsigned width = 0;
  std::string array;  // shared: the __shared__ array's name
  GlobalCost global;
  SharedCost smem;
  WarpAccess example;  // its costliest warp-level execution
  std::array<std::uint64_t, 3> example_block{0, 0, 0};
  unsigned example_warp = 0;
};

// One branch of the kernel (a basic block whose lanes went on to different blocks).
struct BranchSite {
  SourcePlace where;
  std::vector<SourcePlace> targets;
  std::uint64_t uniform = 0, divergent = 0;
  std::uint32_t example_active = 0;
  std::vector<std::uint32_t> example_lanes;  // per target
  std::array<std::uint64_t, 3> example_block{0, 0, 0};
  unsigned example_warp = 0;
};

struct LineCounters {
  SourcePlace where;
  Counters counters;
};

// One kernel at one launch site with one shape; repeated launches are summed.
struct KernelProfile {
  std::string kernel, site;
  std::array<std::uint64_t, 3> grid{1, 1, 1}, block{1, 1, 1};
  std::uint64_t launches = 0;
  bool has_branches = false;
  Counters metrics;
  std::vector<AccessSite> accesses;
  std::vector<BranchSite> branches;
  std::vector<LineCounters> lines;  // by file and line
};

// Code address -> the user's FILE and LINE (addr2line, done by the caller).
using Symbolizer = std::function<SourcePlace(std::uint64_t pc)>;

// The launch site as the report writes it ("/dir/prog.cu:38") -> the same form as Symbolizer's.
using SitePlacer = std::function<SourcePlace(const std::string& site)>;

// A branch's block (its hook's address) -> the FILE:LINE of the conditional jump that ends it
// (profile/branch_site.hpp); an unknown place (line 0) when the jump was not found.
using BranchPlacer = std::function<SourcePlace(std::uint64_t block_pc)>;

// Reads the report's "profile" lines (docs/profile.md), in order; launches of one kernel, site
// and shape are summed into one entry. Code at the launch's own line (the emulator's call of the
// kernel for each thread) is not the kernel's and is left out. A branch is placed at its jump's
// line (`branch`); without it, at the line before the nearest place its lanes went to.
std::vector<KernelProfile> read_profiles(const std::vector<nlohmann::json>& report_lines,
                                         const Symbolizer& where, const SitePlacer& site,
                                         const BranchPlacer& branch = {});
// The blocks that end in a branch, to find their jumps in one go.
std::vector<std::uint64_t> branch_blocks(const std::vector<nlohmann::json>& report_lines);
// The code addresses the profile lines name, to symbolize in one go.
std::vector<std::uint64_t> profile_addresses(const std::vector<nlohmann::json>& report_lines);

// A finding: something at one line that costs more than it needs to.
struct Finding {
  enum class Kind { uncoalesced, bank_conflict, divergence };
  Kind kind = Kind::uncoalesced;
  SourcePlace where;
  std::uint64_t waste = 0;  // extra sectors, extra wavefronts, or divergent warp branches
  const AccessSite* access = nullptr;  // uncoalesced, bank_conflict
  const BranchSite* branch = nullptr;  // divergence
};
// Worst first (most waste), then by line. Points into `k`.
std::vector<Finding> findings(const KernelProfile& k);
// "line 12: each warp load touches 32 sectors for 128 bytes used (...); 4 is ideal: ..."
std::string explain(const Finding& f, Lang l);

// Lanes as "0-15" or "0,2,4,...,30" (at most a few groups).
std::string lanes_text(std::uint32_t mask);
// The constant distance in bytes between consecutive active lanes' addresses, or 0 when none.
std::int64_t lane_stride(const WarpAccess& a);

// The metrics, named as Nsight Compute names them (docs/profile.md lists them).
nlohmann::json metrics_json(const Counters& c, bool has_branches);

}  // namespace gpulab::profile
