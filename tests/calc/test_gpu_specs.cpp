// The compute-capability table and the GPU spec sheets: lookups, internal consistency, the figures
// the course depends on, and how device-info explains a device (with a made-up H100, no GPU).
#include <catch2/catch.hpp>

#include <cmath>
#include <set>
#include <string>

#include "calc/gpu_specs.hpp"
#include "commands/device_info.hpp"
#include "support/says.hpp"

using namespace gpulab::calc;
using gpulab::test::says;

TEST_CASE("find_model accepts names and aliases in any case and spacing", "[calc][specs]") {
  const GpuModel* h100 = find_model("H100");
  REQUIRE(h100 != nullptr);
  CHECK(h100->sms == 132);
  CHECK(find_model("h100") == h100);
  CHECK(find_model("  H100 SXM5 ") == h100);
  CHECK(find_model("NVIDIA H100 SXM5 80GB") == h100);
  CHECK(find_model("NVIDIA H100 80GB HBM3") == h100);  // the name deviceQuery prints
  const GpuModel* pcie = find_model("h100-pcie");
  REQUIRE(pcie != nullptr);
  CHECK(pcie != h100);
  CHECK(pcie->sms == 114);
  CHECK(find_model("H100 PCIe") == pcie);

  const GpuModel* rtx4090 = find_model("rtx 4090");
  REQUIRE(rtx4090 != nullptr);
  CHECK(find_model("RTX4090") == rtx4090);
  CHECK(find_model("GeForce RTX 4090") == rtx4090);
  CHECK(find_model("rtx-4090") == rtx4090);
  CHECK(find_model("4090") == rtx4090);

  const GpuModel* g80 = find_model("g80");
  REQUIRE(g80 != nullptr);
  CHECK(find_model("GeForce 8800 GTX") == g80);
  CHECK(find_model("T4") != nullptr);
  CHECK(find_model("a100") != nullptr);
  CHECK(find_model("RTX 2080") != nullptr);
  CHECK(find_model("rtx 3090") != nullptr);

  CHECK(find_model("") == nullptr);
  CHECK(find_model("   ") == nullptr);
  CHECK(find_model("rtx 5090") == nullptr);
  CHECK(find_model("h10") == nullptr);
}

TEST_CASE("model_key keeps lower-case letters and digits only", "[calc][specs]") {
  CHECK(model_key("RTX-4090") == "rtx4090");
  CHECK(model_key(" GeForce 8800 GTX ") == "geforce8800gtx");
  CHECK(model_key("") == "");
}

TEST_CASE("No two models share a key", "[calc][specs]") {
  std::set<std::string> keys;
  for (const GpuModel& m : gpu_models()) {
    CHECK(keys.insert(model_key(m.name)).second);
    for (auto alias : m.aliases) {
      CAPTURE(m.name, alias);
      CHECK(keys.insert(model_key(alias)).second);
    }
  }
}

TEST_CASE("Every spec sheet is consistent with itself and with its compute capability",
          "[calc][specs]") {
  REQUIRE(gpu_models().size() >= 7);
  for (const GpuModel& m : gpu_models()) {
    CAPTURE(m.name);
    CHECK(!m.aliases.empty());
    CHECK(m.aliases.front().find(' ') == std::string_view::npos);  // listed in error messages
    CHECK(!m.sources.empty());
    CHECK(m.sms > 0);
    CHECK(m.cores == m.sms * m.cores_per_sm);
    CHECK(m.max_warps_per_sm * 32 == m.max_threads_per_sm);
    if (m.tensor_cores > 0) CHECK(m.tensor_cores % m.sms == 0);
    if (m.rt_cores > 0) CHECK(m.rt_cores == m.sms);  // one RT core per SM on Turing/Ampere/Ada

    // The per-SM limits are those of the compute capability.
    auto arch = arch_info(m.cc_major, m.cc_minor);
    REQUIRE(arch.has_value());
    CHECK(arch->cores_per_sm == m.cores_per_sm);
    CHECK(arch->max_threads_per_sm == m.max_threads_per_sm);
    CHECK(arch->max_warps_per_sm == m.max_warps_per_sm);
    CHECK(arch->max_blocks_per_sm == m.max_blocks_per_sm);
    CHECK(arch->registers_per_sm * 4 == static_cast<int>(m.register_file_per_sm_kib * 1024));
    CHECK(arch->architecture == m.architecture);

    // Bandwidth = data rate per pin x bus width / 8, where the rate is known.
    if (m.memory_data_rate_gbps > 0) {
      CHECK(m.memory_data_rate_gbps * m.memory_bus_bits / 8.0 ==
            Approx(m.memory_bandwidth_gbs).epsilon(0.001));
    }
    // FP32 peak = cores x 2 FLOP x clock, where the clock is known (published figures round).
    if (m.boost_clock_mhz > 0 && m.fp32_tflops > 0) {
      CHECK(fp32_peak_tflops(m.cores, m.boost_clock_mhz) == Approx(m.fp32_tflops).epsilon(0.01));
    }
  }
}

TEST_CASE("The course notes' spec-table GPUs: the right figures", "[calc][specs]") {
  const GpuModel* rtx2080 = find_model("rtx2080");
  REQUIRE(rtx2080 != nullptr);
  CHECK(rtx2080->sms == 46);
  CHECK(rtx2080->cores == 2944);
  CHECK(rtx2080->tensor_cores == 368);
  CHECK(rtx2080->memory_bandwidth_gbs == 448);
  CHECK(rtx2080->l1_shared_per_sm_kib * rtx2080->sms == 4416);  // the notes' 4,416 KB
  CHECK(rtx2080->register_file_per_sm_kib * rtx2080->sms == 11776);
  CHECK(rtx2080->notes_errata.empty());

  const GpuModel* rtx3090 = find_model("rtx3090");
  REQUIRE(rtx3090 != nullptr);
  CHECK(rtx3090->cores == 10496);
  CHECK(rtx3090->tensor_cores == 328);
  CHECK(rtx3090->l2_kib == 6144);
  CHECK(rtx3090->register_file_per_sm_kib * rtx3090->sms == 20992);
  CHECK(rtx3090->notes_errata.empty());

  // The notes say 192 cores per SM, 24,576 cores, 6 3rd-gen tensor cores per SM, 768 in all.
  const GpuModel* rtx4090 = find_model("rtx4090");
  REQUIRE(rtx4090 != nullptr);
  CHECK(rtx4090->sms == 128);
  CHECK(rtx4090->cores_per_sm == 128);
  CHECK(rtx4090->cores == 16384);
  CHECK(rtx4090->tensor_cores == 512);
  CHECK(rtx4090->tensor_cores / rtx4090->sms == 4);
  CHECK(rtx4090->tensor_core_generation == "4th");
  CHECK(rtx4090->l2_kib == 73728);
  CHECK(rtx4090->l1_shared_per_sm_kib * rtx4090->sms == 16384);
  CHECK(rtx4090->notes_errata.size() == 4);

  const GpuModel* t4 = find_model("t4");
  REQUIRE(t4 != nullptr);
  CHECK(t4->sms == 40);  // the notes: 40 SMs x 64 streaming processors
  CHECK(t4->cores_per_sm == 64);
}

TEST_CASE("The G80 holds the notes' 3 blocks of 256 threads: 24 warps, its limit",
          "[calc][specs]") {
  const GpuModel* g80 = find_model("g80");
  REQUIRE(g80 != nullptr);
  CHECK(g80->sms == 16);
  CHECK(g80->cores_per_sm == 8);
  CHECK(g80->cores == 128);
  CHECK(g80->max_threads_per_sm == 3 * 256);
  CHECK(g80->max_warps_per_sm == 3 * 256 / 32);
  CHECK(g80->max_blocks_per_sm == 8);
  CHECK(g80->power_w == 0);  // unconfirmed, so unknown
  auto arch = arch_info(1, 0);
  REQUIRE(arch);
  CHECK(arch->max_threads_per_block == 512);
}

TEST_CASE("arch_info: known compute capabilities", "[calc][specs]") {
  auto h = arch_info(9, 0);
  REQUIRE(h);
  CHECK(h->architecture == "Hopper");
  CHECK(h->cores_per_sm == 128);
  CHECK(h->max_threads_per_sm == 2048);
  CHECK(h->max_warps_per_sm == 64);
  CHECK(h->max_blocks_per_sm == 32);
  CHECK(h->max_shared_memory_per_sm_kib == 228);
  CHECK(h->max_shared_memory_per_block_kib == 227);
  CHECK(h->registers_per_sm == 65536);
  CHECK(h->max_registers_per_thread == 255);

  auto g = arch_info(1, 0);
  REQUIRE(g);
  CHECK(g->cores_per_sm == 8);
  CHECK(g->max_threads_per_sm == 768);
  CHECK(g->max_warps_per_sm == 24);
  CHECK(g->max_blocks_per_sm == 8);
  CHECK(g->registers_per_sm == 8192);
  CHECK(g->max_shared_memory_per_sm_kib == 16);

  auto turing = arch_info(7, 5);
  REQUIRE(turing);
  CHECK(turing->max_threads_per_sm == 1024);
  CHECK(turing->max_blocks_per_sm == 16);
  auto ada = arch_info(8, 9);
  REQUIRE(ada);
  CHECK(ada->max_threads_per_sm == 1536);
  CHECK(ada->max_blocks_per_sm == 24);
  auto ga100 = arch_info(8, 0);
  REQUIRE(ga100);
  CHECK(ga100->cores_per_sm == 64);
  CHECK(ga100->max_shared_memory_per_block_kib == 163);
  CHECK(arch_info(2, 1)->cores_per_sm == 48);
  CHECK(arch_info(3, 5)->cores_per_sm == 192);
  CHECK(arch_info(6, 0)->cores_per_sm == 64);
  CHECK(arch_info(6, 1)->cores_per_sm == 128);
  CHECK(arch_info(12, 0)->architecture == "Blackwell");
}

TEST_CASE("arch_info: unknown compute capabilities are unknown, not guessed", "[calc][specs]") {
  CHECK_FALSE(arch_info(4, 0).has_value());  // there never was a 4.x
  CHECK_FALSE(arch_info(9, 9).has_value());
  CHECK_FALSE(arch_info(0, 0).has_value());
  CHECK_FALSE(arch_info(99, 0).has_value());
}

TEST_CASE("The compute-capability table covers what CUDA documents, consistently",
          "[calc][specs]") {
  const std::pair<int, int> required[] = {{1, 0}, {1, 1}, {1, 2},  {1, 3}, {2, 0}, {2, 1}, {3, 0},
                                          {3, 5}, {3, 7}, {5, 0},  {5, 2}, {5, 3}, {6, 0}, {6, 1},
                                          {6, 2}, {7, 0}, {7, 2},  {7, 5}, {8, 0}, {8, 6}, {8, 7},
                                          {8, 9}, {9, 0}, {10, 0}, {12, 0}};
  for (auto [major, minor] : required) {
    CAPTURE(major, minor);
    CHECK(arch_info(major, minor).has_value());
  }
  CHECK(!arch_sources().empty());
  int previous = 0;
  for (const ArchInfo& a : known_archs()) {
    CAPTURE(a.major, a.minor);
    CHECK(a.major * 10 + a.minor > previous);  // oldest first, no duplicates
    previous = a.major * 10 + a.minor;
    CHECK(a.max_warps_per_sm * 32 == a.max_threads_per_sm);
    CHECK(a.max_shared_memory_per_block_kib <= a.max_shared_memory_per_sm_kib);
    CHECK(a.max_threads_per_block <= a.max_threads_per_sm);
    CHECK(a.cores_per_sm > 0);
    CHECK(a.warp_schedulers_per_sm > 0);
    CHECK(!a.architecture.empty());
  }
}

TEST_CASE("DDR bandwidth and FP32 peak formulas", "[calc][specs]") {
  // A T4 reports a 5001 MHz memory clock on a 256-bit bus: 320 GB/s.
  CHECK(ddr_bandwidth_gbs(5001, 256) == Approx(320.064));
  // An A100 40GB reports 1215 MHz on 5120 bits: the datasheet's 1555 GB/s.
  CHECK(ddr_bandwidth_gbs(1215, 5120) == Approx(1555.2));
  CHECK(ddr_bandwidth_gbs(2619, 5120) == Approx(3352.32));
  CHECK(fp32_peak_tflops(16896, 1980) == Approx(66.908).epsilon(0.0001));
  CHECK(fp32_peak_tflops(128, 1350) == Approx(0.3456));
}

// ---- device-info's explanations, without a GPU: a device described by hand -----------------

namespace {

gpulab::cuda::DeviceProperties fake_h100() {
  gpulab::cuda::DeviceProperties d;
  d.index = 0;
  d.name = "NVIDIA H100 80GB HBM3";
  d.uuid = "GPU-00000000-0000-0000-0000-000000000000";
  d.cc_major = 9;
  d.cc_minor = 0;
  d.total_global_mem = 84'935'229'440ULL;
  d.multiprocessors = 132;
  d.clock_khz = 1'980'000;
  d.memory_clock_khz = 2'619'000;
  d.memory_bus_bits = 5120;
  d.l2_bytes = 52'428'800;
  d.shared_per_block = 49152;
  d.shared_per_block_optin = 232448;
  d.shared_per_sm = 233472;
  d.reserved_shared_per_block = 1024;
  d.regs_per_block = 65536;
  d.regs_per_sm = 65536;
  d.warp_size = 32;
  d.max_threads_per_sm = 2048;
  d.max_threads_per_block = 1024;
  d.max_block_dims = {1024, 1024, 64};
  d.max_grid_dims = {2147483647, 65535, 65535};
  d.max_blocks_per_sm = 32;
  d.compute_mode = gpulab::cuda::ComputeMode::default_mode;
  return d;
}

}  // namespace

TEST_CASE("device-info explains a device's numbers in the school model", "[calc][device-info]") {
  gpulab::OutputOptions out;
  out.color = gpulab::ColorMode::never;
  const std::string text = gpulab::render_device(fake_h100(), out);
  CHECK(says(text, "132 classrooms x 128 desks = 16,896 desks"));
  CHECK(says(text, "2 x 2,619 MHz x 5,120 bit / 8 = 3,352.3 GB/s"));
  CHECK(says(text, "16,896 x 2 x 1.98 GHz = 66.9 TFLOPS"));
  CHECK(says(text, "2,048 / 32 = 64 groups of 32 (warps)"));
  CHECK(says(text, "65,536 / 2,048 = 32 each"));
  CHECK(says(text, "playground"));
  CHECK(says(text, "podium"));

  out.lang = gpulab::Lang::zh;
  const std::string zh = gpulab::render_device(fake_h100(), out);
  CHECK(says(zh, "132 间教室 x 128 张课桌 = 16,896 张课桌"));
  CHECK(says(zh, "流多处理器"));
  CHECK(says(zh, "线程束"));
  CHECK(says(zh, "共享内存"));
  CHECK(says(zh, "全局内存"));
  CHECK(says(zh, "寄存器"));

  auto j = gpulab::device_json(fake_h100());
  CHECK(j["cuda_cores"] == 16896);
  CHECK(j["max_warps_per_sm"] == 64);
  CHECK(j["memory_bandwidth_gbs"].get<double>() == Approx(3352.32));
  CHECK(j["architecture"] == "Hopper");
}

TEST_CASE("device-info says a newer compute capability's cores are unknown",
          "[calc][device-info]") {
  auto d = fake_h100();
  d.cc_major = 13;  // not in the table
  d.clock_khz = 0;  // a driver that does not report the clock
  gpulab::OutputOptions out;
  out.color = gpulab::ColorMode::never;
  const std::string text = gpulab::render_device(d, out);
  CHECK(says(text, "compute capability 13.0 is not in gpulab's table"));
  CHECK(says(text, "not reported by the driver"));
  CHECK_FALSE(says(text, "desks ="));
  auto j = gpulab::device_json(d);
  CHECK(j["cuda_cores"].is_null());
  CHECK(j["cores_per_sm"].is_null());
  CHECK(j["fp32_peak_tflops"].is_null());
}

TEST_CASE("device-info's report of the machine: versions and devices, in both languages",
          "[calc][device-info]") {
  gpulab::DeviceInfoResult r;
  r.gpu_usable = true;
  r.device_count = 1;
  r.versions = {13000, 12040};
  r.devices = {fake_h100()};
  gpulab::OutputOptions out;
  out.color = gpulab::ColorMode::never;
  const std::string en = gpulab::render_device_info(r, out);
  CHECK(says(en, "1 CUDA device (CUDA driver 13.0, runtime 12.4)"));
  CHECK(says(en, "Device 0: NVIDIA H100 80GB HBM3"));
  out.lang = gpulab::Lang::zh;
  const std::string zh = gpulab::render_device_info(r, out);
  CHECK(says(zh, "1 个 CUDA 设备（CUDA 驱动 13.0，运行时 12.4）"));
  auto j = gpulab::device_info_json(r);
  CHECK(j["cuda_driver_version"] == "13.0");
  CHECK(j["cuda_runtime_version"] == "12.4");
  CHECK(j["reason"].is_null());
  CHECK(j["devices"].size() == 1);
}
