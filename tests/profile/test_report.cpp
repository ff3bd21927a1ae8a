// gpulab profile's reading of the child's "profile" lines, its findings and their words, ncu's
// CSV, and the drawings, on report lines written out by hand.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "profile/draw.hpp"
#include "profile/ncu.hpp"
#include "profile/report.hpp"

using namespace gpulab;
using namespace gpulab::profile;
using nlohmann::json;

namespace {

json lanes(std::uint64_t base, std::uint64_t stride, std::uint32_t active = 0xffffffffu) {
  json a = json::array();
  for (unsigned l = 0; l < 32; ++l)
    a.push_back((active >> l & 1u) != 0 ? json(base + stride * l) : json(nullptr));
  return a;
}

json profile_line() {
  return {{"event", "profile"},
          {"kernel", "k"},
          {"launch_site", "/d/k.cu:30"},
          {"grid", {2, 1, 1}},
          {"block", {64, 1, 1}},
          {"has_branches", true},
          {"accesses",
           {{{"pc", 100},
             {"space", "global"},
             {"op", "ld"},
             {"width", 4},
             {"requests", 4},
             {"sectors", 128},
             {"ideal_sectors", 16},
             {"bytes_used", 512},
             {"example",
              {{"block", {1, 0, 0}}, {"warp", 1}, {"width", 4}, {"addresses", lanes(4096, 128)}}}},
            {{"pc", 200},
             {"space", "shared"},
             {"op", "ld"},
             {"width", 4},
             {"array", "k::tile"},
             {"requests", 4},
             {"wavefronts", 128},
             {"ideal_wavefronts", 4},
             {"conflicts", 124},
             {"worst_way", 32},
             {"example",
              {{"block", {0, 0, 0}}, {"warp", 0}, {"width", 4}, {"addresses", lanes(28, 128)}}}}}},
          {"branches",
           {{{"pc", 300},
             {"targets", {400, 500}},
             {"uniform", 2},
             {"divergent", 2},
             {"example",
              {{"block", {0, 0, 0}},
               {"warp", 0},
               {"active", 0xffffffffu},
               {"lanes", {0x55555555u, 0xaaaaaaaau}}}}}}},
          {"blocks",
           {{{"pc", 300}, {"inst", 4}, {"thread_inst", 128}},
            {{"pc", 400}, {"inst", 2}, {"thread_inst", 32}},
            {{"pc", 999}, {"inst", 4}, {"thread_inst", 128}}}}};
}

SourcePlace where(std::uint64_t pc) {
  switch (pc) {
    case 100:
      return {"k.cu", 12};
    case 200:
      return {"k.cu", 14};
    case 300:
      return {"k.cu", 15};
    case 400:
      return {"k.cu", 17};
    case 500:
      return {"k.cu", 19};
    case 999:
      return {"k.cu", 30};  // the launch's own line
    default:
      return {};
  }
}

SourcePlace site(const std::string& s) {
  return s == "/d/k.cu:30" ? SourcePlace{"k.cu", 30} : SourcePlace{};
}

}  // namespace

TEST_CASE("profile report: one launch read into metrics, lines and findings", "[profile]") {
  const std::vector<json> report = {json{{"event", "launch"}}, profile_line()};
  CHECK(profile_addresses(report) == std::vector<std::uint64_t>{100, 200, 300, 400, 500, 999});
  const std::vector<KernelProfile> ks = read_profiles(report, where, site);
  REQUIRE(ks.size() == 1);
  const KernelProfile& k = ks[0];
  CHECK(k.kernel == "k");
  CHECK(k.launches == 1);
  CHECK(k.grid == std::array<std::uint64_t, 3>{2, 1, 1});
  CHECK(k.metrics.global_ld.requests == 4);
  CHECK(k.metrics.global_ld.sectors == 128);
  CHECK(k.metrics.shared_ld.conflicts == 124);
  CHECK(k.metrics.branch.branches == 4);
  CHECK(branch_uniformity_pct(k.metrics) == 50.0);
  // The launch's own line (pc 999) is not the kernel's: 6 warp-level blocks, 160 threads.
  CHECK(k.metrics.inst_executed == 6);
  CHECK(k.metrics.thread_inst_executed == 160);
  // The branch is put on the line before the nearest place it goes to (the `if`).
  REQUIRE(k.branches.size() == 1);
  CHECK(k.branches[0].where.line == 16);
  REQUIRE(k.accesses.size() == 2);
  CHECK(k.accesses[0].example.active == 0xffffffffu);
  CHECK(k.accesses[0].example.address[1] == 4096 + 128);

  const json m = metrics_json(k.metrics, k.has_branches);
  CHECK(m.size() == 10);
  CHECK(m["l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"] == 128);
  CHECK(m["l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"] == 124);
  CHECK(m["smsp__sass_average_branch_targets_threads_uniform.pct"] == 50.0);
  CHECK(metrics_json(k.metrics, false)["smsp__thread_inst_executed_per_inst_executed.ratio"]
            .is_null());

  // Worst first: 124 extra wavefronts, then 112 extra sectors, then 2 divergent branches.
  const std::vector<Finding> f = findings(k);
  REQUIRE(f.size() == 3);
  CHECK(f[0].kind == Finding::Kind::bank_conflict);
  CHECK(f[0].waste == 124);
  CHECK(f[1].kind == Finding::Kind::uncoalesced);
  CHECK(f[1].waste == 112);
  CHECK(f[2].kind == Finding::Kind::divergence);
  const std::string uncoalesced = explain(f[1], Lang::en);
  CHECK_THAT(uncoalesced, Catch::Contains("k.cu:12"));
  CHECK_THAT(uncoalesced, Catch::Contains("touches 32 sectors for 128 bytes used"));
  CHECK_THAT(uncoalesced, Catch::Contains("128 bytes apart"));
  CHECK_THAT(uncoalesced, Catch::Contains("4 is ideal"));
  CHECK_THAT(explain(f[1], Lang::zh), Catch::Contains("32 个扇区"));
  const std::string conflict = explain(f[0], Lang::en);
  CHECK_THAT(conflict, Catch::Contains("k::tile needs 32 wavefronts where 1 would do"));
  CHECK_THAT(conflict, Catch::Contains("32-way"));
  const std::string divergence = explain(f[2], Lang::en);
  CHECK_THAT(divergence, Catch::Contains("split 2 of its 4 warp executions"));
  CHECK_THAT(divergence, Catch::Contains("0,2,4,...,30 -> 17; 1,3,5,...,31 -> 19"));
}

TEST_CASE("profile report: repeated launches of one kernel, place and shape are summed",
          "[profile]") {
  json other = profile_line();
  other["grid"] = {4, 1, 1};
  const std::vector<KernelProfile> ks =
      read_profiles({profile_line(), profile_line(), other}, where, site);
  REQUIRE(ks.size() == 2);
  CHECK(ks[0].launches == 2);
  CHECK(ks[0].metrics.global_ld.sectors == 256);
  CHECK(ks[0].accesses.size() == 2);
  CHECK(ks[0].accesses[0].global.sectors == 256);
  CHECK(ks[0].branches[0].divergent == 4);
  CHECK(ks[1].launches == 1);
}

TEST_CASE("profile report: lanes and strides in words", "[profile]") {
  CHECK(lanes_text(0xffffffffu) == "0-31");
  CHECK(lanes_text(0x0000ffffu) == "0-15");
  CHECK(lanes_text(0x55555555u) == "0,2,4,...,30");
  CHECK(lanes_text(0x5u) == "0,2");
  CHECK(lanes_text(0u) == "-");
  WarpAccess a;
  a.active = 0xffffffffu;
  for (unsigned l = 0; l < 32; ++l) a.address[l] = 1000 + 8 * l;
  CHECK(lane_stride(a) == 8);
  a.address[5] = 7;
  CHECK(lane_stride(a) == 0);
}

TEST_CASE("ncu: the CSV of --page details read back per launch", "[profile]") {
  const std::string header =
      R"("ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Block Size","Grid Size","Device","CC","Section Name","Metric Name","Metric Unit","Metric Value")";
  const auto row = [](const char* id, const char* metric, const char* value) {
    const std::vector<std::string> f = {id,
                                        "77",
                                        "prog",
                                        "127.0.0.1",
                                        "scale(const float *, float *, int)",
                                        "1",
                                        "7",
                                        "(256, 1, 1)",
                                        "(32, 1, 1)",
                                        "0",
                                        "9.0",
                                        "Command line profiler metrics",
                                        metric,
                                        "",
                                        value};
    std::string line;
    for (const auto& x : f) line += (line.empty() ? "\"" : ",\"") + x + "\"";
    return line;
  };
  const std::string text =
      "==PROF== Connected to process 77\nscale: ok\n" + header + "\n" +
      row("0", "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", "1,024") + "\n" +
      row("0", "smsp__thread_inst_executed_per_inst_executed.ratio", "31.60") + "\n" +
      row("1", "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", "8") + "\n==PROF== Disconnected\n";
  const std::vector<NcuLaunch> l = parse_ncu_csv(text);
  REQUIRE(l.size() == 2);
  CHECK(l[0].kernel == "scale(const float *, float *, int)");
  CHECK(l[0].block == "(256, 1, 1)");
  CHECK(l[0].metrics.at("l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum") == 1024.0);
  CHECK(l[0].metrics.at("smsp__thread_inst_executed_per_inst_executed.ratio") == Approx(31.6));
  CHECK(l[1].metrics.at("l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum") == 8.0);
  CHECK(ncu_short_name(l[0].kernel) == "scale");
  CHECK(ncu_short_name("void ns::k<int>(int)") == "ns::k<int>");
  CHECK(parse_ncu_csv("nothing here\n").empty());
  CHECK(ncu_metric_names().size() == 10);
  CHECK(ncu_arguments().at(0) == "--metrics");
}

TEST_CASE("draw: one warp over sectors and over banks", "[profile]") {
  WarpAccess coalesced;
  coalesced.active = 0xffffffffu;
  for (unsigned l = 0; l < 32; ++l) coalesced.address[l] = 4096 + 4 * l;
  const std::string s = draw_sectors(coalesced, 8, Lang::en);
  CHECK_THAT(s, Catch::Contains("+0           01234567|89abcdef|ghijklmn|opqrstuv"));
  WarpAccess strided = coalesced;
  for (unsigned l = 0; l < 32; ++l) strided.address[l] = 4096 + 128 * l;
  const std::string many = draw_sectors(strided, 4, Lang::en);
  CHECK_THAT(many, Catch::Contains("+384         3.......|        |        |"));
  CHECK_THAT(many, Catch::Contains("28 more 128-byte rows"));
  WarpAccess two_way = coalesced;
  for (unsigned l = 0; l < 32; ++l) two_way.address[l] = 8 * l;
  const std::string banks = draw_banks(two_way, 8, Lang::en);
  CHECK_THAT(banks, Catch::Contains("wavefront 1  0.1.2.3.4.5.6.7.8.9.a.b.c.d.e.f."));
  CHECK_THAT(banks, Catch::Contains("wavefront 2  g.h.i.j.k.l.m.n.o.p.q.r.s.t.u.v."));
  CHECK(banks.find("wavefront 3") == std::string::npos);
  CHECK(lane_char(31) == 'v');
}
