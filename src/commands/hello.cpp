// gpulab hello (see hello.hpp).
#include "commands/hello.hpp"

#include <fmt/format.h>

#include <cstdio>
#include <memory>
#include <set>
#include <utility>

#include "calc/launch_limits.hpp"
#include "core/capture.hpp"
#include "core/error.hpp"
#include "core/i18n_format.hpp"
#include "core/parse.hpp"
#include "core/text.hpp"

namespace gpulab {
namespace {

// Kernel printf goes through a fixed buffer on the GPU (1 MiB by default); thousands of lines
// also stop teaching anything.
constexpr std::int64_t kMaxLines = 4096;

}  // namespace

HelloResult run_hello(const HelloOptions& o, Backend& backend) {
  HelloResult r;
  r.blocks = o.blocks;
  r.threads = o.threads;
  const LaunchShape shape{{static_cast<std::uint64_t>(o.blocks), 1, 1},
                          {static_cast<std::uint64_t>(o.threads), 1, 1}};
  r.launch = calc::launch_facts(shape.grid, shape.block);
  {
    StdoutCapture capture;
    r.run = backend.hello(shape);  // synchronises: the device's printf buffer is flushed here
    std::string text = capture.finish();
    std::size_t start = 0;
    while (start < text.size()) {
      std::size_t nl = text.find('\n', start);
      if (nl == std::string::npos) nl = text.size();
      r.lines.push_back(text.substr(start, nl - start));
      start = nl + 1;
    }
  }
  r.backend = std::string(backend_name(backend.kind()));
  r.device = backend.device_name();

  // Check the lines: each (block, thread) exactly once, and whether they came in order.
  std::set<std::pair<unsigned, unsigned>> seen;
  std::pair<unsigned, unsigned> previous{0, 0};
  r.in_order = true;
  bool valid = true;
  for (std::size_t i = 0; i < r.lines.size(); ++i) {
    unsigned b = 0, t = 0;
    if (std::sscanf(r.lines[i].c_str(), "Hello from block %u, thread %u", &b, &t) != 2 ||
        b >= static_cast<unsigned>(o.blocks) || t >= static_cast<unsigned>(o.threads) ||
        !seen.insert({b, t}).second) {
      valid = false;
      continue;
    }
    if (i > 0 && std::make_pair(b, t) < previous) r.in_order = false;
    previous = {b, t};
  }
  r.complete = valid && seen.size() == static_cast<std::size_t>(o.blocks * o.threads);
  return r;
}

std::string render_hello(const HelloResult& r, const OutputOptions& out) {
  const Style st = style_for(out);
  const Lang l = out.lang;
  std::string s;
  // Say what really ran: on the emulator the kernel's threads were CPU fibers, not a GPU's.
  const bool gpu = r.backend == "cuda";
  s += st.heading(gpu ? say(l, "Hello from the GPU: {} ({})", "来自 GPU 的问候：{}（{}）", r.device,
                            r.backend)
                      : say(l, "Hello from the emulator: {} ({}; no GPU ran this kernel)",
                            "来自模拟器的问候：{}（{}；这个核函数没有在 GPU 上运行）", r.device,
                            r.backend)) +
       "\n";
  for (const auto& line : r.lines) s += "  " + st.code(line) + "\n";
  s += "\n";
  s += std::string(tr(l,
                      "  __global__ void hello_kernel()    a kernel: the CPU launches it, the GPU "
                      "runs it, once per thread.\n",
                      "  __global__ void hello_kernel()    核函数：由 CPU 启动、在 GPU "
                      "上执行，每个线程执行一次。\n"));
  // The launch's text grows with its numbers: pad it to the column of the other lines.
  s += "  " + pad_right(fmt::format("hello_kernel<<<{}, {}>>>()", r.blocks, r.threads), 34) +
       say(l, "{} x {} = {}, so {}.\n", "{} x {} = {}，所以有 {}。\n",
           count_noun(l, static_cast<unsigned long long>(r.blocks), "block", "blocks", "个线程块"),
           count_noun(l, static_cast<unsigned long long>(r.threads), "thread", "threads", "个线程"),
           count_noun(l, r.launch.threads, "thread", "threads", "个线程"),
           count_noun(l, r.launch.threads, "line", "lines", "行"));
  s += std::string(tr(l,
                      "  cudaDeviceSynchronize()           the launch returns at once, before the "
                      "GPU has run anything;\n"
                      "                                    kernel printf fills a buffer that the "
                      "host prints only when it\n"
                      "                                    waits for the GPU. Without the wait, "
                      "main() can end first and\n"
                      "                                    nothing is printed.\n",
                      "  cudaDeviceSynchronize()           启动核函数会立即返回，此时 GPU "
                      "还没执行；核函数里的 printf\n"
                      "                                    写入缓冲区，主机等待 GPU "
                      "时才打印。不等待的话 main() 可能先结束，\n"
                      "                                    什么也打印不出来。\n"));
  if (r.launch.warps > 1 || r.blocks > 1) {
    s += say(
        l,
        "  Order: {} in {}. Lines of different warps and blocks may come in any "
        "order;\n  this run they came {}. Never rely on the order.\n",
        "  顺序：{}，{}。不同线程束、不同线程块的输出顺序不确定；\n"
        "  这次运行{}。不要依赖这个顺序。\n",
        count_noun(l, r.launch.warps, "warp", "warps", "个线程束"),
        count_noun(l, static_cast<unsigned long long>(r.blocks), "block", "blocks", "个线程块"),
        r.in_order ? tr(l, "in order", "恰好按顺序输出") : tr(l, "out of order", "没有按顺序输出"));
  }
  if (!r.complete) {
    s += "  " +
         st.bad(std::string(
             tr(l, "Some threads' lines are missing or repeated.", "有线程的输出缺失或重复。"))) +
         "\n";
  }
  s += emulator_notes(r.run, st, l);
  return s;
}

nlohmann::json hello_json(const HelloResult& r) {
  nlohmann::json j = {{"command", "hello"},      {"blocks", r.blocks},
                      {"threads", r.threads},    {"total_threads", r.launch.threads},
                      {"warps", r.launch.warps}, {"lines", r.lines},
                      {"complete", r.complete},  {"in_order", r.in_order}};
  j.update(backend_json_fields(r.backend, r.device, r.run));
  return j;
}

void setup_hello(CLI::App& app, GlobalOptions& g) {
  struct Raw {
    std::string grid, block, blocks, threads;  // --blocks, --threads: hello's first names
    bool source = false;
  };
  const auto [sub, raw] = add_command<Raw>(
      app, g, "hello",
      {"Every thread of a kernel prints hello with its block and thread",
       "内核的每个线程都打印 hello，以及它的线程块号和线程号"},
      [&g](Raw& args) {
        // The names as typed, so that an error names what the user wrote.
        const auto [grid_name, grid] =
            renamed_option("--grid", args.grid, "--blocks", args.blocks, "1");
        const auto [block_name, block] =
            renamed_option("--block", args.block, "--threads", args.threads, "1");
        HelloOptions o;
        o.blocks = parse_int(grid_name, grid, 1, kMaxLines);
        o.threads =
            parse_int(block_name, block, 1, static_cast<std::int64_t>(limits::kMaxThreadsPerBlock),
                      limits::why_threads_per_block());
        if (o.blocks * o.threads > kMaxLines) {
          const std::string lines = group_thousands(o.blocks * o.threads);
          const std::string most = group_thousands(kMaxLines);
          throw UsageError(
              both("{} {} {} {}: {} lines is more than {} (kernel printf goes "
                   "through a 1 MiB buffer on the GPU, and that many lines teach "
                   "nothing more)",
                   "{} {} {} {}：{} 行超过了 {}（内核的 printf 经过 GPU 上 1 MiB "
                   "的缓冲区，而且更多的行也不会多教什么）",
                   grid_name, o.blocks, block_name, o.threads, lines, most));
        }
        if (args.source) return emit_sources(g, "hello", {"hello.cuh"});
        auto backend = open_backend(g);
        HelloResult r = run_hello(o, *backend);
        emit_verified(g, hello_json(r), render_hello(r, g.out), r.complete,
                      {"hello: not every thread's line came back exactly once",
                       "hello：并非每个线程的那一行都恰好回来一次"});
      });
  // --grid and --block as in index-map and vecadd (CUDA's gridDim and blockDim). hello's first
  // names, --blocks and --threads, keep working: hidden options, named in the help text.
  sub->add_option("--grid", raw->grid,
                  help_tr(g, "Blocks in the grid (default 1; also --blocks)",
                          "网格中的线程块数（默认 1；也可写 --blocks）"))
      ->type_name("G");
  sub->add_option("--block", raw->block,
                  help_tr(g, "Threads per block, 1 to 1024 (default 1; also --threads)",
                          "每个线程块的线程数，1 到 1024（默认 1；也可写 --threads）"))
      ->type_name("B");
  sub->add_option("--blocks", raw->blocks)->group("");
  sub->add_option("--threads", raw->threads)->group("");
  add_source_flag(sub, raw->source, g);
}

}  // namespace gpulab
