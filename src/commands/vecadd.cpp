// gpulab vecadd (see vecadd.hpp).
#include "commands/vecadd.hpp"

#include <fmt/format.h>

#include <climits>
#include <memory>
#include <set>

#include "calc/launch_limits.hpp"
#include "core/error.hpp"
#include "core/i18n_format.hpp"
#include "core/parse.hpp"
#include "core/text.hpp"

namespace gpulab {
namespace {

constexpr std::int64_t kFullTableUpTo = 64;  // --show auto prints every row up to this N
constexpr std::int64_t kJsonElementsUpTo = 1024;
// What one row of --show all costs until it is printed (its element twice, the table's cells,
// the text or JSON): about 800 bytes measured with 10^6 rows; counted before anything is allocated.
constexpr std::size_t kTableBytesPerRow = 1000;
constexpr int kPoison = INT_MIN;  // c before the kernel: an unwritten element shows

VecaddElement element(std::int64_t i, std::int64_t block, const std::vector<int>& a,
                      const std::vector<int>& b, const std::vector<int>& c) {
  const auto k = static_cast<std::size_t>(i);
  return {i, i / block, i % block, a[k], b[k], c[k]};
}

// 1st, 2nd, 3rd, 4th ... (the notes count blocks and threads from 1).
std::string ordinal(std::int64_t n, Lang l) {
  if (l == Lang::zh) return std::to_string(n);
  const char* suffix = "th";
  if (n % 100 < 11 || n % 100 > 13) {
    suffix = n % 10 == 1 ? "st" : n % 10 == 2 ? "nd" : n % 10 == 3 ? "rd" : "th";
  }
  return std::to_string(n) + suffix;
}

}  // namespace

VecaddResult run_vecadd(const VecaddOptions& o, Backend& backend) {
  VecaddResult r;
  r.n = o.n;
  r.block = o.block;
  r.grid = static_cast<std::int64_t>(
      calc::blocks_for(static_cast<std::uint64_t>(o.n), static_cast<std::uint64_t>(o.block)));
  r.seed = o.seed;
  const LaunchShape shape{{static_cast<std::uint64_t>(r.grid), 1, 1},
                          {static_cast<std::uint64_t>(o.block), 1, 1}};
  r.launch = calc::launch_facts(shape.grid, shape.block);
  r.idle_threads = static_cast<std::int64_t>(r.launch.threads) - o.n;
  r.find = o.find;
  if (!r.find && o.n > 21) r.find = 21;  // the notes' example: element 21 of 4 blocks of 8

  const auto n = static_cast<std::size_t>(o.n);
  std::vector<MemoryItem> need = {
      {{"a, b, c on the host", "主机上的 a、b、c"}, 3 * n * sizeof(int), false},
      {{"a, b, c on the device", "设备上的 a、b、c"}, 3 * n * sizeof(int), true}};
  if (o.show == ShowMode::all) {
    need.push_back({{"the table of every element (--show all)", "每个元素的表格（--show all）"},
                    n * kTableBytesPerRow,
                    false});
  }
  require_memory(backend, fmt::format("vecadd --n {}", o.n), need);
  std::vector<int> a(n), b(n), c(n, kPoison);
  for (std::size_t i = 0; i < n; ++i) {
    a[i] = static_cast<int>(calc::random_bits(o.seed, 2 * i) % 100);
    b[i] = static_cast<int>(calc::random_bits(o.seed, 2 * i + 1) % 100);
  }
  DeviceBuffer<int> da(backend, n), db(backend, n), dc(backend, n);
  r.h2d_ms = backend.to_device(da.get(), a.data(), da.bytes());
  r.h2d_ms += backend.to_device(db.get(), b.data(), db.bytes());
  backend.to_device(dc.get(), c.data(), dc.bytes());
  r.run = backend.vector_add(shape, da.get(), db.get(), dc.get(), static_cast<int>(o.n));
  r.kernel_ms = r.run.kernel_ms;
  r.d2h_ms = backend.to_host(c.data(), dc.get(), dc.bytes());
  if (o.bench_reps) {
    // The same launch again and again: it rewrites c with the same sums.
    r.bench = run_bench(
        backend, *o.bench_reps, 3.0 * static_cast<double>(n) * sizeof(int), 3 * n * sizeof(int),
        [&] {
          return backend.vector_add(shape, da.get(), db.get(), dc.get(), static_cast<int>(o.n))
              .kernel_ms;
        });
  }
  r.kernel_gbs =
      r.kernel_ms > 0 ? 3.0 * static_cast<double>(n) * sizeof(int) / (r.kernel_ms * 1e6) : 0;
  r.backend = std::string(backend_name(backend.kind()));
  r.device = backend.device_name();

  // Verify every element against the host's own sum (exact: integers).
  for (std::size_t i = 0; i < n; ++i) {
    if (c[i] != a[i] + b[i]) {
      if (r.mismatches == 0)
        r.first_mismatch = element(static_cast<std::int64_t>(i), o.block, a, b, c);
      ++r.mismatches;
    }
  }
  r.verified = r.mismatches == 0;

  // The table: every row, or the first and last few and those around the highlighted one.
  const bool all =
      o.show == ShowMode::all || (o.show == ShowMode::automatic && o.n <= kFullTableUpTo);
  if (o.show == ShowMode::all || o.n <= kJsonElementsUpTo) {
    for (std::int64_t i = 0; i < o.n; ++i) r.elements.push_back(element(i, o.block, a, b, c));
  }
  if (all) {
    r.table = r.elements;
  } else if (o.show == ShowMode::automatic) {
    std::set<std::int64_t> keep;
    for (std::int64_t i = 0; i < std::min<std::int64_t>(4, o.n); ++i) keep.insert(i);
    for (std::int64_t i = std::max<std::int64_t>(0, o.n - 4); i < o.n; ++i) keep.insert(i);
    if (r.find) {
      for (std::int64_t i = std::max<std::int64_t>(0, *r.find - 2);
           i <= std::min<std::int64_t>(o.n - 1, *r.find + 2); ++i) {
        keep.insert(i);
      }
    }
    for (auto i : keep) r.table.push_back(element(i, o.block, a, b, c));
    r.elided = true;
  } else {
    r.elided = true;
  }
  return r;
}

std::string render_vecadd(const VecaddResult& r, const OutputOptions& out) {
  const Style st = style_for(out);
  const Lang l = out.lang;
  std::string s;
  s += st.heading(
           say(l, "Vector add on {} ({})", "向量加法，运行于 {}（{}）", r.backend, r.device)) +
       "\n";
  s += say(l,
           "  c[i] = a[i] + b[i] for N = {} random integers "
           "(0-99, seed {}), B = {} threads per block\n\n",
           "  c[i] = a[i] + b[i]，N = {} 个随机整数（0-99，种子 "
           "{}），每个线程块 B = {} 个线程\n\n",
           group_thousands(static_cast<unsigned long long>(r.n)), r.seed, r.block);
  auto blocks = [l](std::int64_t n) {
    return count_noun(l, static_cast<unsigned long long>(n), "block", "blocks", "个线程块");
  };
  auto threads = [l](std::int64_t n) {
    return count_noun(l, static_cast<unsigned long long>(n), "thread", "threads", "个线程");
  };
  auto elements = [l](std::int64_t n) {
    return count_noun(l, static_cast<unsigned long long>(n), "element", "elements", "个元素");
  };
  s += say(l, "  Grid: ceil(N / B) = (N + B - 1) / B = ({} + {} - 1) / {} = {} / {} = {} {}\n",
           "  网格：ceil(N / B) = (N + B - 1) / B = ({} + {} - 1) / {} = {} / {} = {} {}\n",
           group_thousands(static_cast<unsigned long long>(r.n)), r.block, r.block,
           group_thousands(static_cast<unsigned long long>(r.n + r.block - 1)), r.block,
           st.accent(group_thousands(static_cast<unsigned long long>(r.grid))),
           l == Lang::zh ? "个线程块"
                         : plural(static_cast<unsigned long long>(r.grid), "block", "blocks"));
  s += std::string(
      tr(l, "        (integer division drops the remainder; adding B - 1 first rounds up)\n",
         "        （整数除法舍去余数；先加 B - 1 就变成向上取整）\n"));
  if (r.idle_threads == 0) {
    s += say(l, "  {} x {} = {} for {}: every thread has one.\n",
             "  {} x {} = {}，处理 {}：每个线程正好一个。\n", blocks(r.grid), threads(r.block),
             threads(r.launch.threads), elements(r.n));
  } else {
    s += say(l,
             "  {} x {} = {} for {}: the last block's threads {}-{} ({})\n  compute tid >= N; "
             "`if (tid < n)` keeps them from writing past the end of c.\n",
             "  {} x {} = {}，处理 {}：最后一个线程块的线程 {}-{}"
             "（{}）\n  算出的 tid >= N；`if (tid < n)` 防止它们越界写 c。\n",
             blocks(r.grid), threads(r.block), threads(r.launch.threads), elements(r.n),
             r.block - r.idle_threads, r.block - 1,
             count_noun(l, static_cast<unsigned long long>(r.idle_threads), "idle thread",
                        "idle threads", "个空闲线程"));
  }
  if (r.launch.idle_lanes_per_block > 0) {
    s += say(l,
             "  Warps: a block of {} fills {} of 32 lanes; {} of each block's last warp have no "
             "thread.\n  Blocks of a multiple of 32 threads waste no lanes.\n",
             "  线程束：{}的线程块占 {}个 32 通道的线程束；每个线程块最后一个线程束有 {} "
             "没有线程。\n  线程数取 32 的倍数就不会浪费通道。\n",
             threads(r.block), count_noun(l, r.launch.warps_per_block, "warp", "warps", ""),
             count_noun(l, r.launch.idle_lanes_per_block, "lane", "lanes", "个通道"));
  } else if (r.idle_threads > 0) {
    // Every lane holds a thread, but the idle threads above are in those lanes: say both.
    s += say(l,
             "  Warps: {} per block, {} in all; every lane holds a thread, but the {} above "
             "hold lanes too and do no work.\n",
             "  线程束：每个线程块 {} 个，共 {} 个；每个通道都有线程，但上面那 {} 也占着通道，"
             "却不做事。\n",
             r.launch.warps_per_block, group_thousands(r.launch.warps),
             count_noun(l, static_cast<unsigned long long>(r.idle_threads), "idle thread",
                        "idle threads", "个空闲线程"));
  } else {
    s += say(l, "  Warps: {} per block, {} in all, no idle lanes.\n",
             "  线程束：每个线程块 {} 个，共 {} 个，没有空闲通道。\n", r.launch.warps_per_block,
             group_thousands(r.launch.warps));
  }
  s += "\n";

  if (!r.table.empty()) {
    Table t({std::string(tr(l, "index", "下标")), std::string(tr(l, "block", "线程块")),
             std::string(tr(l, "thread", "线程")), "a", "b", "c"});
    long highlight = -1;
    std::int64_t previous = -1;
    for (const auto& e : r.table) {
      if (previous >= 0 && e.index != previous + 1) t.add_ellipsis();
      if (r.find && e.index == *r.find) highlight = static_cast<long>(t.rows());
      t.add_row(
          {std::to_string(e.index), std::to_string(e.block), std::to_string(e.thread),
           std::to_string(e.a), std::to_string(e.b),
           e.c == kPoison ? std::string(tr(l, "(unwritten)", "（未写入）")) : std::to_string(e.c)});
      previous = e.index;
    }
    if (previous >= 0 && previous != r.n - 1) t.add_ellipsis();
    s += t.render(st, 2, highlight);
    s += "\n";
  }
  if (r.find) {
    const std::int64_t f = *r.find;
    const std::int64_t blk = f / r.block, thr = f % r.block;
    s += say(l, "  Element {}: tid = blockIdx.x * blockDim.x + threadIdx.x = {} * {} + {} = {}\n",
             "  元素 {}：tid = blockIdx.x * blockDim.x + threadIdx.x = {} * {} + {} = {}\n", f, blk,
             r.block, thr, st.accent(std::to_string(f)));
    s += say(l,
             "    block {} and thread {} counting from 0 (the {} block's {} thread counting from "
             "1):\n"
             "    {} blocks of {} threads come before it.\n",
             "    从 0 数是线程块 {}、线程 {}（从 1 数是第 {} 个线程块的第 {} 个线程）：\n"
             "    它前面有 {} 个 {} 线程的线程块。\n",
             blk, thr, ordinal(blk + 1, l), ordinal(thr + 1, l), blk, r.block);
  }
  if (r.verified) {
    s += "  " +
         st.good(r.n == 1 ? say(l, "Verified: the {} element equals the host's a[i] + b[i].",
                                "已验证：全部 {} 个元素都等于主机算出的 a[i] + b[i]。", r.n)
                          : say(l, "Verified: all {} elements equal the host's a[i] + b[i].",
                                "已验证：全部 {} 个元素都等于主机算出的 a[i] + b[i]。",
                                group_thousands(static_cast<unsigned long long>(r.n)))) +
         "\n";
  } else {
    const auto& m = *r.first_mismatch;
    s += "  " +
         st.bad(say(l, "WRONG: {} of {} elements differ; first: c[{}] = {}, expected {} + {} = {}",
                    "错误：{} 个元素中有 {} 个不对；第一个：c[{}] = {}，应为 {} + {} = {}",
                    l == Lang::zh ? r.n : r.mismatches, l == Lang::zh ? r.mismatches : r.n, m.index,
                    m.c, m.a, m.b, m.a + m.b)) +
         "\n";
  }
  if (r.elided || r.n > kFullTableUpTo) {
    const double bytes = 3.0 * static_cast<double>(r.n) * sizeof(int);
    s += say(l,
             "  Times: host->device {} ms, kernel {} ms, device->host {} ms\n"
             "  Kernel bandwidth: 3 arrays x {} x 4 bytes = {} in {} ms = {} GB/s\n",
             "  时间：主机->设备 {} ms，核函数 {} ms，设备->主机 {} ms\n"
             "  核函数带宽：3 个数组 x {} x 4 字节 = {}，用时 {} ms = {} GB/s\n",
             measured(format_real(r.h2d_ms, 3)), measured(format_real(r.kernel_ms, 3)),
             measured(format_real(r.d2h_ms, 3)),
             group_thousands(static_cast<unsigned long long>(r.n)), format_bytes(bytes),
             measured(format_real(r.kernel_ms, 3)), measured(gbs_text(r.kernel_gbs)));
    s += hidden_times_note(l);
    if (r.backend == "cpu-emulator") {
      s += std::string(tr(l, "  (emulator times are CPU times; they say nothing about a GPU)\n",
                          "  （模拟器的时间是 CPU 时间，不代表 GPU）\n"));
    } else if (!r.bench) {
      s += std::string(cold_launch_note(l));
    }
  }
  if (r.bench) s += render_bench(*r.bench, st, l);
  s += emulator_notes(r.run, st, l);
  return s;
}

// One element of the table as JSON (found by argument-dependent lookup: a vector of elements
// converts to an array).
void to_json(nlohmann::json& j, const VecaddElement& e) {
  j = {{"index", e.index}, {"block", e.block}, {"thread", e.thread},
       {"a", e.a},         {"b", e.b},         {"c", e.c}};
}

nlohmann::json vecadd_json(const VecaddResult& r) {
  nlohmann::json j = {
      {"command", "vecadd"},
      {"n", r.n},
      {"block", r.block},
      {"grid", r.grid},
      {"seed", r.seed},
      {"threads", r.launch.threads},
      {"idle_threads", r.idle_threads},
      {"warps_per_block", r.launch.warps_per_block},
      {"idle_lanes_per_block", r.launch.idle_lanes_per_block},
      {"verified", r.verified},
      {"mismatches", r.mismatches},
      {"times_ms",
       {{"host_to_device", r.h2d_ms}, {"kernel", r.kernel_ms}, {"device_to_host", r.d2h_ms}}},
      {"kernel_bandwidth_gbs", r.kernel_gbs}};
  j.update(backend_json_fields(r.backend, r.device, r.run));
  if (r.bench) j["bench"] = bench_json(*r.bench);
  if (r.find) {
    j["find"] = {{"index", *r.find}, {"block", *r.find / r.block}, {"thread", *r.find % r.block}};
  }
  if (!r.elements.empty()) j["elements"] = r.elements;
  return j;
}

void setup_vecadd(CLI::App& app, GlobalOptions& g) {
  struct Raw {
    std::string n, block = "256", seed, find, show = "auto";
    bool source = false;
    BenchRaw bench;
  };
  const auto [sub, raw] = add_command<Raw>(
      app, g, "vecadd",
      {"Integer vector add: grid size, indices, the guard, verified",
       "整数向量加法：网格大小、索引、边界检查，并核对结果"},
      [&g](Raw& args) {
        // --source checks the other options too: a typo must not pass silently.
        if (args.n.empty() && !args.source)
          throw UsageError("vecadd needs --n N (how many elements)",
                           "vecadd 需要 --n N（多少个元素）");
        VecaddOptions o;
        o.n = args.n.empty()
                  ? INT_MAX
                  : parse_int("--n", args.n, 1, INT_MAX,
                              {"the kernel indexes elements with an int, as in the notes",
                               "内核和讲义中一样用 int 给元素编号"});
        o.block = parse_int("--block", args.block, 1,
                            static_cast<std::int64_t>(limits::kMaxThreadsPerBlock),
                            limits::why_threads_per_block());
        o.seed = pick_seed(args.seed);
        if (!args.find.empty()) {
          o.find = parse_int("--find", args.find, 0, o.n - 1,
                             both("an element index of the {} elements", "{} 个元素中的一个下标",
                                  group_thousands(static_cast<unsigned long long>(o.n))));
        }
        o.show = parse_show(args.show);
        const int reps = parse_bench_reps(args.bench);
        if (args.bench.bench) o.bench_reps = reps;
        if (args.source) return emit_sources(g, "vecadd", {"vecadd.cuh"});
        auto backend = open_backend(g);
        VecaddResult r = run_vecadd(o, *backend);
        emit_verified(g, vecadd_json(r), render_vecadd(r, g.out), r.verified,
                      {"vecadd: the result does not match the host reference",
                       "vecadd：结果与主机上的参考结果不符"});
      });
  needed(sub->add_option(
                "--n", raw->n,
                help_tr(g, "Number of elements, 1 to 2147483647", "元素个数，1 到 2147483647"))
             ->type_name("N"));
  sub->add_option("--block", raw->block,
                  help_tr(g, "Threads per block, 1 to 1024 (default 256)",
                          "每个线程块的线程数，1 到 1024（默认 256）"))
      ->type_name("B");
  add_seed_option(sub, raw->seed, g);
  sub->add_option("--find", raw->find,
                  help_tr(g, "Element to explain (default 21, the notes' example)",
                          "要解释的元素（默认 21，即讲义中的例子）"))
      ->type_name("I");
  add_show_option(sub, raw->show, g);
  add_bench_options(sub, raw->bench, g.out.lang);
  add_source_flag(sub, raw->source, g);
}

}  // namespace gpulab
