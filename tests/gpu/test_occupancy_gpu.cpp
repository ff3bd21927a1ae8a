// gpulab's occupancy calculator against CUDA's cudaOccupancyMaxActiveBlocksPerMultiprocessor on
// this machine's GPU, for every kernel and configuration of occupancy_sweep.cu: they must agree
// everywhere. Run on the device machine: build/gpu/bin/gpu_tests "[occupancy]".
#include <fmt/format.h>
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <set>
#include <string>
#include <utility>

#include "calc/gpu_specs.hpp"
#include "calc/occupancy.hpp"
#include "support/run.hpp"

#if GPULAB_HAVE_CUDA
#include "gpu/occupancy_sweep.hpp"

using namespace gpulab;

TEST_CASE("occupancy agrees with cudaOccupancyMaxActiveBlocksPerMultiprocessor",
          "[gpu][occupancy]") {
  const test::CudaOccupancySweep sweep = test::cuda_occupancy_sweep();
  const auto arch = calc::arch_info(sweep.cc_major, sweep.cc_minor);
  CAPTURE(sweep.device, sweep.cc_major, sweep.cc_minor);
  REQUIRE(arch.has_value());

  long compared = 0, agreed = 0, beyond_bounds = 0, beyond_bounds_zero = 0;
  std::set<int> registers_seen, blocks_seen;
  std::set<std::size_t> static_seen;
  std::string mismatches;
  for (const auto& s : sweep.samples) {
    if (s.threads > s.max_threads) {
      // The kernel's launch bound (or its registers) forbid this block size; such a launch fails.
      // Measured on an H100 (CUDA 13.0): cudaOccupancyMaxActiveBlocksPerMultiprocessor does not
      // say so: it returned a non-zero count for 1,610 of 3,066 such configurations. They are
      // left out of the comparison.
      ++beyond_bounds;
      if (s.cuda_error != 0 || s.cuda_blocks == 0) ++beyond_bounds_zero;
      continue;
    }
    calc::OccupancyInput in;
    in.threads = s.threads;
    in.registers = s.registers;
    in.static_shared = static_cast<std::int64_t>(s.static_shared);
    in.dynamic_shared = static_cast<std::int64_t>(s.dynamic_shared);
    if (s.carveout >= 0) in.carveout_percent = s.carveout;
    const calc::Occupancy o = calc::occupancy(*arch, in);
    ++compared;
    registers_seen.insert(s.registers);
    static_seen.insert(s.static_shared);
    blocks_seen.insert(s.cuda_blocks);
    if (s.cuda_error == 0 && o.blocks == s.cuda_blocks) {
      ++agreed;
    } else if (mismatches.size() < 4000) {
      mismatches += fmt::format(
          "{}: {} registers, {} B static, {} threads, {} B dynamic, carveout {}: CUDA {} (error "
          "{}), gpulab {}\n",
          s.kernel, s.registers, s.static_shared, s.threads, s.dynamic_shared, s.carveout,
          s.cuda_blocks, s.cuda_error, o.blocks);
    }
  }
  std::printf(
      "occupancy on %s (cc %d.%d): %ld configurations, %ld agree with "
      "cudaOccupancyMaxActiveBlocksPerMultiprocessor (%.1f%%); %zu register counts, %zu static "
      "shared sizes, blocks per SM seen: %zu values; %ld beyond launch bounds, %ld of them 0\n",
      sweep.device.c_str(), sweep.cc_major, sweep.cc_minor, compared, agreed,
      compared > 0 ? 100.0 * static_cast<double>(agreed) / static_cast<double>(compared) : 0.0,
      registers_seen.size(), static_seen.size(), blocks_seen.size(), beyond_bounds,
      beyond_bounds_zero);
  CAPTURE(mismatches);
  CHECK(compared > 5000);
  CHECK(agreed == compared);
  // The sweep really exercised the limits: many register counts, shared sizes and results.
  CHECK(registers_seen.size() >= 15);
  CHECK(static_seen.size() >= 8);
  CHECK(blocks_seen.size() >= 10);
  CHECK(beyond_bounds > 0);  // the sweep reached block sizes past launch bounds

  // CUDA reports a kernel's static shared memory as declared, without the driver's per-block
  // reserve (which the cubin's .nv.shared section includes on sm_90): the figure nvcc
  // --resource-usage prints, so the one `gpulab inspect` feeds the calculator.
  const std::pair<const char*, std::size_t> declared[] = {
      {"shared 100 B", 100},    {"shared 4 KiB", 4096},   {"shared 12 KiB", 12288},
      {"shared 20 KiB", 20480}, {"shared 48 KiB", 49152}, {"two_norm_kernel", 16384}};
  for (const auto& [kernel, bytes] : declared) {
    for (const auto& s : sweep.samples) {
      if (s.kernel == kernel) {
        CAPTURE(kernel);
        CHECK(s.static_shared == bytes);
        break;
      }
    }
  }
}

TEST_CASE("occupancy --device 0 takes this GPU's compute capability", "[gpu][occupancy]") {
  const test::CudaOccupancySweep sweep = test::cuda_occupancy_sweep();
  auto r = test::run_gpulab({"occupancy", "--device", "0", "--threads", "256", "--registers", "64",
                             "--json", "--no-charts"});
  CAPTURE(r.out, r.err);
  REQUIRE(r.exit_code == 0);
  const auto j = nlohmann::json::parse(r.out);
  CHECK(j["source"] == "device");
  CHECK(j["gpu"] == sweep.device);
  CHECK(j["cc"] == fmt::format("{}.{}", sweep.cc_major, sweep.cc_minor));
  auto bad = test::run_gpulab({"occupancy", "--device", "99", "--threads", "256"});
  CHECK(bad.exit_code == 2);
  CHECK_THAT(bad.err, Catch::Contains("--device 99"));
}

#endif
