// Quiz questions checked against an independent computation from their own prompts, and grading.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <random>
#include <regex>

#include "calc/quiz.hpp"

using namespace gpulab;
using namespace gpulab::calc;

namespace {

// The whole numbers and decimals of a prompt, in order.
std::vector<double> numbers_in(const std::string& s) {
  std::vector<double> out;
  std::regex re(R"(\d+(\.\d+)?)");
  for (auto it = std::sregex_iterator(s.begin(), s.end(), re); it != std::sregex_iterator(); ++it) {
    out.push_back(std::stod(it->str()));
  }
  return out;
}

std::int64_t ceil_div(std::int64_t a, std::int64_t b) {
  return (a + b - 1) / b;
}

// Global index by brute force: count threads in CUDA's order until (block, thread) is reached.
std::int64_t brute_global(std::int64_t gx, std::int64_t gy, std::int64_t bx, std::int64_t by,
                          std::int64_t bix, std::int64_t biy, std::int64_t tix, std::int64_t tiy) {
  std::int64_t n = 0;
  for (std::int64_t y = 0; y < gy; ++y)
    for (std::int64_t x = 0; x < gx; ++x)
      for (std::int64_t ty = 0; ty < by; ++ty)
        for (std::int64_t tx = 0; tx < bx; ++tx) {
          if (x == bix && y == biy && tx == tix && ty == tiy) return n;
          ++n;
        }
  return -1;
}

// The answer recomputed from the prompt's numbers, without the generator's code.
std::vector<double> independent_answer(const Question& q) {
  const auto v = numbers_in(q.prompt);
  const std::string& t = q.topic;
  if (t == "warps-on-sm") return {v[0] * double(ceil_div(std::int64_t(v[1]), 32))};
  if (t == "hide-latency") return {double(ceil_div(std::int64_t(v[0]), std::int64_t(v[1] * v[2])))};
  if (t == "blocks-needed") return {double(ceil_div(std::int64_t(v[0]), std::int64_t(v[1])))};
  if (t == "find-1d") return {std::floor(v[1] / v[0]), std::fmod(v[1], v[0])};
  if (t == "idle-lanes") return {double((32 - std::int64_t(v[0]) % 32) % 32)};
  if (t == "amdahl-speedup") return {1.0 / (v[0] / 100 / v[1] + (1 - v[0] / 100))};
  if (t == "amdahl-limit") return {1.0 / (1 - v[0] / 100)};
  if (t == "occupancy-registers") {
    // The prompt ends with R registers, then T threads.
    const std::int64_t r = std::int64_t(v[v.size() - 2]), threads = std::int64_t(v.back());
    const std::int64_t warps = ceil_div(threads, 32);
    const std::int64_t per_warp = ceil_div(r * 32, 256) * 256;
    const std::int64_t by_regs = (16384 / per_warp) * 4 / warps;
    return {double(std::min({64 / warps, std::int64_t{32}, by_regs}))};
  }
  if (t == "occupancy-shared") {
    // The prompt ends with T threads, then K KiB.
    const std::int64_t threads = std::int64_t(v[v.size() - 2]), kib = std::int64_t(v.back());
    const std::int64_t warps = ceil_div(threads, 32);
    return {double(std::min({64 / warps, std::int64_t{32}, 228 / (kib + 1)}))};
  }
  if (t == "bytes-moved") {
    const bool vecadd = q.prompt.find("vecadd") != std::string::npos;
    return {v[0] * (vecadd ? 12 : 8)};
  }
  if (t == "global-index") {
    return {double(brute_global(std::int64_t(v[0]), std::int64_t(v[1]), std::int64_t(v[2]),
                                std::int64_t(v[3]), std::int64_t(v[4]), std::int64_t(v[5]),
                                std::int64_t(v[6]), std::int64_t(v[7])))};
  }
  if (t == "find-2d") {
    const auto gx = std::int64_t(v[0]), gy = std::int64_t(v[1]), bx = std::int64_t(v[2]),
               by = std::int64_t(v[3]);
    for (std::int64_t y = 0; y < gy; ++y)
      for (std::int64_t x = 0; x < gx; ++x)
        for (std::int64_t ty = 0; ty < by; ++ty)
          for (std::int64_t tx = 0; tx < bx; ++tx)
            if (brute_global(gx, gy, bx, by, x, y, tx, ty) == std::int64_t(v[4])) {
              return {double(x), double(y), double(tx), double(ty)};
            }
  }
  return {};
}

}  // namespace

TEST_CASE("Every generated question's answer matches an independent computation", "[calc][quiz]") {
  std::random_device rd;
  const std::uint64_t seed = rd();
  CAPTURE(seed);
  for (const auto& topic : quiz_topics()) {
    if (topic == "launch-legal") continue;  // checked below against the limits themselves
    for (const auto& q : make_quiz(topic, 25, seed, Lang::en)) {
      CAPTURE(topic, q.prompt, q.answer);
      auto expected = independent_answer(q);
      REQUIRE(expected.size() == q.values.size());
      for (std::size_t i = 0; i < expected.size(); ++i) {
        if (q.kind == AnswerKind::real) {
          CHECK(q.values[i] == Approx(expected[i]).epsilon(1e-9));
        } else {
          CHECK(q.values[i] == expected[i]);
        }
      }
      CHECK(grade(q, q.answer).correct);  // the printed answer grades as right
    }
  }
}

TEST_CASE("Launch-legality questions agree with the hardware limits", "[calc][quiz]") {
  for (const auto& q : make_quiz("launch-legal", 60, 12345, Lang::en)) {
    CAPTURE(q.prompt);
    auto all = numbers_in(q.prompt);
    REQUIRE(all.size() == 8);  // "dim3" carries a 3 of its own: 3, gx, gy, gz, 3, bx, by, bz
    std::vector<double> v = {all[1], all[2], all[3], all[5], all[6], all[7]};
    const double threads = v[3] * v[4] * v[5];
    const bool legal = v[3] <= 1024 && v[4] <= 1024 && v[5] <= 64 && threads <= 1024 &&
                       v[0] <= 2147483647.0 && v[1] <= 65535 && v[2] <= 65535;
    CHECK(q.word == (legal ? "yes" : "no"));
  }
}

TEST_CASE("The same seed gives the same quiz; another seed another", "[calc][quiz]") {
  auto a = make_quiz("all", 11, 42, Lang::en);
  auto b = make_quiz("all", 11, 42, Lang::en);
  auto c = make_quiz("all", 11, 43, Lang::en);
  REQUIRE(a.size() == 11);
  int same = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    CHECK(a[i].prompt == b[i].prompt);
    same += a[i].prompt == c[i].prompt;
  }
  CHECK(same < 11);
  // Every topic appears once in a quiz of all topics.
  for (std::size_t i = 0; i < a.size(); ++i) CHECK(a[i].topic == quiz_topics()[i]);
  CHECK(make_quiz("nonsense", 3, 1, Lang::en).empty());
}

TEST_CASE("Grading: right, wrong, malformed, tolerance, tuples, words", "[calc][quiz]") {
  Question n;
  n.kind = AnswerKind::integer;
  n.values = {13};
  CHECK(grade(n, "13").correct);
  CHECK(grade(n, " 13 ").correct);
  CHECK_FALSE(grade(n, "12").correct);
  CHECK_FALSE(grade(n, "12").malformed);
  CHECK(grade(n, "thirteen").malformed);
  CHECK(grade(n, "").malformed);
  Question big;
  big.kind = AnswerKind::integer;
  big.values = {12582912};
  CHECK(grade(big, "12,582,912").correct);
  Question r;
  r.kind = AnswerKind::real;
  r.values = {6.896552};
  r.tolerance = 0.01;
  CHECK(grade(r, "6.9").correct);
  CHECK(grade(r, "6.89").correct);
  CHECK(grade(r, "6.9x").correct);
  CHECK_FALSE(grade(r, "7.1").correct);
  Question t;
  t.kind = AnswerKind::tuple;
  t.values = {2, 5};
  CHECK(grade(t, "2,5").correct);
  CHECK(grade(t, "(2, 5)").correct);
  CHECK(grade(t, "2 5").correct);
  CHECK_FALSE(grade(t, "5,2").correct);
  CHECK(grade(t, "2").malformed);
  CHECK(grade(t, "2,x").malformed);
  Question w;
  w.kind = AnswerKind::word;
  w.word = "no";
  CHECK(grade(w, "No").correct);
  CHECK(grade(w, "n").correct);
  CHECK_FALSE(grade(w, "yes").correct);
  CHECK(grade(w, "maybe").malformed);
}
