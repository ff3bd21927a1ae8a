// The counter rules (profile/rules.hpp) on kernels whose counts are written out by hand.
#include <catch2/catch.hpp>

#include "profile/rules.hpp"

using namespace gpulab;
using namespace gpulab::profile;

namespace {

KernelProfile kernel_with(std::uint64_t requests, std::uint64_t sectors, std::uint64_t conflicts) {
  KernelProfile k;
  k.kernel = "k";
  k.has_branches = true;
  AccessSite good;
  good.where = {"k.cu", 10};
  good.global = {64, 256, 256, 8192};  // 4 per request
  AccessSite bad;
  bad.where = {"k.cu", 12};
  bad.store = true;
  bad.global = {requests, sectors, requests * 4, requests * 128};
  AccessSite tile;
  tile.where = {"k.cu", 14};
  tile.shared = true;
  tile.smem = {64, 64 + conflicts, 64, conflicts, conflicts == 0 ? 1u : 32u};
  k.accesses = {good, bad, tile};
  k.metrics.add_global(good.global, false);
  k.metrics.add_global(bad.global, true);
  k.metrics.add_shared(tile.smem, false);
  return k;
}

}  // namespace

TEST_CASE("counter rules: read from their text, or refused", "[profile]") {
  const auto r = parse_counter_rule("max_sectors_per_request=4");
  REQUIRE(r);
  CHECK(r->rule == "max_sectors_per_request");
  CHECK(r->limit == 4);
  CHECK(parse_counter_rule("max_bank_conflicts=0")->limit == 0);
  CHECK(parse_counter_rule("min_branch_uniformity=87.5")->limit == 87.5);
  CHECK_FALSE(parse_counter_rule("max_sectors_per_request"));
  CHECK_FALSE(parse_counter_rule("max_sectors_per_request=four"));
  CHECK_FALSE(parse_counter_rule("max_sectors_per_request=-1"));
  CHECK_FALSE(parse_counter_rule("max_sectors_per_request=4x"));
  CHECK_FALSE(parse_counter_rule("min_branch_uniformity=101"));
  CHECK_FALSE(parse_counter_rule("sectors=4"));
}

TEST_CASE("counter rules: the worst instruction decides, and says where", "[profile]") {
  const std::vector<KernelProfile> strided = {kernel_with(64, 2048, 0)};  // 32 per request
  const CounterRuleResult s = check_counter_rule({"max_sectors_per_request", 4}, strided);
  CHECK(s.measured);
  CHECK_FALSE(s.ok);
  CHECK(s.value == 32);
  CHECK(s.where.line == 12);
  CHECK(describe_result(s).en ==
        "every global load and store touches at most 4 sectors per request: broken: 32 sectors "
        "per request at k.cu:12 in k");
  CHECK(describe_result(s).zh ==
        "每条全局读写指令每次请求最多涉及 4 个扇区：不满足：k 的 k.cu:12 每次请求 32 个扇区");

  const std::vector<KernelProfile> fine = {kernel_with(64, 256, 0)};
  CHECK(check_counter_rule({"max_sectors_per_request", 4}, fine).ok);
  CHECK(check_counter_rule({"max_bank_conflicts", 0}, fine).ok);

  const std::vector<KernelProfile> conflicted = {kernel_with(64, 256, 1984)};
  const CounterRuleResult b = check_counter_rule({"max_bank_conflicts", 0}, conflicted);
  CHECK_FALSE(b.ok);
  CHECK(b.value == 1984);
  CHECK(b.where.line == 14);
  CHECK(check_counter_rule({"max_bank_conflicts", 1984}, conflicted).ok);
}

TEST_CASE("counter rules: no kernel, no measurement, never kept", "[profile]") {
  const CounterRuleResult r = check_counter_rule({"max_bank_conflicts", 0}, {});
  CHECK_FALSE(r.measured);
  CHECK_FALSE(r.ok);
  CHECK(describe_result(r).en ==
        "no shared-memory bank conflicts: not measured (no kernel ran "
        "with the counters)");
}

TEST_CASE("counter rules: branch uniformity over the warp-level branches", "[profile]") {
  KernelProfile k = kernel_with(64, 256, 0);
  BranchSite b;
  b.where = {"k.cu", 8};
  b.uniform = 7;
  b.divergent = 1;
  k.branches = {b};
  k.metrics.branch = {8, 7, 1};
  const CounterRuleResult r = check_counter_rule({"min_branch_uniformity", 100}, {k});
  CHECK_FALSE(r.ok);
  CHECK(r.value == 87.5);
  CHECK(r.where.line == 8);
  CHECK(check_counter_rule({"min_branch_uniformity", 87.5}, {k}).ok);
}
