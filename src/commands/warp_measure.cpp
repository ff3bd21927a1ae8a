// gpulab warp-hiding --measure (see warp_measure.hpp).
#include "commands/warp_measure.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <map>

#include "calc/gpu_specs.hpp"
#include "calc/launch_facts.hpp"
#include "commands/bench.hpp"
#include "commands/common.hpp"
#include "core/i18n_format.hpp"
#include "core/layout.hpp"
#include "core/plot.hpp"
#include "core/progress.hpp"
#include "core/text.hpp"

namespace gpulab {
namespace {

constexpr int kRuns = 3;                   // timed launches per point, after a warm-up
constexpr int kEmulatorMaxWarps = 64;      // the emulator plays one SM of a Hopper GPU
constexpr std::uint64_t kEntryBytes = 64;  // one entry per 64 bytes: no two share a sector
constexpr unsigned kEntryWords = kEntryBytes / sizeof(unsigned);
constexpr std::uint64_t kEmulatorEntries = std::uint64_t{1} << 16;  // a 4 MiB table
constexpr std::uint64_t kMinTableBytes = std::uint64_t{1} << 30;
constexpr double kSaturated = 0.9;  // within 90% of the best rate

// In [0, bound) from the seed's stream i (the modulo's bias is below bound / 2^64).
std::uint64_t random_below(std::uint64_t seed, std::uint64_t i, std::uint64_t bound) {
  return calc::random_bits(seed, i) % bound;
}

// The chain: a random order of all n entries, next[slot of order[k]] = slot of order[k + 1],
// wrapping around, so that following next from anywhere visits every entry once before it comes
// back. Entry i lives at slot i * kEntryWords: 64 bytes apart. The kernel follows slots.
struct Chain {
  std::vector<unsigned> order, next;
  // The slot of the k-th entry along the chain.
  unsigned slot(std::uint64_t k) const { return order[k] * kEntryWords; }
};
Chain make_chain(std::uint64_t n, std::uint64_t seed) {
  Chain c;
  c.order.resize(n);
  for (std::uint64_t i = 0; i < n; ++i) c.order[i] = static_cast<unsigned>(i);
  for (std::uint64_t i = n - 1; i > 0; --i)  // Fisher-Yates
    std::swap(c.order[i], c.order[random_below(seed, i, i + 1)]);
  c.next.resize(n * kEntryWords);
  for (std::uint64_t k = 0; k < n; ++k) c.next[c.slot(k)] = c.slot((k + 1) % n);
  return c;
}

}  // namespace

std::vector<int> probe_warp_counts(int max_warps) {
  std::vector<int> w;
  for (int p = 1; p <= max_warps; p *= 2) {
    w.push_back(p);
    if (p >= 2 && p + p / 2 <= max_warps) w.push_back(p + p / 2);
  }
  if (w.empty() || w.back() != max_warps) w.push_back(max_warps);
  std::sort(w.begin(), w.end());
  w.erase(std::unique(w.begin(), w.end()), w.end());
  return w;
}

MeasureResult run_warp_measure(const MeasureOptions& o, Backend& backend) {
  MeasureResult r;
  r.backend = std::string(backend_name(backend.kind()));
  r.device = backend.device_name();
  const DeviceFacts f = backend.device_facts();
  const bool gpu = backend.kind() == BackendKind::cuda && f.sm_count > 0;
  r.sms = gpu ? f.sm_count : 1;
  r.max_warps_per_sm = gpu ? f.max_threads_per_sm / 32 : kEmulatorMaxWarps;
  r.schedulers = 4;
  r.cycles_per_fma = 1;
  if (gpu) {
    if (const auto arch = calc::arch_info(f.cc_major, f.cc_minor)) {
      r.schedulers = arch->warp_schedulers_per_sm;
      // A scheduler issues a warp's 32 FMAs over its share of the SM's FP32 cores.
      r.cycles_per_fma = std::max(1, 32 * arch->warp_schedulers_per_sm / arch->cores_per_sm);
      r.arch_known = true;
    }
  }
  r.clock_khz = gpu ? f.clock_khz : 0;
  r.l2_bytes = gpu ? f.l2_bytes : 0;
  r.ops = o.ops;
  r.steps = o.steps > 0 ? o.steps : (gpu ? 1000 : 64);
  r.seed = o.seed;

  // One entry per 64 bytes, so no two entries share a cache sector, in a table of at least
  // 1 GiB and 8 times the L2 cache: almost every load goes to DRAM.
  const auto total_warps = static_cast<std::uint64_t>(r.sms) * r.max_warps_per_sm;
  std::uint64_t entries = kEmulatorEntries;
  if (gpu) {
    entries = std::bit_ceil(std::max(kMinTableBytes, 8 * static_cast<std::uint64_t>(r.l2_bytes)) /
                            kEntryBytes);
    // Room for every warp's walk without meeting another's.
    entries = std::max(entries, std::bit_ceil(total_warps * static_cast<std::uint64_t>(r.steps)));
  }
  r.table_bytes = entries * kEntryBytes;
  const std::uint64_t flush_bytes = 2 * static_cast<std::uint64_t>(r.l2_bytes);
  // Per warp: a start, an end and an SM id (unsigned each), two clocks (long long each).
  const std::uint64_t per_warp = 3 * sizeof(unsigned) + 2 * sizeof(long long);
  require_memory(backend, r.table_bytes + 2 * flush_bytes + total_warps * per_warp,
                 "warp-hiding --measure");

  const Chain chain = make_chain(entries, o.seed);
  // Warps start evenly spaced along the chain: no two walk the same entries.
  const std::uint64_t spacing = std::max<std::uint64_t>(1, entries / total_warps);
  std::vector<unsigned> starts(total_warps);
  for (std::uint64_t w = 0; w < total_warps; ++w) starts[w] = chain.slot((w * spacing) % entries);

  DeviceBuffer<unsigned> next(backend, chain.next.size()), dstarts(backend, total_warps),
      ends(backend, total_warps), sms(backend, total_warps);
  DeviceBuffer<long long> clocks(backend, 2 * total_warps);
  DeviceBuffer<unsigned char> flush_src(backend, std::max<std::uint64_t>(flush_bytes, 1)),
      flush_dst(backend, std::max<std::uint64_t>(flush_bytes, 1));
  if (flush_bytes > 0) {  // written once, so that the flushes never read uninitialised memory
    const std::vector<unsigned char> zeros(flush_bytes);
    backend.to_device(flush_src.get(), zeros.data(), flush_bytes);
  }
  backend.to_device(next.get(), chain.next.data(), next.bytes());
  backend.to_device(dstarts.get(), starts.data(), dstarts.bytes());
  // Before each launch: a copy twice the L2's size pushes the last launch's entries out of it.
  auto flush_l2 = [&] {
    if (flush_bytes > 0) backend.device_copy(flush_dst.get(), flush_src.get(), flush_bytes);
  };

  auto measure = [&](int warps, int ops) {
    MeasurePoint p;
    p.warps_per_sm = warps;
    p.blocks_per_sm = (warps + 31) / 32;
    p.threads_per_block = warps * 32 / p.blocks_per_sm;
    const auto grid = static_cast<std::uint64_t>(r.sms) * p.blocks_per_sm;
    const std::uint64_t n = static_cast<std::uint64_t>(r.sms) * warps;
    const LaunchShape shape{{grid, 1, 1}, {static_cast<std::uint64_t>(p.threads_per_block), 1, 1}};
    LatencyProbeArgs args{next.get(), dstarts.get(), r.steps,  ops,
                          ends.get(), clocks.get(),  sms.get()};
    flush_l2();
    backend.latency_probe(shape, args);  // warm-up
    std::vector<double> per_step, ms;
    std::vector<long long> c(2 * n);
    std::vector<unsigned> e(n), s(n);
    for (int run = 0; run < kRuns; ++run) {
      flush_l2();
      ms.push_back(backend.latency_probe(shape, args).kernel_ms);
      backend.to_host(c.data(), clocks.get(), c.size() * sizeof(long long));
      backend.to_host(s.data(), sms.get(), n * sizeof(unsigned));
      // Per SM: from its first warp's start to its last warp's end (one SM, one clock).
      std::map<unsigned, std::pair<long long, long long>> span;
      for (std::uint64_t w = 0; w < n; ++w) {
        auto [it, fresh] = span.try_emplace(s[w], c[2 * w], c[2 * w + 1]);
        if (!fresh) {
          it->second.first = std::min(it->second.first, c[2 * w]);
          it->second.second = std::max(it->second.second, c[2 * w + 1]);
        }
      }
      double sum = 0;
      for (const auto& [sm, t] : span) sum += static_cast<double>(t.second - t.first);
      per_step.push_back(sum / static_cast<double>(span.size()) / r.steps);
    }
    p.cycles_per_step = median(per_step);
    p.kernel_ms = median(ms);
    p.fma_per_cycle_per_sm =
        p.cycles_per_step > 0 ? warps * static_cast<double>(ops) / p.cycles_per_step : 0;
    backend.to_host(e.data(), ends.get(), n * sizeof(unsigned));
    p.verified = true;
    std::map<unsigned, int> per_sm;
    for (std::uint64_t w = 0; w < n; ++w) {
      if (e[w] != chain.slot((w * spacing + static_cast<std::uint64_t>(r.steps)) % entries))
        p.verified = false;
      ++per_sm[s[w]];
    }
    p.max_warps_seen_per_sm = 0;
    p.min_warps_seen_per_sm = static_cast<int>(per_sm.size()) < r.sms ? 0 : warps * r.sms;
    for (const auto& [sm, k] : per_sm) {
      p.max_warps_seen_per_sm = std::max(p.max_warps_seen_per_sm, k);
      p.min_warps_seen_per_sm = std::min(p.min_warps_seen_per_sm, k);
    }
    return p;
  };

  const std::vector<int> counts = probe_warp_counts(r.max_warps_per_sm);
  Progress progress("gpulab: warps per SM", static_cast<int>(counts.size()) + 1);
  const MeasurePoint latency = measure(1, 0);
  progress.step(1);
  r.latency_cycles = latency.cycles_per_step;
  r.verified = latency.verified;
  for (std::size_t i = 0; i < counts.size(); ++i) {
    r.points.push_back(measure(counts[i], r.ops));
    r.verified = r.verified && r.points.back().verified;
    progress.step(static_cast<int>(i) + 2);
  }
  r.one_warp_cycles = r.points.front().cycles_per_step;
  r.prediction = calc::warps_to_hide_latency(
      std::max<std::int64_t>(1, std::llround(r.latency_cycles)), r.ops, r.cycles_per_fma);
  r.predicted_warps_per_sm = r.schedulers * static_cast<int>(r.prediction.warps_needed);
  for (const auto& p : r.points)
    r.best_fma_per_cycle = std::max(r.best_fma_per_cycle, p.fma_per_cycle_per_sm);
  for (const auto& p : r.points) {
    if (p.fma_per_cycle_per_sm >= kSaturated * r.best_fma_per_cycle) {
      r.saturation_warps_per_sm = p.warps_per_sm;
      break;
    }
  }
  return r;
}

std::string render_warp_measure(const MeasureResult& r, const OutputOptions& out) {
  const Style st = style_for(out);
  const Lang l = out.lang;
  const double limit = static_cast<double>(r.schedulers) / r.cycles_per_fma;
  std::string s;
  s += st.heading(say(l, "Latency hiding, measured on {} ({})", "实测延迟隐藏，运行于 {}（{}）",
                      r.backend, r.device)) +
       "\n";
  const std::string intro = say(
      l,
      "The kernel (latency_probe): each warp follows a random chain through a {} table, one "
      "entry per 64 bytes{}, so each load waits for memory; after each load K = {} FMA "
      "instructions need the loaded value. {} steps per warp; W warps on each of {}, "
      "W = 1 to {} (an SM holds at most {}).{}",
      "核函数（latency_probe）：每个线程束沿一条随机链穿过 {} 的表，每 64 字节一个表项{}，"
      "所以每次加载都要等内存；每次加载后有 K = {} 条 FMA 指令要用到加载的值。每个线程束 "
      "{} 步；{} 个 SM 上每个放 W 个线程束，W = 1 到 {}（一个 SM 最多 {} 个）。{}",
      format_bytes(static_cast<double>(r.table_bytes)),
      r.l2_bytes > 0 ? say(l, " (the L2 cache is {})", "（L2 缓存为 {}）", format_bytes(r.l2_bytes))
                     : std::string(),
      r.ops, r.steps,
      l == Lang::zh ? std::to_string(r.sms)
                    : count_noun(static_cast<unsigned long long>(r.sms), "SM", "SMs"),
      r.max_warps_per_sm, r.max_warps_per_sm,
      r.l2_bytes > 0 ? say(l,
                           " Before each launch a copy of twice the L2's size evicts the last "
                           "launch's entries.",
                           "每次启动前先拷贝两倍 L2 大小的数据，把上次启动留下的表项挤出 L2。")
                     : std::string());
  s += "  " + wrap_text(intro, std::min(st.width(), kProseWidth), 2, 2) + "\n\n";

  const bool gpu = r.backend == "cuda";
  s += say(l,
           "  Memory latency, measured: 1 warp per SM and no work: L = {} "
           "{} per load",
           "  实测访存延迟：每个 SM 1 个线程束、没有计算：\n  每次加载 L = {} "
           "{}",
           st.accent(format_real(r.latency_cycles, 0)),
           gpu ? say(l, "cycles", "个周期") : say(l, "ns of CPU time", "纳秒 CPU 时间"));
  if (r.clock_khz > 0) {
    s += say(l, "\n  (~{} ns at the {} MHz peak clock)", "（按 {1} MHz 峰值时钟约 {0} ns）",
             format_real(r.latency_cycles / (r.clock_khz / 1e6), 0),
             format_real(r.clock_khz / 1e3, 0));
  }
  s += say(l, ".\n\n", "。\n\n");

  // The emulator's clock counts nanoseconds of CPU time: its rates are FMA per ns of a CPU, with
  // no issue limit to hold them against, and are never called cycles.
  std::vector<std::string> header = {
      say(l, "warps/SM", "线程束/SM"), say(l, "blocks x threads", "线程块 x 线程"),
      gpu ? say(l, "cycles/step", "周期/步") : say(l, "CPU ns/step", "CPU 纳秒/步"),
      gpu ? say(l, "FMA/cycle/SM", "FMA/周期/SM") : say(l, "FMA/CPU ns", "FMA/CPU 纳秒")};
  if (gpu) header.push_back(say(l, "% of limit", "占上限 %"));
  header.push_back(say(l, "warps/SM seen", "实见线程束/SM"));
  Table t(header);
  long highlight = -1;
  for (std::size_t i = 0; i < r.points.size(); ++i) {
    const auto& p = r.points[i];
    if (p.warps_per_sm == r.saturation_warps_per_sm) highlight = static_cast<long>(i);
    std::vector<std::string> row = {std::to_string(p.warps_per_sm),
                                    fmt::format("{} x {}", p.blocks_per_sm, p.threads_per_block),
                                    format_real(p.cycles_per_step, 0),
                                    format_real(p.fma_per_cycle_per_sm, 2)};
    if (gpu) row.push_back(format_real(100 * p.fma_per_cycle_per_sm / limit, 1));
    row.push_back(p.min_warps_seen_per_sm == p.max_warps_seen_per_sm
                      ? std::to_string(p.max_warps_seen_per_sm)
                      : fmt::format("{}-{}", p.min_warps_seen_per_sm, p.max_warps_seen_per_sm));
    t.add_row(row);
  }
  s += t.render(st, 2, highlight);
  if (gpu) {
    s += say(l,
             "  FMA/cycle/SM = W x K / (cycles per step); the limit is {} schedulers / "
             "C = {} / {} = {}\n  warp instructions per cycle.\n\n",
             "  FMA/周期/SM = W x K / 每步周期数；上限为 {} 个调度器 / C = {} / {} = {} "
             "条线程束指令每周期。\n\n",
             r.schedulers, r.schedulers, r.cycles_per_fma, format_real(limit, 2));
  } else {
    s += say(l,
             "  FMA/CPU ns = W x K / (CPU nanoseconds per step): a rate of this CPU, not of any "
             "GPU;\n  there are no cycles and no issue limit to compare it with.\n\n",
             "  FMA/CPU 纳秒 = W x K / 每步的 CPU 纳秒数：这是这台 CPU 的速率，不是任何 GPU 的；\n"
             "  这里没有周期，也没有可以比较的发射上限。\n\n");
  }

  PlotSpec plot;
  PlotSeries points{{}, {}, 'o'};
  for (const auto& p : r.points) {
    points.x.push_back(p.warps_per_sm);
    points.y.push_back(p.fma_per_cycle_per_sm);
  }
  PlotSeries saturation{{}, {}, '*'};  // drawn over its 'o'
  for (const auto& p : r.points) {
    if (p.warps_per_sm == r.saturation_warps_per_sm) {
      saturation.x.push_back(p.warps_per_sm);
      saturation.y.push_back(p.fma_per_cycle_per_sm);
    }
  }
  plot.series = {points, saturation};
  if (gpu) plot.hlines = {limit};
  if (gpu && r.predicted_warps_per_sm <= r.max_warps_per_sm)
    plot.vlines = {double(r.predicted_warps_per_sm)};
  plot.log_x = true;
  plot.y_label =
      gpu ? say(l,
                "FMA per cycle per SM (*: saturation, - - -: the issue limit, |: the calculator)",
                "每 SM 每周期 FMA（*：饱和点，- - -：发射上限，|：计算器的预测）")
          : say(l, "FMA per ns of CPU time on the emulator (*: within 90% of its best)",
                "模拟器上每 CPU 纳秒的 FMA（*：达到其最佳值 90% 的点）");
  plot.x_label = say(l, "warps per SM (log scale)", "每 SM 线程束数（对数坐标）");
  s += render_plot(plot, st) + "\n";

  const auto& x = r.prediction;
  if (r.backend != "cuda") {
    s += say(
        l,
        "  On the emulator the clock counts nanoseconds of CPU time, and it runs a block's warps "
        "one\n  after another: nothing waits for memory, so nothing is hidden and the curve "
        "says nothing\n  about a GPU. The kernel and the check of every chain are the same as "
        "on a GPU; run it on\n  one for the real experiment.\n",
        "  模拟器上时钟计的是 CPU 时间的纳秒数，而且一个线程块的线程束是一个接一个运行的：\n"
        "  没有什么在等内存，也就没有什么被隐藏，这条曲线与 GPU 无关。核函数和对每条链的检查\n"
        "  与 GPU 上完全相同；真正的实验请在 GPU 上运行。\n");
  } else {
    s += say(l,
             "  Saturates at W = {} warps per SM: the first within 90% of the best rate, "
             "{} FMA/cycle.\n",
             "  在 W = {} 个线程束/SM 处饱和：第一个达到最佳速率 {} FMA/周期 的 90% "
             "的点。\n",
             st.accent(std::to_string(r.saturation_warps_per_sm)),
             format_real(r.best_fma_per_cycle, 2));
    s += say(l,
             "  The calculator: ceil(L / (K x C)) = ceil({} / ({} x {})) = {} warps per scheduler; "
             "{} schedulers\n  per SM -> {} x {} = {} warps per SM.{}\n",
             "  计算器：ceil(L / (K x C)) = ceil({} / ({} x {})) = 每个调度器 {} 个线程束；每个 SM "
             "{} 个调度器\n  -> {} x {} = 每个 SM {} 个线程束。{}\n",
             x.latency_cycles, x.ops, x.cycles_per_op, x.warps_needed, r.schedulers, r.schedulers,
             x.warps_needed, st.accent(std::to_string(r.predicted_warps_per_sm)),
             r.predicted_warps_per_sm > r.max_warps_per_sm
                 ? say(l, " More than the {} an SM holds: raise --ops.",
                       " 超过了一个 SM 能容纳的 {} 个：请增大 --ops。", r.max_warps_per_sm)
                 : std::string());
    const double own = static_cast<double>(r.ops) * r.cycles_per_fma;
    const double rest = r.one_warp_cycles - r.latency_cycles - own;
    const MeasurePoint& full = r.points.back();
    const std::string why = say(
        l,
        "Why they differ: one warp alone takes {} cycles per step, not L = {}: after the load "
        "it spends K x C = {} cycles issuing its FMAs and {} more on the instructions around "
        "them (converting the value, the sum that feeds the next address, the loop). The "
        "calculator counts only the other warps' work against one wait; here every warp's "
        "whole step has to be covered, so a scheduler needs about {} / {} = {} warps, {} per "
        "SM. And the plateau lies below the limit: at W = {} a step takes {} cycles, {} x {} "
        "/ {} = {} issue cycles per warp for {} cycles of FMAs, so the rate tops out at {} "
        "FMA/cycle ({}% of the limit): the other instructions of each step need issue slots "
        "too.",
        "为何不同：单个线程束每步用 {} 个周期而不是 L = {}：加载返回后它要用 K x C = {} "
        "个周期发射自己的 FMA，另有 {} 个周期花在前后的指令上（转换数值、为下一个地址求和、"
        "循环）。计算器只把其他线程束的工作与一次等待相抵；这里每个线程束的整步都要被覆盖，"
        "所以每个调度器约需 {} / {} = {} 个线程束，每个 SM {} 个。而且平台低于上限：W = {} "
        "时每步 {} 个周期，{} x {} / {} = 每个线程束 {} 个发射周期，其中 FMA 只占 {} 个，"
        "所以速率最高 {} FMA/周期（上限的 {}%）：每步的其他指令也要占发射槽。",
        format_real(r.one_warp_cycles, 0), format_real(r.latency_cycles, 0), format_real(own, 0),
        format_real(std::max(0.0, rest), 0), format_real(r.one_warp_cycles, 0), format_real(own, 0),
        format_real(r.one_warp_cycles / own, 1),
        format_real(r.schedulers * r.one_warp_cycles / own, 1), full.warps_per_sm,
        format_real(full.cycles_per_step, 0), format_real(full.cycles_per_step, 0), r.schedulers,
        full.warps_per_sm, format_real(full.cycles_per_step * r.schedulers / full.warps_per_sm, 0),
        format_real(own, 0), format_real(r.best_fma_per_cycle, 2),
        format_real(100 * r.best_fma_per_cycle / limit, 0));
    s += "  " + wrap_text(why, std::min(st.width(), kProseWidth), 2, 2) + "\n";
    if (!r.arch_known) {
      s += say(l, "  (An unknown compute capability: 4 schedulers per SM and C = 1 are assumed.)\n",
               "  （未知的计算能力：假定每个 SM 4 个调度器、C = 1。）\n");
    }
  }
  s += "  " +
       (r.verified ? st.good(say(l, "Every warp's chain ended where the host says it must.",
                                 "每个线程束的链都停在主机算出的位置。"))
                   : st.bad(say(l, "WRONG: a warp's chain ended somewhere else.",
                                "错误：有线程束的链停在了别处。"))) +
       "\n";
  return s;
}

// One measured point as JSON, its fields under their own names (found by argument-dependent
// lookup: a vector of points converts to an array).
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(MeasurePoint, warps_per_sm, blocks_per_sm, threads_per_block,
                                   cycles_per_step, fma_per_cycle_per_sm, min_warps_seen_per_sm,
                                   max_warps_seen_per_sm, kernel_ms, verified)

nlohmann::json warp_measure_json(const MeasureResult& r) {
  const auto& x = r.prediction;
  nlohmann::json m = {
      {"sms", r.sms},
      {"max_warps_per_sm", r.max_warps_per_sm},
      {"schedulers_per_sm", r.schedulers},
      {"cycles_per_fma", r.cycles_per_fma},
      // On the emulator every "cycles" field counts nanoseconds of CPU time.
      {"clock_unit", r.backend == "cuda" ? "gpu-cycles" : "cpu-ns"},
      {"issue_limit_fma_per_cycle", static_cast<double>(r.schedulers) / r.cycles_per_fma},
      {"table_bytes", r.table_bytes},
      {"steps", r.steps},
      {"ops", r.ops},
      {"seed", r.seed},
      {"latency_cycles", r.latency_cycles},
      {"one_warp_cycles_per_step", r.one_warp_cycles},
      {"prediction",
       {{"latency_cycles", x.latency_cycles},
        {"ops", x.ops},
        {"cycles_per_op", x.cycles_per_op},
        {"warps_per_scheduler", x.warps_needed},
        {"warps_per_sm", r.predicted_warps_per_sm}}},
      {"points", r.points},
      {"saturation_warps_per_sm", r.saturation_warps_per_sm},
      {"best_fma_per_cycle_per_sm", r.best_fma_per_cycle},
      {"verified", r.verified},
      {"gpu_model", r.arch_known}};
  m["clock_khz"] = r.clock_khz > 0 ? nlohmann::json(r.clock_khz) : nlohmann::json();
  m["l2_bytes"] = r.l2_bytes > 0 ? nlohmann::json(r.l2_bytes) : nlohmann::json();
  return {{"command", "warp-hiding"}, {"measure", m}, {"backend", r.backend}, {"device", r.device}};
}

}  // namespace gpulab
