// gpulab warp-hiding (see warp_hiding.hpp).
#include "commands/warp_hiding.hpp"

#include <fmt/format.h>

#include <memory>

#include "calc/gpu_specs.hpp"
#include "calc/launch_limits.hpp"
#include "commands/warp_measure.hpp"
#include "core/error.hpp"
#include "core/i18n_format.hpp"
#include "core/parse.hpp"
#include "core/text.hpp"

namespace gpulab {

WarpHidingResult run_warp_hiding(const WarpHidingOptions& o) {
  WarpHidingResult r;
  if (o.latency_inputs) {
    const auto& in = *o.latency_inputs;
    r.latency = calc::warps_to_hide_latency(in.latency_cycles, in.ops, in.cycles_per_op);
  }
  if (o.blocks_per_sm) {
    r.resident = calc::warps_on_sm(*o.blocks_per_sm, *o.threads_per_block);
    if (!o.model.empty()) {
      const calc::GpuModel* m = calc::find_model(o.model);
      SmLimits lim;
      lim.device = std::string(m->name);
      lim.max_warps = m->max_warps_per_sm;
      lim.max_blocks = m->max_blocks_per_sm;
      lim.max_threads = m->max_threads_per_sm;
      lim.fits_warps = r.resident->warps <= lim.max_warps;
      lim.fits_blocks = r.resident->blocks <= lim.max_blocks;
      lim.fits_threads = r.resident->threads <= lim.max_threads;
      r.limits = lim;
    }
  }
  return r;
}

std::string render_warp_hiding(const WarpHidingResult& r, const OutputOptions& out) {
  const Style st = style_for(out);
  const Lang l = out.lang;
  std::string s;
  if (r.latency) {
    const auto& x = *r.latency;
    s += st.heading(std::string(
             tr(l, "Warps needed to hide a memory latency", "隐藏访存延迟所需的线程束数"))) +
         "\n";
    const Text work =
        x.ops == 1
            ? both(
                  "  Each warp has K = {} independent operation of C = {} cycles: K x C = {} x {} "
                  "= {} cycles of work\n  that the SM can issue while another warp waits for "
                  "memory.\n",
                  "  每个线程束有 K = {} 条相互独立的运算，每条 C = {} 个周期：K x C = {} x {} = "
                  "{} 个周期的工作，\n  可以在别的线程束等待内存时发射。\n",
                  x.ops, x.cycles_per_op, x.ops, x.cycles_per_op, x.work_cycles)
            : both(
                  "  Each warp has K = {} independent operations of C = {} cycles: K x C = {} x "
                  "{} = {} cycles of work\n  that the SM can issue while another warp waits for "
                  "memory.\n",
                  "  每个线程束有 K = {} 条相互独立的运算，每条 C = {} 个周期：K x C = {} x {} = "
                  "{} 个周期的工作，\n  可以在别的线程束等待内存时发射。\n",
                  x.ops, x.cycles_per_op, x.ops, x.cycles_per_op, x.work_cycles);
    s += work.in(l);
    s += both("  A memory access takes L = {} cycles: L / (K x C) = {} / {} = {} -> ceil = {}\n",
              "  一次访存需要 L = {} 个周期：L / (K x C) = {} / {} = {} -> 向上取整 = {}\n",
              x.latency_cycles, x.latency_cycles, x.work_cycles, format_real(x.ratio, 3),
              st.accent(std::to_string(x.warps_needed)))
             .in(l);
    s += both(
             "  So {} warps keep the SM busy through the wait; "
             "{} warps would cover only {} x {} = {} "
             "of the {} cycles.\n",
             "  所以 {} 个线程束能让 SM 在等待期间一直忙碌；{} "
             "个线程束只能覆盖 {} x {} = {} 个周期，"
             "不足 {} 个周期。\n",
             x.warps_needed, x.warps_needed - 1, x.warps_needed - 1, x.work_cycles,
             (x.warps_needed - 1) * x.work_cycles, x.latency_cycles)
             .in(l);
    s += std::string(tr(
        l,
        "  (A model: it counts one warp's work per access and assumes free warp "
        "switches, as GPUs have.)\n",
        "  （这是模型：每次访存只计一个线程束的工作，并假设线程束切换零开销，GPU 正是如此。）\n"));
    if (r.resident) s += "\n";
  }
  if (r.resident) {
    const auto& w = *r.resident;
    s += st.heading(std::string(tr(l, "Warps resident on an SM", "一个 SM 上驻留的线程束"))) + "\n";
    if (w.idle_lanes_per_block == 0) {
      s += both("  A block of {} threads is {} / 32 = {} warps.\n",
                "  一个 {} 线程的线程块是 {} / 32 = {} 个线程束。\n", w.threads_per_block,
                w.threads_per_block, w.warps_per_block)
               .in(l);
    } else {
      s +=
          both(
              "  A block of {} threads is ceil({} / 32) = {} warps; the last warp has {} idle "
              "lanes "
              "(warps are always 32 wide).\n",
              "  一个 {} 线程的线程块是 ceil({} / 32) = {} 个线程束；最后一个线程束有 {} 个空闲通道"
              "（线程束总是 32 宽）。\n",
              w.threads_per_block, w.threads_per_block, w.warps_per_block, w.idle_lanes_per_block)
              .in(l);
    }
    s += both("  {} blocks x {} warps = {} warps ({} threads) on the SM.\n",
              "  {} 个线程块 x {} 个线程束 = {} 个线程束（{} 个线程）在该 SM 上。\n", w.blocks,
              w.warps_per_block, st.accent(std::to_string(w.warps)), w.threads)
             .in(l);
    if (r.limits) {
      const auto& m = *r.limits;
      s += both("  {} allows per SM: {} warps ({} threads), {} blocks.\n",
                "  {} 每个 SM 最多：{} 个线程束（{} 个线程），{} 个线程块。\n", m.device,
                m.max_warps, m.max_threads, m.max_blocks)
               .in(l);
      if (m.fits_warps && m.fits_blocks && m.fits_threads) {
        s += "  " +
             st.good(both("It fits: {} of {} warp slots used ({}%).",
                          "可以容纳：使用了 {} / {} 个线程束槽位（{}%）。", w.warps, m.max_warps,
                          format_real(100.0 * static_cast<double>(w.warps) / m.max_warps, 1))
                         .in(l)) +
             "\n";
      } else {
        std::string why;
        if (!m.fits_warps) why += fmt::format(" {} > {} warps;", w.warps, m.max_warps);
        if (!m.fits_blocks) why += fmt::format(" {} > {} blocks;", w.blocks, m.max_blocks);
        if (!m.fits_threads) why += fmt::format(" {} > {} threads;", w.threads, m.max_threads);
        why.pop_back();
        s += "  " +
             st.bad(both("It does not fit:{}. The SM holds fewer blocks at once; the "
                         "rest wait for a free slot.",
                         "放不下：{}。SM 同时只能容纳较少的线程块，其余等待空位。", why)
                        .in(l)) +
             "\n";
      }
    }
    s += std::string(
        tr(l,
           "  Resident is not running: each warp scheduler issues one warp's instruction "
           "per cycle;\n  the others wait, which is how the SM hides latency.\n",
           "  驻留不等于同时执行：每个线程束调度器每个周期发射一个线程束的指令；\n"
           "  其余线程束等待，SM 正是这样隐藏延迟的。\n"));
  }
  return s;
}

}  // namespace gpulab

// The calculator's result under its own field names.
namespace gpulab::calc {
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(LatencyHiding, latency_cycles, ops, cycles_per_op, work_cycles,
                                   ratio, warps_needed)
}  // namespace gpulab::calc

namespace gpulab {

nlohmann::json warp_hiding_json(const WarpHidingResult& r) {
  nlohmann::json j = {{"command", "warp-hiding"}};
  if (r.latency) {
    const auto& x = *r.latency;
    j["latency"] = x;
    j["warps_needed"] = x.warps_needed;
  }
  if (r.resident) {
    const auto& w = *r.resident;
    j["resident"] = {{"blocks_per_sm", w.blocks},
                     {"threads_per_block", w.threads_per_block},
                     {"warps_per_block", w.warps_per_block},
                     {"idle_lanes_per_block", w.idle_lanes_per_block},
                     {"threads", w.threads},
                     {"warps", w.warps}};
    j["warps"] = w.warps;
    if (r.limits) {
      const auto& m = *r.limits;
      j["resident"]["limits"] = {{"device", m.device},
                                 {"max_warps_per_sm", m.max_warps},
                                 {"max_blocks_per_sm", m.max_blocks},
                                 {"max_threads_per_sm", m.max_threads},
                                 {"fits", m.fits_warps && m.fits_blocks && m.fits_threads}};
    }
  }
  return j;
}

namespace {

// warp-hiding's options as typed: the calculator's, or --measure's.
struct WarpHidingArgs {
  std::string latency, ops, cycles, blocks, threads, model, steps, seed;
  bool measure = false;
};

// --measure's options, checked: the calculator's own are refused.
MeasureOptions measure_options(const WarpHidingArgs& raw) {
  const std::pair<const char*, const std::string*> calculator_only[] = {
      {"--latency", &raw.latency},
      {"--cycles-per-op", &raw.cycles},
      {"--blocks-per-sm", &raw.blocks},
      {"--threads-per-block", &raw.threads},
      {"--model", &raw.model}};
  for (const auto& [name, value] : calculator_only) {
    if (!value->empty()) {
      throw UsageError(
          both("{0} is for the calculator; --measure measures the GPU it runs "
               "on (the latency and C come from it): leave {0} out",
               "{0} 属于计算器；--measure 测量它所运行的 GPU（延迟和 C 都"
               "来自测量）：请去掉 {0}",
               name));
    }
  }
  MeasureOptions m;
  if (!raw.ops.empty()) {
    m.ops = static_cast<int>(parse_int("--ops", raw.ops, 4, kMaxProbeOps,
                                       {"FMA instructions per load", "每次加载对应的 FMA 指令数"}));
    if (m.ops % 4 != 0) {
      bad_value("--ops", raw.ops,
                {"a multiple of 4: the kernel runs four independent FMA chains",
                 "必须是 4 的倍数：内核运行四条相互独立的 FMA 链"});
    }
  }
  if (!raw.steps.empty())
    m.steps = static_cast<int>(parse_int("--steps", raw.steps, 1, kMaxProbeSteps,
                                         {"loads per warp; every warp walks its own "
                                          "part of the table",
                                          "每个线程束的加载次数；每个线程束走表中"
                                          "属于自己的那一段"}));
  m.seed = pick_seed(raw.seed);
  return m;
}

// The calculator's options, checked: the latency's three together, the residency's two together.
WarpHidingOptions warp_hiding_options(const WarpHidingArgs& raw) {
  if (!raw.steps.empty() || !raw.seed.empty()) {
    throw UsageError(both("{} belongs to --measure; add --measure",
                          "{} 属于 --measure；请加上 --measure",
                          raw.steps.empty() ? "--seed" : "--steps"));
  }
  WarpHidingOptions o;
  const bool any_latency = !raw.latency.empty() || !raw.ops.empty() || !raw.cycles.empty();
  const bool any_resident = !raw.blocks.empty() || !raw.threads.empty();
  if (!any_latency && !any_resident) {
    throw UsageError(
        "warp-hiding needs --latency L --ops K --cycles-per-op C, or --blocks-per-sm B "
        "--threads-per-block T (or both), or --measure",
        "warp-hiding 需要 --latency L --ops K --cycles-per-op C，或 --blocks-per-sm B "
        "--threads-per-block T（或两组都给），或 --measure");
  }
  if (any_latency) {
    if (raw.latency.empty() || raw.ops.empty() || raw.cycles.empty()) {
      throw UsageError("--latency, --ops and --cycles-per-op go together: give all three",
                       "--latency、--ops 和 --cycles-per-op 要一起给：三个都要");
    }
    calc::LatencyHiding in;
    in.latency_cycles = parse_int("--latency", raw.latency, 1, 1'000'000, {"cycles", "周期"});
    in.ops = parse_int("--ops", raw.ops, 1, 1'000'000,
                       {"independent operations per warp", "每个线程束的独立运算数"});
    in.cycles_per_op = parse_int("--cycles-per-op", raw.cycles, 1, 10'000);
    o.latency_inputs = in;
  }
  if (any_resident) {
    if (raw.blocks.empty() || raw.threads.empty()) {
      throw UsageError("--blocks-per-sm and --threads-per-block go together: give both",
                       "--blocks-per-sm 和 --threads-per-block 要一起给：两个都要");
    }
    o.blocks_per_sm = parse_int("--blocks-per-sm", raw.blocks, 1, 1024);
    o.threads_per_block = parse_int("--threads-per-block", raw.threads, 1,
                                    static_cast<std::int64_t>(limits::kMaxThreadsPerBlock),
                                    limits::why_threads_per_block());
  } else if (!raw.model.empty()) {
    throw UsageError("--model checks --blocks-per-sm and --threads-per-block: give them too",
                     "--model 用来检查 --blocks-per-sm 和 --threads-per-block：也请给出它们");
  }
  if (!raw.model.empty()) {
    if (calc::find_model(raw.model) == nullptr) {
      std::vector<std::string> names;
      for (const auto& m : calc::gpu_models()) names.emplace_back(m.aliases.front());
      const std::string known = fmt::format("{}", fmt::join(names, ", "));
      bad_value("--model", raw.model,
                both("unknown GPU; known: {}", "未知的 GPU；已知型号：{}", known));
    }
    o.model = raw.model;
  }
  return o;
}

}  // namespace

void setup_warp_hiding(CLI::App& app, GlobalOptions& g) {
  const auto [sub, raw] = add_command<WarpHidingArgs>(
      app, g, "warp-hiding",
      {"Warps needed to hide a memory latency; warps resident on an SM; or --measure it "
       "on the GPU",
       "隐藏一次访存延迟需要多少线程束；一个 SM 上驻留多少线程束；或用 --measure 在 GPU 上实测"},
      [&g](WarpHidingArgs& args) {
        if (args.measure) {
          const MeasureOptions m = measure_options(args);
          auto backend = open_backend(g);
          const MeasureResult r = run_warp_measure(m, *backend);
          emit_verified(g, warp_measure_json(r), render_warp_measure(r, g.out), r.verified,
                        {"warp-hiding --measure: a warp's chain ended in the wrong place",
                         "warp-hiding --measure：某个线程束的链停在了错误的位置"});
          return;
        }
        const WarpHidingResult r = run_warp_hiding(warp_hiding_options(args));
        emit(g, warp_hiding_json(r), render_warp_hiding(r, g.out));
      });
  sub->add_option("--latency", raw->latency,
                  help_tr(g, "Cycles one global-memory access takes (e.g. 200)",
                          "一次全局内存访问所需的周期数（例如 200）"))
      ->type_name("L");
  sub->add_option("--ops", raw->ops,
                  help_tr(g, "Independent arithmetic operations per warp per access (e.g. 4)",
                          "每个线程束每次访存对应的独立算术操作数（例如 4）"))
      ->type_name("K");
  sub->add_option(
         "--cycles-per-op", raw->cycles,
         help_tr(g, "Cycles each operation takes (e.g. 4)", "每个操作所需的周期数（例如 4）"))
      ->type_name("C");
  sub->add_option(
         "--blocks-per-sm", raw->blocks,
         help_tr(g, "Blocks assigned to one SM (e.g. 3)", "分配到一个 SM 的线程块数（例如 3）"))
      ->type_name("B");
  sub->add_option("--threads-per-block", raw->threads,
                  help_tr(g, "Threads in each block (e.g. 256)", "每个线程块的线程数（例如 256）"))
      ->type_name("T");
  sub->add_flag(
      "--measure", raw->measure,
      help_tr(g,
              "Measure it: a memory-latency-bound kernel with 1, 2, 4, ... warps per "
              "SM, throughput against warps, beside the calculator (--ops K sets the "
              "work, default 128)",
              "实测：一个受访存延迟限制的内核，每个 SM 依次放 1、2、4……个线程束，"
              "画出吞吐量与线程束数的关系，并与计算器对照（--ops K 设定工作量，默认 128）"));
  sub->add_option("--steps", raw->steps,
                  help_tr(g, "--measure: loads per warp (default 1000 on a GPU)",
                          "--measure：每个线程束的访存次数（在 GPU 上默认 1000）"))
      ->type_name("S");
  sub->add_option("--seed", raw->seed,
                  help_tr(g, "--measure: seed of the random chain", "--measure：随机链的种子"))
      ->type_name("S");
  set_completer(
      sub->add_option("--model", raw->model,
                      help_tr(g, "Check the SM's limits on this GPU's spec sheet (e.g. G80)",
                              "按这款 GPU 的规格表检查 SM 的限制（例如 G80）"))
          ->type_name("NAME"),
      gpu_model_names);
}

}  // namespace gpulab
