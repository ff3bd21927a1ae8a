// gpulab occupancy (see occupancy.hpp).
#include "commands/occupancy.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <climits>
#include <memory>
#include <utility>

#include "backend/backend.hpp"  // probe_gpu
#include "core/enum_names.hpp"
#include "core/error.hpp"
#include "core/i18n_format.hpp"
#include "core/parse.hpp"
#include "core/plot.hpp"
#include "core/text.hpp"
#include "cuda/device_query.hpp"

namespace gpulab {
namespace {

std::string known_ccs() {
  std::vector<std::string> v;
  for (const auto& a : calc::known_archs()) v.push_back(fmt::format("{}.{}", a.major, a.minor));
  return fmt::format("{}", fmt::join(v, ", "));
}

calc::ArchInfo arch_or_throw(std::string_view option, std::string_view value, int major,
                             int minor) {
  auto a = calc::arch_info(major, minor);
  if (!a)
    bad_value(
        option, value,
        both("unknown compute capability; known: {}", "未知的计算能力；已知：{}", known_ccs()));
  return *a;
}

std::string pct(double fraction) {
  return format_real(100.0 * fraction, 1) + "%";
}

std::string limit_text(int blocks) {
  return blocks == INT_MAX ? std::string("-") : std::to_string(blocks);
}

std::string_view limiter_text(Lang l, calc::Limiter w) {
  switch (w) {
    case calc::Limiter::warps:
      return tr(l, "warps", "线程束");
    case calc::Limiter::blocks:
      return tr(l, "blocks", "线程块数");
    case calc::Limiter::registers:
      return tr(l, "registers", "寄存器");
    case calc::Limiter::shared:
      return tr(l, "shared memory", "共享内存");
  }
  return "?";
}

std::string_view problem_name(calc::LaunchProblem p) {
  static constexpr std::array<std::string_view, 5> kNames{
      "none", "threads_per_block", "registers_per_thread", "registers_per_block",
      "shared_per_block"};
  static_assert(kNames.size() ==
                static_cast<std::size_t>(calc::LaunchProblem::shared_per_block) + 1);
  return enum_name(p, kNames);
}

OccupancyCurve curve(const calc::ArchInfo& a, const calc::OccupancyInput& base, int from, int to,
                     int step, void (*set)(calc::OccupancyInput&, int)) {
  OccupancyCurve c;
  for (int x = from; x <= to; x += step) {
    calc::OccupancyInput in = base;
    set(in, x);
    c.x.push_back(x);
    c.occupancy_pct.push_back(100.0 * calc::occupancy(a, in).occupancy);
  }
  return c;
}

std::string chart(const OccupancyCurve& c, double user_x, const std::string& x_label,
                  const Style& st) {
  PlotSpec plot;
  plot.series.push_back({c.x, c.occupancy_pct, '.'});
  for (std::size_t i = 0; i < c.x.size(); ++i) {
    if (c.x[i] == user_x) plot.series.push_back({{c.x[i]}, {c.occupancy_pct[i]}, 'o'});
  }
  plot.vlines = {user_x};
  plot.hlines = {100};
  plot.x_label = x_label;
  plot.y_label = "occupancy %";
  plot.height = 10;
  return render_plot(plot, st);
}

}  // namespace

std::int64_t parse_bytes(std::string_view option, std::string_view text, std::int64_t max,
                         const Text& why) {
  std::string digits(text);
  std::int64_t scale = 1;
  auto ends_with = [&](std::string_view suffix) {
    if (digits.size() <= suffix.size()) return false;
    for (std::size_t i = 0; i < suffix.size(); ++i) {
      const auto c = static_cast<unsigned char>(digits[digits.size() - suffix.size() + i]);
      if (std::tolower(c) != suffix[i]) return false;
    }
    digits.resize(digits.size() - suffix.size());
    return true;
  };
  if (ends_with("kib") || ends_with("k")) {
    scale = 1024;
  } else if (ends_with("mib") || ends_with("m")) {
    scale = 1024 * 1024;
  } else if (ends_with("b")) {
    scale = 1;
  }
  const std::int64_t v = parse_int(option, digits, 0, max / scale, why);
  if (v * scale > max)
    bad_value(option, text, both("must be at most {} bytes", "不能超过 {} 字节", max), why);
  return v * scale;
}

OccupancyTarget resolve_occupancy_target(const std::string& cc, const std::string& model,
                                         const std::string& device) {
  const int given = !cc.empty() + !model.empty() + !device.empty();
  if (given == 0) {
    throw UsageError(
        "say which GPU: --cc X.Y (a compute capability, e.g. 9.0), --model NAME (e.g. h100, g80) "
        "or --device N (this machine's GPU N)",
        "请说明是哪块 GPU：--cc X.Y（计算能力，例如 9.0）、--model NAME（例如 h100、g80）"
        "或 --device N（这台机器的第 N 号 GPU）");
  }
  if (given > 1) {
    throw UsageError("--cc, --model and --device: give only one",
                     "--cc、--model 和 --device：只能给出其中一个");
  }
  OccupancyTarget t;
  if (!cc.empty()) {
    const auto dot = cc.find('.');
    if (dot == std::string::npos)
      bad_value("--cc", cc, {"write it as MAJOR.MINOR, e.g. 9.0", "请写成 MAJOR.MINOR，例如 9.0"});
    const auto major = parse_int("--cc", cc.substr(0, dot), 1, 99);
    const auto minor = parse_int("--cc", cc.substr(dot + 1), 0, 9);
    t.arch = arch_or_throw("--cc", cc, static_cast<int>(major), static_cast<int>(minor));
    t.source = "cc";
  } else if (!model.empty()) {
    const calc::GpuModel* m = calc::find_model(model);
    if (m == nullptr) {
      std::vector<std::string> names;
      for (const auto& x : calc::gpu_models()) names.emplace_back(x.aliases.front());
      const std::string known = fmt::format("{}", fmt::join(names, ", "));
      bad_value("--model", model,
                both("unknown GPU; known: {}", "未知的 GPU；已知型号：{}", known));
    }
    t.arch = arch_or_throw("--model", model, m->cc_major, m->cc_minor);
    t.name = std::string(m->name);
    t.source = "model";
  } else {
    const auto index = parse_int("--device", device, 0, INT_MAX,
                                 {"CUDA numbers devices from 0", "CUDA 从 0 开始给设备编号"});
    const GpuProbe probe = probe_gpu();
    if (!probe.usable) {
      throw RuntimeFailure(
          both("--device {0}: no usable GPU ({1}); use --cc X.Y or --model NAME instead",
               "--device {0}：没有可用的 GPU（{2}）；请改用 --cc X.Y 或 --model NAME", device,
               probe.reason.en, probe.reason.zh));
    }
    if (index >= probe.device_count) {
      const auto count = static_cast<unsigned long long>(probe.device_count);
      bad_value("--device", device,
                {fmt::format("this machine has {}, numbered from 0",
                             count_noun(count, "CUDA device", "CUDA devices")),
                 fmt::format("这台机器有 {} 个 CUDA 设备，编号从 0 开始", count)});
    }
#if GPULAB_HAVE_CUDA
    const cuda::DeviceProperties d = cuda::query_device(static_cast<int>(index));
    t.arch = arch_or_throw("--device", device, d.cc_major, d.cc_minor);
    t.name = d.name;
    t.source = "device";
#endif
  }
  return t;
}

OccupancyResult run_occupancy(const OccupancyOptions& o) {
  OccupancyResult r;
  r.target = o.target;
  r.charts = o.charts;
  const calc::ArchInfo& a = o.target.arch;
  r.occ = calc::occupancy(a, o.in);
  if (o.charts) {
    r.by_threads = curve(a, o.in, 32, a.max_threads_per_block, 32,
                         [](calc::OccupancyInput& in, int x) { in.threads = x; });
    const int max_regs = a.max_registers_per_thread > 0 ? a.max_registers_per_thread : 124;
    r.by_registers =
        curve(a, o.in, 1, max_regs, 1, [](calc::OccupancyInput& in, int x) { in.registers = x; });
    // Shared memory per block in steps of 1 KiB, static kept, dynamic varied, to the opt-in limit.
    calc::OccupancyInput base = o.in;
    base.dynamic_shared = 0;
    const int max_kib = a.max_shared_memory_per_block_kib;
    r.by_shared = curve(a, base, 0, max_kib, 1, [](calc::OccupancyInput& in, int kib) {
      in.dynamic_shared = std::max<std::int64_t>(0, std::int64_t{kib} * 1024 - in.static_shared);
    });
  }
  return r;
}

std::string render_occupancy_steps(const calc::Occupancy& o, const Style& st, Lang l) {
  const calc::ArchInfo& a = o.arch;
  const auto& in = o.in;
  std::string s;
  // Warps.
  s += "  " + st.bold(std::string(tr(l, "Warps", "线程束"))) + "\n";
  if (o.problem == calc::LaunchProblem::threads_per_block) {
    s += "    " +
         st.bad(say(l, "{} threads > {}, the most a block may have on {}.{}: no launch.",
                    "{} 个线程 > {}，{}.{} 上一个线程块最多这么多：无法启动。", in.threads,
                    a.max_threads_per_block, a.major, a.minor)) +
         "\n";
  } else {
    s +=
        o.warps_per_block == 1
            ? say(l,
                  "    ceil({} threads / 32) = {} warp per block; an SM holds {} warps: {} / {} = "
                  "{} blocks\n",
                  "    ceil({} 个线程 / 32) = 每块 {} 个线程束；一个 SM 容纳 {} 个线程束：{} / {} "
                  "= {} 个线程块\n",
                  in.threads, o.warps_per_block, a.max_warps_per_sm, a.max_warps_per_sm,
                  o.warps_per_block, o.limit_warps)
            : say(l,
                  "    ceil({} threads / 32) = {} warps per block; an SM holds {} warps: {} / {} = "
                  "{} blocks\n",
                  "    ceil({} 个线程 / 32) = 每块 {} 个线程束；一个 SM 容纳 {} 个线程束：{} / {} "
                  "= {} 个线程块\n",
                  in.threads, o.warps_per_block, a.max_warps_per_sm, a.max_warps_per_sm,
                  o.warps_per_block, o.limit_warps);
  }
  s += "  " + st.bold(std::string(tr(l, "Blocks", "线程块数"))) + "\n";
  s += say(l, "    an SM of compute capability {}.{} holds at most {} blocks\n",
           "    计算能力 {}.{} 的 SM 最多容纳 {} 个线程块\n", a.major, a.minor, o.limit_blocks);

  // Registers.
  s += "  " + st.bold(std::string(tr(l, "Registers", "寄存器"))) + "\n";
  if (!o.registers_counted) {
    s += std::string(tr(l,
                        "    not counted (--registers R: nvcc --resource-usage or gpulab inspect "
                        "says how many the kernel uses)\n",
                        "    未计入（--registers R：nvcc --resource-usage 或 gpulab inspect "
                        "会告诉你核函数用了多少）\n"));
  } else if (o.problem == calc::LaunchProblem::registers_per_thread) {
    s += "    " +
         st.bad(say(l, "{} registers > {}, the most a thread may have: no launch.",
                    "{} 个寄存器 > {}，一个线程最多这么多：无法启动。", in.registers,
                    a.max_registers_per_thread)) +
         "\n";
  } else if (a.registers_per_block) {
    const int warps_rounded = (o.warps_per_block + a.warp_alloc_granularity - 1) /
                              a.warp_alloc_granularity * a.warp_alloc_granularity;
    s +=
        say(l,
            "    per block: {} warps round up to {} (granularity {}); {} x 32 x {} = {} registers, "
            "in units of {}: {}\n",
            "    按线程块分配：{} 个线程束向上取整为 {}（粒度 {}）；{} x 32 x {} = {} 个寄存器，"
            "以 {} 为单位：{}\n",
            o.warps_per_block, warps_rounded, a.warp_alloc_granularity, warps_rounded, in.registers,
            format_integer(warps_rounded * 32 * in.registers), a.register_alloc_unit,
            format_integer(o.registers_per_block_allocated));
    if (o.problem == calc::LaunchProblem::registers_per_block) {
      s += "    " +
           st.bad(say(l, "> {} registers a block may hold: no launch.",
                      "> 一个线程块最多 {} 个寄存器：无法启动。",
                      format_integer(a.max_registers_per_block))) +
           "\n";
    } else {
      s += say(l, "    {} registers per SM / {} = {} blocks\n",
               "    每个 SM {} 个寄存器 / {} = {} 个线程块\n", format_integer(a.registers_per_sm),
               format_integer(o.registers_per_block_allocated), o.limit_registers);
    }
  } else {
    s += say(l, "    {} registers x 32 threads = {} per warp, in units of {}: {}\n",
             "    {} 个寄存器 x 32 个线程 = 每个线程束 {} 个，以 {} 为单位：{}\n", in.registers,
             format_integer(o.registers_per_warp), a.register_alloc_unit,
             format_integer(o.registers_per_warp_allocated));
    if (o.problem == calc::LaunchProblem::registers_per_block) {
      const int rounded = (o.warps_per_block + a.warp_alloc_granularity - 1) /
                          a.warp_alloc_granularity * a.warp_alloc_granularity;
      s += "    " +
           st.bad(say(
               l,
               "{} x {} warps (rounded up to a multiple of {}) = {} > {} registers a block "
               "may hold: no launch (cudaErrorLaunchOutOfResources).",
               "{} x {} 个线程束（向上取整为 {} 的倍数）= {} > 一个线程块最多 {} 个寄存器："
               "无法启动（cudaErrorLaunchOutOfResources）。",
               format_integer(o.registers_per_warp_allocated), rounded, a.warp_alloc_granularity,
               format_integer(static_cast<long long>(o.registers_per_warp_allocated) * rounded),
               format_integer(a.max_registers_per_block))) +
           "\n";
    } else {
      s += say(l,
               "    the register file ({}) is split into {} sub-partitions of {}, one per warp "
               "scheduler:\n    {} / {} = {} warps each, x {} = {} warps; {} / {} = {} blocks\n",
               "    寄存器堆（{}）分成 {} 个子分区，每个 {}，每个线程束调度器一个：\n"
               "    {} / {} = 每个 {} 个线程束，x {} = {} 个线程束；{} / {} = {} 个线程块\n",
               format_integer(a.registers_per_sm), a.warp_alloc_granularity,
               format_integer(o.registers_per_partition), format_integer(o.registers_per_partition),
               format_integer(o.registers_per_warp_allocated), o.warps_per_partition,
               a.warp_alloc_granularity, o.warps_by_registers, o.warps_by_registers,
               o.warps_per_block, o.limit_registers);
    }
  }

  // Shared memory.
  s += "  " + st.bold(std::string(tr(l, "Shared memory", "共享内存"))) + "\n";
  std::string sum = say(l, "{} B static + {} B dynamic", "静态 {} B + 动态 {} B",
                        format_integer(in.static_shared), format_integer(in.dynamic_shared));
  if (a.reserved_shared_per_block > 0) {
    sum += say(l, " + {} B the driver reserves per block (since 8.0)",
               " + 驱动为每个线程块保留的 {} B（8.0 起）",
               format_integer(a.reserved_shared_per_block));
  }
  s += say(l, "    {}\n    = {} B, in units of {}: {} B\n",
           "    {}\n    = {} B，以 {} 为单位：{} B\n", sum, format_integer(o.shared_per_block),
           a.shared_alloc_unit, format_integer(o.shared_per_block_allocated));
  if (o.needs_opt_in) {
    s += say(l,
             "    more than {} KiB per block needs cudaFuncSetAttribute(kernel, "
             "cudaFuncAttributeMaxDynamicSharedMemorySize, bytes) first\n",
             "    每块超过 {} KiB 需要先调用 cudaFuncSetAttribute(kernel, "
             "cudaFuncAttributeMaxDynamicSharedMemorySize, bytes)\n",
             a.max_shared_per_block_default_kib);
  }
  if (o.problem == calc::LaunchProblem::shared_per_block) {
    s +=
        "    " +
        st.bad(say(l, "> {} B a block may use: no launch.", "> 一个线程块最多可用 {} B：无法启动。",
                   format_integer(o.shared_block_limit))) +
        "\n";
  } else {
    std::string carve;
    if (!a.shared_carveouts_kib.empty()) {
      if (in.carveout_percent) {
        carve = say(l, "--carveout {}% of {} KiB asks for {} KiB",
                    "--carveout {}% x {} KiB 要求 {} KiB", *in.carveout_percent,
                    a.max_shared_memory_per_sm_kib, o.shared_preferred / 1024);
      } else {
        carve =
            say(l, "the default carve-out, {} KiB", "默认划分，{} KiB", o.shared_preferred / 1024);
      }
      if (o.shared_per_sm != o.shared_preferred) {
        carve += say(l, ", too small for one block: the driver takes {} KiB",
                     "，放不下一个线程块：驱动改用 {} KiB", o.shared_per_sm / 1024);
      }
      carve += say(l, "\n      (the sizes this SM can give shared memory: {} KiB)",
                   "\n      （该 SM 可给共享内存的大小：{} KiB）",
                   fmt::join(a.shared_carveouts_kib, ", "));
    } else {
      carve = say(l, "{} KiB", "{} KiB", a.max_shared_memory_per_sm_kib);
    }
    s += say(l, "    shared memory per SM: {}\n", "    每个 SM 的共享内存：{}\n", carve);
    if (o.limit_shared == INT_MAX) {
      s += std::string(
          tr(l, "    no shared memory per block: no limit\n", "    每块不用共享内存：没有限制\n"));
    } else {
      s += say(l, "    {} / {} = {} blocks\n", "    {} / {} = {} 个线程块\n",
               format_integer(o.shared_per_sm), format_integer(o.shared_per_block_allocated),
               o.limit_shared);
    }
  }

  // The result.
  std::vector<std::string> names;
  for (calc::Limiter w : o.limiting) names.emplace_back(limiter_text(l, w));
  const std::string joined =
      fmt::format("{}", fmt::join(names, std::string(tr(l, " and ", " 和 "))));
  s += "\n";
  s += say(l, "  Blocks per SM = min({}, {}, {}, {}) = {}, limited by {}\n",
           "  每个 SM 的线程块数 = min({}, {}, {}, {}) = {}，受限于{}\n", limit_text(o.limit_warps),
           limit_text(o.limit_blocks), limit_text(o.limit_registers), limit_text(o.limit_shared),
           st.accent(std::to_string(o.blocks)), st.accent(joined));
  s += say(l, "  Active warps = {} x {} = {} of {}: occupancy {}\n",
           "  活跃线程束 = {} x {} = {} / {}：占用率 {}\n", o.blocks, o.warps_per_block,
           o.active_warps, o.max_warps, st.accent(pct(o.occupancy)));
  return s;
}

std::string render_occupancy(const OccupancyResult& r, const OutputOptions& out) {
  const Style st = style_for(out);
  const Lang l = out.lang;
  const calc::Occupancy& o = r.occ;
  const calc::ArchInfo& a = o.arch;
  std::string s;
  const std::string gpu = r.target.name.empty()
                              ? say(l, "compute capability {}.{} ({})", "计算能力 {}.{}（{}）",
                                    a.major, a.minor, a.architecture)
                              : say(l, "{}: compute capability {}.{}, {}", "{}：计算能力 {}.{}，{}",
                                    r.target.name, a.major, a.minor, a.architecture);
  s += st.heading(say(l, "Occupancy on {}", "占用率：{}", gpu)) + "\n";
  s += say(l,
           "  A block of {} threads, {} registers per thread, {} B static and {} B dynamic shared "
           "memory.\n\n",
           "  线程块 {} 个线程，每线程 {} 个寄存器，静态共享内存 {} B，动态共享内存 {} B。\n\n",
           o.in.threads, o.in.registers, format_integer(o.in.static_shared),
           format_integer(o.in.dynamic_shared));
  s += render_occupancy_steps(o, st, l);
  if (o.problem != calc::LaunchProblem::none) {
    s += "  " +
         st.bad(std::string(tr(l, "This launch fails: the kernel never runs with this block.",
                               "这样的启动会失败：核函数不会以这种线程块运行。"))) +
         "\n";
  }
  s += "\n" + std::string(tr(
                  l,
                  "  Occupancy is the share of the SM's warp slots in use: more warps give "
                  "the schedulers more\n  to switch to while others wait for memory "
                  "(gpulab warp-hiding). Above what hides the\n  latency, more does not "
                  "help.\n",
                  "  占用率是 SM 的线程束槽位被占用的比例：线程束越多，调度器在别的线程束等内存时"
                  "\n  就有越多可切换的对象（gpulab warp-hiding）。超过足以隐藏延迟的数量后，"
                  "再多也没有用。\n"));
  if (r.charts) {
    s += "\n" +
         st.heading(std::string(tr(l, "Occupancy against threads per block (o: yours)",
                                   "占用率与每块线程数（o：你的配置）"))) +
         "\n";
    s += chart(r.by_threads, o.in.threads, std::string(tr(l, "threads per block", "每块线程数")),
               st) +
         "\n";
    s += "\n" +
         st.heading(std::string(tr(l, "Occupancy against registers per thread (o: yours)",
                                   "占用率与每线程寄存器数（o：你的配置）"))) +
         "\n";
    s += chart(r.by_registers, o.in.registers,
               std::string(tr(l, "registers per thread", "每线程寄存器数")), st) +
         "\n";
    s += "\n" +
         st.heading(std::string(tr(l,
                                   "Occupancy against shared memory per block, KiB (o: "
                                   "yours)",
                                   "占用率与每块共享内存，KiB（o：你的配置）"))) +
         "\n";
    const double user_kib =
        static_cast<double>((o.in.static_shared + o.in.dynamic_shared + 1023) / 1024);
    s += chart(r.by_shared, user_kib,
               std::string(tr(l, "shared memory per block (KiB)", "每块共享内存（KiB）")), st) +
         "\n";
  }
  return s;
}

nlohmann::json occupancy_facts_json(const calc::Occupancy& o) {
  auto lim = [](int v) { return v == INT_MAX ? nlohmann::json(nullptr) : nlohmann::json(v); };
  std::vector<std::string> limiting;
  for (calc::Limiter w : o.limiting) limiting.emplace_back(calc::limiter_name(w));
  const calc::ArchInfo& a = o.arch;
  return {
      {"cc", fmt::format("{}.{}", a.major, a.minor)},
      {"architecture", a.architecture},
      {"threads_per_block", o.in.threads},
      {"registers_per_thread", o.in.registers},
      {"static_shared_bytes", o.in.static_shared},
      {"dynamic_shared_bytes", o.in.dynamic_shared},
      {"carveout_percent",
       o.in.carveout_percent ? nlohmann::json(*o.in.carveout_percent) : nlohmann::json(nullptr)},
      {"warps",
       {{"warps_per_block", o.warps_per_block},
        {"max_warps_per_sm", a.max_warps_per_sm},
        {"blocks", lim(o.limit_warps)}}},
      {"blocks", {{"max_blocks_per_sm", a.max_blocks_per_sm}, {"blocks", o.limit_blocks}}},
      {"registers",
       {{"counted", o.registers_counted},
        {"allocation_unit", a.register_alloc_unit},
        {"allocated_per_block", a.registers_per_block},
        {"warp_allocation_granularity", a.warp_alloc_granularity},
        {"per_warp", o.registers_per_warp},
        {"per_warp_allocated", o.registers_per_warp_allocated},
        {"per_block_allocated", o.registers_per_block_allocated},
        {"per_sub_partition", o.registers_per_partition},
        {"warps_per_sub_partition", o.warps_per_partition},
        {"warps_per_sm", o.warps_by_registers},
        {"registers_per_sm", a.registers_per_sm},
        {"blocks", lim(o.limit_registers)}}},
      {"shared",
       {{"allocation_unit", a.shared_alloc_unit},
        {"reserved_per_block", a.reserved_shared_per_block},
        {"per_block", o.shared_per_block},
        {"per_block_allocated", o.shared_per_block_allocated},
        {"block_limit", o.shared_block_limit},
        {"needs_opt_in", o.needs_opt_in},
        {"preferred_per_sm", o.shared_preferred},
        {"per_sm", o.shared_per_sm},
        {"carveouts_kib",
         std::vector<int>(a.shared_carveouts_kib.begin(), a.shared_carveouts_kib.end())},
        {"blocks", lim(o.limit_shared)}}},
      {"problem", problem_name(o.problem)},
      {"blocks_per_sm", o.blocks},
      {"limited_by", limiting},
      {"active_warps", o.active_warps},
      {"max_warps", o.max_warps},
      {"occupancy", o.occupancy},
  };
}

nlohmann::json occupancy_json(const OccupancyResult& r) {
  nlohmann::json j = {
      {"command", "occupancy"},
      {"gpu", r.target.name.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.target.name)},
      {"source", r.target.source}};
  j.update(occupancy_facts_json(r.occ));
  if (r.charts) {
    auto c = [](const OccupancyCurve& k) {
      nlohmann::json pts = nlohmann::json::array();
      for (std::size_t i = 0; i < k.x.size(); ++i) pts.push_back({k.x[i], k.occupancy_pct[i]});
      return pts;
    };
    j["charts"] = {{"threads_per_block", c(r.by_threads)},
                   {"registers_per_thread", c(r.by_registers)},
                   {"shared_kib_per_block", c(r.by_shared)}};
  }
  return j;
}

void setup_occupancy(CLI::App& app, GlobalOptions& g) {
  struct Raw {
    std::string block, threads, registers, shared, dynamic, carveout, cc, model, device;
    bool no_charts = false;
  };
  const auto [sub, raw] = add_command<Raw>(
      app, g, "occupancy",
      {"Blocks and warps an SM holds for a kernel: limits by warps, blocks, registers and "
       "shared memory, every formula shown, charts",
       "一个 SM 能为某内核容纳多少线程块和线程束：线程束、线程块、寄存器和共享内存各自的"
       "限制，列出每个公式，并附图表"},
      [&g](Raw& args) {
        OccupancyOptions o;
        o.target = resolve_occupancy_target(args.cc, args.model, args.device);
        const calc::ArchInfo& a = o.target.arch;
        const Text on = both("on compute capability {}.{}", "计算能力 {}.{} 上", a.major, a.minor);
        const auto [block_name, block] =
            renamed_option("--block", args.block, "--threads", args.threads);
        if (block.empty()) {
          throw UsageError("occupancy needs --block B (threads per block; also --threads B)",
                           "occupancy 需要 --block B（每个线程块的线程数；也可写 --threads B）");
        }
        o.in.threads = static_cast<int>(parse_int(block_name, block, 1, a.max_threads_per_block,
                                                  both("the most threads a block may have {0}",
                                                       "{1}一个线程块最多的线程数", on.en, on.zh)));
        if (!args.registers.empty()) {
          const int max_regs = a.max_registers_per_thread > 0 ? a.max_registers_per_thread : 124;
          o.in.registers =
              static_cast<int>(parse_int("--registers", args.registers, 0, max_regs,
                                         both("the most registers a thread may have {0}",
                                              "{1}一个线程最多的寄存器数", on.en, on.zh)));
        }
        const std::int64_t optin = std::int64_t{a.max_shared_memory_per_block_kib} * 1024;
        if (!args.shared.empty()) {
          // The compiler refuses static __shared__ arrays above the default limit.
          o.in.static_shared = parse_bytes(
              "--shared", args.shared, std::int64_t{a.max_shared_per_block_default_kib} * 1024,
              both("static shared memory per block {0}; more must be dynamic",
                   "{1}每个线程块的静态共享内存上限；更多的必须是动态的", on.en, on.zh));
        }
        if (!args.dynamic.empty()) {
          o.in.dynamic_shared =
              parse_bytes("--dynamic-shared", args.dynamic, optin - o.in.static_shared,
                          both("static + dynamic shared memory per block is at most {0} KiB {1}",
                               "{2}每个线程块的静态加动态共享内存最多 {0} KiB",
                               a.max_shared_memory_per_block_kib, on.en, on.zh));
        }
        if (!args.carveout.empty()) {
          if (a.shared_carveouts_kib.empty()) {
            bad_value(
                "--carveout", args.carveout,
                both("compute capability {}.{} has no shared-memory carve-out "
                     "(since 7.0, L1 and shared memory share one array)",
                     "计算能力 {}.{} 没有共享内存划分（从 7.0 起，L1 和共享内存才共用一块存储）",
                     a.major, a.minor));
          }
          o.in.carveout_percent = static_cast<int>(
              parse_int("--carveout", args.carveout, 0, 100,
                        {"percent of the largest shared-memory size", "最大共享内存容量的百分比"}));
        }
        o.charts = !args.no_charts;
        OccupancyResult r = run_occupancy(o);
        emit(g, occupancy_json(r), render_occupancy(r, g.out));
      });
  needed(sub->add_option("--block", raw->block,
                         help_tr(g, "Threads per block (also --threads)",
                                 "每个线程块的线程数（也可写 --threads）"))
             ->type_name("B"));
  sub->add_option("--threads", raw->threads)->group("");  // the first name, still taken
  sub->add_option("--registers", raw->registers,
                  help_tr(g, "Registers per thread (nvcc --resource-usage or gpulab inspect tells)",
                          "每个线程的寄存器数（nvcc --resource-usage 或 gpulab inspect 会告诉你）"))
      ->type_name("R");
  sub->add_option("--shared", raw->shared,
                  help_tr(g, "Static shared memory per block: bytes, or 12K",
                          "每个线程块的静态共享内存：字节数，或 12K"))
      ->type_name("BYTES");
  sub->add_option("--dynamic-shared", raw->dynamic,
                  help_tr(g,
                          "Dynamic shared memory per block (the third <<<>>> argument): bytes, "
                          "or 12K",
                          "每个线程块的动态共享内存（<<<>>> 的第三个参数）：字节数，或 12K"))
      ->type_name("BYTES");
  sub->add_option("--carveout", raw->carveout,
                  help_tr(g,
                          "Preferred shared-memory carve-out, percent (cudaFuncAttributePreferred"
                          "SharedMemoryCarveout; default: the largest)",
                          "首选的共享内存划分比例，百分数（cudaFuncAttributePreferredShared"
                          "MemoryCarveout；默认：最大）"))
      ->type_name("PCT");
  sub->add_option("--cc", raw->cc,
                  help_tr(g, "Compute capability, e.g. 9.0 or 1.0", "计算能力，例如 9.0 或 1.0"))
      ->type_name("X.Y");
  set_completer(sub->add_option("--model", raw->model,
                                help_tr(g, "A GPU from gpulab's spec sheets, e.g. h100, t4, g80",
                                        "gpulab 规格表中的一款 GPU，例如 h100、t4、g80"))
                    ->type_name("NAME"),
                gpu_model_names);
  sub->add_option("--device", raw->device,
                  help_tr(g, "This machine's CUDA device N", "本机的 CUDA 设备 N"))
      ->type_name("N");
  sub->add_flag("--no-charts", raw->no_charts,
                help_tr(g, "Leave out the three charts", "不画那三张图表"));
}

}  // namespace gpulab
