// gpulab profile's results from the child's report (see report.hpp).
#include "profile/report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <set>

#include "core/i18n_format.hpp"

namespace gpulab::profile {

using nlohmann::json;

namespace {

std::array<std::uint64_t, 3> dims(const json& d) {
  std::array<std::uint64_t, 3> r{1, 1, 1};
  if (!d.is_array()) return r;
  for (std::size_t i = 0; i < 3 && i < d.size(); ++i) r[i] = d[i].get<std::uint64_t>();
  return r;
}

AccessSite read_access(const json& j, const Symbolizer& where) {
  AccessSite a;
  a.where = where(j.at("pc").get<std::uint64_t>());
  a.shared = j.value("space", "") == "shared";
  a.store = j.value("op", "") == "st";
  a.width = j.value("width", 0u);
  a.array = j.value("array", "");
  if (a.shared) {
    a.smem.requests = j.value("requests", std::uint64_t{0});
    a.smem.wavefronts = j.value("wavefronts", std::uint64_t{0});
    a.smem.ideal_wavefronts = j.value("ideal_wavefronts", std::uint64_t{0});
    a.smem.conflicts = j.value("conflicts", std::uint64_t{0});
    a.smem.worst_way = j.value("worst_way", 0u);
  } else {
    a.global.requests = j.value("requests", std::uint64_t{0});
    a.global.sectors = j.value("sectors", std::uint64_t{0});
    a.global.ideal_sectors = j.value("ideal_sectors", std::uint64_t{0});
    a.global.bytes_used = j.value("bytes_used", std::uint64_t{0});
  }
  if (const auto it = j.find("example"); it != j.end()) {
    a.example_block = dims(it->value("block", json()));
    a.example_warp = it->value("warp", 0u);
    a.example.width = it->value("width", a.width);
    const json& lanes = it->value("addresses", json::array());
    for (std::size_t l = 0; l < lanes.size() && l < kWarpLanes; ++l) {
      if (lanes[l].is_null()) continue;
      a.example.address[l] = lanes[l].get<std::uint64_t>();
      a.example.active |= 1u << l;
    }
  }
  return a;
}

BranchSite read_branch(const json& j, const Symbolizer& where, const BranchPlacer& branch) {
  BranchSite b;
  const auto pc = j.at("pc").get<std::uint64_t>();
  b.where = where(pc);
  for (const json& t : j.value("targets", json::array()))
    b.targets.push_back(where(t.get<std::uint64_t>()));
  // The hook names the block where the branch's block starts; the branch itself (the `if`, the
  // loop's condition) is the jump that ends that block.
  if (const SourcePlace jump = branch ? branch(pc) : SourcePlace{}; jump.line > 0) {
    if (!b.where.file.empty()) b.where = jump;
  } else {
    // No disassembly: the line before the nearest place the lanes went to.
    int nearest = 0;
    for (const SourcePlace& t : b.targets)
      if (t.file == b.where.file && t.line > b.where.line && (nearest == 0 || t.line < nearest))
        nearest = t.line;
    if (nearest > b.where.line + 1) b.where.line = nearest - 1;
  }
  b.uniform = j.value("uniform", std::uint64_t{0});
  b.divergent = j.value("divergent", std::uint64_t{0});
  if (const auto it = j.find("example"); it != j.end()) {
    b.example_block = dims(it->value("block", json()));
    b.example_warp = it->value("warp", 0u);
    b.example_active = it->value("active", 0u);
    b.example_lanes = it->value("lanes", std::vector<std::uint32_t>{});
  }
  return b;
}

Counters& line_of(std::map<SourcePlace, Counters>& lines, const SourcePlace& p) {
  return lines[p];
}

KernelProfile read_one(const json& line, const Symbolizer& symbolize, const SitePlacer& site,
                       const BranchPlacer& branch) {
  KernelProfile k;
  k.kernel = line.value("kernel", "");
  k.site = line.value("launch_site", "");
  const SourcePlace launch = site(k.site);
  const auto where = [&](std::uint64_t pc) {
    SourcePlace p = symbolize(pc);
    return launch.line > 0 && p == launch ? SourcePlace{} : p;
  };
  k.grid = dims(line.value("grid", json()));
  k.block = dims(line.value("block", json()));
  k.launches = 1;
  k.has_branches = line.value("has_branches", false);
  for (const json& a : line.value("accesses", json::array()))
    k.accesses.push_back(read_access(a, where));
  for (const json& b : line.value("branches", json::array()))
    k.branches.push_back(read_branch(b, where, branch));
  std::map<SourcePlace, Counters> lines;
  for (const AccessSite& a : k.accesses) {
    Counters& c = line_of(lines, a.where);
    if (a.shared) {
      c.add_shared(a.smem, a.store);
      k.metrics.add_shared(a.smem, a.store);
    } else {
      c.add_global(a.global, a.store);
      k.metrics.add_global(a.global, a.store);
    }
  }
  for (const BranchSite& b : k.branches) {
    Counters& c = line_of(lines, b.where);
    c.branch.branches += b.uniform + b.divergent;
    c.branch.uniform += b.uniform;
    c.branch.divergent += b.divergent;
    k.metrics.branch.branches += b.uniform + b.divergent;
    k.metrics.branch.uniform += b.uniform;
    k.metrics.branch.divergent += b.divergent;
  }
  for (const json& b : line.value("blocks", json::array())) {
    const auto inst = b.value("inst", std::uint64_t{0});
    const auto threads = b.value("thread_inst", std::uint64_t{0});
    const SourcePlace p = where(b.at("pc").get<std::uint64_t>());
    if (p.line == 0) continue;  // the launch's own code, or the emulator's
    Counters& c = line_of(lines, p);
    c.inst_executed += inst;
    c.thread_inst_executed += threads;
    k.metrics.inst_executed += inst;
    k.metrics.thread_inst_executed += threads;
  }
  for (auto& [p, c] : lines) {
    if (p.line == 0) continue;  // code outside the user's files (the emulator's own headers)
    k.lines.push_back({p, c});
  }
  return k;
}

template <class T, class Key, class Add>
void merge_by(std::vector<T>& into, std::vector<T>& more, Key key, Add add) {
  for (T& m : more) {
    const auto it =
        std::find_if(into.begin(), into.end(), [&](const T& t) { return key(t) == key(m); });
    if (it == into.end()) {
      into.push_back(std::move(m));
    } else {
      add(*it, m);
    }
  }
}

void merge(KernelProfile& into, KernelProfile& more) {
  into.launches += more.launches;
  into.has_branches = into.has_branches || more.has_branches;
  into.metrics.add(more.metrics);
  merge_by(
      into.accesses, more.accesses,
      [](const AccessSite& a) { return std::make_tuple(a.where, a.shared, a.store, a.array); },
      [](AccessSite& a, const AccessSite& b) {
        const bool worse = b.shared ? b.smem.worst_way > a.smem.worst_way
                                    : b.global.requests > 0 && global_cost(b.example).sectors >
                                                                   global_cost(a.example).sectors;
        add_to(a.global, b.global);
        add_to(a.smem, b.smem);
        if (worse) {
          a.example = b.example;
          a.example_block = b.example_block;
          a.example_warp = b.example_warp;
        }
      });
  merge_by(
      into.branches, more.branches, [](const BranchSite& b) { return b.where; },
      [](BranchSite& a, const BranchSite& b) {
        a.uniform += b.uniform;
        a.divergent += b.divergent;
        if (a.example_lanes.empty()) {
          a.example_active = b.example_active;
          a.example_lanes = b.example_lanes;
          a.example_block = b.example_block;
          a.example_warp = b.example_warp;
        }
      });
  merge_by(
      into.lines, more.lines, [](const LineCounters& l) { return l.where; },
      [](LineCounters& a, const LineCounters& b) { a.counters.add(b.counters); });
  std::sort(into.lines.begin(), into.lines.end(),
            [](const LineCounters& a, const LineCounters& b) { return a.where < b.where; });
}

}  // namespace

std::vector<std::uint64_t> profile_addresses(const std::vector<json>& report_lines) {
  std::set<std::uint64_t> pcs;
  for (const json& line : report_lines) {
    if (line.value("event", "") != "profile") continue;
    for (const char* list : {"accesses", "branches", "blocks"}) {
      for (const json& e : line.value(list, json::array())) {
        pcs.insert(e.at("pc").get<std::uint64_t>());
        for (const json& t : e.value("targets", json::array())) pcs.insert(t.get<std::uint64_t>());
      }
    }
  }
  return {pcs.begin(), pcs.end()};
}

std::vector<std::uint64_t> branch_blocks(const std::vector<json>& report_lines) {
  std::set<std::uint64_t> pcs;
  for (const json& line : report_lines) {
    if (line.value("event", "") != "profile") continue;
    for (const json& b : line.value("branches", json::array()))
      pcs.insert(b.at("pc").get<std::uint64_t>());
  }
  return {pcs.begin(), pcs.end()};
}

std::vector<KernelProfile> read_profiles(const std::vector<json>& report_lines,
                                         const Symbolizer& where, const SitePlacer& site,
                                         const BranchPlacer& branch) {
  std::vector<KernelProfile> out;
  for (const json& line : report_lines) {
    if (line.value("event", "") != "profile") continue;
    KernelProfile k = read_one(line, where, site, branch);
    const auto same = std::find_if(out.begin(), out.end(), [&](const KernelProfile& o) {
      return o.kernel == k.kernel && o.site == k.site && o.grid == k.grid && o.block == k.block;
    });
    if (same == out.end()) {
      out.push_back(std::move(k));
    } else {
      merge(*same, k);
    }
  }
  return out;
}

std::vector<Finding> findings(const KernelProfile& k) {
  std::vector<Finding> out;
  for (const AccessSite& a : k.accesses) {
    if (a.shared) {
      if (a.smem.conflicts > 0)
        out.push_back({Finding::Kind::bank_conflict, a.where, a.smem.conflicts, &a, nullptr});
    } else if (a.global.sectors > a.global.ideal_sectors) {
      out.push_back({Finding::Kind::uncoalesced, a.where, a.global.sectors - a.global.ideal_sectors,
                     &a, nullptr});
    }
  }
  for (const BranchSite& b : k.branches) {
    if (b.divergent > 0)
      out.push_back({Finding::Kind::divergence, b.where, b.divergent, nullptr, &b});
  }
  std::stable_sort(out.begin(), out.end(), [](const Finding& a, const Finding& b) {
    return a.waste != b.waste ? a.waste > b.waste : a.where < b.where;
  });
  return out;
}

std::string lanes_text(std::uint32_t mask) {
  std::vector<std::string> groups;
  // Every other lane (even or odd lanes) reads better as a pattern than as 16 groups.
  for (std::uint32_t pattern : {0x55555555u, 0xaaaaaaaau}) {
    if (mask == pattern) return pattern == 0x55555555u ? "0,2,4,...,30" : "1,3,5,...,31";
  }
  unsigned l = 0;
  while (l < kWarpLanes) {
    if ((mask >> l & 1u) == 0) {
      ++l;
      continue;
    }
    unsigned e = l;
    while (e + 1 < kWarpLanes && (mask >> (e + 1) & 1u) != 0) ++e;
    groups.push_back(e == l ? std::to_string(l) : fmt::format("{}-{}", l, e));
    l = e + 1;
  }
  if (groups.size() > 6) {
    groups.resize(5);
    groups.push_back("...");
  }
  std::string s;
  for (const auto& g : groups) s += (s.empty() ? "" : ",") + g;
  return s.empty() ? "-" : s;
}

std::int64_t lane_stride(const WarpAccess& a) {
  std::int64_t stride = 0;
  int previous = -1;
  for (unsigned l = 0; l < kWarpLanes; ++l) {
    if ((a.active >> l & 1u) == 0) continue;
    if (previous >= 0) {
      const auto d = (static_cast<std::int64_t>(a.address[l]) -
                      static_cast<std::int64_t>(a.address[static_cast<unsigned>(previous)])) /
                     (static_cast<std::int64_t>(l) - previous);
      if (stride == 0 && previous >= 0 && l == static_cast<unsigned>(previous) + 1) stride = d;
      if (d != stride) return 0;
    }
    previous = static_cast<int>(l);
  }
  return stride;
}

std::string explain(const Finding& f, Lang l) {
  const std::string at = f.where.line > 0 ? fmt::format("{}:{}", f.where.file, f.where.line) : "?";
  if (f.kind == Finding::Kind::uncoalesced) {
    const AccessSite& a = *f.access;
    const double per = sectors_per_request(a.global);
    const double ideal = ratio_or_zero(a.global.ideal_sectors, a.global.requests);
    const double used = ratio_or_zero(a.global.bytes_used, a.global.requests);
    const std::int64_t stride = lane_stride(a.example);
    const std::string op_en = a.store ? "store" : "load";
    const std::string op_zh = a.store ? "写" : "读";
    std::string why_en, why_zh;
    if (stride != 0 && stride != static_cast<std::int64_t>(a.width)) {
      why_en = fmt::format(" (consecutive lanes {} bytes apart, {} bytes each)", stride, a.width);
      why_zh = fmt::format("（相邻通道相距 {} 字节，每个 {} 字节）", stride, a.width);
    } else if (stride == static_cast<std::int64_t>(a.width)) {
      why_en = " (consecutive, but not aligned to 32-byte sectors)";
      why_zh = "（地址连续，但没有按 32 字节扇区对齐）";
    }
    return both(
               "{0}: each warp {1} touches {2:.3g} sectors for {3:.0f} bytes used{4}; {5:.3g} is "
               "ideal: consecutive threads should access consecutive, aligned addresses "
               "({6} extra sectors in all, {7} bytes fetched for {8} used)",
               "{0}：每个线程束的{1}操作涉及 {2:.3g} 个扇区，只用到 {3:.0f} 字节{4}；理想是 "
               "{5:.3g} "
               "个：相邻线程应访问相邻且对齐的地址（共多出 {6} 个扇区，取了 {7} 字节只用 {8} "
               "字节）",
               at, l == Lang::zh ? op_zh : op_en, per, used, l == Lang::zh ? why_zh : why_en, ideal,
               f.waste, a.global.sectors * kSectorBytes, a.global.bytes_used)
        .in(l);
  }
  if (f.kind == Finding::Kind::bank_conflict) {
    const AccessSite& a = *f.access;
    const double per = ratio_or_zero(a.smem.wavefronts, a.smem.requests);
    const double ideal = ratio_or_zero(a.smem.ideal_wavefronts, a.smem.requests);
    const std::int64_t stride = lane_stride(a.example);
    std::string stride_en, stride_zh;
    if (stride != 0) {
      stride_en = fmt::format(", consecutive lanes {} bytes apart", stride);
      stride_zh = fmt::format("，相邻通道相距 {} 字节", stride);
    }
    const std::string name = a.array.empty() ? "shared memory" : a.array;
    return both(
               "{0}: each warp {1} of {2} needs {3:.3g} wavefronts where {4:.3g} would do (up to "
               "a {5}-way bank conflict{6}; {7} extra wavefronts in all): lanes that need "
               "different words of one bank wait for each other; pad the array's rows (e.g. "
               "[32][33]) or change the index so that a warp's lanes fall in different banks",
               "{0}：每个线程束对 {2} 的{1}操作需要 {3:.3g} 个波前（wavefront），本来 {4:.3g} "
               "个就够（最多 {5} 路存储体冲突{6}；共多出 {7} 个波前）：需要同一存储体（bank）中"
               "不同字的通道只能依次等待；给数组的行加填充（如 [32][33]）或改写下标，让一个线程束"
               "的通道落在不同的存储体",
               at,
               l == Lang::zh ? std::string(a.store ? "写" : "读")
                             : std::string(a.store ? "store" : "load"),
               name, per, ideal, a.smem.worst_way, l == Lang::zh ? stride_zh : stride_en, f.waste)
        .in(l);
  }
  const BranchSite& b = *f.branch;
  std::string sides;
  for (std::size_t i = 0; i < b.example_lanes.size(); ++i) {
    const std::string target =
        i < b.targets.size() && b.targets[i].line > 0 ? fmt::format("{}", b.targets[i].line) : "?";
    sides += fmt::format("{}{} -> {}", sides.empty() ? "" : "; ", lanes_text(b.example_lanes[i]),
                         target);
  }
  const std::uint64_t total = b.uniform + b.divergent;
  return both(
             "{0}: the branch split {1} of its {2} warp executions (warp {3}: lanes {4}): a warp "
             "runs each side in turn with the other lanes idle; make the condition the same for "
             "the 32 threads of a warp (e.g. depend on threadIdx.x / 32)",
             "{0}：这个分支在 {2} 次线程束执行中分歧了 {1} 次（线程束 {3}：通道 {4}）：线程束"
             "会依次执行每一边，另一边的通道空闲；让条件对一个线程束的 32 个线程相同（例如取决于 "
             "threadIdx.x / 32）",
             at, b.divergent, total, b.example_warp, sides)
      .in(l);
}

json metrics_json(const Counters& c, bool has_branches) {
  json m = {
      {"l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum", c.global_ld.requests},
      {"l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", c.global_ld.sectors},
      {"l1tex__t_requests_pipe_lsu_mem_global_op_st.sum", c.global_st.requests},
      {"l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum", c.global_st.sectors},
      {"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum", c.shared_ld.wavefronts},
      {"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum", c.shared_st.wavefronts},
      {"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum", c.shared_ld.conflicts},
      {"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum", c.shared_st.conflicts},
  };
  if (has_branches) {
    m["smsp__thread_inst_executed_per_inst_executed.ratio"] = thread_inst_per_inst(c);
    m["smsp__sass_average_branch_targets_threads_uniform.pct"] = branch_uniformity_pct(c);
  } else {
    m["smsp__thread_inst_executed_per_inst_executed.ratio"] = nullptr;
    m["smsp__sass_average_branch_targets_threads_uniform.pct"] = nullptr;
  }
  return m;
}

}  // namespace gpulab::profile
