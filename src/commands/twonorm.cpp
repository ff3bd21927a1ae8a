// gpulab twonorm (see twonorm.hpp).
#include "commands/twonorm.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <memory>

#include "calc/launch_facts.hpp"
#include "commands/twonorm_ladder.hpp"
#include "core/error.hpp"
#include "core/i18n_format.hpp"
#include "core/parse.hpp"
#include "core/text.hpp"

namespace gpulab {
namespace {

constexpr std::uint64_t kMaxPartialBlocks = 1024;  // the grid-stride loop covers the rest
constexpr std::uint64_t kBlocksPerSm = 8;  // on a GPU: 8 blocks of 256 fill an SM's 2048 threads

}  // namespace

// On a GPU, enough blocks to fill every SM (each thread loads float4s, so a block covers 4 * 256
// elements per pass); on the emulator, at most 1024.
std::uint64_t reduce_blocks(std::int64_t count, Backend& backend) {
  const auto n = static_cast<std::uint64_t>(count);
  const int sms = backend.device_facts().sm_count;
  if (sms > 0) {
    return std::max<std::uint64_t>(1, std::min(calc::blocks_for(n, 4 * kReduceBlock),
                                               kBlocksPerSm * static_cast<std::uint64_t>(sms)));
  }
  return std::min(calc::blocks_for(n, kReduceBlock), kMaxPartialBlocks);
}

TwoNormInputs make_twonorm_inputs(std::int64_t count, std::uint64_t seed) {
  const auto n = static_cast<std::size_t>(count);
  TwoNormInputs in;
  in.a.resize(n);
  in.b.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    in.a[i] = calc::random_unit(seed, 2 * i);
    in.b[i] = calc::random_unit(seed, 2 * i + 1);
  }
  double sum = 0;  // float64 from the very same float inputs
  for (std::size_t i = 0; i < n; ++i) {
    const double d = static_cast<double>(in.a[i]) - static_cast<double>(in.b[i]);
    sum += d * d;
  }
  in.reference = std::sqrt(sum);
  return in;
}

double relative_error(double result, double reference) {
  return reference > 0 ? std::fabs(result - reference) / reference : std::fabs(result);
}

void take_problem(TwoNormProblem& p, const TwoNormOptions& o) {
  p.rows = o.rows;
  p.cols = o.cols;
  p.count = o.rows * o.cols;
  p.seed = o.seed;
}

TwoNormResult run_twonorm(const TwoNormOptions& o, Backend& backend) {
  TwoNormResult r;
  take_problem(r, o);
  r.kernel = o.kernel;
  const auto n = static_cast<std::size_t>(r.count);
  require_memory(backend, fmt::format("twonorm --rows {} --cols {}", o.rows, o.cols),
                 {{{"a, b on the host", "主机上的 a、b"}, 2 * n * sizeof(float), false},
                  {{"a, b on the device", "设备上的 a、b"}, 2 * n * sizeof(float), true}});

  const TwoNormInputs in = make_twonorm_inputs(r.count, o.seed);
  r.reference = in.reference;

  DeviceBuffer<float> da(backend, n), db(backend, n);
  r.h2d_ms = backend.to_device(da.get(), in.a.data(), da.bytes());
  r.h2d_ms += backend.to_device(db.get(), in.b.data(), db.bytes());
  if (o.kernel == TwoNormKernel::course) {
    DeviceBuffer<float> dc(backend, 1);
    const float poison = NAN;
    backend.to_device(dc.get(), &poison, sizeof poison);
    LaunchShape shape{{1, 1, 1}, {kCourseKernelThreads, 1, 1}};
    r.run = backend.two_norm_course(shape, da.get(), db.get(), dc.get(), static_cast<int>(o.rows),
                                    static_cast<int>(o.cols));
    r.launches.push_back({"two_norm_kernel", shape, r.run.kernel_ms});
    float c = 0;
    backend.to_host(&c, dc.get(), sizeof c);
    r.result = c;
    r.tolerance = kCourseTolerance;
  } else {
    const std::uint64_t blocks = reduce_blocks(r.count, backend);
    DeviceBuffer<double> partials(backend, blocks), result(backend, 1);
    const double poison = NAN;
    backend.to_device(result.get(), &poison, sizeof poison);
    LaunchShape first{{blocks, 1, 1}, {kReduceBlock, 1, 1}};
    KernelRun one = backend.two_norm_partials(first, da.get(), db.get(), partials.get(), r.count);
    r.launches.push_back({"two_norm_partials", first, one.kernel_ms});
    LaunchShape second{{1, 1, 1}, {kReduceBlock, 1, 1}};
    r.run = backend.two_norm_finish(second, partials.get(), static_cast<int>(blocks), result.get());
    r.launches.push_back({"two_norm_finish", second, r.run.kernel_ms});
    r.run = add_emulator_stats(one, r.run);
    if (o.bench_reps) {
      // Both launches again and again; the partials and the result are rewritten the same.
      r.bench = run_bench(
          backend, *o.bench_reps, 2.0 * static_cast<double>(n) * sizeof(float),
          2 * n * sizeof(float), [&] {
            double ms =
                backend.two_norm_partials(first, da.get(), db.get(), partials.get(), r.count)
                    .kernel_ms;
            ms +=
                backend
                    .two_norm_finish(second, partials.get(), static_cast<int>(blocks), result.get())
                    .kernel_ms;
            return ms;
          });
    }
    double value = 0;
    backend.to_host(&value, result.get(), sizeof value);
    r.result = value;
    r.tolerance = kReduceTolerance;
  }
  for (const auto& l : r.launches) r.kernel_ms += l.kernel_ms;
  r.relative_error = relative_error(r.result, r.reference);
  r.verified = std::isfinite(r.result) && r.relative_error <= r.tolerance;
  r.backend = std::string(backend_name(backend.kind()));
  r.device = backend.device_name();
  return r;
}

std::string render_twonorm(const TwoNormResult& r, const OutputOptions& out) {
  const Style st = style_for(out);
  const Lang l = out.lang;
  std::string s;
  s += st.heading(say(l, "Two-norm distance on {} ({})", "二范数距离，运行于 {}（{}）", r.backend,
                      r.device)) +
       "\n";
  s += say(l,
           "  ||a - b|| = sqrt(sum over i, j of (a[i][j] - b[i][j])^2), a and b {} x "
           "{} = {} random floats in [-1, 1) (seed {})\n\n",
           "  ||a - b|| = sqrt(对所有 i, j 求和 (a[i][j] - b[i][j])^2)，a 和 b 为 {} "
           "x {} = {} 个 [-1, 1) 内的随机浮点数（种子 {}）\n\n",
           r.rows, r.cols, group_thousands(static_cast<unsigned long long>(r.count)), r.seed);
  if (r.kernel == TwoNormKernel::course) {
    const std::int64_t busy = std::min<std::int64_t>(r.rows, kCourseKernelThreads);
    s += st.bold(std::string(tr(
             l,
             "  The course kernel: one block of 512 threads, a 64*64 float buffer in shared memory",
             "  课程中的核函数：一个 512 线程的线程块，共享内存中 64*64 个 float 的缓冲区"))) +
         "\n";
    // One line per row: the layout wraps each value under itself (at any width, in both
    // languages), so nothing here is broken by hand.
    const auto idle = static_cast<unsigned long long>(kCourseKernelThreads - busy);
    s += say(
        l,
        "  Phase 1  thread t squares the differences of rows t, t+512, ...: {} {} busy, {} "
        "of 512 threads {} no row. Each square goes to a_minus_b[row * {} + col].\n"
        "  __syncthreads()  no thread may sum a row until every square is written.\n"
        "  Phase 2  the same threads add each of their rows into its first column: {} per "
        "row.\n"
        "  __syncthreads()  thread 0 must not read the row sums before they are all written.\n"
        "  Phase 3  thread 0 alone adds the {} and takes sqrtf: {}.\n",
        "  阶段 1  线程 t 计算第 t, t+512, ... 行的差的平方：{} 行让 {} 个线程工作，512 "
        "个线程中有 {} 个没有行可做{}。每个平方写入 a_minus_b[row * {} + col]。\n"
        "  __syncthreads()  所有平方写完之前，任何线程都不能开始按行求和。\n"
        "  阶段 2  同一批线程把各自行的元素加到该行第一列：每行 {} 次加法。\n"
        "  __syncthreads()  线程 0 必须等所有行和写完才能读取。\n"
        "  阶段 3  只有线程 0 把 {} 个行和相加再取 sqrtf：{} 次串行加法。\n",
        l == Lang::zh
            ? group_thousands(static_cast<unsigned long long>(r.rows))
            : count_noun(static_cast<unsigned long long>(r.rows), "row keeps", "rows keep"),
        l == Lang::zh ? group_thousands(static_cast<unsigned long long>(busy))
                      : count_noun(static_cast<unsigned long long>(busy), "thread", "threads"),
        group_thousands(idle), l == Lang::zh ? "" : plural(idle, "has", "have"), r.cols,
        l == Lang::zh ? group_thousands(static_cast<unsigned long long>(r.cols - 1))
                      : count_noun(static_cast<unsigned long long>(r.cols - 1), "add", "adds"),
        l == Lang::zh ? group_thousands(static_cast<unsigned long long>(r.rows))
                      : count_noun(static_cast<unsigned long long>(r.rows), "row sum", "row sums"),
        l == Lang::zh
            ? group_thousands(static_cast<unsigned long long>(r.rows - 1))
            : count_noun(static_cast<unsigned long long>(r.rows - 1), "serial add", "serial adds"));
    s +=
        std::string(tr(l,
                       "  One block runs on one SM: the rest of the GPU stays idle. That is why "
                       "real reductions use many blocks (try --kernel reduce).\n",
                       "  一个线程块只在一个 SM 上运行：GPU "
                       "的其余部分都闲着。所以实际的归约用很多线程块（试试 --kernel reduce）。\n"));
  } else {
    const auto& first = r.launches[0].shape;
    s += st.bold(std::string(tr(l, "  The reduce kernel: many blocks, then one",
                                "  归约核函数：先用很多线程块，再用一个"))) +
         "\n";
    s += say(
        l,
        "  Launch 1  two_norm_partials<<<{}, {}>>>: {} threads; a grid-stride loop gives each "
        "about {} / {} = {} elements. Each warp adds its 32 sums with 5 shuffles "
        "(__shfl_down_sync by 16, 8, 4, 2, 1), the block's {} warp sums meet in shared memory "
        "after one __syncthreads(), and each block writes one partial sum.\n"
        "  Launch 2  two_norm_finish<<<1, {}>>>: adds the {} in double precision, takes "
        "sqrt.\n",
        "  启动 1  two_norm_partials<<<{}, {}>>>：{} 个线程；网格跨步循环让每个线程处理约 {} / "
        "{} "
        "= {} 个元素。每个线程束用 5 次洗牌（__shfl_down_sync 16, 8, 4, 2, 1）把 32 "
        "个和相加，线程块的 {} 个线程束和经一次 __syncthreads() "
        "在共享内存中汇合，每个线程块写出一个部分和。\n"
        "  启动 2  two_norm_finish<<<1, {}>>>：用双精度把 {} 个部分和相加，再开平方。\n",
        first.grid.x, first.block.x, group_thousands(first.grid.x * first.block.x),
        group_thousands(static_cast<unsigned long long>(r.count)),
        group_thousands(first.grid.x * first.block.x),
        format_real(
            static_cast<double>(r.count) / static_cast<double>(first.grid.x * first.block.x), 1),
        first.block.x / 32, first.block.x,
        l == Lang::zh ? group_thousands(first.grid.x)
                      : count_noun(first.grid.x, "partial sum", "partial sums"));
  }
  s += "\n";
  const bool gpu = r.backend == "cuda";
  const std::string result = format_real(r.result, 7);
  const std::string reference = format_real(r.reference, 7);
  s += gpu ? say(l,
                 "  GPU result   {}\n  Host float64 {}\n  Relative error |result - "
                 "reference| / reference = {:.3e} (tolerance {:.0e})\n",
                 "  GPU 结果      {}\n  主机 float64  {}\n  相对误差 |结果 - "
                 "参考| / 参考 = {:.3e}（容差 {:.0e}）\n",
                 result, reference, r.relative_error, r.tolerance)
           : say(l,
                 "  Emulator result {}\n  Host float64    {}\n  Relative error |result - "
                 "reference| / reference = {:.3e} (tolerance {:.0e})\n",
                 "  模拟器结果    {}\n  主机 float64  {}\n  相对误差 |结果 - "
                 "参考| / 参考 = {:.3e}（容差 {:.0e}）\n",
                 result, reference, r.relative_error, r.tolerance);
  s += "  " +
       (r.verified ? st.good(std::string(
                         tr(l, "Verified against the host reference.", "已与主机参考结果核对。")))
                   : st.bad(std::string(tr(l, "WRONG: the error is above the tolerance.",
                                           "错误：误差超过容差。")))) +
       "\n";
  const std::string kernel_ms = measured(format_real(r.kernel_ms, 3));
  const std::string launches = l == Lang::zh ? fmt::format("{} 次启动", r.launches.size())
                                             : count_noun(r.launches.size(), "launch", "launches");
  const std::string h2d_ms = measured(format_real(r.h2d_ms, 3));
  s +=
      gpu ? say(l, "  Kernel time {} ms ({}); inputs copied to the device in {} ms\n",
                "  核函数时间 {} ms（{}）；输入拷贝到设备用时 {} ms\n", kernel_ms, launches, h2d_ms)
          : say(l,
                "  Kernel time {} ms of CPU time ({}); inputs copied into the emulator's "
                "device memory (host memory) in {} ms\n",
                "  核函数用了 {} ms CPU 时间（{}）；输入拷贝到模拟器的设备内存（即主机内存）"
                "用时 {} ms\n",
                kernel_ms, launches, h2d_ms);
  s += hidden_times_note(l);
  if (r.backend == "cuda" && !r.bench) s += std::string(cold_launch_note(l));
  if (r.bench) s += render_bench(*r.bench, st, l);
  s += emulator_notes(r.run, st, l);
  return s;
}

nlohmann::json problem_json(const TwoNormProblem& p) {
  return {{"rows", p.rows},
          {"cols", p.cols},
          {"elements", p.count},
          {"seed", p.seed},
          {"reference", p.reference}};
}

void to_json(nlohmann::json& j, const TwoNormLaunch& l) {
  j = {{"kernel", l.kernel},
       {"grid", l.shape.grid.x},
       {"block", l.shape.block.x},
       {"kernel_ms", l.kernel_ms}};
}

nlohmann::json twonorm_json(const TwoNormResult& r) {
  nlohmann::json j = problem_json(r);
  j.update({{"command", "twonorm"},
            {"kernel", r.kernel == TwoNormKernel::course ? "course" : "reduce"},
            {"result", r.result},
            {"relative_error", r.relative_error},
            {"tolerance", r.tolerance},
            {"verified", r.verified},
            {"kernel_ms", r.kernel_ms},
            {"launches", r.launches}});
  j.update(backend_json_fields(r.backend, r.device, r.run));
  if (r.bench) j["bench"] = bench_json(*r.bench);
  return j;
}

void setup_twonorm(CLI::App& app, GlobalOptions& g) {
  struct Raw {
    std::string rows, cols, kernel = "reduce", seed;
    bool source = false;
    BenchRaw bench;
  };
  const auto [sub, raw] = add_command<Raw>(
      app, g, "twonorm",
      {"Two-norm distance of two matrices: the course kernel, a reduction, or the "
       "reduction ladder",
       "两个矩阵的二范数距离：课程里的内核、一个归约内核，或逐级优化的归约阶梯"},
      [&g](Raw& args) {
        const std::string k = parse_choice("--kernel", args.kernel, {"course", "reduce", "all"});
        // --source checks the other options too: a typo must not pass silently.
        if ((args.rows.empty() || args.cols.empty()) && !args.source)
          throw UsageError("twonorm needs --rows R and --cols C",
                           "twonorm 需要 --rows R 和 --cols C");
        TwoNormOptions o;
        o.kernel = k == "course"   ? TwoNormKernel::course
                   : k == "reduce" ? TwoNormKernel::reduce
                                   : TwoNormKernel::all;
        o.rows = args.rows.empty() ? 1 : parse_int("--rows", args.rows, 1, INT_MAX);
        o.cols = args.cols.empty() ? 1 : parse_int("--cols", args.cols, 1, INT_MAX);
        o.seed = pick_seed(args.seed);
        if (o.rows > (std::int64_t{1} << 40) / o.cols) {
          throw UsageError(both("--rows {} --cols {}: more than 2^40 elements",
                                "--rows {} --cols {}：超过 2^40 个元素", o.rows, o.cols));
        }
        if (o.kernel == TwoNormKernel::course && o.rows * o.cols > kCourseKernelMaxElements) {
          const std::string count = group_thousands(static_cast<std::uint64_t>(o.rows * o.cols));
          throw UsageError(
              both("--kernel course: {} x {} = {} elements do not fit the kernel's shared buffer "
                   "of 64*64 = 4,096 floats (16 KiB); the notes' comment promises (4096,4096), "
                   "which would need 64 MiB of shared memory where a block gets 48 KiB. Use "
                   "--kernel reduce",
                   "--kernel course：{} x {} = {} 个元素放不进内核 64*64 = 4,096 个 float（16 KiB）"
                   "的共享缓冲区；讲义的注释承诺 (4096,4096)，那需要 64 MiB 共享内存，而一个线程块"
                   "只有 48 KiB。请用 --kernel reduce",
                   o.rows, o.cols, count));
        }
        const int reps = parse_bench_reps(args.bench);
        if (args.bench.bench) {
          if (o.kernel == TwoNormKernel::course)
            throw UsageError(
                "--bench measures --kernel reduce or all; the course kernel alone is one block "
                "(--kernel all times it beside the others)",
                "--bench 测量 --kernel reduce 或 all；课程内核单独只有一个线程块"
                "（--kernel all 会把它和其他内核一起计时）");
          o.bench_reps = reps;
        }
        if (args.source) {
          if (k == "all") {
            return emit_sources(g, "twonorm",
                                {"twonorm_course.cuh", "twonorm_ladder.cuh", "twonorm_reduce.cuh"});
          }
          return emit_sources(g, "twonorm",
                              {k == "course" ? "twonorm_course.cuh" : "twonorm_reduce.cuh"});
        }
        auto backend = open_backend(g);
        // Elements per second per CPU thread, measured on the emulator (Release build).
        refuse_long_emulator_run(
            *backend, g.emu, static_cast<double>(o.rows * o.cols),
            o.kernel == TwoNormKernel::all ? 4e5 : 2.5e7,
            fmt::format("twonorm --kernel {} --rows {} --cols {}", k, o.rows, o.cols));
        if (o.kernel == TwoNormKernel::all) {
          const LadderResult r = run_twonorm_ladder(o, *backend);
          emit_verified(g, twonorm_ladder_json(r), render_twonorm_ladder(r, g.out), r.verified(),
                        {"twonorm: a step's result does not match the host reference",
                         "twonorm：某一步的结果与主机上的参考结果不符"});
          return;
        }
        TwoNormResult r = run_twonorm(o, *backend);
        emit_verified(g, twonorm_json(r), render_twonorm(r, g.out), r.verified,
                      {"twonorm: the result does not match the host reference",
                       "twonorm：结果与主机上的参考结果不符"});
      });
  needed(sub->add_option("--rows", raw->rows, help_tr(g, "Rows of the matrices", "矩阵的行数"))
             ->type_name("R"));
  needed(sub->add_option("--cols", raw->cols, help_tr(g, "Columns of the matrices", "矩阵的列数"))
             ->type_name("C"));
  sub->add_option("--kernel", raw->kernel,
                  help_tr(g,
                          "course (the notes' one-block kernel, at most 4096 elements), reduce "
                          "(any size; default), or all (the reduction ladder: course, then five "
                          "classic steps)",
                          "course（讲义中只用一个线程块的内核，最多 4096 个元素）、reduce（任意"
                          "大小；默认）或 all（归约阶梯：先 course，再五个经典步骤）"))
      ->type_name("course|reduce|all");
  add_seed_option(sub, raw->seed, g);
  add_bench_options(sub, raw->bench, g.out.lang);
  add_source_flag(sub, raw->source, g);
}

}  // namespace gpulab
