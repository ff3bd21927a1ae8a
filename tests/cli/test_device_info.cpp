// CLI tests of gpulab device-info: spec sheets (--model), usage errors, and the machine's GPUs
// (true with or without one: with none it must say why and exit 0).
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "support/cli.hpp"
#include "support/run.hpp"
#include "support/says.hpp"

using gpulab::test::check_usage_error;
using gpulab::test::lines_of;
using gpulab::test::run_gpulab;
using gpulab::test::run_json;
using gpulab::test::says;
using nlohmann::json;

TEST_CASE("device-info --model H100: the spec sheet, explained", "[cli][device-info]") {
  auto r = run_gpulab({"device-info", "--model", "H100"});
  CAPTURE(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.err.empty());
  CHECK(says(r.out, "NVIDIA H100 SXM5 80GB"));
  CHECK(says(r.out, "compute capability 9.0"));
  CHECK(says(r.out, "132 classrooms x 128 desks = 16,896 desks"));
  CHECK(says(r.out, "2,048 / 32 = 64 groups of 32 (warps)"));
  CHECK(says(r.out, "5.238 Gbit/s per wire"));
  CHECK(says(r.out, "x 5,120 wires / 8 = 3,352.3 GB/s"));
  CHECK(says(r.out, "16,896 x 2 x 1.98 GHz = 66.91 TFLOPS"));
  CHECK(says(r.out, "Sources"));
  CHECK(says(r.out, "Hopper Architecture In-Depth"));
}

TEST_CASE("device-info --model H100 --json: every field", "[cli][device-info]") {
  auto r = run_gpulab({"device-info", "--model", "h100", "--json"});
  CAPTURE(r.err);
  REQUIRE(r.exit_code == 0);
  json j = json::parse(r.out);
  CHECK(j["command"] == "device-info");
  const json& m = j["model"];
  CHECK(m["name"] == "NVIDIA H100 SXM5 80GB");
  CHECK(m["compute_capability"] == "9.0");
  CHECK(m["sms"] == 132);
  CHECK(m["cores_per_sm"] == 128);
  CHECK(m["cuda_cores"] == 16896);
  CHECK(m["tensor_cores"] == 528);
  CHECK(m["tensor_cores_per_sm"] == 4);
  CHECK(m["max_threads_per_sm"] == 2048);
  CHECK(m["max_warps_per_sm"] == 64);
  CHECK(m["max_blocks_per_sm"] == 32);
  CHECK(m["memory_bus_width_bits"] == 5120);
  CHECK(m["l2_cache_kib"] == 51200);
  CHECK(m["memory_bandwidth_gbs"] == 3352);
  CHECK(m["sources"].is_array());
  CHECK(m["sources"].size() >= 2);
  CHECK(m["arch"]["max_shared_memory_per_sm_kib"] == 228);
  CHECK(m["unknown_fields"].empty());
}

TEST_CASE("device-info --model: unknowns are null, and the notes' errors are listed",
          "[cli][device-info]") {
  json pcie = json::parse(run_gpulab({"device-info", "--model", "H100 PCIe", "--json"}).out);
  CHECK(pcie["model"]["sms"] == 114);
  CHECK(pcie["model"]["boost_clock_mhz"].is_null());
  CHECK(pcie["model"]["unknown_fields"].size() >= 1);

  auto text = run_gpulab({"device-info", "--model", "h100-pcie"});
  REQUIRE(text.exit_code == 0);
  CHECK(says(text.out, "unknown (not confirmed by the sources)"));

  json ada = json::parse(run_gpulab({"device-info", "--model", "RTX 4090", "--json"}).out);
  CHECK(ada["model"]["cuda_cores"] == 16384);
  CHECK(ada["model"]["course_notes_differences"].size() == 4);
  auto ada_text = run_gpulab({"device-info", "--model", "rtx4090"});
  CHECK(says(ada_text.out, "24,576"));  // what the notes say, shown as wrong
  CHECK(says(ada_text.out, "Where the course notes differ"));

  auto g80 = run_gpulab({"device-info", "--model", "G80"});
  REQUIRE(g80.exit_code == 0);
  CHECK(says(g80.out, "16 classrooms x 8 desks = 128 desks"));
  CHECK(says(g80.out, "768 / 32 = 24 groups of 32 (warps)"));
}

TEST_CASE("device-info --model --lang zh explains in Chinese", "[cli][device-info]") {
  auto r = run_gpulab({"device-info", "--model", "h100", "--lang", "zh"});
  REQUIRE(r.exit_code == 0);
  CHECK(says(r.out, "132 间教室 x 128 张课桌 = 16,896 张课桌"));
  CHECK(says(r.out, "线程束"));
  CHECK(says(r.out, "操场"));
  CHECK(says(r.out, "讲台"));
}

TEST_CASE("device-info usage errors", "[cli][device-info]") {
  check_usage_error({"device-info", "--model", "rtx5090"}, "--model rtx5090");
  auto unknown = run_gpulab({"device-info", "--model", "rtx5090"});
  for (const char* known : {"g80", "t4", "rtx2080", "rtx3090", "rtx4090", "a100", "h100"}) {
    CHECK_THAT(unknown.err, Catch::Contains(known));
  }
  check_usage_error({"device-info", "--device", "-1"}, "--device -1");
  check_usage_error({"device-info", "--device", "abc"}, "--device abc: not a whole number");
  check_usage_error({"device-info", "--device", "0", "--model", "h100"}, "--model");
}

TEST_CASE("device-info on this machine: devices, or why there are none", "[cli][device-info]") {
  auto r = run_gpulab({"device-info"});
  CAPTURE(r.out, r.err);
  REQUIRE(r.exit_code == 0);
  auto j = json::parse(run_gpulab({"device-info", "--json"}).out);
  CHECK(j["command"] == "device-info");
  REQUIRE(j["gpu_usable"].is_boolean());
  if (j["gpu_usable"].get<bool>()) {
    CHECK(j["reason"].is_null());
    CHECK(j["devices"].size() == j["device_count"].get<std::size_t>());
    CHECK(says(r.out, "classrooms"));
  } else {
    // No GPU (this build machine has no NVIDIA driver): say why, suggest --model, exit 0.
    CHECK(j["devices"].empty());
    CHECK(j["reason"].is_string());
    CHECK(!j["reason"].get<std::string>().empty());
    CHECK(says(r.out, "No usable CUDA GPU"));
    CHECK(says(r.out, j["reason"].get<std::string>()));
    CHECK(says(r.out, "--model"));
    // Asking for a GPU that is not there: exit 1, one line, as --backend gpu vecadd does.
    for (const std::vector<std::string>& args :
         {std::vector<std::string>{"device-info", "--device", "0"},
          {"device-info", "--device", "5"},
          {"--backend", "gpu", "device-info"},
          {"--backend", "gpu", "vecadd", "--n", "10"},
          {"--backend", "gpu", "hello"}}) {
      CAPTURE(args);
      auto asked = run_gpulab(args);
      CHECK(asked.exit_code == 1);
      CHECK(asked.out.empty());
      CHECK(lines_of(asked.err).size() == 1);
      CHECK_THAT(asked.err, Catch::Contains("no GPU is usable: " + j["reason"].get<std::string>()));
    }
  }
}
