// --bench of vecadd and twonorm (see bench.hpp).
#include "commands/bench.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "core/error.hpp"
#include "core/i18n_format.hpp"
#include "core/parse.hpp"
#include "core/progress.hpp"
#include "core/text.hpp"

namespace gpulab {
namespace {

constexpr std::size_t kCopyBytes = std::size_t{256} << 20;  // 256 MiB
constexpr int kCopyReps = 5;

double gb_per_s(double bytes, double ms) {
  return ms > 0 ? bytes / (ms * 1e6) : 0;
}

}  // namespace

std::string gbs_text(double gbs) {
  if (gbs >= 10 || gbs <= 0) return format_number(gbs, 1);
  // Two significant digits, never in exponent notation (an emulator's rate can be 0.000099).
  const int decimals = std::clamp(1 - static_cast<int>(std::floor(std::log10(gbs))), 1, 12);
  return fmt::format("{:.{}f}", gbs, decimals);
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t m = v.size() / 2;
  return v.size() % 2 == 1 ? v[m] : (v[m - 1] + v[m]) / 2;
}

void add_bench_options(CLI::App* sub, BenchRaw& raw, Lang lang) {
  sub->add_flag("--bench", raw.bench,
                std::string(tr(lang,
                               "Benchmark: median kernel time over --reps launches, effective "
                               "bandwidth, and the fraction of a device-to-device copy's bandwidth",
                               "基准测试：--reps 次启动的内核时间中位数、有效带宽，以及占设备内"
                               "拷贝带宽的比例")));
  sub->add_option("--reps", raw.reps,
                  std::string(tr(lang, "Launches --bench times, 1 to 1000 (default 20)",
                                 "--bench 计时的启动次数，1 到 1000（默认 20）")))
      ->type_name("R");
}

int parse_bench_reps(const BenchRaw& raw) {
  if (raw.reps.empty()) return kDefaultBenchReps;
  const auto r = static_cast<int>(parse_int("--reps", raw.reps, 1, kMaxBenchReps));
  if (!raw.bench) {
    throw UsageError("--reps counts the launches of --bench; add --bench",
                     "--reps 是 --bench 的启动次数；请加上 --bench");
  }
  return r;
}

double median_launch_ms(int reps, const std::function<double()>& launch, const std::string& label) {
  launch();  // warm-up: first-touch, caches, clocks, lazy module loading
  std::vector<double> times;
  times.reserve(static_cast<std::size_t>(reps));
  Progress progress(label, reps);  // stderr, only on a terminal
  for (int i = 0; i < reps; ++i) {
    times.push_back(launch());
    progress.step(i + 1);
  }
  return median(times);
}

CopyPeak measure_copy_peak(Backend& backend, std::size_t input_bytes) {
  const bool emulator = backend.kind() == BackendKind::emulator;
  std::size_t size = emulator ? std::min(kCopyBytes, input_bytes) : kCopyBytes;
  const std::size_t free = backend.free_memory();
  if (2 * size > free / 2) size = free / 4;  // leave room: the inputs are still allocated
  size = std::max<std::size_t>(size & ~std::size_t{255}, 256);
  CopyPeak c;
  c.bytes = size;
  DeviceBuffer<unsigned char> src(backend, size), dst(backend, size);
  backend.device_copy(dst.get(), src.get(), size);  // warm-up
  std::vector<double> copies;
  for (int i = 0; i < kCopyReps; ++i)
    copies.push_back(backend.device_copy(dst.get(), src.get(), size));
  c.ms = median(copies);
  c.gbs = gb_per_s(2.0 * static_cast<double>(size), c.ms);
  return c;
}

BenchResult make_bench(const Backend& backend, int reps, double median_ms, double bytes,
                       const CopyPeak& copy) {
  BenchResult b;
  b.reps = reps;
  b.bytes = bytes;
  b.cpu_time = backend.kind() == BackendKind::emulator;
  b.median_ms = median_ms;
  b.gbs = gb_per_s(bytes, median_ms);
  b.copy_bytes = copy.bytes;
  b.copy_ms = copy.ms;
  b.copy_gbs = copy.gbs;
  b.fraction_of_copy = b.copy_gbs > 0 ? b.gbs / b.copy_gbs : 0;
  b.theoretical_gbs = backend.device_facts().theoretical_gbs;
  return b;
}

BenchResult run_bench(Backend& backend, int reps, double bytes, std::size_t input_bytes,
                      const std::function<double()>& launch) {
  const double ms = median_launch_ms(reps, launch);
  return make_bench(backend, reps, ms, bytes, measure_copy_peak(backend, input_bytes));
}

std::string render_bench(const BenchResult& b, const Style& st, Lang l) {
  std::string s = "\n";
  s += st.bold(std::string(tr(l, "  Benchmark", "  基准测试"))) + "\n";
  s += say(l, "  Median kernel time over {} launches (after one warm-up): {} ms{}\n",
           "  {} 次启动（先预热一次）的核函数时间中位数：{} ms{}\n", b.reps,
           format_real(b.median_ms, 4),
           b.cpu_time ? std::string(tr(l, " (CPU time on the emulator, wall clock)",
                                       "（模拟器上的 CPU 时间，挂钟时间）"))
                      : std::string(tr(l, " (CUDA events)", "（CUDA 事件计时）")));
  // A time the clock could not resolve measures nothing: no "0 GB/s", no "0% of the copy".
  if (b.median_ms > 0) {
    s += say(l, "  Effective bandwidth: {} bytes that must move / {} ms = {} GB/s\n",
             "  有效带宽：必须搬运的 {} 字节 / {} ms = {} GB/s\n",
             group_thousands(static_cast<unsigned long long>(b.bytes)), format_real(b.median_ms, 4),
             gbs_text(b.gbs));
  } else {
    s += std::string(tr(l,
                        "  Effective bandwidth: not measured (the launches took less time than "
                        "the clock resolves)\n",
                        "  有效带宽：未测出（启动用时短于时钟的分辨率）\n"));
  }
  const std::string mib = format_real(static_cast<double>(b.copy_bytes) / (1 << 20), 1);
  // On the emulator "device memory" is host memory and the copy a memcpy on the CPU.
  const std::string copy =
      b.cpu_time ? say(l,
                       "a copy of {} MiB in the emulator's device memory (host "
                       "memory, copied by the CPU)",
                       "在模拟器的设备内存（即主机内存，由 CPU 拷贝）中拷贝 {} MiB", mib)
                 : say(l, "a device-to-device copy of {} MiB", "{} MiB 的设备内拷贝", mib);
  if (b.copy_ms > 0) {
    s += say(l, "  Practical peak: {} moves 2 x {} MiB (read + write) in {} ms = {} GB/s\n",
             "  实际峰值：{}，搬运 2 x {} MiB（读 + 写），用时 {} ms = {} GB/s\n", copy, mib,
             format_real(b.copy_ms, 4), gbs_text(b.copy_gbs));
  } else {
    s += say(l, "  Practical peak: {} took less time than the clock resolves: not measured\n",
             "  实际峰值：{} 的用时短于时钟的分辨率：未测出\n", copy);
  }
  if (b.median_ms > 0 && b.copy_ms > 0) {
    s += say(l, "  The kernel reaches {}% of the copy's bandwidth.\n",
             "  核函数达到拷贝带宽的 {}%。\n", st.accent(format_real(100 * b.fraction_of_copy, 1)));
  }
  if (b.theoretical_gbs > 0) {
    s += say(l,
             "  Theoretical peak from memory clock and bus width: {} GB/s (the kernel: {}%, the "
             "copy: {}%)\n",
             "  由显存时钟和总线宽度算出的理论峰值：{} GB/s（核函数 {}%，拷贝 {}%）\n",
             format_real(b.theoretical_gbs, 1), format_real(100 * b.gbs / b.theoretical_gbs, 1),
             format_real(100 * b.copy_gbs / b.theoretical_gbs, 1));
  } else {
    s += std::string(tr(l,
                        "  Theoretical peak: not known (the emulator has no memory clock or bus)\n",
                        "  理论峰值：未知（模拟器没有显存时钟和总线）\n"));
  }
  return s;
}

nlohmann::json bench_json(const BenchResult& b) {
  nlohmann::json j = {{"reps", b.reps},
                      {"median_ms", b.median_ms},
                      {"bytes", b.bytes},
                      {"gbs", b.gbs},
                      {"copy_bytes", b.copy_bytes},
                      {"copy_ms", b.copy_ms},
                      {"copy_gbs", b.copy_gbs},
                      {"fraction_of_copy", b.fraction_of_copy},
                      {"time", b.cpu_time ? "cpu" : "cuda-events"}};
  j["theoretical_gbs"] =
      b.theoretical_gbs > 0 ? nlohmann::json(b.theoretical_gbs) : nlohmann::json();
  return j;
}

}  // namespace gpulab
