// --bench [--reps R] of vecadd and twonorm: the median kernel time over R launches, the effective
// bandwidth it implies, and the device's practical peak (a large device-to-device copy) measured
// in the same run. One place for both commands.
#pragma once

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "backend/backend.hpp"
#include "core/output.hpp"

namespace gpulab {

inline constexpr int kDefaultBenchReps = 20;
inline constexpr int kMaxBenchReps = 1000;

// The options as typed, for setup_* to bind and parse_bench_reps to check.
struct BenchRaw {
  bool bench = false;
  std::string reps;
};
void add_bench_options(CLI::App* sub, BenchRaw& raw, Lang lang);
// --reps as typed (default 20), 1..1000; throws UsageError naming --reps. Also when --reps comes
// without --bench.
int parse_bench_reps(const BenchRaw& raw);

struct BenchResult {
  int reps = 0;
  double median_ms = 0;        // median kernel time of one launch (sum of a command's launches)
  double bytes = 0;            // bytes the kernel must move
  double gbs = 0;              // bytes / median time, GB/s (10^9 bytes)
  std::size_t copy_bytes = 0;  // the size of the device-to-device copy
  double copy_ms = 0;          // its median time
  double copy_gbs = 0;         // 2 * copy_bytes / copy_ms (read + write)
  double fraction_of_copy = 0;
  double theoretical_gbs = 0;  // from memory clock and bus width; 0: not known (emulator)
  bool cpu_time = false;       // the emulator: wall-clock CPU time, not a GPU's
};

// GB/s for the text: grouped above 10, two significant digits below, so that a measured rate is
// never printed as 0 (0.044 GB/s on the emulator).
std::string gbs_text(double gbs);

// The median of the values (the mean of the middle two for an even count); v must not be empty.
double median(std::vector<double> v);

// Runs `launch` once to warm up, then `reps` times, with a progress line on a terminal's stderr;
// `launch` returns one launch's kernel time in milliseconds. Returns the median.
double median_launch_ms(int reps, const std::function<double()>& launch,
                        const std::string& label = "gpulab: benchmark launch");

// The device's practical peak: a large device-to-device copy, read + write. `input_bytes` sizes the
// copy on the emulator (min(256 MiB, input_bytes)); on a GPU the copy is 256 MiB (less only when
// device memory is short).
struct CopyPeak {
  std::size_t bytes = 0;
  double ms = 0;   // median of 5 copies after a warm-up
  double gbs = 0;  // 2 * bytes / ms
};
CopyPeak measure_copy_peak(Backend& backend, std::size_t input_bytes);

// A benchmark's figures from a median launch time and a copy peak measured in the same run.
BenchResult make_bench(const Backend& backend, int reps, double median_ms, double bytes,
                       const CopyPeak& copy);

// median_launch_ms, then measure_copy_peak, then make_bench.
BenchResult run_bench(Backend& backend, int reps, double bytes, std::size_t input_bytes,
                      const std::function<double()>& launch);

std::string render_bench(const BenchResult& b, const Style& st, Lang l);
nlohmann::json bench_json(const BenchResult& b);

// A plain run times one cold launch: the first launch of a kernel also loads its code onto the
// GPU (CUDA loads modules lazily), so the time is no measure of the kernel; --bench is.
inline std::string_view cold_launch_note(Lang l) {
  return tr(
      l,
      "  (one cold launch: the first launch also loads the kernel onto the GPU; --bench "
      "gives the median after a warm-up)\n",
      "  （只启动了一次且是冷启动：首次启动还要把核函数加载到 GPU；--bench 给出预热后的中位数）\n");
}

}  // namespace gpulab
