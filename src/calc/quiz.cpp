// Quiz generation and grading (see quiz.hpp).
#include "calc/quiz.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <random>

#include "calc/amdahl.hpp"
#include "calc/index_map.hpp"
#include "calc/launch_facts.hpp"
#include "calc/launch_limits.hpp"
#include "calc/occupancy.hpp"
#include "calc/warp_hiding.hpp"
#include "core/hash.hpp"
#include "core/i18n_format.hpp"
#include "core/input.hpp"
#include "core/text.hpp"

namespace gpulab::calc {
namespace {

using Gen = std::mt19937_64;

std::int64_t pick(Gen& g, std::int64_t lo, std::int64_t hi) {
  return std::uniform_int_distribution<std::int64_t>(lo, hi)(g);
}

template <class T>
T choose(Gen& g, const std::vector<T>& v) {
  return v[static_cast<std::size_t>(pick(g, 0, static_cast<std::int64_t>(v.size()) - 1))];
}

// A launch dimension drawn from lo..hi, or one of `sizes`; a block or thread coordinate below n.
std::uint64_t dim(Gen& g, std::int64_t lo, std::int64_t hi) {
  return static_cast<std::uint64_t>(pick(g, lo, hi));
}
std::uint64_t dim_of(Gen& g, const std::vector<std::int64_t>& sizes) {
  return static_cast<std::uint64_t>(choose(g, sizes));
}
std::uint64_t below(Gen& g, std::uint64_t n) {
  return static_cast<std::uint64_t>(pick(g, 0, static_cast<std::int64_t>(n) - 1));
}

std::string fmt_real(double v) {
  std::string s = fmt::format("{:.2f}", v);
  return s;
}

Question integer_q(std::string prompt, std::int64_t value, std::string solution) {
  Question q;
  q.prompt = std::move(prompt);
  q.kind = AnswerKind::integer;
  q.values = {static_cast<double>(value)};
  // Grouped as the student may type it back ("12,582,912"): grade() reads either form.
  q.answer = value >= 10'000 ? group_thousands(static_cast<unsigned long long>(value))
                             : std::to_string(value);
  q.solution = std::move(solution);
  return q;
}

// A question answered with one word ("yes", "shared", ...).
Question word_q(std::string prompt, std::string word, std::string solution) {
  Question q;
  q.prompt = std::move(prompt);
  q.kind = AnswerKind::word;
  q.word = std::move(word);
  q.answer = q.word;
  q.solution = std::move(solution);
  return q;
}

// A fact asked as a question in both languages, its one-word answer and, where the answer needs
// one, why.
struct WordFact {
  const char* en;
  const char* zh;
  const char* answer;
  const char* why_en = "";
  const char* why_zh = "";
};
template <std::size_t N>
const WordFact& pick_fact(Gen& g, const WordFact (&facts)[N]) {
  return facts[pick(g, 0, static_cast<std::int64_t>(N) - 1)];
}

Question warps_on_sm_q(Gen& g, Lang l) {
  const std::int64_t b = pick(g, 1, 8);
  const std::int64_t tpb =
      choose<std::int64_t>(g, {64, 96, 100, 128, 192, 200, 256, 384, 500, 512, 1024});
  const ResidentWarps w = warps_on_sm(b, tpb);
  return integer_q(
      say(l, "An SM is given {} blocks of {} threads. How many warps does it hold?",
          "一个 SM 分到 {} 个线程块，每块 {} 个线程。它上面有多少个线程束？", b, tpb),
      w.warps,
      say(l, "ceil({} / 32) = {} per block; {} x {} = {}", "每块 ceil({} / 32) = {}；{} x {} = {}",
          tpb, count_noun(l, w.warps_per_block, "warp", "warps", "个线程束"), b, w.warps_per_block,
          count_noun(l, w.warps, "warp", "warps", "个线程束")));
}

Question hide_latency_q(Gen& g, Lang l) {
  const std::int64_t lat = pick(g, 5, 40) * 20;
  const std::int64_t k = pick(g, 1, 8);
  const std::int64_t c = choose<std::int64_t>(g, {2, 4, 6, 8});
  const LatencyHiding h = warps_to_hide_latency(lat, k, c);
  return integer_q(
      say(l,
          "A global-memory read takes {} cycles; each warp then has {} independent "
          "operations of {} cycles. How many warps hide the latency?",
          "一次全局内存读取需要 {} 个周期；之后每个线程束有 {} 条独立运算，每条 {} 个周期。"
          "需要多少个线程束才能隐藏这个延迟？",
          lat, k, c),
      h.warps_needed,
      fmt::format("ceil({} / ({} x {})) = ceil({} / {}) = {}", lat, k, c, lat, h.work_cycles,
                  h.warps_needed));
}

Question blocks_needed_q(Gen& g, Lang l) {
  const std::int64_t n = pick(g, 100, 1'000'000);
  const std::int64_t b = choose<std::int64_t>(g, {32, 64, 128, 256, 512, 1024});
  const auto blocks = static_cast<std::int64_t>(
      blocks_for(static_cast<std::uint64_t>(n), static_cast<std::uint64_t>(b)));
  return integer_q(
      say(l, "A vector of {} elements, one thread each, {} threads per block. How many blocks?",
          "向量有 {} 个元素，每个线程处理一个，每块 {} 个线程。需要多少个线程块？",
          format_integer(n), b),
      blocks,
      fmt::format("(N + B - 1) / B = ({} + {} - 1) / {} = {}", format_integer(n), b, b,
                  format_integer(blocks)));
}

Question find_1d_q(Gen& g, Lang l) {
  const std::int64_t b = choose<std::int64_t>(g, {8, 16, 32, 64, 128, 256});
  const std::int64_t i = pick(g, b, 20 * b);
  Question q;
  q.prompt =
      say(l,
          "A one-dimensional launch, blocks of {} threads. Which block and thread handle "
          "element {}? Answer as block,thread",
          "一维，每块 {} 个线程。元素 {} 由哪个线程块的哪个线程处理？按 线程块,线程 作答", b, i);
  q.kind = AnswerKind::tuple;
  q.values = {static_cast<double>(i / b), static_cast<double>(i % b)};
  q.answer = fmt::format("{},{}", i / b, i % b);
  q.solution = say(l, "block = {} / {} = {}, thread = {} % {} = {}; check: {} * {} + {} = {}",
                   "线程块 = {} / {} = {}，线程 = {} % {} = {}；验算：{} * {} + {} = {}", i, b,
                   i / b, i, b, i % b, i / b, b, i % b, i);
  return q;
}

Question find_2d_q(Gen& g, Lang l) {
  const Shape grid{dim(g, 2, 4), dim(g, 2, 4), 1};
  const Shape block{dim_of(g, {2, 3, 4, 8}), dim_of(g, {2, 3, 4}), 1};
  const std::uint64_t i = static_cast<std::uint64_t>(
      pick(g, 0, static_cast<std::int64_t>(grid.volume() * block.volume()) - 1));
  const ThreadPlace p = place_of_index(grid, block, i);
  Question q;
  q.prompt =
      say(l,
          "gridDim = ({}, {}), blockDim = ({}, {}), threads numbered block by block. Which "
          "thread has "
          "global index {}? Answer as blockIdx.x,blockIdx.y,threadIdx.x,threadIdx.y",
          "gridDim = ({}, {})，blockDim = ({}, {})，线程逐块编号。全局索引为 {} 的是哪个线程？"
          "按 blockIdx.x,blockIdx.y,threadIdx.x,threadIdx.y 作答",
          grid.x, grid.y, block.x, block.y, i);
  q.kind = AnswerKind::tuple;
  q.values = {static_cast<double>(p.block.x), static_cast<double>(p.block.y),
              static_cast<double>(p.thread.x), static_cast<double>(p.thread.y)};
  q.answer = fmt::format("{},{},{},{}", p.block.x, p.block.y, p.thread.x, p.thread.y);
  q.solution =
      say(l,
          "{} / {} = block {} rem {}; block {} = ({} % {}, {} / {}) = ({}, {}); thread "
          "{} = ({} % {}, {} / {}) = ({}, {})",
          "{} / {} = 第 {} 块余 {}；线程块 {} = ({} % {}, {} / {}) = ({}, {})；线程 "
          "{} = ({} % {}, {} / {}) = ({}, {})",
          i, block.volume(), p.block_linear, p.thread_linear, p.block_linear, p.block_linear,
          grid.x, p.block_linear, grid.x, p.block.x, p.block.y, p.thread_linear, p.thread_linear,
          block.x, p.thread_linear, block.x, p.thread.x, p.thread.y);
  return q;
}

Question global_index_q(Gen& g, Lang l) {
  const Shape grid{dim(g, 2, 6), dim(g, 2, 6), 1};
  const Shape block{dim_of(g, {4, 8, 16, 32}), dim_of(g, {2, 4, 8}), 1};
  const Coord b{below(g, grid.x), below(g, grid.y), 0};
  const Coord th{below(g, block.x), below(g, block.y), 0};
  const ThreadPlace p = place_of(grid, block, b, th);
  return integer_q(
      say(l,
          "gridDim = ({}, {}), blockDim = ({}, {}). What is the global index (block by block) "
          "of "
          "blockIdx = ({}, {}), threadIdx = ({}, {})?",
          "gridDim = ({}, {})，blockDim = ({}, {})。blockIdx = ({}, {})、threadIdx = ({}, {}) "
          "的线程全局索引（逐块编号）是多少？",
          grid.x, grid.y, block.x, block.y, b.x, b.y, th.x, th.y),
      static_cast<std::int64_t>(p.global),
      fmt::format("({} + {} * {}) * ({} * {}) + ({} + {} * {}) = {} * {} + {} = {}", b.x, b.y,
                  grid.x, block.x, block.y, th.x, th.y, block.x, p.block_linear, block.volume(),
                  p.thread_linear, p.global));
}

Question amdahl_speedup_q(Gen& g, Lang l) {
  const double p = choose<double>(g, {0.5, 0.6, 0.75, 0.8, 0.9, 0.95, 0.99});
  const std::int64_t n = choose<std::int64_t>(g, {2, 4, 8, 10, 16, 32, 64, 100, 1000});
  const double s = amdahl_speedup(p, static_cast<double>(n));
  Question q;
  q.prompt =
      say(l,
          "A program is {:g}% parallel. What speedup does Amdahl's law give on {} "
          "processors? (2 decimals)",
          "程序的 {:g}% 可以并行。按阿姆达尔定律，{} 个处理器的加速比是多少？（保留 2 位小数）",
          p * 100, n);
  q.kind = AnswerKind::real;
  q.values = {s};
  q.tolerance = 0.01;
  q.answer = fmt_real(s);
  q.solution = fmt::format("1 / ({:g}/{} + {:g}) = {}", p, n, 1 - p, fmt_real(s));
  return q;
}

Question amdahl_limit_q(Gen& g, Lang l) {
  const double p = choose<double>(g, {0.5, 0.75, 0.8, 0.9, 0.95, 0.98, 0.99});
  const double lim = amdahl_limit(p);
  Question q;
  q.prompt = say(l,
                 "A program is {:g}% parallel. What is the most speedup any number of "
                 "processors can give?",
                 "程序的 {:g}% 可以并行。无论多少处理器，加速比最多是多少？", p * 100);
  q.kind = AnswerKind::real;
  q.values = {lim};
  q.tolerance = 0.01;
  q.answer = fmt_real(lim);
  q.solution = fmt::format("1 / (1 - {:g}) = 1 / {:g} = {}", p, 1 - p, fmt_real(lim));
  return q;
}

// check_launch's reason in Chinese, checked in the same order (its own text is English).
std::string launch_problem_zh(const Shape& grid, const Shape& block) {
  using namespace limits;
  if (block.volume() > kMaxThreadsPerBlock) {
    return fmt::format("{}x{}x{} = {} 个线程，超过每个线程块 {} 个线程的上限", block.x, block.y,
                       block.z, block.volume(), kMaxThreadsPerBlock);
  }
  const char axis[] = {'x', 'y', 'z'};
  const std::uint64_t b[] = {block.x, block.y, block.z},
                      bmax[] = {kMaxBlockX, kMaxBlockY, kMaxBlockZ};
  const std::uint64_t gd[] = {grid.x, grid.y, grid.z}, gmax[] = {kMaxGridX, kMaxGridY, kMaxGridZ};
  for (int i = 0; i < 3; ++i)
    if (b[i] > bmax[i])
      return fmt::format("线程块的 {} 维 = {}，超过上限 {}", axis[i], b[i], bmax[i]);
  for (int i = 0; i < 3; ++i)
    if (gd[i] > gmax[i])
      return fmt::format("网格的 {} 维 = {}，超过上限 {}", axis[i], gd[i], gmax[i]);
  return "维度为 0";  // the generator never makes one
}

Question launch_legal_q(Gen& g, Lang l) {
  Shape block, grid{1, 1, 1};
  switch (pick(g, 0, 5)) {
    case 0:
      block = {dim_of(g, {512, 1024, 1025, 2048}), 1, 1};
      break;
    case 1:
      block = {32, dim_of(g, {16, 32, 33}), 1};
      break;
    case 2:
      block = {1, 1, dim_of(g, {32, 64, 65, 128})};
      break;
    case 3:
      block = {256, 1, 1};
      grid = {1, dim_of(g, {65535, 65536, 100000}), 1};
      break;
    case 4:
      block = {128, 1, 1};
      grid = {dim_of(g, {65536, 2147483647LL, 2147483648LL}), 1, 1};
      break;
    default:
      block = {16, 16, dim_of(g, {2, 4, 5})};
      break;
  }
  auto problem = limits::check_launch(grid, block);
  if (problem && l == Lang::zh) problem = launch_problem_zh(grid, block);
  return word_q(
      say(l, "Is the launch kernel<<<dim3({}, {}, {}), dim3({}, {}, {})>>> legal? (yes/no)",
          "启动 kernel<<<dim3({}, {}, {}), dim3({}, {}, {})>>> 合法吗？（yes/no）", grid.x, grid.y,
          grid.z, block.x, block.y, block.z),
      problem ? "no" : "yes",
      problem ? *problem
              : say(l,
                    "{} threads per block and every dimension within (1024, 1024, 64) "
                    "and (2^31-1, 65535, 65535)",
                    "每块 {} 个线程，各维都在 (1024, 1024, 64) 和 (2^31-1, 65535, 65535) 之内",
                    block.volume()));
}

Question bytes_moved_q(Gen& g, Lang l) {
  const std::int64_t n = pick(g, 1, 64) * 1024 * 1024;
  // vecadd reads a and b and writes c; the two-norm reads a and b once.
  const bool vecadd = pick(g, 0, 1) == 0;
  const std::int64_t bytes = (vecadd ? 3 : 2) * n * 4;
  const std::string count = format_integer(n);
  if (vecadd) {
    return integer_q(
        say(l,
            "vecadd on {} int elements (4 bytes each): how many bytes must move "
            "through device memory at the least?",
            "对 {} 个 int 元素（每个 4 字节）做 vecadd：至少要经过显存搬运多少字节？", count),
        bytes,
        say(l, "read a and b, write c: 3 x {} x 4 = {}", "读 a 和 b、写 c：3 x {} x 4 = {}", count,
            format_integer(bytes)));
  }
  return integer_q(
      say(l,
          "The two-norm distance of two float matrices of {} elements each: how "
          "many bytes must it read from device memory at the least?",
          "两个各 {} 个元素的 float 矩阵求二范数距离：至少要从显存读取多少字节？", count),
      bytes,
      say(l, "read a and b once: 2 x {} x 4 = {}", "a 和 b 各读一次：2 x {} x 4 = {}", count,
          format_integer(bytes)));
}

Question idle_lanes_q(Gen& g, Lang l) {
  const std::int64_t tpb = pick(g, 1, 1024);
  const ResidentWarps w = warps_on_sm(1, tpb);
  return integer_q(
      say(l, "A block has {} threads. How many lanes of its last warp have no thread?",
          "一个线程块有 {} 个线程。它最后一个线程束有多少个通道没有线程？", tpb),
      w.idle_lanes_per_block,
      say(l, "ceil({} / 32) = {} warps = {} lanes; {} - {} = {}",
          "ceil({} / 32) = {} 个线程束 = {} 个通道；{} - {} = {}", tpb, w.warps_per_block,
          w.warps_per_block * 32, w.warps_per_block * 32, tpb, w.idle_lanes_per_block));
}

// Occupancy on an H100 (compute capability 9.0), with the facts the answer needs in the prompt.
Question occupancy_registers_q(Gen& g, Lang l) {
  const int threads = static_cast<int>(choose<std::int64_t>(g, {64, 128, 192, 256, 384, 512, 768}));
  const int regs =
      static_cast<int>(choose<std::int64_t>(g, {16, 24, 32, 40, 48, 56, 64, 72, 80, 96, 128, 168}));
  const Occupancy o = occupancy(*arch_info(9, 0), {threads, regs, 0, 0, std::nullopt});
  return integer_q(
      say(l,
          "An H100 SM holds 64 warps and 32 blocks; its 65,536 registers sit in 4 "
          "sub-partitions of 16,384, handed out per warp in units of 256. A kernel uses {} "
          "registers per thread, in blocks of {} threads. How many blocks fit on one SM?",
          "H100 的一个 SM 最多容纳 64 个线程束、32 个线程块；它的 65,536 个寄存器分在 4 个"
          "子分区（每个 16,384），按线程束以 256 为单位分配。某核函数每线程用 {} 个寄存器，"
          "每块 {} 个线程。一个 SM 能放下几个线程块？",
          regs, threads),
      o.blocks,
      say(l,
          "{} x 32 = {} -> {} per warp; 16384 / {} = {} warps x 4 = {}; "
          "{} warps per block: min({} / {}, 64 / {}, 32) = {}",
          "{} x 32 = {} -> 每线程束 {}；16384 / {} = {} 个线程束 x 4 = {}；"
          "每块 {} 个线程束：min({} / {}, 64 / {}, 32) = {}",
          regs, o.registers_per_warp, o.registers_per_warp_allocated,
          o.registers_per_warp_allocated, o.warps_per_partition, o.warps_by_registers,
          o.warps_per_block, o.warps_by_registers, o.warps_per_block, o.warps_per_block, o.blocks));
}

Question occupancy_shared_q(Gen& g, Lang l) {
  const int threads = static_cast<int>(choose<std::int64_t>(g, {64, 128, 256}));
  const auto kib = choose<std::int64_t>(g, {2, 4, 6, 8, 12, 16, 20, 24, 32, 40, 48});
  const Occupancy o = occupancy(*arch_info(9, 0), {threads, 0, kib * 1024, 0, std::nullopt});
  return integer_q(say(l,
                       "An H100 SM has 228 KiB of shared memory, holds 64 warps and 32 blocks, "
                       "and the driver keeps 1 KiB of shared memory per block. Blocks of {} "
                       "threads each use {} KiB of shared memory. How many blocks fit on one SM?",
                       "H100 的一个 SM 有 228 KiB 共享内存，最多容纳 64 个线程束、32 个线程块，"
                       "驱动为每个线程块保留 1 KiB 共享内存。每块 {} 个线程、用 {} KiB "
                       "共享内存。一个 SM 能放下几个线程块？",
                       threads, kib),
                   o.blocks,
                   fmt::format("min(floor(228 / ({} + 1)), 64 / {}, 32) = min({}, {}, 32) = {}",
                               kib, o.warps_per_block, o.limit_shared, o.limit_warps, o.blocks));
}

Question global_index_3d_q(Gen& g, Lang l) {
  const Shape grid{dim(g, 2, 4), dim(g, 2, 3), dim(g, 2, 3)};
  const Shape block{dim_of(g, {2, 4, 8}), dim(g, 2, 4), dim(g, 2, 4)};
  const Coord b{below(g, grid.x), below(g, grid.y), below(g, grid.z)};
  const Coord th{below(g, block.x), below(g, block.y), below(g, block.z)};
  const ThreadPlace p = place_of(grid, block, b, th);
  return integer_q(
      say(l,
          "gridDim = ({}, {}, {}), blockDim = ({}, {}, {}). What is the global "
          "index (block by block) of blockIdx = ({}, {}, {}), threadIdx = ({}, {}, "
          "{})?",
          "gridDim = ({}, {}, {})，blockDim = ({}, {}, {})。blockIdx = ({}, {}, {})、"
          "threadIdx = ({}, {}, {}) 的线程全局索引（逐块编号）是多少？",
          grid.x, grid.y, grid.z, block.x, block.y, block.z, b.x, b.y, b.z, th.x, th.y, th.z),
      static_cast<std::int64_t>(p.global),
      say(l,
          "block {} + {} x {} + {} x {} x {} = {}; thread {} + {} x {} + {} x "
          "{} x {} = {}; {} x {} + {} = {}",
          "线程块 {} + {} x {} + {} x {} x {} = {}；线程 {} + {} x {} + {} x "
          "{} x {} = {}；{} x {} + {} = {}",
          b.x, b.y, grid.x, b.z, grid.x, grid.y, p.block_linear, th.x, th.y, block.x, th.z, block.x,
          block.y, p.thread_linear, p.block_linear, block.volume(), p.thread_linear, p.global));
}

// Shared memory a static __shared__ array takes: elements times the element's size.
constexpr std::int64_t kStaticSharedLimit = 48 * 1024;
Question shared_bytes_q(Gen& g, Lang l) {
  struct Type {
    const char* name;
    std::int64_t size;
  };
  const Type type = choose<Type>(
      g, {{"float", 4}, {"double", 8}, {"int", 4}, {"__half", 2}, {"char", 1}, {"float4", 16}});
  // Only arrays that compile: static __shared__ memory is at most 48 KB (49,152 bytes) per block.
  std::vector<std::int64_t> sizes;
  for (std::int64_t r : {8, 16, 32, 64})
    if (r * (r + 1) * type.size <= kStaticSharedLimit) sizes.push_back(r);
  const std::int64_t rows = choose<std::int64_t>(g, sizes);
  const std::int64_t pad = pick(g, 0, 1);
  const std::int64_t cols = rows + pad;
  const std::int64_t bytes = rows * cols * type.size;
  return integer_q(
      say(l,
          "A kernel declares __shared__ {} tile[{}][{}]; ({} is {} "
          "bytes). How many bytes of shared memory does each block use "
          "for it?",
          "核函数声明 __shared__ {} tile[{}][{}];（{} 占 {} 字节）。每个线程块"
          "为它使用多少字节共享内存？",
          type.name, rows, cols, type.name, type.size),
      bytes,
      say(l, "{} x {} elements x {} bytes = {} bytes{}", "{} x {} 个元素 x {} 字节 = {} 字节{}",
          rows, cols, type.size, group_thousands(static_cast<unsigned long long>(bytes)),
          pad == 1
              ? say(l, " (the +1 column avoids bank conflicts)", "（多出的一列用来避免存储体冲突）")
              : std::string()));
}

// A write to shared memory, then a read of another thread's element, with or without a barrier.
Question race_barrier_q(Gen& g, Lang l) {
  const std::int64_t b = choose<std::int64_t>(g, {64, 128, 256});
  const std::int64_t k = choose<std::int64_t>(g, {0, 1, 31, 32, b / 2, b});
  const bool barrier = pick(g, 0, 1) == 1;
  const bool race = !barrier && k % b != 0;
  Question q = word_q(say(l,
                          "Blocks of {} threads run: s[threadIdx.x] = in[i]; {}x = s[(threadIdx.x "
                          "+ {}) % {}]; with __shared__ float s[{}]. Is there a data race on s? "
                          "(yes/no)",
                          "每块 {} 个线程执行：s[threadIdx.x] = in[i]; {}x = s[(threadIdx.x + {}) "
                          "% {}];，其中 __shared__ float s[{}]。s 上有数据竞争吗？（yes/no）",
                          b, barrier ? "__syncthreads(); " : "", k, b, b),
                      race ? "yes" : "no", "");
  if (barrier) {
    q.solution = say(l, "no: __syncthreads() orders every write before every read",
                     "没有：__syncthreads() 让所有写入都在所有读取之前完成");
  } else if (!race) {
    q.solution = say(l,
                     "no: (x + {0}) % {1} = x, each thread reads only the "
                     "element it wrote itself",
                     "没有：(x + {0}) % {1} = x，每个线程只读自己写的元素", k, b);
  } else {
    q.solution =
        say(l,
            "yes: a thread reads another thread's element with no __syncthreads() "
            "between the write and the read; the other thread may not have written yet",
            "有：线程读取另一个线程的元素，写和读之间没有 __syncthreads()，对方可能还没写");
  }
  return q;
}

// Warps whose 32 lanes split over both sides of a branch.
Question divergence_q(Gen& g, Lang l) {
  const std::int64_t threads = choose<std::int64_t>(g, {64, 128, 256, 512});
  const std::int64_t warps = threads / 32;
  std::int64_t diverging = 0;
  std::string cond, why;
  if (pick(g, 0, 1) == 0) {
    const std::int64_t k = choose<std::int64_t>(g, {1, 2, 8, 32, 64, 128});
    cond = fmt::format("threadIdx.x % {} == 0", k);
    // A warp starts at a multiple of 32: for k <= 32 its first lane is a multiple of k and, for
    // k > 1, its second is not; for k > 32 only the warps starting at a multiple of k have one.
    if (k == 1) {
      diverging = 0;
      why =
          say(l, "every thread takes the if: no warp diverges", "所有线程都走 if：没有线程束分化");
    } else if (k <= 32) {
      diverging = warps;
      why = say(l, "every warp has lanes on both sides: {} warps",
                "每个线程束两边都有通道：{} 个线程束", warps);
    } else {
      diverging = (threads + k - 1) / k;
      why = say(l, "only warps starting at a multiple of {} hold one: ceil({} / {}) = {}",
                "只有起点是 {} 的倍数的线程束含这样的线程：ceil({} / {}) = {}", k, threads, k,
                diverging);
    }
  } else {
    const std::int64_t c = pick(g, 1, threads - 1);
    cond = fmt::format("threadIdx.x < {}", c);
    diverging = c % 32 == 0 ? 0 : 1;
    why = c % 32 == 0 ? say(l, "{} is a multiple of 32: the split falls between warps",
                            "{} 是 32 的倍数：分界正好落在线程束之间", c)
                      : say(l, "only warp {} = {} / 32 holds the split",
                            "只有第 {} = {} / 32 个线程束（从 0 计）跨越分界", c / 32, c);
  }
  return integer_q(say(l,
                       "A block of {} threads runs if ({}) a(); else b();. How many of "
                       "its warps have threads on both paths (diverge)?",
                       "一个 {} 线程的线程块执行 if ({}) a(); else b();。它有多少个线程束"
                       "两条路径上都有线程（发生分化）？",
                       threads, cond),
                   diverging, why);
}

Question reduction_q(Gen& g, Lang l) {
  switch (pick(g, 0, 2)) {
    case 0: {
      const std::int64_t log = pick(g, 5, 12);
      const std::int64_t n = std::int64_t{1} << log;
      return integer_q(say(l,
                           "A tree reduction in shared memory sums {} values, halving "
                           "the active threads each step. How many steps does it take?",
                           "共享内存中的树形归约对 {} 个值求和，每步活跃线程减半。需要多少步？",
                           group_thousands(static_cast<unsigned long long>(n))),
                       log, fmt::format("log2({}) = {}", n, log));
    }
    case 1: {
      const std::int64_t n = std::int64_t{1} << pick(g, 4, 12);
      return integer_q(say(l,
                           "A tree reduction sums {} values pairwise down to one. How "
                           "many additions does it do in all?",
                           "树形归约把 {} 个值两两相加直到剩一个。一共做多少次加法？",
                           group_thousands(static_cast<unsigned long long>(n))),
                       n - 1,
                       say(l, "{} / 2 + {} / 4 + ... + 1 = {} - 1 = {}",
                           "{} / 2 + {} / 4 + ... + 1 = {} - 1 = {}", n, n, n, n - 1));
    }
    default: {
      const std::int64_t n = pick(g, 10'000, 10'000'000);
      const std::int64_t b = choose<std::int64_t>(g, {128, 256, 512, 1024});
      const std::int64_t e = choose<std::int64_t>(g, {1, 2, 4, 8});
      const std::int64_t blocks = (n + b * e - 1) / (b * e);
      return integer_q(say(l,
                           "{} values, blocks of {} threads, each thread first adds {} "
                           "values, each block writes one partial sum. How many partial "
                           "sums are there?",
                           "{} 个值，每块 {} 个线程，每个线程先加 {} 个值，每个线程块写出一个"
                           "部分和。共有多少个部分和？",
                           group_thousands(static_cast<unsigned long long>(n)), b, e),
                       blocks, fmt::format("ceil({} / ({} x {})) = {}", n, b, e, blocks));
    }
  }
}

// Which memory: facts about the hierarchy, answered with one of its names.
Question memory_hierarchy_q(Gen& g, Lang l) {
  static const WordFact facts[] = {
      {"A variable declared __shared__ in a kernel, seen by every thread of its block and "
       "living as long as the block: which memory?",
       "核函数中用 __shared__ 声明的变量，块内所有线程可见，与线程块同生命周期：在哪种内存？",
       "shared"},
      {"A plain scalar like int i in a kernel, private to its thread and the fastest of all: which "
       "memory does the compiler keep it in?",
       "核函数中的普通标量（如 int i），线程私有且最快：编译器把它放在哪种内存？", "registers"},
      {"Registers that ptxas spills, or a per-thread array indexed at run time: private to the "
       "thread but held in device DRAM. Which memory?",
       "ptxas 溢出的寄存器，或运行时下标访问的线程私有数组：线程私有但位于显存。是哪种内存？",
       "local"},
      {"Memory that every thread of every block can read and write, and that cudaMemcpy fills: "
       "which memory?",
       "所有线程块的所有线程都能读写、cudaMemcpy 负责填充的内存：是哪种内存？", "global"},
      {"Read-only memory of 64 KB, filled with cudaMemcpyToSymbol, fastest when the whole warp "
       "reads one address: which memory?",
       "64 KB 只读内存，用 cudaMemcpyToSymbol 填充，整个线程束读同一地址时最快：是哪种内存？",
       "constant"},
      {"Which memory is private to one thread and needs no load or store instruction at all?",
       "哪种内存属于单个线程私有，并且完全不需要加载或存储指令？", "registers"},
  };
  const std::vector<std::string> choices = {"registers", "local", "shared", "constant", "global"};
  const WordFact& f = pick_fact(g, facts);
  Question q = word_q(
      fmt::format("{} ({})", l == Lang::zh ? f.zh : f.en, fmt::join(choices, "/")), f.answer,
      say(l, "{}: see lesson 08 (the memory hierarchy)", "{}：见第 08 课（内存层次）", f.answer));
  q.choices = choices;
  return q;
}

// The rules a PyTorch extension's wrapper must check before it hands data_ptr() to a kernel.
Question pytorch_rules_q(Gen& g, Lang l) {
  const std::int64_t kind = pick(g, 0, 2);
  if (kind < 2) {
    const std::int64_t r = pick(g, 2, 64), c = pick(g, 2, 64);
    const std::int64_t i = pick(g, 0, r - 1), j = pick(g, 0, c - 1);
    if (kind == 0) {
      return integer_q(say(l,
                           "x is a contiguous float32 CUDA tensor of shape ({}, {}). "
                           "Which offset from x.data_ptr<float>() holds x[{}][{}]?",
                           "x 是形状为 ({}, {}) 的连续 float32 CUDA 张量。x[{}][{}] 在 "
                           "x.data_ptr<float>() 之后的第几个元素？",
                           r, c, i, j),
                       i * c + j, fmt::format("{} x {} + {} = {}", i, c, j, i * c + j));
    }
    const std::int64_t d = pick(g, 2, 8), k = pick(g, 0, d - 1);
    const std::int64_t off = (i * c + j) * d + k;
    return integer_q(say(l,
                         "x is a contiguous tensor of shape ({}, {}, {}). Which offset "
                         "from x.data_ptr() (in elements) holds x[{}][{}][{}]?",
                         "x 是形状为 ({}, {}, {}) 的连续张量。x[{}][{}][{}] 在 "
                         "x.data_ptr() 之后的第几个元素？",
                         r, c, d, i, j, k),
                     off, fmt::format("({} x {} + {}) x {} + {} = {}", i, c, j, d, k, off));
  }
  static const WordFact rules[] = {
      {"x = torch.randn(64, 32, device='cuda').t(). May a kernel read x.data_ptr<float>() as a "
       "row-major 32 x 64 array without calling .contiguous()? (yes/no)",
       "x = torch.randn(64, 32, device='cuda').t()。不调用 .contiguous()，核函数能把 "
       "x.data_ptr<float>() 当作行优先的 32 x 64 数组读取吗？（yes/no）",
       "no", "t() only swaps the strides; the data stays 64 x 32 row-major",
       "t() 只交换步长，数据仍是 64 x 32 行优先"},
      {"x is a float32 tensor on the CPU. May its data_ptr() be passed to a CUDA kernel? "
       "(yes/no)",
       "x 是 CPU 上的 float32 张量。能把它的 data_ptr() 传给 CUDA 核函数吗？（yes/no）", "no",
       "a host pointer: check x.is_cuda() (TORCH_CHECK) first",
       "那是主机指针：先用 TORCH_CHECK 检查 x.is_cuda()"},
      {"x.dtype is torch.float64. Is x.data_ptr<float>() allowed? (yes/no)",
       "x.dtype 是 torch.float64。可以调用 x.data_ptr<float>() 吗？（yes/no）", "no",
       "data_ptr<T>() checks the dtype and throws: float64 is double",
       "data_ptr<T>() 会检查类型并抛出异常：float64 对应 double"},
      {"x is float32, on the GPU and contiguous. May the kernel read x.data_ptr<float>()[0] to "
       "[x.numel() - 1]? (yes/no)",
       "x 是 float32、在 GPU 上且连续。核函数可以读取 x.data_ptr<float>()[0] 到 "
       "[x.numel() - 1] 吗？（yes/no）",
       "yes", "all three checks hold, and numel() elements follow data_ptr()",
       "三项检查都满足，data_ptr() 之后正好有 numel() 个元素"},
  };
  const WordFact& r = pick_fact(g, rules);
  return word_q(l == Lang::zh ? r.zh : r.en, r.answer, l == Lang::zh ? r.why_zh : r.why_en);
}

using Maker = Question (*)(Gen&, Lang);
struct Topic {
  const char* name;
  const char* group;  // --topic may name a group: every topic in it
  Maker make;
};
// In the order the course meets them.
const Topic kTopics[] = {
    {"amdahl-speedup", "amdahl", amdahl_speedup_q},
    {"amdahl-limit", "amdahl", amdahl_limit_q},
    {"warps-on-sm", "warps", warps_on_sm_q},
    {"idle-lanes", "warps", idle_lanes_q},
    {"hide-latency", "warps", hide_latency_q},
    {"divergence", "divergence", divergence_q},
    {"memory-hierarchy", "memory", memory_hierarchy_q},
    {"bytes-moved", "memory", bytes_moved_q},
    {"occupancy-registers", "occupancy", occupancy_registers_q},
    {"occupancy-shared", "occupancy", occupancy_shared_q},
    {"blocks-needed", "indexing", blocks_needed_q},
    {"find-1d", "indexing", find_1d_q},
    {"find-2d", "indexing", find_2d_q},
    {"global-index", "indexing", global_index_q},
    {"global-index-3d", "indexing", global_index_3d_q},
    {"launch-legal", "launch", launch_legal_q},
    {"shared-bytes", "shared-memory", shared_bytes_q},
    {"race-barrier", "races", race_barrier_q},
    {"reduction", "reductions", reduction_q},
    {"pytorch-rules", "pytorch", pytorch_rules_q},
};

// Why a number could not be read, in the student's language.
std::string number_note(NumberRead why, std::string_view s, Lang l) {
  if (why == NumberRead::bad_grouping) {
    return say(l, "'{}': a comma may only group digits by three (12,345)",
               "'{}'：逗号只能用于每三位数字分组（如 12,345）", printable(s));
  }
  return say(l, "'{}' is not a number", "'{}' 不是数字", printable(s));
}

}  // namespace

const std::vector<std::string>& quiz_topics() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> v;
    for (const auto& tp : kTopics) v.emplace_back(tp.name);
    return v;
  }();
  return names;
}

const std::vector<std::string>& quiz_groups() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> v;
    for (const auto& tp : kTopics)
      if (std::find(v.begin(), v.end(), tp.group) == v.end()) v.emplace_back(tp.group);
    return v;
  }();
  return names;
}

std::string topic_group(std::string_view topic) {
  for (const auto& tp : kTopics)
    if (topic == tp.name) return tp.group;
  return {};
}

std::optional<std::vector<std::string>> select_topics(std::string_view spec) {
  std::vector<std::string> out;
  bool all = false;
  std::size_t start = 0;
  while (start <= spec.size()) {
    std::size_t comma = spec.find(',', start);
    if (comma == std::string_view::npos) comma = spec.size();
    std::string_view name = spec.substr(start, comma - start);
    while (!name.empty() && name.front() == ' ') name.remove_prefix(1);
    while (!name.empty() && name.back() == ' ') name.remove_suffix(1);
    start = comma + 1;
    if (name.empty()) continue;
    bool known = name == "all";
    all = all || known;
    for (const auto& tp : kTopics) {
      if (name == tp.name || name == tp.group) {
        known = true;
        if (std::find(out.begin(), out.end(), tp.name) == out.end()) out.emplace_back(tp.name);
      }
    }
    if (!known) return std::nullopt;
  }
  if (all || out.empty()) return quiz_topics();
  // In the course's order, whatever the order they were named in.
  std::vector<std::string> ordered;
  for (const auto& tp : kTopics)
    if (std::find(out.begin(), out.end(), tp.name) != out.end()) ordered.emplace_back(tp.name);
  return ordered;
}

std::uint64_t quiz_seed(std::string_view text) {
  if (!text.empty() && text.size() <= 19 &&
      std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    std::uint64_t v = 0;
    auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec == std::errc{} && p == text.data() + text.size() && v <= 0x7FFF'FFFF'FFFF'FFFFull)
      return v;
  }
  return fnv1a(text) & 0x7FFF'FFFF'FFFF'FFFFull;
}

std::vector<std::string> quiz_order(const std::vector<std::string>& topics, int count,
                                    std::uint64_t seed) {
  // The groups in a seeded order, each round taking the next topic of every group in turn, so
  // that the first questions reach as many groups as there are questions.
  std::vector<std::string> groups;
  for (const auto& tp : topics) {
    const std::string grp = topic_group(tp);
    if (std::find(groups.begin(), groups.end(), grp) == groups.end()) groups.push_back(grp);
  }
  std::vector<std::string> out;
  if (groups.empty() || count <= 0) return out;
  Gen gen(random_bits(seed, 0x746f70696373ull));  // "topics": a stream of its own
  std::shuffle(groups.begin(), groups.end(), gen);
  std::vector<std::vector<std::string>> members(groups.size());
  for (std::size_t k = 0; k < groups.size(); ++k) {
    for (const auto& tp : topics)
      if (topic_group(tp) == groups[k]) members[k].push_back(tp);
    std::shuffle(members[k].begin(), members[k].end(), gen);
  }
  // One cycle holds every topic once: round r takes the r-th topic of each group that has one.
  std::vector<std::string> cycle;
  for (std::size_t round = 0; cycle.size() < topics.size(); ++round) {
    for (const auto& m : members)
      if (round < m.size()) cycle.push_back(m[round]);
  }
  for (int i = 0; i < count; ++i) out.push_back(cycle[static_cast<std::size_t>(i) % cycle.size()]);
  return out;
}

std::vector<Question> make_quiz(std::string_view topics, int count, std::uint64_t seed, Lang lang) {
  const auto selected = select_topics(topics);
  if (!selected) return {};
  std::vector<Question> out;
  const std::vector<std::string> order = quiz_order(*selected, count, seed);
  for (std::size_t i = 0; i < order.size(); ++i) {
    // One generator per question: question k is the same whatever the count.
    Gen g(random_bits(seed, static_cast<std::uint64_t>(i)));
    const Topic* tp = nullptr;
    for (const auto& x : kTopics)
      if (order[i] == x.name) tp = &x;
    Question q = tp->make(g, lang);
    q.id = fmt::format("q{}", i + 1);
    q.topic = tp->name;
    out.push_back(std::move(q));
  }
  return out;
}

std::string solution_without_answer(const Question& q) {
  std::string_view s = q.solution;
  for (std::string_view sep : {":", "\uFF1A"}) {
    const std::string head = q.answer + std::string(sep);
    if (s.size() > head.size() && s.starts_with(head)) {
      s.remove_prefix(head.size());
      while (s.starts_with(" ")) s.remove_prefix(1);
      break;
    }
  }
  return std::string(s);
}

Grade grade(const Question& q, std::string_view given, Lang l) {
  Grade gr;
  std::string s = ascii_forms(given);
  while (!s.empty() && (s.back() == '\r' || s.back() == ' ' || s.back() == '\t')) s.pop_back();
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.erase(s.begin());
  auto malformed = [&](std::string note) {
    gr.malformed = true;
    gr.note = std::move(note);
    return gr;
  };
  switch (q.kind) {
    case AnswerKind::integer:
    case AnswerKind::real: {
      double v = 0;
      // "98%" or "98 percent" for a fraction (an answer of at most 1) is 0.98; for a larger
      // answer (a percentage, a speedup) the number as typed.
      std::string number = s;
      bool percent = false;
      for (std::string_view sign : {"%", "\uFF05", "percent", "per cent"}) {
        if (number.size() >= sign.size() &&
            number.compare(number.size() - sign.size(), sign.size(), sign) == 0) {
          number.erase(number.size() - sign.size());
          percent = true;
          break;
        }
      }
      const NumberRead read = read_answer_number(number, v);
      if (read != NumberRead::ok) return malformed(number_note(read, s, l));
      if (percent && std::fabs(q.values[0]) <= 1) v /= 100;
      if (q.kind == AnswerKind::integer) {
        gr.correct = v == q.values[0];
      } else {
        gr.correct = std::fabs(v - q.values[0]) <= q.tolerance * std::fabs(q.values[0]) + 1e-12;
      }
      return gr;
    }
    case AnswerKind::tuple: {
      std::string cleaned;
      for (char c : s) cleaned += (c == '(' || c == ')' || c == '[' || c == ']') ? ' ' : c;
      std::vector<double> parts;
      std::size_t start = 0;
      const bool commas = cleaned.find(',') != std::string::npos;
      const char sep = commas ? ',' : ' ';
      const auto list_note = [&] {
        return say(l, "'{}' is not a list of {} whole numbers", "'{}' 不是由 {} 个整数组成的列表",
                   printable(s), q.values.size());
      };
      while (start <= cleaned.size()) {
        std::size_t end = cleaned.find(sep, start);
        if (end == std::string::npos) end = cleaned.size();
        std::string part = cleaned.substr(start, end - start);
        if (!(sep == ' ' && part.empty())) {
          double v = 0;
          if (read_answer_number(part, v) != NumberRead::ok) return malformed(list_note());
          parts.push_back(v);
        }
        start = end + 1;
      }
      if (parts.size() != q.values.size()) {
        return malformed(say(l, "'{}' has {} numbers; the answer has {}",
                             "'{}' 含 {} 个数，答案应有 {} 个", printable(s), parts.size(),
                             q.values.size()));
      }
      gr.correct = parts == q.values;
      return gr;
    }
    case AnswerKind::word: {
      std::string w;
      for (char c : s) w += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      if (w == "y" || w == "yes" || w == "是" || w == "对") w = "yes";
      if (w == "n" || w == "no" || w == "否" || w == "不") w = "no";
      const bool yes_no = q.choices.empty() && (q.word == "yes" || q.word == "no");
      if (yes_no && w != "yes" && w != "no") {
        return malformed(
            say(l, "'{}' is neither yes nor no", "'{}' 既不是 yes 也不是 no", printable(s)));
      }
      if (!q.choices.empty() &&
          std::find(q.choices.begin(), q.choices.end(), w) == q.choices.end()) {
        return malformed(say(l, "'{}' is not one of: {}", "'{}' 不在选项中：{}", printable(s),
                             fmt::join(q.choices, ", ")));
      }
      if (w.empty()) return malformed(say(l, "no answer", "没有答案"));
      gr.correct = w == q.word;
      return gr;
    }
  }
  return gr;
}

}  // namespace gpulab::calc
