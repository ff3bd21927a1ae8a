// gpulab twonorm --kernel all (see twonorm_ladder.hpp).
#include "commands/twonorm_ladder.hpp"

#include <fmt/format.h>

#include <climits>
#include <cmath>
#include <functional>
#include <optional>

#include "calc/launch_facts.hpp"
#include "core/enum_names.hpp"
#include "core/i18n_format.hpp"
#include "core/text.hpp"

namespace gpulab {
namespace {

// One step as it will run: its launches, and a function that makes them all once.
struct StepPlan {
  LadderStepResult* step;
  std::function<std::vector<KernelRun>()> launch;
  bool float_result = false;  // the course kernel writes a float, the others a double
};

double total_ms(const std::vector<KernelRun>& runs) {
  double ms = 0;
  for (const auto& k : runs) ms += k.kernel_ms;
  return ms;
}

std::string rung_name(Rung r) {
  static constexpr std::array<std::string_view, 6> kNames{
      "course", "interleaved", "sequential", "first-add", "warp-shuffle", "grid-stride"};
  static_assert(kNames.size() == static_cast<std::size_t>(Rung::grid_stride) + 1);
  return std::string(enum_name(r, kNames));
}

}  // namespace

bool LadderResult::verified() const {
  for (const auto& s : steps)
    if (s.skipped_why.empty() && !s.verified) return false;
  return true;
}

LadderResult run_twonorm_ladder(const TwoNormOptions& o, Backend& backend) {
  LadderResult r;
  take_problem(r, o);
  const auto n = static_cast<std::size_t>(r.count);
  const auto count = static_cast<std::uint64_t>(r.count);
  require_memory(backend, fmt::format("twonorm --kernel all --rows {} --cols {}", o.rows, o.cols),
                 {{{"a, b on the host", "主机上的 a、b"}, 2 * n * sizeof(float), false},
                  {{"a, b and the partial sums on the device", "设备上的 a、b 和部分和"},
                   2 * n * sizeof(float) + calc::blocks_for(count, kReduceBlock) * 8,
                   true}});
  const TwoNormInputs in = make_twonorm_inputs(r.count, o.seed);
  r.reference = in.reference;

  DeviceBuffer<float> da(backend, n), db(backend, n), course_out(backend, 1);
  backend.to_device(da.get(), in.a.data(), da.bytes());
  backend.to_device(db.get(), in.b.data(), db.bytes());
  // The most partials any step writes: one per 256 elements (steps 1 and 2).
  DeviceBuffer<double> partials(backend, calc::blocks_for(count, kReduceBlock)), out(backend, 1);

  const LaunchShape finish{{1, 1, 1}, {kReduceBlock, 1, 1}};
  auto two_launches = [&](LadderStepResult& s, std::uint64_t blocks,
                          std::function<KernelRun(const LaunchShape&)> first, std::string kernel) {
    const LaunchShape shape{{blocks, 1, 1}, {kReduceBlock, 1, 1}};
    s.launches = {{std::move(kernel), shape, 0}, {"two_norm_finish", finish, 0}};
    s.elements_per_thread = static_cast<double>(count) / static_cast<double>(blocks * kReduceBlock);
    s.tolerance = kReduceTolerance;
    if (blocks > static_cast<std::uint64_t>(INT_MAX)) {
      s.skipped_why = both("{} blocks: more than a grid's 2^31 - 1",
                           "{} 个线程块：超过了网格的上限 2^31 - 1", group_thousands(blocks));
    }
    return StepPlan{&s, [&, shape, blocks, first] {
                      std::vector<KernelRun> runs{first(shape)};
                      runs.push_back(backend.two_norm_finish(finish, partials.get(),
                                                             static_cast<int>(blocks), out.get()));
                      return runs;
                    }};
  };

  r.steps.resize(6);
  for (std::size_t i = 0; i < r.steps.size(); ++i) {
    r.steps[i].rung = static_cast<Rung>(i);
    r.steps[i].name = rung_name(r.steps[i].rung);
  }
  std::vector<StepPlan> plans;
  {
    LadderStepResult& s = r.steps[0];
    const LaunchShape shape{{1, 1, 1}, {kCourseKernelThreads, 1, 1}};
    s.launches = {{"two_norm_kernel", shape, 0}};
    s.tolerance = kCourseTolerance;
    s.elements_per_thread = static_cast<double>(count) / kCourseKernelThreads;
    if (r.count > kCourseKernelMaxElements) {
      s.skipped_why =
          both("{} elements do not fit its 64*64 = 4,096-float shared buffer",
               "{} 个元素放不进它 64*64 = 4,096 个 float 的共享缓冲区", group_thousands(count));
    }
    plans.push_back({&s,
                     [&, shape] {
                       return std::vector<KernelRun>{backend.two_norm_course(
                           shape, da.get(), db.get(), course_out.get(), static_cast<int>(o.rows),
                           static_cast<int>(o.cols))};
                     },
                     true});
  }
  const std::uint64_t one_per_thread = calc::blocks_for(count, kReduceBlock);
  const std::uint64_t two_per_thread = calc::blocks_for(count, 2 * kReduceBlock);
  const std::pair<LadderStep, std::uint64_t> classic[] = {
      {LadderStep::interleaved, one_per_thread},
      {LadderStep::sequential, one_per_thread},
      {LadderStep::first_add, two_per_thread},
      {LadderStep::warp_shuffle, two_per_thread}};
  const char* classic_names[] = {"ladder_interleaved", "ladder_sequential", "ladder_first_add",
                                 "ladder_warp_shuffle"};
  for (std::size_t i = 0; i < 4; ++i) {
    const LadderStep step = classic[i].first;
    plans.push_back(two_launches(
        r.steps[i + 1], classic[i].second,
        [&, step](const LaunchShape& s) {
          return backend.two_norm_ladder(step, s, da.get(), db.get(), partials.get(), r.count);
        },
        classic_names[i]));
  }
  plans.push_back(two_launches(
      r.steps[5], reduce_blocks(r.count, backend),
      [&](const LaunchShape& s) {
        return backend.two_norm_partials(s, da.get(), db.get(), partials.get(), r.count);
      },
      "two_norm_partials"));

  const double bytes = 2.0 * static_cast<double>(n) * sizeof(float);
  std::vector<std::optional<double>> medians(r.steps.size());  // --bench: each step's median ms
  for (StepPlan& p : plans) {
    LadderStepResult& s = *p.step;
    if (!s.skipped_why.empty()) continue;
    const float poison_f = NAN;
    const double poison_d = NAN;
    if (p.float_result) {
      backend.to_device(course_out.get(), &poison_f, sizeof poison_f);
    } else {
      backend.to_device(out.get(), &poison_d, sizeof poison_d);
    }
    const std::vector<KernelRun> runs = p.launch();
    for (std::size_t i = 0; i < runs.size(); ++i) {
      s.launches[i].kernel_ms = runs[i].kernel_ms;
      r.run = add_emulator_stats(r.run, runs[i]);
    }
    s.kernel_ms = total_ms(runs);
    if (o.bench_reps) {
      medians[static_cast<std::size_t>(s.rung)] = median_launch_ms(
          *o.bench_reps, [&] { return total_ms(p.launch()); }, "gpulab: benchmark " + s.name);
    }
    if (p.float_result) {
      float c = 0;
      backend.to_host(&c, course_out.get(), sizeof c);
      s.result = c;
    } else {
      backend.to_host(&s.result, out.get(), sizeof s.result);
    }
    s.relative_error = relative_error(s.result, r.reference);
    s.verified = std::isfinite(s.result) && s.relative_error <= s.tolerance;
  }
  if (o.bench_reps) {
    r.copy = measure_copy_peak(backend, 2 * n * sizeof(float));
    for (std::size_t i = 0; i < r.steps.size(); ++i)
      if (medians[i])
        r.steps[i].bench = make_bench(backend, *o.bench_reps, *medians[i], bytes, *r.copy);
  }
  r.backend = std::string(backend_name(backend.kind()));
  r.device = backend.device_name();
  return r;
}

namespace {

// One line on what the step changed and why that is faster, with this run's numbers.
std::string explain_step(const LadderResult& r, const LadderStepResult& s, Lang l) {
  const auto blocks = s.launches.empty() ? 0 : s.launches[0].shape.grid.x;
  switch (s.rung) {
    case Rung::course:
      return say(l,
                 "one block of 512 threads, so one SM works and the rest idle; thread 0 alone adds "
                 "the {} row sums",
                 "只有一个 512 线程的线程块，只有一个 SM 在工作；线程 0 独自把 {} 个行和相加",
                 r.rows);
    case Rung::interleaved:
      return say(l,
                 "{} blocks, 1 element per thread, a tree in shared memory; t % (2s) == 0 spreads "
                 "the adding threads over all 8 warps, which diverge and issue for a few lanes",
                 "{} 个线程块，每线程 1 个元素，在共享内存中按树归约；t % (2s) == 0 "
                 "让做加法的线程分散在全部 8 个线程束中，线程束分化，只为少数通道发射指令",
                 group_thousands(blocks));
    case Rung::sequential:
      return std::string(
          tr(l,
             "t < s keeps the adding threads contiguous: whole warps fall idle together and none "
             "diverges until s < 32",
             "t < s 让做加法的线程连续：整个线程束一起空闲，直到 s < 32 都没有分化"));
    case Rung::first_add:
      return say(l,
                 "each thread adds 2 elements as it loads them: half the blocks ({}), and no "
                 "thread idles in the first round",
                 "每个线程在加载时就把 2 个元素相加：线程块减半（{} 个），第一轮没有线程空闲",
                 group_thousands(blocks));
    case Rung::warp_shuffle:
      return std::string(
          tr(l,
             "the last 32 sums are added in registers by 5 __shfl_down_sync: 4 __syncthreads() per "
             "block instead of 9",
             "最后 32 个和用 5 次 __shfl_down_sync 在寄存器中相加：每个线程块 4 次 __syncthreads() "
             "而不是 9 次"));
    case Rung::grid_stride:
      break;
  }
  return say(
      l,
      "only {} blocks; each thread adds ~{} elements in a register with 16-byte float4 loads "
      "before one block reduction, and {} partials are left to finish",
      "只用 {} 个线程块；每个线程用 16 字节的 float4 加载，在寄存器中累加约 {} 个元素，"
      "之后只做一次块内归约，只剩 {} 个部分和",
      group_thousands(blocks), format_real(s.elements_per_thread, 1), group_thousands(blocks));
}

std::string launch_text(const LadderStepResult& s) {
  const auto& sh = s.launches[0].shape;
  return fmt::format("<<<{}, {}>>>", group_thousands(sh.grid.x), sh.block.x);
}

}  // namespace

std::string render_twonorm_ladder(const LadderResult& r, const OutputOptions& out) {
  const Style st = style_for(out);
  const Lang l = out.lang;
  std::string s;
  s += st.heading(say(l, "The reduction ladder on {} ({})", "归约的阶梯，运行于 {}（{}）",
                      r.backend, r.device)) +
       "\n";
  s += say(l,
           "  ||a - b|| of {} x {} = {} random floats (seed {}), by six kernels in turn; each "
           "but the\n  course kernel writes one partial per block, and two_norm_finish<<<1, "
           "256>>> adds them.\n\n",
           "  {} x {} = {} 个随机浮点数（种子 {}）的 ||a - "
           "b||，依次用六个核函数计算；除课程核函数外，"
           "\n  每个线程块写一个部分和，再由 two_norm_finish<<<1, 256>>> 相加。\n\n",
           r.rows, r.cols, group_thousands(static_cast<unsigned long long>(r.count)), r.seed);

  const bool bench = r.copy.has_value();
  std::vector<std::string> header = {
      say(l, "step", "步骤"), say(l, "kernel", "核函数"), say(l, "launch", "启动配置"),
      bench ? say(l, "median ms", "中位数 ms") : say(l, "cold ms", "冷启动 ms")};
  if (bench) {
    header.push_back("GB/s");
    header.push_back(say(l, "% of copy", "占拷贝 %"));
    header.push_back(say(l, "speed-up", "加速比"));
  }
  header.push_back(say(l, "result", "结果"));
  header.push_back(say(l, "rel. error", "相对误差"));
  Table t(header);
  const LadderStepResult* previous = nullptr;
  for (std::size_t i = 0; i < r.steps.size(); ++i) {
    const auto& x = r.steps[i];
    std::vector<std::string> row = {std::to_string(i), x.name, launch_text(x)};
    if (!x.skipped_why.empty()) {
      row.push_back(say(l, "skipped", "跳过"));
      while (row.size() < header.size()) row.push_back("-");
      t.add_row(row);
      continue;
    }
    const double ms = x.bench ? x.bench->median_ms : x.kernel_ms;
    row.push_back(measured(format_real(ms, 4)));
    if (bench) {
      // "-" where the clock could not resolve the time: nothing was measured.
      const bool timed = x.bench->median_ms > 0;
      row.push_back(timed ? gbs_text(x.bench->gbs) : "-");
      row.push_back(timed && x.bench->copy_ms > 0 ? format_real(100 * x.bench->fraction_of_copy, 1)
                                                  : "-");
      // Against the step before, from step 2 on (the course kernel runs a different shape).
      row.push_back(previous && previous->rung != Rung::course && x.bench->median_ms > 0
                        ? format_real(previous->bench->median_ms / x.bench->median_ms, 2) + "x"
                        : "-");
    }
    row.push_back(format_real(x.result, 7));
    row.push_back(x.verified ? fmt::format("{:.1e}", x.relative_error)
                             : st.bad(fmt::format("{:.1e} WRONG", x.relative_error)));
    t.add_row(row);
    previous = &x;
  }
  s += t.render(st);
  s += hidden_times_note(l);
  s += "\n" + st.bold(std::string(tr(l, "  What each step changed", "  每一步改了什么"))) + "\n";
  for (std::size_t i = 0; i < r.steps.size(); ++i) {
    const auto& x = r.steps[i];
    // "  0 course        " then the explanation: the layout wraps it under itself.
    const std::string text = x.skipped_why.empty()
                                 ? explain_step(r, x, l)
                                 : say(l, "skipped: {}", "跳过：{}", x.skipped_why.in(l));
    s += fmt::format("  {} {:<14}{}\n", i, x.name, text);
  }
  s += "\n";
  s += say(l,
           "  Host float64 {}; every step that ran agrees within {:.0e}\n  ({:.0e} "
           "for the course kernel's serial float sums).\n",
           "  主机 float64 结果 {}；每个运行了的步骤误差都在 {:.0e} 以内\n  （课程核函数的"
           "串行 float 求和为 {:.0e}）。\n",
           format_real(r.reference, 7), kReduceTolerance, kCourseTolerance);
  s += "  " +
       (r.verified() ? st.good(std::string(
                           tr(l, "Verified against the host reference.", "已与主机参考结果核对。")))
                     : st.bad(std::string(tr(l, "WRONG: a step's error is above its tolerance.",
                                             "错误：有步骤的误差超过容差。")))) +
       "\n";
  if (bench) {
    const auto& c = *r.copy;
    const LadderStepResult& first = r.steps[1];
    const LadderStepResult& last = r.steps.back();
    s += say(l,
             "  Median of {} launches after a warm-up, both launches of a step together (CUDA "
             "events on a GPU).\n"
             "  Bandwidth = the {} bytes of a and b / time; the copy: {} {},\n"
             "  read + write, {} GB/s.\n",
             "  预热后 {0} 次启动的中位数，每步的两次启动合计（GPU 上用 CUDA 事件计时）。\n"
             "  带宽 = a 和 b 的 {1} 字节 / 时间；拷贝：{3} {2}，读 + 写，{4} GB/s。\n",
             last.bench ? last.bench->reps : 0,
             group_thousands(
                 static_cast<unsigned long long>(2 * r.count * static_cast<std::int64_t>(4))),
             format_bytes(static_cast<double>(c.bytes)),
             r.backend == "cuda" ? tr(l, "device to device", "设备内")
                                 : tr(l, "within the emulator's device memory (host memory)",
                                      "在模拟器的设备内存（即主机内存）中"),
             c.ms > 0 ? gbs_text(c.gbs) : std::string("-"));
    if (first.bench && last.bench && last.bench->median_ms > 0) {
      s += say(l, "  From step 1 to step 5: {} ms -> {} ms, {}x faster.\n",
               "  从第 1 步到第 5 步：{} ms -> {} ms，快了 {} 倍。\n",
               format_real(first.bench->median_ms, 4), format_real(last.bench->median_ms, 4),
               st.accent(format_real(first.bench->median_ms / last.bench->median_ms, 1)));
    }
    if (last.bench && last.bench->cpu_time) {
      s += std::string(
          tr(l,
             "  On the emulator these are CPU times: the ladder is about a GPU's warps, barriers "
             "and memory, so only a GPU's times show it.\n",
             "  模拟器上这些是 CPU 时间：阶梯讲的是 GPU 的线程束、屏障和显存，只有 GPU "
             "的时间能体现。\n"));
    }
  } else if (r.backend == "cuda") {
    s += std::string(cold_launch_note(l));
  } else {
    s += std::string(tr(l, "  Add --bench for the times, bandwidths and speed-ups.\n",
                        "  加上 --bench 可看到时间、带宽和加速比。\n"));
  }
  s += emulator_notes(r.run, st, l);
  return s;
}

nlohmann::json twonorm_ladder_json(const LadderResult& r) {
  nlohmann::json steps = nlohmann::json::array();
  for (std::size_t i = 0; i < r.steps.size(); ++i) {
    const auto& x = r.steps[i];
    nlohmann::json j = {{"step", i},
                        {"name", x.name},
                        {"ran", x.skipped_why.empty()},
                        {"launches", x.launches},
                        {"explanation", explain_step(r, x, Lang::en)}};
    if (!x.skipped_why.empty()) {
      j["skipped_why"] = x.skipped_why.en;
    } else {
      j.update({{"kernel_ms", x.kernel_ms},
                {"elements_per_thread", x.elements_per_thread},
                {"result", x.result},
                {"relative_error", x.relative_error},
                {"tolerance", x.tolerance},
                {"verified", x.verified}});
      if (x.bench) j["bench"] = bench_json(*x.bench);
    }
    steps.push_back(j);
  }
  nlohmann::json j = problem_json(r);
  j.update(
      {{"command", "twonorm"}, {"kernel", "all"}, {"verified", r.verified()}, {"steps", steps}});
  if (r.copy) j["copy"] = {{"bytes", r.copy->bytes}, {"ms", r.copy->ms}, {"gbs", r.copy->gbs}};
  j.update(backend_json_fields(r.backend, r.device, r.run));
  return j;
}

}  // namespace gpulab
