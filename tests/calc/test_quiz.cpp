// Quiz questions checked against an independent computation from their own prompts, and grading.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <map>
#include <random>
#include <regex>
#include <set>

#include "calc/quiz.hpp"

using namespace gpulab;
using namespace gpulab::calc;

namespace {

// The whole numbers and decimals of a prompt, in order ("1,048,576" is one number, "(2, 5)" two).
std::vector<double> numbers_in(const std::string& s) {
  std::vector<double> out;
  std::regex re(R"(\d{1,3}(,\d{3})+(?!\d)|\d+(\.\d+)?)");
  for (auto it = std::sregex_iterator(s.begin(), s.end(), re); it != std::sregex_iterator(); ++it) {
    std::string t = it->str();
    std::erase(t, ',');
    out.push_back(std::stod(t));
  }
  return out;
}

// The global index of a thread in 3-D, by counting in CUDA's order (x fastest, blocks first).
std::int64_t brute_global_3d(const std::int64_t (&g)[3], const std::int64_t (&b)[3],
                             const std::int64_t (&bi)[3], const std::int64_t (&ti)[3]) {
  std::int64_t n = 0;
  for (std::int64_t z = 0; z < g[2]; ++z)
    for (std::int64_t y = 0; y < g[1]; ++y)
      for (std::int64_t x = 0; x < g[0]; ++x)
        for (std::int64_t tz = 0; tz < b[2]; ++tz)
          for (std::int64_t ty = 0; ty < b[1]; ++ty)
            for (std::int64_t tx = 0; tx < b[0]; ++tx) {
              if (x == bi[0] && y == bi[1] && z == bi[2] && tx == ti[0] && ty == ti[1] &&
                  tz == ti[2])
                return n;
              ++n;
            }
  return -1;
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
  if (t == "global-index-3d") {
    const auto i = [&](std::size_t k) { return std::int64_t(v[k]); };
    return {double(brute_global_3d({i(0), i(1), i(2)}, {i(3), i(4), i(5)}, {i(6), i(7), i(8)},
                                   {i(9), i(10), i(11)}))};
  }
  if (t == "shared-bytes") {
    // tile[R][C] of a type whose size the test knows itself.
    const std::map<std::string, double> size = {{"float", 4},  {"double", 8}, {"int", 4},
                                                {"__half", 2}, {"char", 1},   {"float4", 16}};
    std::smatch m;
    REQUIRE(
        std::regex_search(q.prompt, m, std::regex(R"(__shared__ (\w+) tile\[(\d+)\]\[(\d+)\])")));
    return {size.at(m[1]) * std::stod(m[2]) * std::stod(m[3])};
  }
  if (t == "divergence") {
    // Every thread's branch, warp by warp.
    const std::int64_t threads = std::int64_t(v[0]);
    std::smatch m;
    const bool modulo = std::regex_search(q.prompt, m, std::regex(R"(threadIdx\.x % (\d+) == 0)"));
    const bool less =
        modulo || std::regex_search(q.prompt, m, std::regex(R"(threadIdx\.x < (\d+))"));
    REQUIRE(less);
    const std::int64_t k = std::stoll(m[1]);
    std::int64_t both = 0;
    for (std::int64_t w = 0; w * 32 < threads; ++w) {
      bool taken = false, not_taken = false;
      for (std::int64_t lane = 0; lane < 32 && w * 32 + lane < threads; ++lane) {
        const std::int64_t x = w * 32 + lane;
        ((modulo ? x % k == 0 : x < k) ? taken : not_taken) = true;
      }
      both += taken && not_taken;
    }
    return {double(both)};
  }
  if (t == "reduction") {
    if (q.prompt.find("partial sum") != std::string::npos)
      return {double(ceil_div(std::int64_t(v[0]), std::int64_t(v[1] * v[2])))};
    std::int64_t n = std::int64_t(v[0]), steps = 0, adds = 0;
    while (n > 1) {
      adds += n / 2;
      n -= n / 2;
      ++steps;
    }
    return {double(q.prompt.find("additions") != std::string::npos ? adds : steps)};
  }
  if (t == "pytorch-rules" && q.kind != AnswerKind::word) {
    // Row-major strides, computed from the shape, then the index: "float32 ... (r, c) ... x[i][j]"
    // or "(r, c, d) ... x[i][j][k]".
    if (v.size() == 5) return {v[3] * v[2] + v[4]};
    REQUIRE(v.size() == 6);
    const double stride0 = v[1] * v[2], stride1 = v[2];
    return {v[3] * stride0 + v[4] * stride1 + v[5]};
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

// The word answers, keyed by a phrase of their prompt: the test's own table of the facts.
std::string expected_word(const Question& q) {
  const std::pair<const char*, const char*> facts[] = {
      {"declared __shared__", "shared"},
      {"plain scalar", "registers"},
      {"ptxas spills", "local"},
      {"cudaMemcpy fills", "global"},
      {"cudaMemcpyToSymbol", "constant"},
      {"no load or store instruction", "registers"},
      {".t()", "no"},
      {"on the CPU", "no"},
      {"torch.float64", "no"},
      {"on the GPU and contiguous", "yes"},
  };
  for (const auto& [phrase, word] : facts)
    if (q.prompt.find(phrase) != std::string::npos) return word;
  if (q.topic == "race-barrier") {
    // Reader t reads the element thread (t + k) % b wrote: a race unless a barrier orders them or
    // that thread is t itself.
    const auto v = numbers_in(q.prompt);
    const std::int64_t b = std::int64_t(v[0]), k = std::int64_t(v[1]);
    const bool barrier = q.prompt.find("__syncthreads") != std::string::npos;
    bool race = false;
    for (std::int64_t t = 0; t < b; ++t) race = race || (!barrier && (t + k) % b != t);
    return race ? "yes" : "no";
  }
  return "?";
}

}  // namespace

TEST_CASE("Every generated question's answer matches an independent computation", "[calc][quiz]") {
  std::random_device rd;
  const std::uint64_t seed = rd();
  CAPTURE(seed);
  for (const auto& topic : quiz_topics()) {
    if (topic == "launch-legal") continue;  // checked below against the limits themselves
    for (const auto& q : make_quiz(topic, 200, seed, Lang::en)) {
      if (q.kind == AnswerKind::word) {
        CAPTURE(topic, q.prompt, q.answer);
        CHECK(q.word == expected_word(q));
        CHECK(grade(q, q.answer).correct);
        continue;
      }
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
  CHECK(make_quiz("nonsense", 3, 1, Lang::en).empty());
  // Question k is the same whatever the count.
  auto longer = make_quiz("all", 30, 42, Lang::en);
  for (std::size_t i = 0; i < a.size(); ++i) CHECK(longer[i].prompt == a[i].prompt);
}

TEST_CASE("Topic order: mixed per seed, ten questions reach ten groups, every group is reached",
          "[calc][quiz]") {
  std::set<std::string> first_topics, reached_groups;
  std::map<std::string, int> topic_seen;
  for (std::uint64_t seed = 0; seed < 300; ++seed) {
    const auto qs = make_quiz("all", 10, seed, Lang::en);
    REQUIRE(qs.size() == 10);
    std::set<std::string> groups;
    for (const auto& q : qs) {
      groups.insert(topic_group(q.topic));
      ++topic_seen[q.topic];
    }
    CHECK(groups.size() == 10);  // no group twice while another is left out
    reached_groups.insert(groups.begin(), groups.end());
    first_topics.insert(qs[0].topic);
  }
  CHECK(reached_groups.size() == quiz_groups().size());
  CHECK(topic_seen.size() == quiz_topics().size());  // every topic, over seeds
  CHECK(first_topics.size() > 5);                    // the order is mixed, not fixed
  // A quiz as long as there are topics holds each of them once.
  const auto all = make_quiz("all", int(quiz_topics().size()), 7, Lang::en);
  std::set<std::string> once;
  for (const auto& q : all) once.insert(q.topic);
  CHECK(once.size() == quiz_topics().size());
}

TEST_CASE("Topics by name or group, several at once", "[calc][quiz]") {
  CHECK(select_topics("amdahl") == std::vector<std::string>{"amdahl-speedup", "amdahl-limit"});
  CHECK(select_topics("find-1d, amdahl-limit") ==
        std::vector<std::string>{"amdahl-limit", "find-1d"});
  CHECK(select_topics("all") == quiz_topics());
  CHECK(select_topics("") == quiz_topics());
  CHECK_FALSE(select_topics("amdahl,cooking"));
  for (const auto& q : make_quiz("amdahl,races", 20, 3, Lang::en)) {
    CAPTURE(q.topic);
    CHECK((topic_group(q.topic) == "amdahl" || q.topic == "race-barrier"));
  }
  for (const auto& g : quiz_groups()) CHECK(select_topics(g));
}

TEST_CASE("Seeds from any text, stable across versions", "[calc][quiz]") {
  CHECK(quiz_seed("42") == 42);
  CHECK(quiz_seed("9223372036854775807") == 9223372036854775807ull);
  // FNV-1a 64 with the top bit cleared, as docs/teaching.md says: values computed elsewhere.
  CHECK(quiz_seed("student-042") == 6517052853577834979ull);
  CHECK(quiz_seed("张三") == 3037373543403581499ull);
  CHECK(quiz_seed("9223372036854775808") < (1ull << 63));  // too big to be a number: hashed
  CHECK(quiz_seed("alice") != quiz_seed("bob"));
}

TEST_CASE("Quiz prompts and solutions come in Chinese too", "[calc][quiz]") {
  for (const auto& q : make_quiz("all", int(quiz_topics().size()) * 3, 11, Lang::zh)) {
    CAPTURE(q.topic, q.prompt, q.solution);
    // Every prompt holds Chinese text: a byte of a 3-byte UTF-8 character.
    auto chinese = [](const std::string& s) {
      return std::any_of(s.begin(), s.end(),
                         [](char c) { return (static_cast<unsigned char>(c) & 0xF0) == 0xE0; });
    };
    CHECK(chinese(q.prompt));
    // The English solutions' words do not appear in the Chinese ones (formulas may).
    for (const char* word :
         {"warp", "block ", "thread ", "read ", "write", "check", "rem ", "yes:", "no:", "lane",
          "bytes", "element", "lesson", "every", "only", "the "}) {
      CAPTURE(word);
      CHECK(q.solution.find(word) == std::string::npos);
    }
  }
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
  CHECK(grade(w, "否").correct);
  Question m;
  m.kind = AnswerKind::word;
  m.word = "shared";
  m.choices = {"registers", "local", "shared", "constant", "global"};
  CHECK(grade(m, "Shared").correct);
  CHECK_FALSE(grade(m, "global").correct);
  CHECK(grade(m, "heap").malformed);
  Question s;  // a word that is not yes or no, without choices (a lesson's "sisd")
  s.kind = AnswerKind::word;
  s.word = "sisd";
  CHECK(grade(s, "SISD").correct);
  CHECK_FALSE(grade(s, "simd").correct);
  CHECK_FALSE(grade(s, "simd").malformed);
}

TEST_CASE("Numbers as students type them: grouping, full-width digits, units", "[calc][quiz]") {
  Question n;
  n.kind = AnswerKind::integer;
  n.values = {24};
  CHECK(grade(n, "２４").correct);
  CHECK(grade(n, "24 warps").correct);
  CHECK(grade(n, "24warps").correct);
  CHECK(grade(n, "24 个").correct);
  CHECK(grade(n, "２４ 个线程束").correct);
  CHECK(grade(n, "24.").correct);
  CHECK(grade(n, "24 of 32").malformed);
  CHECK(grade(n, "2 4").malformed);
  Question k;
  k.kind = AnswerKind::integer;
  k.values = {193};
  CHECK(grade(k, "1,93").malformed);  // not 193: a comma groups three digits
  CHECK_FALSE(grade(k, "1,93").correct);
  CHECK(grade(k, "193").correct);
  Question f;
  f.kind = AnswerKind::integer;
  f.values = {498};
  CHECK(grade(f, "4,98").malformed);
  Question big;
  big.kind = AnswerKind::integer;
  big.values = {1048576};
  CHECK(grade(big, "1,048,576").correct);
  CHECK(grade(big, "1，048，576").correct);  // full-width commas
  CHECK(grade(big, "1_048_576").correct);
  CHECK(grade(big, "10,48,576").malformed);
  CHECK(grade(big, "1,048,576,").malformed);
  Question r;
  r.kind = AnswerKind::real;
  r.values = {1234.5};
  r.tolerance = 0.001;
  CHECK(grade(r, "1,234.5").correct);
  CHECK(grade(r, "1,234.5x").correct);
  CHECK(grade(r, "1234.5,0").malformed);
  Question t;
  t.kind = AnswerKind::tuple;
  t.values = {2, 5};
  CHECK(grade(t, "２，５").correct);
  CHECK(grade(t, "2、5").correct);
  // The note says why, in the student's language.
  CHECK_THAT(grade(k, "1,93").note, Catch::Contains("three"));
  CHECK_THAT(grade(k, "abc", Lang::zh).note, Catch::Contains("不是数字"));
}

TEST_CASE("Every static __shared__ array the quiz asks about fits 48 KB, so it compiles",
          "[calc][quiz]") {
  const std::regex decl(R"(__shared__ (\w+) tile\[(\d+)\]\[(\d+)\];)");
  const std::map<std::string, int> size = {{"float", 4},  {"double", 8}, {"int", 4},
                                           {"__half", 2}, {"char", 1},   {"float4", 16}};
  int asked = 0;
  for (std::uint64_t seed = 0; seed < 400; ++seed) {
    for (const Question& q : make_quiz("shared-bytes", 10, seed, Lang::en)) {
      std::smatch m;
      REQUIRE(std::regex_search(q.prompt, m, decl));
      const long bytes = size.at(m[1]) * std::stol(m[2]) * std::stol(m[3]);
      CAPTURE(q.prompt);
      CHECK(bytes <= 48 * 1024);
      CHECK(bytes == static_cast<long>(q.values[0]));
      ++asked;
    }
  }
  CHECK(asked == 4000);
}

TEST_CASE("The solution shown after the answer does not say the answer again", "[calc][quiz]") {
  // "The answer is no." then the solution: no "no: no:", no "constant: constant:".
  const std::regex doubled(R"(\b([A-Za-z]+)[:,.]? \1\b)", std::regex::icase);
  for (std::uint64_t seed = 1; seed <= 200; ++seed) {
    for (const Question& q : make_quiz("all", 20, seed, Lang::en)) {
      const std::string shown = "The answer is " + q.answer + ". " + solution_without_answer(q);
      CAPTURE(shown);
      CHECK_FALSE(std::regex_search(shown, doubled));
      if (q.kind == AnswerKind::word)
        CHECK_FALSE(solution_without_answer(q).starts_with(q.word + ":"));
    }
  }
}

TEST_CASE("A percent reads as a fraction where the answer is one", "[calc][quiz]") {
  Question q;
  q.kind = AnswerKind::real;
  q.values = {0.98};
  q.tolerance = 0.001;
  CHECK(grade(q, "0.98").correct);
  CHECK(grade(q, "98%").correct);
  CHECK(grade(q, "98 %").correct);
  CHECK(grade(q, "98 percent").correct);
  CHECK(grade(q, "９８％").correct);
  CHECK_FALSE(grade(q, "98").correct);
  CHECK_FALSE(grade(q, "90%").correct);
  // A larger answer (a speedup, a percentage) is the number as typed.
  q.values = {83.47};
  q.tolerance = 0.01;
  CHECK(grade(q, "83.47").correct);
  CHECK(grade(q, "83.47%").correct);
  CHECK_FALSE(grade(q, "x%").correct);
  CHECK(grade(q, "x%").malformed);
}
