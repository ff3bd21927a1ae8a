// gpulab run on the GPU: the corpus's correct programs print under nvcc what they print on the
// emulator (the .out files), and compute-sanitizer runs behind --backend gpu --check.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string_view>

#include "support/run.hpp"

using namespace gpulab::test;
namespace fs = std::filesystem;

namespace {

const fs::path kCorpus = fs::path(GPULAB_SOURCE_DIR) / "tests" / "run_corpus";

std::string read(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

TEST_CASE("run --backend gpu: the corpus prints what the emulator prints", "[gpu][run]") {
  for (const auto& e : fs::directory_iterator(kCorpus / "ok")) {
    if (e.path().extension() != ".cu") continue;
    CAPTURE(e.path());
    const auto r = run_gpulab({"run", "--backend", "gpu", "--json", e.path().string()});
    CAPTURE(r.err);
    CHECK(r.exit_code == 0);
    // A program whose report is not JSON (gpulab could not build it) fails here and the loop
    // goes on to the next one.
    const auto j = nlohmann::json::parse(r.err, nullptr, false);
    CHECK_FALSE(j.is_discarded());
    if (j.is_discarded()) continue;
    CHECK(j["backend"] == "cuda");
    CHECK(r.out == read(fs::path(e.path()).replace_extension(".out")));
    // The launch list (from the launch log) is the emulator's: kernel, line, shape, count.
    const auto emu = run_gpulab({"run", "--backend", "cpu", "--json", e.path().string()});
    CAPTURE(emu.err);
    CHECK(emu.exit_code == 0);
    const auto k = nlohmann::json::parse(emu.err, nullptr, false);
    CHECK_FALSE(k.is_discarded());
    if (k.is_discarded()) continue;
    // A kernel a CUDA graph runs makes no launch call the GPU's log could see: there the log
    // counts the launch captured into the graph, the emulator each time the graph ran it.
    const bool graphs = read(e.path()).find("cudaGraphLaunch") != std::string::npos;
    if (!graphs) CHECK(j["launches_total"] == k["launches_total"]);
    CHECK(j["launches"].size() == k["launches"].size());
    if (j["launches"].size() != k["launches"].size()) continue;
    for (std::size_t i = 0; i < j["launches"].size(); ++i) {
      const auto& g = j["launches"][i];
      const auto& c = k["launches"][i];
      CAPTURE(g.dump(), c.dump());
      // The emulator names the kernel as the launch wrote it; the GPU's name adds deduced
      // template arguments.
      CHECK(g["kernel"].get<std::string>().rfind(c["kernel"].get<std::string>(), 0) == 0);
      CHECK(fs::path(g["site"].get<std::string>()).filename() ==
            fs::path(c["site"].get<std::string>()).filename());
      for (const char* key :
           {"grid", "block", "shared_bytes", "count", "threads", "warps", "idle_lanes_per_block"}) {
        if (graphs && std::string_view(key) == "count") {
          CHECK(g[key] <= c[key]);
          continue;
        }
        CHECK(g[key] == c[key]);
      }
      CHECK(g["barriers"].is_null());
    }
  }
}

TEST_CASE("run --backend gpu --check: compute-sanitizer's memcheck sees the planted overrun",
          "[gpu][run]") {
  const auto r = run_gpulab({"run", "--backend", "gpu", "--check", "--json",
                             (kCorpus / "bugs" / "oob_global.cu").string()});
  CAPTURE(r.err);
  CHECK(r.exit_code == 1);
  const auto j = nlohmann::json::parse(r.err);
  REQUIRE(j.contains("compute_sanitizer"));
  REQUIRE(j["compute_sanitizer"].size() == 4);
  CHECK(j["compute_sanitizer"][0]["tool"] == "memcheck");
  CHECK(j["compute_sanitizer"][0]["errors"].get<int>() > 0);
}
