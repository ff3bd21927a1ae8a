// Rules checked with the counters (see rules.hpp).
#include "profile/rules.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>

#include "core/i18n_format.hpp"

namespace gpulab::profile {

const std::vector<std::string>& counter_rule_names() {
  static const std::vector<std::string> names = {"max_sectors_per_request", "max_bank_conflicts",
                                                 "min_branch_uniformity"};
  return names;
}

std::optional<CounterRule> parse_counter_rule(std::string_view text) {
  const auto eq = text.find('=');
  if (eq == std::string_view::npos) return std::nullopt;
  CounterRule r;
  r.rule = std::string(text.substr(0, eq));
  const auto& names = counter_rule_names();
  if (std::find(names.begin(), names.end(), r.rule) == names.end()) return std::nullopt;
  const std::string_view value = text.substr(eq + 1);
  const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), r.limit);
  if (ec != std::errc() || end != value.data() + value.size() || !(r.limit >= 0) ||
      (r.rule == "min_branch_uniformity" && r.limit > 100))
    return std::nullopt;
  return r;
}

CounterRuleResult check_counter_rule(const CounterRule& rule,
                                     const std::vector<KernelProfile>& kernels) {
  CounterRuleResult r;
  r.rule = rule;
  r.measured = !kernels.empty();
  if (rule.rule == "max_sectors_per_request") {
    for (const KernelProfile& k : kernels) {
      for (const AccessSite& a : k.accesses) {
        if (a.shared || a.global.requests == 0) continue;
        const double v = sectors_per_request(a.global);
        if (r.kernel.empty() || v > r.value) {
          r.value = v;
          r.kernel = k.kernel;
          r.where = a.where;
        }
      }
    }
    r.ok = r.measured && r.value <= rule.limit + 1e-9;
  } else if (rule.rule == "max_bank_conflicts") {
    std::uint64_t worst = 0;
    for (const KernelProfile& k : kernels) {
      r.value += static_cast<double>(k.metrics.shared_ld.conflicts + k.metrics.shared_st.conflicts);
      for (const AccessSite& a : k.accesses) {
        if (a.shared && a.smem.conflicts > worst) {
          worst = a.smem.conflicts;
          r.kernel = k.kernel;
          r.where = a.where;
        }
      }
    }
    r.ok = r.measured && r.value <= rule.limit;
  } else if (rule.rule == "min_branch_uniformity") {
    Counters all;
    bool has_branches = false;
    for (const KernelProfile& k : kernels) {
      all.add(k.metrics);
      has_branches = has_branches || k.has_branches;
      for (const BranchSite& b : k.branches) {
        if (r.kernel.empty() && b.divergent > 0) {
          r.kernel = k.kernel;
          r.where = b.where;
        }
      }
    }
    r.measured = r.measured && has_branches;
    // No branch at all is uniform (ncu prints 0% for 0 of 0; a rule about divergence holds).
    r.value = all.branch.branches == 0 ? 100.0 : branch_uniformity_pct(all);
    r.ok = r.measured && r.value + 1e-9 >= rule.limit;
  }
  return r;
}

Text describe_rule(const CounterRule& rule) {
  const std::string n = fmt::format("{}", rule.limit);
  if (rule.rule == "max_sectors_per_request")
    return both("every global load and store touches at most {} sectors per request",
                "每条全局读写指令每次请求最多涉及 {} 个扇区", n);
  if (rule.rule == "max_bank_conflicts") {
    if (rule.limit == 0) return {"no shared-memory bank conflicts", "没有共享内存的存储体冲突"};
    return both("at most {} shared-memory bank conflicts", "共享内存的存储体冲突最多 {} 次", n);
  }
  return both("at least {}% of the warp-level branches uniform", "至少 {}% 的线程束级分支一致", n);
}

Text describe_result(const CounterRuleResult& r) {
  const Text rule = describe_rule(r.rule);
  if (!r.measured) {
    return both("{0}: not measured (no kernel ran with the counters)",
                "{1}：没有测到（没有内核在计数下运行）", rule.en, rule.zh);
  }
  const std::string at = r.where.line > 0 ? fmt::format("{}:{}", r.where.file, r.where.line) : "?";
  const std::string value = fmt::format("{:.4g}", r.value);
  if (r.rule.rule == "max_sectors_per_request") {
    if (r.ok)
      return both("{0}: held (at most {2})", "{1}：满足（最多 {2}）", rule.en, rule.zh, value);
    return both("{0}: broken: {2} sectors per request at {3} in {4}",
                "{1}：不满足：{4} 的 {3} 每次请求 {2} 个扇区", rule.en, rule.zh, value, at,
                r.kernel);
  }
  if (r.rule.rule == "max_bank_conflicts") {
    if (r.ok) return both("{0}: held ({2})", "{1}：满足（{2}）", rule.en, rule.zh, value);
    return both("{0}: broken: {2} bank conflicts, the most at {3} in {4}",
                "{1}：不满足：{2} 次存储体冲突，最多的在 {4} 的 {3}", rule.en, rule.zh, value, at,
                r.kernel);
  }
  if (r.ok) return both("{0}: held ({2}%)", "{1}：满足（{2}%）", rule.en, rule.zh, value);
  return both("{0}: broken: {2}% uniform, a divergent branch at {3} in {4}",
              "{1}：不满足：一致率 {2}%，{4} 的 {3} 有分歧的分支", rule.en, rule.zh, value, at,
              r.kernel);
}

}  // namespace gpulab::profile
