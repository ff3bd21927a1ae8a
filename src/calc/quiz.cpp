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
#include "core/input.hpp"

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

std::string t(Lang l, std::string_view en, std::string_view zh) {
  return std::string(tr(l, en, zh));
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
  q.answer = std::to_string(value);
  q.solution = std::move(solution);
  return q;
}

Question warps_on_sm_q(Gen& g, Lang l) {
  const std::int64_t b = pick(g, 1, 8);
  const std::int64_t tpb =
      choose<std::int64_t>(g, {64, 96, 100, 128, 192, 200, 256, 384, 500, 512, 1024});
  const ResidentWarps w = warps_on_sm(b, tpb);
  return integer_q(
      fmt::format(
          fmt::runtime(t(l, "An SM is given {} blocks of {} threads. How many warps does it hold?",
                         "一个 SM 分到 {} 个线程块，每块 {} 个线程。它上面有多少个线程束？")),
          b, tpb),
      w.warps,
      fmt::format(fmt::runtime(t(l, "ceil({} / 32) = {} warps per block; {} x {} = {} warps",
                                 "每块 ceil({} / 32) = {} 个线程束；{} x {} = {} 个线程束")),
                  tpb, w.warps_per_block, b, w.warps_per_block, w.warps));
}

Question hide_latency_q(Gen& g, Lang l) {
  const std::int64_t lat = pick(g, 5, 40) * 20;
  const std::int64_t k = pick(g, 1, 8);
  const std::int64_t c = choose<std::int64_t>(g, {2, 4, 6, 8});
  const LatencyHiding h = warps_to_hide_latency(lat, k, c);
  return integer_q(
      fmt::format(
          fmt::runtime(
              t(l,
                "A global-memory read takes {} cycles; each warp then has {} independent "
                "operations of {} cycles. How many warps hide the latency?",
                "一次全局内存读取需要 {} 个周期；之后每个线程束有 {} 条独立运算，每条 {} 个周期。"
                "需要多少个线程束才能隐藏这个延迟？")),
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
      fmt::format(
          fmt::runtime(t(
              l, "A vector of {} elements, one thread each, {} threads per block. How many blocks?",
              "向量有 {} 个元素，每个线程处理一个，每块 {} 个线程。需要多少个线程块？")),
          n, b),
      blocks, fmt::format("(N + B - 1) / B = ({} + {} - 1) / {} = {}", n, b, b, blocks));
}

Question find_1d_q(Gen& g, Lang l) {
  const std::int64_t b = choose<std::int64_t>(g, {8, 16, 32, 64, 128, 256});
  const std::int64_t i = pick(g, b, 20 * b);
  Question q;
  q.prompt = fmt::format(
      fmt::runtime(
          t(l,
            "A one-dimensional launch, blocks of {} threads. Which block and thread handle "
            "element {}? Answer as block,thread",
            "一维，每块 {} 个线程。元素 {} 由哪个线程块的哪个线程处理？按 线程块,线程 作答")),
      b, i);
  q.kind = AnswerKind::tuple;
  q.values = {static_cast<double>(i / b), static_cast<double>(i % b)};
  q.answer = fmt::format("{},{}", i / b, i % b);
  q.solution = fmt::format("block = {} / {} = {}, thread = {} % {} = {}; check: {} * {} + {} = {}",
                           i, b, i / b, i, b, i % b, i / b, b, i % b, i);
  return q;
}

Question find_2d_q(Gen& g, Lang l) {
  const Shape grid{static_cast<std::uint64_t>(pick(g, 2, 4)),
                   static_cast<std::uint64_t>(pick(g, 2, 4)), 1};
  const Shape block{static_cast<std::uint64_t>(choose<std::int64_t>(g, {2, 3, 4, 8})),
                    static_cast<std::uint64_t>(choose<std::int64_t>(g, {2, 3, 4})), 1};
  const std::uint64_t i = static_cast<std::uint64_t>(
      pick(g, 0, static_cast<std::int64_t>(grid.volume() * block.volume()) - 1));
  const ThreadPlace p = place_of_index(grid, block, i);
  Question q;
  q.prompt = fmt::format(
      fmt::runtime(
          t(l,
            "gridDim = ({}, {}), blockDim = ({}, {}), threads numbered block by block. Which "
            "thread has "
            "global index {}? Answer as blockIdx.x,blockIdx.y,threadIdx.x,threadIdx.y",
            "gridDim = ({}, {})，blockDim = ({}, {})，线程逐块编号。全局索引为 {} 的是哪个线程？"
            "按 blockIdx.x,blockIdx.y,threadIdx.x,threadIdx.y 作答")),
      grid.x, grid.y, block.x, block.y, i);
  q.kind = AnswerKind::tuple;
  q.values = {static_cast<double>(p.block.x), static_cast<double>(p.block.y),
              static_cast<double>(p.thread.x), static_cast<double>(p.thread.y)};
  q.answer = fmt::format("{},{},{},{}", p.block.x, p.block.y, p.thread.x, p.thread.y);
  q.solution = fmt::format(
      "{} / {} = block {} rem {}; block {} = ({} % {}, {} / {}) = ({}, {}); thread {} = ({} % {}, "
      "{} / {}) = ({}, {})",
      i, block.volume(), p.block_linear, p.thread_linear, p.block_linear, p.block_linear, grid.x,
      p.block_linear, grid.x, p.block.x, p.block.y, p.thread_linear, p.thread_linear, block.x,
      p.thread_linear, block.x, p.thread.x, p.thread.y);
  return q;
}

Question global_index_q(Gen& g, Lang l) {
  const Shape grid{static_cast<std::uint64_t>(pick(g, 2, 6)),
                   static_cast<std::uint64_t>(pick(g, 2, 6)), 1};
  const Shape block{static_cast<std::uint64_t>(choose<std::int64_t>(g, {4, 8, 16, 32})),
                    static_cast<std::uint64_t>(choose<std::int64_t>(g, {2, 4, 8})), 1};
  const Coord b{static_cast<std::uint64_t>(pick(g, 0, static_cast<std::int64_t>(grid.x) - 1)),
                static_cast<std::uint64_t>(pick(g, 0, static_cast<std::int64_t>(grid.y) - 1)), 0};
  const Coord th{static_cast<std::uint64_t>(pick(g, 0, static_cast<std::int64_t>(block.x) - 1)),
                 static_cast<std::uint64_t>(pick(g, 0, static_cast<std::int64_t>(block.y) - 1)), 0};
  const ThreadPlace p = place_of(grid, block, b, th);
  return integer_q(
      fmt::format(
          fmt::runtime(t(
              l,
              "gridDim = ({}, {}), blockDim = ({}, {}). What is the global index (block by block) "
              "of "
              "blockIdx = ({}, {}), threadIdx = ({}, {})?",
              "gridDim = ({}, {})，blockDim = ({}, {})。blockIdx = ({}, {})、threadIdx = ({}, {}) "
              "的线程全局索引（逐块编号）是多少？")),
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
  q.prompt = fmt::format(
      fmt::runtime(
          t(l,
            "A program is {:g}% parallel. What speedup does Amdahl's law give on {} "
            "processors? (2 decimals)",
            "程序的 {:g}% 可以并行。按阿姆达尔定律，{} 个处理器的加速比是多少？（保留 2 位小数）")),
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
  q.prompt = fmt::format(
      fmt::runtime(t(l,
                     "A program is {:g}% parallel. What is the most speedup any number of "
                     "processors can give?",
                     "程序的 {:g}% 可以并行。无论多少处理器，加速比最多是多少？")),
      p * 100);
  q.kind = AnswerKind::real;
  q.values = {lim};
  q.tolerance = 0.01;
  q.answer = fmt_real(lim);
  q.solution = fmt::format("1 / (1 - {:g}) = 1 / {:g} = {}", p, 1 - p, fmt_real(lim));
  return q;
}

Question launch_legal_q(Gen& g, Lang l) {
  Shape block, grid{1, 1, 1};
  switch (pick(g, 0, 5)) {
    case 0:
      block = {static_cast<std::uint64_t>(choose<std::int64_t>(g, {512, 1024, 1025, 2048})), 1, 1};
      break;
    case 1:
      block = {32, static_cast<std::uint64_t>(choose<std::int64_t>(g, {16, 32, 33})), 1};
      break;
    case 2:
      block = {1, 1, static_cast<std::uint64_t>(choose<std::int64_t>(g, {32, 64, 65, 128}))};
      break;
    case 3:
      block = {256, 1, 1};
      grid = {1, static_cast<std::uint64_t>(choose<std::int64_t>(g, {65535, 65536, 100000})), 1};
      break;
    case 4:
      block = {128, 1, 1};
      grid = {
          static_cast<std::uint64_t>(choose<std::int64_t>(g, {65536, 2147483647LL, 2147483648LL})),
          1, 1};
      break;
    default:
      block = {16, 16, static_cast<std::uint64_t>(choose<std::int64_t>(g, {2, 4, 5}))};
      break;
  }
  const auto problem = limits::check_launch(grid, block);
  Question q;
  q.prompt = fmt::format(
      fmt::runtime(t(l,
                     "Is the launch kernel<<<dim3({}, {}, {}), dim3({}, {}, {})>>> legal? (yes/no)",
                     "启动 kernel<<<dim3({}, {}, {}), dim3({}, {}, {})>>> 合法吗？（yes/no）")),
      grid.x, grid.y, grid.z, block.x, block.y, block.z);
  q.kind = AnswerKind::word;
  q.word = problem ? "no" : "yes";
  q.answer = q.word;
  q.solution =
      problem
          ? *problem
          : fmt::format(
                fmt::runtime(
                    t(l,
                      "{} threads per block and every dimension within (1024, 1024, 64) "
                      "and (2^31-1, 65535, 65535)",
                      "每块 {} 个线程，各维都在 (1024, 1024, 64) 和 (2^31-1, 65535, 65535) 之内")),
                block.volume());
  return q;
}

Question bytes_moved_q(Gen& g, Lang l) {
  const std::int64_t n = pick(g, 1, 64) * 1024 * 1024;
  if (pick(g, 0, 1) == 0) {
    return integer_q(
        fmt::format(
            fmt::runtime(
                t(l,
                  "vecadd on {} int elements (4 bytes each): how many bytes must move through "
                  "device memory at the least?",
                  "对 {} 个 int 元素（每个 4 字节）做 vecadd：至少要经过显存搬运多少字节？")),
            n),
        3 * n * 4, fmt::format("read a and b, write c: 3 x {} x 4 = {}", n, 3 * n * 4));
  }
  return integer_q(
      fmt::format(
          fmt::runtime(t(l,
                         "The two-norm distance of two float matrices of {} elements each: how "
                         "many bytes must "
                         "it read from device memory at the least?",
                         "两个各 {} 个元素的 float 矩阵求二范数距离：至少要从显存读取多少字节？")),
          n),
      2 * n * 4, fmt::format("read a and b once: 2 x {} x 4 = {}", n, 2 * n * 4));
}

Question idle_lanes_q(Gen& g, Lang l) {
  const std::int64_t tpb = pick(g, 1, 1024);
  const ResidentWarps w = warps_on_sm(1, tpb);
  return integer_q(
      fmt::format(fmt::runtime(t(
                      l, "A block has {} threads. How many lanes of its last warp have no thread?",
                      "一个线程块有 {} 个线程。它最后一个线程束有多少个通道没有线程？")),
                  tpb),
      w.idle_lanes_per_block,
      fmt::format("ceil({} / 32) = {} warps = {} lanes; {} - {} = {}", tpb, w.warps_per_block,
                  w.warps_per_block * 32, w.warps_per_block * 32, tpb, w.idle_lanes_per_block));
}

// Occupancy on an H100 (compute capability 9.0), with the facts the answer needs in the prompt.
Question occupancy_registers_q(Gen& g, Lang l) {
  const int threads = static_cast<int>(choose<std::int64_t>(g, {64, 128, 192, 256, 384, 512, 768}));
  const int regs =
      static_cast<int>(choose<std::int64_t>(g, {16, 24, 32, 40, 48, 56, 64, 72, 80, 96, 128, 168}));
  const Occupancy o = occupancy(*arch_info(9, 0), {threads, regs, 0, 0, std::nullopt});
  return integer_q(
      fmt::format(
          fmt::runtime(
              t(l,
                "An H100 SM holds 64 warps and 32 blocks; its 65,536 registers sit in 4 "
                "sub-partitions of 16,384, handed out per warp in units of 256. A kernel uses {} "
                "registers per thread, in blocks of {} threads. How many blocks fit on one SM?",
                "H100 的一个 SM 最多容纳 64 个线程束、32 个线程块；它的 65,536 个寄存器分在 4 个"
                "子分区（每个 16,384），按线程束以 256 为单位分配。某核函数每线程用 {} 个寄存器，"
                "每块 {} 个线程。一个 SM 能放下几个线程块？")),
          regs, threads),
      o.blocks,
      fmt::format(fmt::runtime(t(l,
                                 "{} x 32 = {} -> {} per warp; 16384 / {} = {} warps x 4 = {}; "
                                 "{} warps per block: min({} / {}, 64 / {}, 32) = {}",
                                 "{} x 32 = {} -> 每线程束 {}；16384 / {} = {} 个线程束 x 4 = {}；"
                                 "每块 {} 个线程束：min({} / {}, 64 / {}, 32) = {}")),
                  regs, o.registers_per_warp, o.registers_per_warp_allocated,
                  o.registers_per_warp_allocated, o.warps_per_partition, o.warps_by_registers,
                  o.warps_per_block, o.warps_by_registers, o.warps_per_block, o.warps_per_block,
                  o.blocks));
}

Question occupancy_shared_q(Gen& g, Lang l) {
  const int threads = static_cast<int>(choose<std::int64_t>(g, {64, 128, 256}));
  const auto kib = choose<std::int64_t>(g, {2, 4, 6, 8, 12, 16, 20, 24, 32, 40, 48});
  const Occupancy o = occupancy(*arch_info(9, 0), {threads, 0, kib * 1024, 0, std::nullopt});
  return integer_q(
      fmt::format(
          fmt::runtime(t(l,
                         "An H100 SM has 228 KiB of shared memory, holds 64 warps and 32 blocks, "
                         "and the driver keeps 1 KiB of shared memory per block. Blocks of {} "
                         "threads each use {} KiB of shared memory. How many blocks fit on one SM?",
                         "H100 的一个 SM 有 228 KiB 共享内存，最多容纳 64 个线程束、32 个线程块，"
                         "驱动为每个线程块保留 1 KiB 共享内存。每块 {} 个线程、用 {} KiB "
                         "共享内存。一个 SM 能放下几个线程块？")),
          threads, kib),
      o.blocks,
      fmt::format("min(floor(228 / ({} + 1)), 64 / {}, 32) = min({}, {}, 32) = {}", kib,
                  o.warps_per_block, o.limit_shared, o.limit_warps, o.blocks));
}

using Maker = Question (*)(Gen&, Lang);
struct Topic {
  const char* name;
  Maker make;
};
const Topic kTopics[] = {
    {"amdahl-speedup", amdahl_speedup_q},
    {"amdahl-limit", amdahl_limit_q},
    {"warps-on-sm", warps_on_sm_q},
    {"idle-lanes", idle_lanes_q},
    {"hide-latency", hide_latency_q},
    {"blocks-needed", blocks_needed_q},
    {"find-1d", find_1d_q},
    {"find-2d", find_2d_q},
    {"global-index", global_index_q},
    {"launch-legal", launch_legal_q},
    {"bytes-moved", bytes_moved_q},
    {"occupancy-registers", occupancy_registers_q},
    {"occupancy-shared", occupancy_shared_q},
};

// Reads one number; false when `s` is not one.
bool read_number(std::string_view s, double& out) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r' || s.back() == 'x'))
    s.remove_suffix(1);
  if (s.empty()) return false;
  std::string clean;
  for (char c : s) {
    if (c != '_' && c != '\'') clean += c;  // 1_000 or 1'000
  }
  auto [ptr, ec] = std::from_chars(clean.data(), clean.data() + clean.size(), out);
  return ec == std::errc{} && ptr == clean.data() + clean.size() && std::isfinite(out);
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

std::vector<Question> make_quiz(std::string_view topic, int count, std::uint64_t seed, Lang lang) {
  std::vector<Question> out;
  const std::size_t n_topics = std::size(kTopics);
  for (int i = 0; i < count; ++i) {
    // One generator per question: question k is the same whatever the count.
    Gen g(random_bits(seed, static_cast<std::uint64_t>(i)));
    const Topic* tp = nullptr;
    if (topic == "all") {
      tp = &kTopics[static_cast<std::size_t>(i) % n_topics];
    } else {
      for (const auto& x : kTopics) {
        if (topic == x.name) tp = &x;
      }
    }
    if (tp == nullptr) return {};
    Question q = tp->make(g, lang);
    q.id = fmt::format("q{}", i + 1);
    q.topic = tp->name;
    out.push_back(std::move(q));
  }
  return out;
}

Grade grade(const Question& q, std::string_view given) {
  Grade gr;
  std::string s(given);
  while (!s.empty() && (s.back() == '\r' || s.back() == ' ')) s.pop_back();
  while (!s.empty() && s.front() == ' ') s.erase(s.begin());
  switch (q.kind) {
    case AnswerKind::integer:
    case AnswerKind::real: {
      std::erase(s, ',');  // thousands separators: 12,582,912
      double v = 0;
      if (!read_number(s, v)) {
        gr.malformed = true;
        gr.note = fmt::format("'{}' is not a number", printable(s));
        return gr;
      }
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
      while (start <= cleaned.size()) {
        std::size_t end = cleaned.find(sep, start);
        if (end == std::string::npos) end = cleaned.size();
        std::string part = cleaned.substr(start, end - start);
        if (!(sep == ' ' && part.empty())) {
          double v = 0;
          if (!read_number(part, v)) {
            gr.malformed = true;
            gr.note = fmt::format("'{}' is not a list of {} whole numbers", printable(s),
                                  q.values.size());
            return gr;
          }
          parts.push_back(v);
        }
        start = end + 1;
      }
      if (parts.size() != q.values.size()) {
        gr.malformed = true;
        gr.note = fmt::format("'{}' has {} numbers; the answer has {}", printable(s), parts.size(),
                              q.values.size());
        return gr;
      }
      gr.correct = parts == q.values;
      return gr;
    }
    case AnswerKind::word: {
      std::string w;
      for (char c : s) w += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      if (w == "y" || w == "yes" || w == "是") w = "yes";
      if (w == "n" || w == "no" || w == "否") w = "no";
      if (w != "yes" && w != "no") {
        gr.malformed = true;
        gr.note = fmt::format("'{}' is neither yes nor no", printable(s));
        return gr;
      }
      gr.correct = w == q.word;
      return gr;
    }
  }
  return gr;
}

}  // namespace gpulab::calc
