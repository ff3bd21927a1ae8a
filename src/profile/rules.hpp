// Rules checked with gpulab profile's counters, for exercises and for `gpulab profile --require`:
// "every global load and store touches at most 4 sectors per request", "no shared-memory bank
// conflicts". Each rule reads the kernels' counters (report.hpp) and says whether it holds, where
// it is broken worst, in both languages. No I/O.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/i18n.hpp"
#include "profile/report.hpp"

namespace gpulab::profile {

// max_sectors_per_request: for every global load and store instruction, its sectors over its
//   requests (the average over the warps that executed it) is at most `limit`;
// max_bank_conflicts: the shared-memory bank conflicts of all loads and stores together are at
//   most `limit` (0: none);
// min_branch_uniformity: of the warp-level branches, at least `limit` percent are uniform.
struct CounterRule {
  std::string rule;
  double limit = 0;
};

// "max_sectors_per_request=4" -> the rule; nullopt for an unknown name, a missing or negative
// limit (the caller names the value and the rules there are).
std::optional<CounterRule> parse_counter_rule(std::string_view text);
// The rules parse_counter_rule knows, for messages.
const std::vector<std::string>& counter_rule_names();

struct CounterRuleResult {
  CounterRule rule;
  bool measured = false;  // a kernel ran with the counters (else the rule is not verified)
  double value = 0;       // the worst instruction's sectors per request, the conflicts, the %
  bool ok = false;        // measured and within the limit
  std::string kernel;     // where it is worst
  SourcePlace where;
};

CounterRuleResult check_counter_rule(const CounterRule& rule,
                                     const std::vector<KernelProfile>& kernels);

// "at most 4 sectors per request" / "每次请求最多 4 个扇区"
Text describe_rule(const CounterRule& rule);
// "held: 4 at most (transpose.cu:20)" / "broken: 32 sectors per request at transpose.cu:12 ..."
Text describe_result(const CounterRuleResult& r);

}  // namespace gpulab::profile
