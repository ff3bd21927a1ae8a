// The tests of each exercise (see plan.hpp): one function per exercise, each the sizes that catch
// real mistakes (n = 1, below, at and above a block, not a multiple of it, a large one).
#include "exercise/plan.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <functional>
#include <map>
#include <stdexcept>

#include "calc/launch_facts.hpp"
#include "exercise/screen.hpp"

namespace gpulab::exercise {

float input_value(std::uint64_t seed, std::uint64_t stream, std::uint64_t i) {
  const std::uint64_t z = calc::random_bits(seed, stream * 0x100000001ull + i);
  return static_cast<float>(static_cast<double>(z >> 11) / 9007199254740992.0 * 2.0 - 1.0);
}

namespace {

std::uint32_t ceil_div(std::size_t n, std::size_t b) {
  return static_cast<std::uint32_t>(calc::blocks_for(n, b));
}

std::uint32_t u32(std::size_t n) {
  return static_cast<std::uint32_t>(n);
}

PlanArg buf(std::uint32_t b) {
  PlanArg a;
  a.kind = PlanArg::Kind::buffer;
  a.buffer = b;
  return a;
}
PlanArg i32(std::size_t v) {
  PlanArg a;
  a.kind = PlanArg::Kind::i32;
  a.i = static_cast<std::int32_t>(v);
  return a;
}
PlanArg f32(float v) {
  PlanArg a;
  a.kind = PlanArg::Kind::f32;
  a.f = v;
  return a;
}

// One test being written: its buffers, launches and references.
class TestBuilder {
 public:
  TestBuilder(Plan& plan, std::uint64_t seed, Text name) : plan_(plan), seed_(seed) {
    plan_.tests.emplace_back();
    plan_.tests.back().name = std::move(name);
  }
  PlanTest& test() { return plan_.tests.back(); }

  std::uint32_t input(const std::string& name, std::size_t n, std::uint64_t stream,
                      std::size_t rows = 1) {
    PlanBuffer b;
    b.name = name;
    b.elements = n;
    b.rows = rows;
    b.data.resize(n);
    for (std::size_t i = 0; i < n; ++i) b.data[i] = input_value(seed_, stream, i);
    test().buffers.push_back(std::move(b));
    return static_cast<std::uint32_t>(test().buffers.size() - 1);
  }
  std::uint32_t output(const std::string& name, std::size_t n, std::size_t rows = 1) {
    PlanBuffer b;
    b.name = name;
    b.elements = n;
    b.rows = rows;
    b.output = true;
    test().buffers.push_back(std::move(b));
    return static_cast<std::uint32_t>(test().buffers.size() - 1);
  }
  const std::vector<float>& data(std::uint32_t b) { return test().buffers[b].data; }

  void launch(const std::string& kernel, Dim3 grid, Dim3 block, std::vector<PlanArg> args,
              std::vector<std::pair<std::uint32_t, Before>> outputs) {
    PlanStep s;
    s.kernel = kernel;
    s.grid = grid;
    s.block = block;
    s.args = std::move(args);
    s.outputs = std::move(outputs);
    test().steps.push_back(std::move(s));
  }
  // Compared after the last launch so far.
  void expect(std::uint32_t buffer, std::vector<double> want, double rtol = 1e-5,
              double atol = 1e-6) {
    PlanExpect e;
    e.buffer = buffer;
    e.step = static_cast<std::uint32_t>(test().steps.size() - 1);
    e.want = std::move(want);
    e.rtol = rtol;
    e.atol = atol;
    test().expects.push_back(std::move(e));
  }
  void rule(const std::string& rule, double limit) { test().rules.push_back({rule, limit}); }

 private:
  Plan& plan_;
  std::uint64_t seed_;
};

// The sizes to test; with --draw only the small one (a picture of every access).
std::vector<std::size_t> sizes(std::initializer_list<std::size_t> all, std::size_t small,
                               bool draw) {
  if (draw) return {small};
  return std::vector<std::size_t>(all);
}

Text name_n(std::size_t n) {
  return {fmt::format("n = {}", n), fmt::format("n = {}", n)};
}
Text name_blocks(std::size_t n, std::size_t block) {
  return {fmt::format("n = {}, blocks of {}", n, block),
          fmt::format("n = {}，每块 {} 个线程", n, block)};
}
Text name_threads(const std::string& head, const std::string& threads) {
  return {fmt::format("{}, {} threads", head, threads),
          fmt::format("{}，{} 个线程", head, threads)};
}

std::vector<double> plus_ten(const std::vector<float>& a) {
  std::vector<double> w(a.size());
  for (std::size_t i = 0; i < a.size(); ++i) w[i] = double(a[i]) + 10.0;
  return w;
}
std::vector<double> sum_of(const std::vector<float>& a, const std::vector<float>& b) {
  std::vector<double> w(a.size());
  for (std::size_t i = 0; i < a.size(); ++i) w[i] = double(a[i]) + double(b[i]);
  return w;
}
// Each chunk of `block` elements reversed in place.
std::vector<double> reversed_chunks(const std::vector<float>& a, std::size_t block) {
  const std::size_t n = a.size();
  std::vector<double> w(n);
  for (std::size_t start = 0; start < n; start += block) {
    const std::size_t len = std::min(block, n - start);
    for (std::size_t j = 0; j < len; ++j) w[start + j] = a[start + len - 1 - j];
  }
  return w;
}
double magnitude(const std::vector<float>& a) {
  double m = 0;
  for (float v : a) m += std::fabs(double(v));
  return m;
}

constexpr const char* k1d = "i = blockIdx.x * blockDim.x + threadIdx.x";
constexpr const char* k2d =
    "col = blockIdx.x * blockDim.x + threadIdx.x, row = blockIdx.y * blockDim.y + threadIdx.y";

using Maker = std::function<void(Plan&, std::uint64_t, bool)>;

const std::map<std::string, Maker>& makers() {
  static const std::map<std::string, Maker> table = {
      {"map",
       [](Plan& p, std::uint64_t seed, bool draw) {
         p.index_formula = "i = threadIdx.x";
         p.one_writer_per_element = true;
         for (std::size_t n : sizes({1, 5, 31, 32, 33, 100, 256, 1000}, 8, draw)) {
           TestBuilder t(p, seed, name_n(n));
           t.rule("max_global_reads", 1);
           t.rule("max_global_writes", 1);
           const auto a = t.input("a", n, 1);
           const auto out = t.output("out", n);
           t.launch("map_add_ten", {1}, {u32(n)}, {buf(a), buf(out), i32(n)},
                    {{out, Before::poison}});
           t.expect(out, plus_ten(t.data(a)));
         }
       }},
      {"zip",
       [](Plan& p, std::uint64_t seed, bool draw) {
         p.index_formula = "i = threadIdx.x";
         p.one_writer_per_element = true;
         for (std::size_t n : sizes({1, 7, 32, 33, 100, 1024}, 8, draw)) {
           TestBuilder t(p, seed, name_n(n));
           t.rule("max_global_reads", 2);
           t.rule("max_global_writes", 1);
           const auto a = t.input("a", n, 1), b = t.input("b", n, 2);
           const auto out = t.output("out", n);
           t.launch("vector_add", {1}, {u32(n)}, {buf(a), buf(b), buf(out), i32(n)},
                    {{out, Before::poison}});
           t.expect(out, sum_of(t.data(a), t.data(b)));
         }
       }},
      {"guard",
       [](Plan& p, std::uint64_t seed, bool draw) {
         p.index_formula = "i = threadIdx.x; if (i < n) ...";
         p.one_writer_per_element = true;
         const std::uint32_t threads = draw ? 8 : 256;
         for (std::size_t n : sizes({1, 5, 100, 255, 256}, 5, draw)) {
           TestBuilder t(p, seed, name_threads(fmt::format("n = {}", n), std::to_string(threads)));
           t.rule("max_global_reads", 1);
           t.rule("max_global_writes", 1);
           const auto a = t.input("a", n, 1);
           const auto out = t.output("out", n);
           t.launch("map_guard", {1}, {threads}, {buf(a), buf(out), i32(n)},
                    {{out, Before::poison}});
           t.expect(out, plus_ten(t.data(a)));
         }
       }},
      {"map2d",
       [](Plan& p, std::uint64_t seed, bool draw) {
         p.index_formula = "col = threadIdx.x, row = threadIdx.y; if (row < size && col < size)";
         p.two_d = true;
         p.one_writer_per_element = true;
         const std::uint32_t side = draw ? 4 : 16;
         for (std::size_t size : sizes({1, 3, 15, 16}, 3, draw)) {
           TestBuilder t(
               p, seed,
               name_threads(fmt::format("size = {}", size), fmt::format("{} x {}", side, side)));
           t.rule("max_global_reads", 1);
           t.rule("max_global_writes", 1);
           const auto a = t.input("a", size * size, 1, size);
           const auto out = t.output("out", size * size, size);
           t.launch("map_2d", {1}, {side, side}, {buf(a), buf(out), i32(size)},
                    {{out, Before::poison}});
           t.expect(out, plus_ten(t.data(a)));
         }
       }},
      {"broadcast",
       [](Plan& p, std::uint64_t seed, bool draw) {
         p.index_formula = "col = threadIdx.x, row = threadIdx.y; if (row < rows && col < cols)";
         p.two_d = true;
         p.one_writer_per_element = true;
         const std::size_t shapes[][2] = {{1, 1}, {3, 5}, {16, 2}, {7, 16}, {16, 16}};
         const std::uint32_t side = draw ? 6 : 16;
         for (std::size_t k : sizes({0, 1, 2, 3, 4}, 1, draw)) {
           const std::size_t rows = shapes[k][0], cols = shapes[k][1];
           TestBuilder t(p, seed,
                         name_threads(fmt::format("{} x {}", rows, cols),
                                      fmt::format("{} x {}", side, side)));
           t.rule("max_global_reads", 2);
           t.rule("max_global_writes", 1);
           const auto a = t.input("a", rows, 1), b = t.input("b", cols, 2);
           const auto out = t.output("out", rows * cols, rows);
           t.launch("broadcast_add", {1}, {side, side},
                    {buf(a), buf(b), buf(out), i32(rows), i32(cols)}, {{out, Before::poison}});
           std::vector<double> want(rows * cols);
           for (std::size_t r = 0; r < rows; ++r)
             for (std::size_t c = 0; c < cols; ++c)
               want[r * cols + c] = double(t.data(a)[r]) + double(t.data(b)[c]);
           t.expect(out, std::move(want));
         }
       }},
      {"blocks",
       [](Plan& p, std::uint64_t seed, bool draw) {
         p.index_formula = k1d;
         p.one_writer_per_element = true;
         const std::uint32_t block = draw ? 4 : 256;
         for (std::size_t n : sizes({1, 255, 256, 257, 1000, 70000}, 10, draw)) {
           TestBuilder t(p, seed, name_blocks(n, block));
           t.rule("max_global_reads", 1);
           t.rule("max_global_writes", 1);
           const auto a = t.input("a", n, 1);
           const auto out = t.output("out", n);
           t.launch("map_blocks", {ceil_div(n, block)}, {block}, {buf(a), buf(out), i32(n)},
                    {{out, Before::poison}});
           t.expect(out, plus_ten(t.data(a)));
         }
       }},
      {"blocks2d",
       [](Plan& p, std::uint64_t seed, bool draw) {
         p.index_formula = k2d;
         p.two_d = true;
         p.one_writer_per_element = true;
         const std::size_t shapes[][2] = {{1, 1}, {17, 33}, {100, 70}, {64, 64}, {5, 3}};
         const std::uint32_t side = draw ? 2 : 16;
         for (std::size_t k : sizes({0, 1, 2, 3}, 4, draw)) {
           const std::size_t rows = shapes[k][0], cols = shapes[k][1];
           TestBuilder t(p, seed,
                         {fmt::format("{} x {}, blocks of {} x {}", rows, cols, side, side),
                          fmt::format("{} x {}，每块 {} x {} 个线程", rows, cols, side, side)});
           t.rule("max_global_reads", 1);
           t.rule("max_global_writes", 1);
           const auto a = t.input("a", rows * cols, 1, rows);
           const auto out = t.output("out", rows * cols, rows);
           t.launch("map_2d_blocks", {ceil_div(cols, side), ceil_div(rows, side)}, {side, side},
                    {buf(a), buf(out), i32(rows), i32(cols)}, {{out, Before::poison}});
           t.expect(out, plus_ten(t.data(a)));
         }
       }},
      {"add2",
       [](Plan& p, std::uint64_t seed, bool draw) {
         p.index_formula =
             "for (i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)";
         p.one_writer_per_element = true;
         const std::uint32_t blocks = draw ? 2 : 4, threads = draw ? 4 : 128;
         for (std::size_t n : sizes({1, 100, 512, 513, 5000}, 12, draw)) {
           TestBuilder t(
               p, seed,
               name_threads(fmt::format("n = {}", n), fmt::format("{} x {}", blocks, threads)));
           t.rule("max_global_reads", 2.0 * ceil_div(n, std::size_t{blocks} * threads));
           const auto a = t.input("a", n, 1), b = t.input("b", n, 2);
           const auto out = t.output("out", n);
           t.launch("add2", {blocks}, {threads}, {buf(a), buf(b), buf(out), i32(n)},
                    {{out, Before::poison}});
           t.expect(out, sum_of(t.data(a), t.data(b)));
         }
       }},
      {"shared",
       [](Plan& p, std::uint64_t seed, bool draw) {
         p.index_formula = k1d;
         p.one_writer_per_element = true;
         const std::uint32_t block = draw ? 4 : 128;
         for (std::size_t n : sizes({1, 100, 128, 129, 1000}, 6, draw)) {
           TestBuilder t(p, seed, name_blocks(n, block));
           t.rule("max_global_reads", 1);
           t.rule("max_global_writes", 1);
           t.rule("uses_shared", 1);
           t.rule("max_barriers_per_block", 1);
           const auto a = t.input("a", n, 1);
           const auto out = t.output("out", n);
           t.launch("reverse_blocks", {ceil_div(n, block)}, {block}, {buf(a), buf(out), i32(n)},
                    {{out, Before::poison}});
           t.expect(out, reversed_chunks(t.data(a), block));
         }
       }},
      {"pooling",
       [](Plan& p, std::uint64_t seed, bool draw) {
         p.index_formula = k1d;
         p.one_writer_per_element = true;
         for (std::size_t n : sizes({1, 2, 127, 128, 129, 1000}, 10, draw)) {
           TestBuilder t(p, seed, name_blocks(n, 128));
           t.rule("max_global_reads", 2);
           t.rule("max_global_writes", 1);
           t.rule("uses_shared", 1);
           t.rule("max_barriers_per_block", 1);
           const auto a = t.input("a", n, 1);
           const auto out = t.output("out", n);
           t.launch("pool3", {ceil_div(n, 128)}, {128}, {buf(a), buf(out), i32(n)},
                    {{out, Before::poison}});
           const auto& x = t.data(a);
           std::vector<double> want(n);
           for (std::size_t i = 0; i < n; ++i) {
             want[i] = double(x[i]) + (i >= 1 ? double(x[i - 1]) : 0.0) +
                       (i >= 2 ? double(x[i - 2]) : 0.0);
           }
           t.expect(out, std::move(want));
         }
       }},
      {"dot",
       [](Plan& p, std::uint64_t seed, bool draw) {
         for (std::size_t n : sizes({1, 255, 256, 257, 10000}, 5, draw)) {
           TestBuilder t(p, seed, name_blocks(n, 256));
           t.rule("max_global_reads", 2);
           t.rule("uses_shared", 1);
           t.rule("max_barriers_per_block", 9);
           const auto a = t.input("a", n, 1), b = t.input("b", n, 2);
           const auto out = t.output("out", 1);
           t.launch("dot", {ceil_div(n, 256)}, {256}, {buf(a), buf(b), buf(out), i32(n)},
                    {{out, Before::zero}});
           double sum = 0, mag = 0;
           for (std::size_t i = 0; i < n; ++i) {
             const double v = double(t.data(a)[i]) * double(t.data(b)[i]);
             sum += v;
             mag += std::fabs(v);
           }
           // float32 sums in any order (blocks meet in atomicAdd): the error grows with the terms.
           t.expect(out, {sum}, 1e-5, 1e-6 + 1e-5 * mag);
         }
       }},
      {"twonorm",
       [](Plan& p, std::uint64_t seed, bool draw) {
         for (std::size_t n : sizes({1, 100, 2048, 2049, 100000}, 20, draw)) {
           TestBuilder t(p, seed, name_threads(fmt::format("n = {}", n), "8 x 256"));
           t.rule("max_global_reads", ceil_div(n, 2048));
           t.rule("uses_shared", 1);
           const auto x = t.input("x", n, 1);
           const auto sum = t.output("sum", 1);
           double s = 0;
           for (float v : t.data(x)) s += double(v) * double(v);
           t.launch("sum_squares", {8}, {256}, {buf(x), buf(sum), i32(n)}, {{sum, Before::zero}});
           t.expect(sum, {s}, 1e-4, 1e-5);
           t.launch("finish", {1}, {1}, {buf(sum)}, {{sum, Before::keep}});
           t.expect(sum, {std::sqrt(s)}, 1e-4, 1e-5);
         }
       }},
      {"scan",
       [](Plan& p, std::uint64_t seed, bool draw) {
         const std::uint32_t block = draw ? 8 : 256;
         for (std::size_t n : sizes({1, 5, 128, 255, 256}, 8, draw)) {
           TestBuilder t(p, seed, name_threads(fmt::format("n = {}", n), std::to_string(block)));
           t.rule("max_global_reads", 1);
           t.rule("max_global_writes", 1);
           t.rule("uses_shared", 1);
           t.rule("max_barriers_per_block", 17);
           const auto a = t.input("a", n, 1);
           const auto out = t.output("out", n);
           t.launch("scan", {1}, {block}, {buf(a), buf(out), i32(n)}, {{out, Before::poison}});
           std::vector<double> want(n);
           double sum = 0;
           for (std::size_t i = 0; i < n; ++i) want[i] = sum += double(t.data(a)[i]);
           t.expect(out, std::move(want), 1e-5, 1e-6 + 1e-5 * magnitude(t.data(a)));
         }
       }},
      {"axis_sum",
       [](Plan& p, std::uint64_t seed, bool draw) {
         const std::size_t shapes[][2] = {{1, 1}, {3, 100}, {5, 128}, {2, 129}, {4, 1000}, {2, 6}};
         for (std::size_t k : sizes({0, 1, 2, 3, 4}, 5, draw)) {
           const std::size_t rows = shapes[k][0], cols = shapes[k][1];
           TestBuilder t(p, seed,
                         {fmt::format("{} x {}, 128 threads per row", rows, cols),
                          fmt::format("{} x {}，每行 128 个线程", rows, cols)});
           t.rule("max_global_reads", ceil_div(cols, 128));
           t.rule("uses_shared", 1);
           const auto a = t.input("a", rows * cols, 1, rows);
           const auto out = t.output("out", rows);
           t.launch("row_sum", {u32(rows)}, {128}, {buf(a), buf(out), i32(rows), i32(cols)},
                    {{out, Before::poison}});
           std::vector<double> want(rows, 0.0);
           double mag = 0;  // of the largest row
           for (std::size_t r = 0; r < rows; ++r) {
             double m = 0;
             for (std::size_t c = 0; c < cols; ++c) {
               want[r] += double(t.data(a)[r * cols + c]);
               m += std::fabs(double(t.data(a)[r * cols + c]));
             }
             mag = std::max(mag, m);
           }
           t.expect(out, std::move(want), 1e-5, 1e-6 + 1e-5 * mag);
         }
       }},
      {"matmul",
       [](Plan& p, std::uint64_t seed, bool draw) {
         p.index_formula = k2d;
         p.two_d = true;
         p.one_writer_per_element = true;
         const std::size_t shapes[][3] = {
             {1, 1, 1}, {16, 16, 16}, {17, 33, 20}, {40, 50, 70}, {3, 4, 5}};
         for (std::size_t k : sizes({0, 1, 2, 3}, 4, draw)) {
           const std::size_t M = shapes[k][0], N = shapes[k][1], K = shapes[k][2];
           const std::string head = fmt::format("M, N, K = {}, {}, {}", M, N, K);
           TestBuilder t(p, seed, {head, head});
           const double tiles = ceil_div(K, 16);
           t.rule("max_global_reads", 2 * tiles);
           t.rule("max_global_writes", 1);
           t.rule("uses_shared", 1);
           t.rule("max_barriers_per_block", 2 * tiles);
           const auto a = t.input("A", M * K, 1, M), b = t.input("B", K * N, 2, K);
           const auto c = t.output("C", M * N, M);
           t.launch("matmul", {ceil_div(N, 16), ceil_div(M, 16)}, {16, 16},
                    {buf(a), buf(b), buf(c), i32(M), i32(N), i32(K)}, {{c, Before::poison}});
           std::vector<double> want(M * N, 0.0);
           for (std::size_t r = 0; r < M; ++r)
             for (std::size_t col = 0; col < N; ++col)
               for (std::size_t i = 0; i < K; ++i)
                 want[r * N + col] += double(t.data(a)[r * K + i]) * double(t.data(b)[i * N + col]);
           t.expect(c, std::move(want), 1e-4, 1e-6 * double(K) + 1e-6);
         }
       }},
      {"relu_scale",
       [](Plan& p, std::uint64_t seed, bool draw) {
         p.index_formula = k1d;
         p.one_writer_per_element = true;
         const std::uint32_t block = draw ? 4 : 256;
         for (std::size_t n : sizes({1, 255, 256, 257, 10000}, 10, draw)) {
           TestBuilder t(p, seed, name_blocks(n, block));
           t.rule("max_global_reads", 1);
           t.rule("max_global_writes", 1);
           const auto x = t.input("x", n, 1);
           const float scale = 1.5f + input_value(seed, 7, 0);
           const auto out = t.output("out", n);
           t.launch("relu_scale", {ceil_div(n, block)}, {block},
                    {buf(x), buf(out), f32(scale), i32(n)}, {{out, Before::poison}});
           std::vector<double> want(n);
           for (std::size_t i = 0; i < n; ++i)
             want[i] = std::max(double(t.data(x)[i]), 0.0) * double(scale);
           t.expect(out, std::move(want));
         }
       }},
      {"fix_race",
       [](Plan& p, std::uint64_t seed, bool draw) {
         const std::uint32_t block = draw ? 4 : 256;
         for (std::size_t n : sizes({1, 256, 1000, 5000}, 6, draw)) {
           TestBuilder t(p, seed, name_blocks(n, block));
           t.rule("max_global_reads", 1);
           const auto a = t.input("a", n, 1);
           const auto out = t.output("out", 1);
           t.launch("sum_all", {ceil_div(n, block)}, {block}, {buf(a), buf(out), i32(n)},
                    {{out, Before::zero}});
           double sum = 0;
           for (float v : t.data(a)) sum += double(v);
           t.expect(out, {sum}, 1e-5, 1e-6 + 1e-5 * magnitude(t.data(a)));
         }
       }},
      {"fix_barrier",
       [](Plan& p, std::uint64_t seed, bool draw) {
         p.index_formula = k1d;
         p.one_writer_per_element = true;
         const std::uint32_t block = draw ? 4 : 128;
         for (std::size_t n : sizes({128, 100, 129, 1000}, 6, draw)) {
           TestBuilder t(p, seed, name_blocks(n, block));
           t.rule("max_global_reads", 1);
           t.rule("max_global_writes", 1);
           t.rule("max_barriers_per_block", 1);
           const auto a = t.input("a", n, 1);
           const auto out = t.output("out", n);
           t.launch("reverse_chunks", {ceil_div(n, block)}, {block}, {buf(a), buf(out), i32(n)},
                    {{out, Before::poison}});
           t.expect(out, reversed_chunks(t.data(a), block));
         }
       }},
      {"interleave",
       [](Plan& p, std::uint64_t seed, bool draw) {
         // Only the counter rules (the catalog's): one thread per element of out.
         p.index_formula = "j = blockIdx.x * blockDim.x + threadIdx.x";
         p.one_writer_per_element = true;
         for (std::size_t n : sizes({1, 100, 128, 129, 1000, 3000}, 20, draw)) {
           TestBuilder t(p, seed, name_blocks(n, 256));
           const auto x = t.input("x", n, 1), y = t.input("y", n, 2);
           const auto out = t.output("out", 2 * n);
           t.launch("interleave", {ceil_div(2 * n, 256)}, {256}, {buf(x), buf(y), buf(out), i32(n)},
                    {{out, Before::poison}});
           std::vector<double> want(2 * n);
           for (std::size_t i = 0; i < n; ++i) {
             want[2 * i] = t.data(x)[i];
             want[2 * i + 1] = t.data(y)[i];
           }
           t.expect(out, std::move(want));
         }
       }},
      {"transpose_padded",
       [](Plan& p, std::uint64_t seed, bool draw) {
         // n a multiple of 32: (n / 32, n / 32) blocks of 32 x 32, the counter rules only.
         p.one_writer_per_element = true;
         for (std::size_t n : sizes({32, 64, 96, 160}, 32, draw)) {
           TestBuilder t(p, seed,
                         {fmt::format("{} x {}, blocks of 32 x 32", n, n),
                          fmt::format("{} x {}，每块 32 x 32 个线程", n, n)});
           const auto in = t.input("in", n * n, 1, n);
           const auto out = t.output("out", n * n, n);
           t.launch("transpose", {u32(n / 32), u32(n / 32)}, {32, 32}, {buf(in), buf(out), i32(n)},
                    {{out, Before::poison}});
           std::vector<double> want(n * n);
           for (std::size_t r = 0; r < n; ++r)
             for (std::size_t c = 0; c < n; ++c) want[c * n + r] = t.data(in)[r * n + c];
           t.expect(out, std::move(want));
         }
       }},
  };
  return table;
}

std::string trim(std::string s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.pop_back();
  std::size_t b = 0;
  while (b < s.size() && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  return s.substr(b);
}

}  // namespace

std::vector<KernelSignature> kernel_signatures(const std::string& source) {
  std::vector<KernelSignature> out;
  for (const std::string& d : kernel_declarations(source)) {
    const auto open = d.find('('), close = d.rfind(')');
    if (open == std::string::npos || close == std::string::npos || close < open) continue;
    KernelSignature k;
    std::string head = trim(d.substr(0, open));
    const auto space = head.find_last_of(" \t\n*&");
    k.name = space == std::string::npos ? head : head.substr(space + 1);
    std::string params = d.substr(open + 1, close - open - 1);
    std::size_t start = 0;
    while (start <= params.size()) {
      auto comma = params.find(',', start);
      if (comma == std::string::npos) comma = params.size();
      const std::string p = trim(params.substr(start, comma - start));
      start = comma + 1;
      if (p.empty() || p == "void") continue;
      std::size_t end = p.size();
      std::size_t begin = end;
      while (begin > 0 &&
             (std::isalnum(static_cast<unsigned char>(p[begin - 1])) != 0 || p[begin - 1] == '_'))
        --begin;
      KernelParam kp;
      kp.name = p.substr(begin, end - begin);
      kp.type = trim(p.substr(0, begin));
      if (kp.type.empty()) {  // an unnamed parameter: the type alone
        kp.type = kp.name;
        kp.name.clear();
      }
      k.params.push_back(std::move(kp));
    }
    out.push_back(std::move(k));
  }
  return out;
}

Plan make_plan(const Exercise& e, std::uint64_t seed, bool draw) {
  Plan p;
  if (!e.tests.empty()) {
    teacher_plan(e, seed, draw, p);  // a teacher's exercise declares its tests
  } else {
    const auto it = makers().find(e.id);
    if (it == makers().end()) throw std::logic_error("exercise " + e.id + " has no test plan");
    it->second(p, seed, draw);
  }
  // The counter rules the exercise declares (@@ counter_rules) hold in every test.
  for (PlanTest& t : p.tests) {
    for (const profile::CounterRule& r : e.counter_rules) t.rules.push_back({r.rule, r.limit});
  }
  const std::vector<KernelSignature> kernels = kernel_signatures(e.starter);
  for (PlanTest& t : p.tests) {
    for (PlanStep& s : t.steps) {
      const auto k = std::find_if(kernels.begin(), kernels.end(),
                                  [&](const KernelSignature& x) { return x.name == s.kernel; });
      if (k == kernels.end() || k->params.size() != s.args.size()) {
        throw std::logic_error("exercise " + e.id + ": kernel " + s.kernel +
                               " does not match the starter's declaration");
      }
      s.kernel_index = static_cast<std::uint32_t>(k - kernels.begin());
    }
  }
  return p;
}

}  // namespace gpulab::exercise
