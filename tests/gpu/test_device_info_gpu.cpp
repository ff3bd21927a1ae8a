// device-info on a real GPU (run on the device machine: ctest -L gpu): the device list and sane
// figures, checked against the spec table where the device is one gpulab knows.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <string>

#include "calc/gpu_specs.hpp"
#include "support/run.hpp"

using gpulab::test::lines_of;
using gpulab::test::run_gpulab;
using nlohmann::json;

TEST_CASE("device-info --json lists the GPUs with sane figures", "[gpu][device-info]") {
  auto r = run_gpulab({"device-info", "--json"});
  CAPTURE(r.out, r.err);
  REQUIRE(r.exit_code == 0);
  json j = json::parse(r.out);
  REQUIRE(j["gpu_usable"] == true);
  REQUIRE(j["device_count"].get<int>() >= 1);
  REQUIRE(j["devices"].size() == j["device_count"].get<std::size_t>());
  CHECK(j["cuda_runtime_version"].is_string());
  for (const json& d : j["devices"]) {
    CAPTURE(d.dump(2));
    CHECK(d["sms"].get<int>() > 0);
    CHECK(d["warp_size"] == 32);
    const int cc = d["cc_major"].get<int>() * 10 + d["cc_minor"].get<int>();
    CHECK(cc >= 75);  // CUDA 13 supports Turing and newer
    CHECK(d["max_threads_per_block"] == 1024);
    CHECK(d["max_block_dims"] == json::array({1024, 1024, 64}));
    CHECK(d["max_grid_dims"][0] == 2147483647);
    CHECK(d["total_global_memory_bytes"].get<std::uint64_t>() > (1ULL << 30));
    CHECK(d["l2_cache_bytes"].get<long long>() > 0);
    CHECK(d["registers_per_sm"] == 65536);
    CHECK(d["max_warps_per_sm"].get<int>() * 32 == d["max_threads_per_sm"].get<int>());
    CHECK(d["shared_memory_per_block_bytes"] == 49152);
    CHECK(d["shared_memory_per_block_optin_bytes"].get<long long>() >= 49152);
    CHECK(d["memory_bus_width_bits"].get<int>() > 0);
    if (!d["memory_clock_mhz"].is_null()) {
      CHECK(d["memory_bandwidth_gbs"].get<double>() > 100);
    }

    // The per-SM limits CUDA reports agree with gpulab's compute-capability table.
    auto arch = gpulab::calc::arch_info(d["cc_major"].get<int>(), d["cc_minor"].get<int>());
    if (arch) {
      CHECK(d["max_threads_per_sm"] == arch->max_threads_per_sm);
      CHECK(d["max_blocks_per_sm"] == arch->max_blocks_per_sm);
      CHECK(d["shared_memory_per_sm_bytes"] == arch->max_shared_memory_per_sm_kib * 1024);
      CHECK(d["shared_memory_per_block_optin_bytes"] ==
            arch->max_shared_memory_per_block_kib * 1024);
      CHECK(d["cuda_cores"] == d["sms"].get<int>() * arch->cores_per_sm);
    }

    // A GPU in the spec table: its SMs, bus and L2 match the sheet.
    const auto* model = gpulab::calc::find_model(d["name"].get<std::string>());
    if (model != nullptr) {
      CAPTURE(model->name);
      CHECK(d["sms"] == model->sms);
      CHECK(d["memory_bus_width_bits"] == model->memory_bus_bits);
      CHECK(d["l2_cache_bytes"].get<double>() == Approx(model->l2_kib * 1024));
      if (model->memory_bandwidth_gbs > 0 && !d["memory_bandwidth_gbs"].is_null()) {
        CHECK(d["memory_bandwidth_gbs"].get<double>() ==
              Approx(model->memory_bandwidth_gbs).epsilon(0.02));
      }
    }
  }
}

TEST_CASE("device-info text explains the GPU, and --device picks one", "[gpu][device-info]") {
  auto r = run_gpulab({"device-info", "--device", "0"});
  CAPTURE(r.out, r.err);
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::Contains("Device 0:"));
  CHECK_THAT(r.out, Catch::Contains("classrooms x"));
  CHECK_THAT(r.out, Catch::Contains("GB/s"));
  CHECK_THAT(r.out, !Catch::Contains("Device 1:"));

  json j = json::parse(run_gpulab({"device-info", "--json"}).out);
  const int count = j["device_count"].get<int>();
  auto bad = run_gpulab({"device-info", "--device", std::to_string(count)});
  CHECK(bad.exit_code == 1);  // a GPU this machine lacks: a runtime failure (docs/reliability.md)
  CHECK(lines_of(bad.err).size() == 1);
  CHECK_THAT(bad.err, Catch::Contains("--device " + std::to_string(count)));
  CHECK_THAT(bad.err, Catch::Contains("has " + std::to_string(count) + " CUDA device"));
}
