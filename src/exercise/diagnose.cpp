// The mistakes of an exercise check and their fixes (see diagnose.hpp). Each is told once, for the
// first test that shows it, with how many more tests had it.
#include "exercise/diagnose.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstdlib>
#include <cstring>
#include <map>
#include <set>
#include <sstream>

#include "core/i18n_format.hpp"
#include "core/process.hpp"
#include "core/text.hpp"
#include "run/findings.hpp"
#include "run/report.hpp"

namespace gpulab::exercise {

namespace {

using nlohmann::json;
using ThreadKey = std::array<std::uint32_t, 6>;  // block x, y, z, thread x, y, z

json dims(std::uint32_t x, std::uint32_t y, std::uint32_t z) {
  return json::array({x, y, z});
}

Text who(const json& block, const json& thread) {
  return {fmt::format("block {} thread {}", dims_text(block), dims_text(thread)),
          fmt::format("线程块 {} 线程 {}", dims_text(block), dims_text(thread))};
}
Text who(const ThreadKey& k) {
  return who(dims(k[0], k[1], k[2]), dims(k[3], k[4], k[5]));
}

ThreadKey thread_of(std::uint64_t writer, const PlanStep& s) {
  return writer_thread(writer, s);
}
ThreadKey thread_of(const json& block, const json& thread) {
  ThreadKey k{};
  for (int i = 0; i < 3; ++i) {
    k[i] = block.is_array() && block.size() == 3 ? block[i].get<std::uint32_t>() : 0;
    k[3 + i] = thread.is_array() && thread.size() == 3 ? thread[i].get<std::uint32_t>() : 0;
  }
  return k;
}
// Its global x and y: blockIdx * blockDim + threadIdx.
std::uint64_t global_x(const ThreadKey& k, const PlanStep& s) {
  return std::uint64_t{k[0]} * s.block.x + k[3];
}
std::uint64_t global_y(const ThreadKey& k, const PlanStep& s) {
  return std::uint64_t{k[1]} * s.block.y + k[4];
}

std::string element(const std::string& name, const PlanBuffer& b, long long e) {
  if (b.rows > 1 && e >= 0 && static_cast<std::size_t>(e) < b.elements) {
    const std::size_t cols = b.elements / b.rows;
    return fmt::format("{}[{}][{}]", name, static_cast<std::size_t>(e) / cols,
                       static_cast<std::size_t>(e) % cols);
  }
  return fmt::format("{}[{}]", name, e);
}

std::string number(double v) {
  return fmt::format("{:.7g}", v);
}

// "09-shared.cu:7" -> "7".
std::string line_of(const std::string& where) {
  const auto colon = where.rfind(':');
  return colon == std::string::npos ? where : where.substr(colon + 1);
}

// The buffer a finding's access hit (its region's start is a buffer's address) and the element.
struct Hit {
  int buffer = -1;
  long long element = 0;
};
Hit hit_of(const json& f, const TestResult& tr) {
  Hit h;
  if (!f.contains("address") || !f.contains("offset")) return h;
  const auto address = f["address"].get<std::uint64_t>();
  const auto offset = f["offset"].get<std::int64_t>();
  const std::uint64_t base = address - static_cast<std::uint64_t>(offset);
  for (std::size_t b = 0; b < tr.addresses.size(); ++b) {
    if (tr.addresses[b] != base) continue;
    h.buffer = static_cast<int>(b);
    h.element = offset >= 0 ? offset / 4 : -((-offset + 3) / 4);
  }
  return h;
}

// Who wrote each output element in one launch, from the emulator's list of every access (kept
// for launches of up to 20,000 accesses).
struct Writes {
  bool complete = false;
  std::map<std::pair<std::uint32_t, std::size_t>, std::set<ThreadKey>> by_element;
};
Writes writes_of(const json& record, const TestResult& tr, const PlanTest& pt) {
  Writes w;
  if (!record.contains("accesses")) return w;
  w.complete = true;
  for (const json& a : record["accesses"]) {
    if (!a[0].is_null() || a[9].get<int>() == 0) continue;  // shared memory, or a read
    const auto address = a[1].get<std::uint64_t>();
    for (std::size_t b = 0; b < tr.addresses.size(); ++b) {
      const std::uint64_t base = tr.addresses[b], bytes = pt.buffers[b].elements * 4;
      if (!pt.buffers[b].output || address < base || address >= base + bytes) continue;
      ThreadKey k;
      for (int i = 0; i < 6; ++i) k[i] = a[3 + i].get<std::uint32_t>();
      w.by_element[{static_cast<std::uint32_t>(b), (address - base) / 4}].insert(k);
    }
  }
  return w;
}

class Diagnoser {
 public:
  Diagnoser(CheckResult& c, const Judged& j) : c_(c), j_(j), plan_(*j.plan) {}

  void run() {
    classify_bounds();
    for (std::size_t t = 0; t < c_.tests.size(); ++t) test(t);
    rules();
    whole_run();
  }

 private:
  // A diagnosis; the same mistake again in a later test is counted, not repeated.
  void add_once(std::size_t test, const std::string& mistake, const std::string& key, Text text) {
    const std::string k = mistake + "|" + key;
    const auto it = seen_.find(k);
    if (it != seen_.end()) {
      if (tests_of_[k].insert(test).second) ++c_.diagnoses[it->second].more_tests;
      return;
    }
    seen_[k] = c_.diagnoses.size();
    tests_of_[k].insert(test);
    c_.diagnoses.push_back({mistake, std::move(text), 0});
  }
  bool told(const std::string& mistake) const {
    return std::any_of(c_.diagnoses.begin(), c_.diagnoses.end(),
                       [&](const Diagnosis& d) { return d.mistake == mistake; });
  }
  void reason(std::size_t t, Text why) {
    if (c_.tests[t].reason.en.empty()) c_.tests[t].reason = std::move(why);
  }
  Text in_test(std::size_t t) const {
    return {" (test " + c_.tests[t].name.en + ")", "（测试 " + c_.tests[t].name.zh + "）"};
  }
  const std::string& name(int b) const { return j_.names[static_cast<std::size_t>(b)]; }

  // Out-of-bounds accesses, line by line over all tests: one past the end by one thread in every
  // test is an off-by-one; many threads past the end (in any test) is a missing guard.
  void classify_bounds() {
    for (const TestOutcome& t : c_.tests) {
      for (const json& f : t.findings) {
        if (f.value("kind", "") != "out_of_bounds") continue;
        auto& most = most_hits_[f.value("where", "")];
        most = std::max(most, f.value("hits", std::uint64_t{1}));
      }
    }
  }

  void test(std::size_t t) {
    TestOutcome& to = c_.tests[t];
    const PlanTest& pt = plan_.tests[t];
    const TestResult* tr = t < j_.outputs->tests.size() ? &j_.outputs->tests[t] : nullptr;
    const Text it = in_test(t);
    if (tr == nullptr) {
      reason(t, {"not run: the runner stopped before it", "未运行：运行程序在此之前已停止"});
      return;
    }
    const bool faulted = std::any_of(to.findings.begin(), to.findings.end(), [](const json& f) {
      return f.value("kind", "") == "kernel_fault";
    });
    if (to.error && !faulted) {  // (a fault is told as the finding it is)
      const std::string kernel = to.error->value("kernel", ""),
                        error = to.error->value("error", "");
      add_once(t, "launch_failed", kernel + error,
               {fmt::format("the launch of {} failed{}: {}", kernel, it.en, error),
                fmt::format("{} 的启动失败{}：{}", kernel, it.zh, error)});
      reason(t, {fmt::format("the launch of {} failed: {}", kernel, error),
                 fmt::format("{} 启动失败：{}", kernel, error)});
    }
    std::vector<Writes> writes;
    for (const json& rec : to.records) writes.push_back(writes_of(rec, *tr, pt));
    std::set<int> explained;  // buffers whose wrong outputs a diagnosis already explains
    // A mistake of the index told already (in this test or an earlier one) explains the races
    // and the missing elements it causes, also in tests too large to list every access.
    const bool index_told = told("index_collision") || told("transposed_index");
    bool races_explained = index_told;
    if (plan_.one_writer_per_element) {
      if (collision(t, *tr, writes, explained)) races_explained = true;
    }
    if (plan_.two_d) transposed(t, *tr, explained);
    for (const json& f : to.findings) finding(t, *tr, f, writes, explained, races_explained);
    if (explained.empty() && !to.findings.empty()) explained.insert(-1);  // a finding explains
    if (index_told || told("many_writers")) explained.insert(-1);
    for (const json& r : to.results) {
      if (r.value("pass", true)) continue;
      output(t, r, *tr, explained.empty());
    }
  }

  // An element two threads both wrote, where each element has one thread: the index formula.
  bool collision(std::size_t t, const TestResult& tr, const std::vector<Writes>& writes,
                 std::set<int>& explained) {
    const PlanTest& pt = plan_.tests[t];
    for (const Writes& w : writes) {
      if (!w.complete) continue;
      for (const auto& [key, threads] : w.by_element) {
        if (threads.size() < 2) continue;
        const int b = static_cast<int>(key.first);
        const std::string elem =
            element(name(b), pt.buffers[key.first], static_cast<long long>(key.second));
        const Text first = who(*threads.begin()), second = who(*std::next(threads.begin()));
        const std::size_t more = threads.size() - 2;
        const Text also = more > 0 ? Text{fmt::format(" and {} more", more),
                                          fmt::format("以及另外 {} 个线程", more)}
                                   : Text{"", ""};
        const Text detail = mix_up(t, tr, w, key.first);
        const Text it = in_test(t);
        add_once(
            t, "index_collision", "",
            {fmt::format("{} was written by {} threads, {} and {}{}{}: the index formula gives "
                         "several threads the same element and leaves others to no thread. {}"
                         "Each thread needs an element of its own: {}.",
                         elem, threads.size(), first.en, second.en, also.en, it.en, detail.en,
                         plan_.index_formula),
             fmt::format("{} 被 {} 个线程写入：{}和{}{}{}。下标公式让几个线程落到同一个元素上，"
                         "而另一些元素没有线程负责。{}每个线程需要自己的元素：{}。",
                         elem, threads.size(), first.zh, second.zh, also.zh, it.zh, detail.zh,
                         plan_.index_formula)});
        reason(t, {fmt::format("{} written by {} threads", elem, threads.size()),
                   fmt::format("{} 被 {} 个线程写入", elem, threads.size())});
        explained.insert(b);
        (void)tr;
        return true;
      }
    }
    return false;
  }

  // Which mix-up a 1-D launch's writes follow, in words (empty when none fits).
  Text mix_up(std::size_t t, const TestResult& tr, const Writes& w, std::uint32_t buffer) {
    (void)tr;
    const PlanTest& pt = plan_.tests[t];
    const PlanStep* step = nullptr;
    for (const PlanStep& s : pt.steps) {
      for (const auto& o : s.outputs) step = o.first == buffer ? &s : step;
    }
    if (step == nullptr || step->grid.y != 1 || step->block.y != 1) return {"", ""};
    bool grid_dim = true, thread_only = true;
    for (const auto& [key, threads] : w.by_element) {
      if (key.first != buffer) continue;
      for (const ThreadKey& k : threads) {
        grid_dim = grid_dim && key.second == std::uint64_t{k[0]} * step->grid.x + k[3];
        thread_only = thread_only && key.second == k[3];
      }
    }
    if (grid_dim && step->grid.x != step->block.x) {
      return {fmt::format("Your index is blockIdx.x * gridDim.x + threadIdx.x: gridDim.x is the "
                          "number of blocks ({}), blockDim.x the threads per block ({}), and "
                          "the blocks are blockDim.x elements apart. ",
                          step->grid.x, step->block.x),
              fmt::format("你的下标是 blockIdx.x * gridDim.x + threadIdx.x：gridDim.x 是线程块的"
                          "个数（{}），blockDim.x 是每块的线程数（{}），相邻线程块相隔 blockDim.x "
                          "个元素。",
                          step->grid.x, step->block.x)};
    }
    if (thread_only && step->grid.x > 1) {
      return {"Your index is threadIdx.x alone: every block writes the same elements. ",
              "你的下标只有 threadIdx.x：每个线程块都写同样的元素。"};
    }
    return {"", ""};
  }

  // A 2-D output whose elements were written by the thread of the transposed element.
  void transposed(std::size_t t, const TestResult& tr, std::set<int>& explained) {
    const PlanTest& pt = plan_.tests[t];
    for (const StepResult& s : tr.steps) {
      const PlanStep& ps = pt.steps[s.step];
      for (const StepOutput& o : s.outputs) {
        const PlanBuffer& b = pt.buffers[o.buffer];
        if (o.writers.empty() || b.rows < 2) continue;
        const std::size_t cols = b.elements / b.rows;
        std::size_t right = 0, swapped = 0, example = b.elements;
        ThreadKey example_thread{};
        for (std::size_t e = 0; e < b.elements; ++e) {
          const float v = o.values[e];
          std::uint32_t bits;
          std::memcpy(&bits, &v, sizeof bits);
          if (o.writers[e] == 0 || bits == 0xFFFFFFFFu) continue;
          const ThreadKey k = thread_of(o.writers[e], ps);
          const std::uint64_t x = global_x(k, ps), y = global_y(k, ps), r = e / cols, c = e % cols;
          if (x == c && y == r) ++right;
          if (x == r && y == c && r != c) {
            ++swapped;
            if (example == b.elements) {
              example = e;
              example_thread = k;
            }
          }
        }
        if (swapped == 0 || right > swapped) continue;
        const std::size_t r = example / cols, c = example % cols;
        const std::string elem =
            element(name(static_cast<int>(o.buffer)), b, static_cast<long long>(example));
        const Text w = who(example_thread);
        const Text it = in_test(t);
        add_once(
            t, "transposed_index", "",
            {fmt::format("thread (x, y) = ({}, {}) ({}) wrote {}{}: the element of thread "
                         "({}, {}). Row and column are swapped: x runs along a row (over the "
                         "columns), y down the rows. The right formula: {}.",
                         r, c, w.en, elem, it.en, c, r, plan_.index_formula),
             fmt::format("线程 (x, y) = ({}, {})（{}）写了 {}{}：那是线程 ({}, {}) 的元素。行和列"
                         "颠倒了：x 沿一行（跨各列）变化，y 沿各行变化。正确的公式：{}。",
                         r, c, w.zh, elem, it.zh, c, r, plan_.index_formula)});
        reason(t, {fmt::format("row and column swapped ({})", elem),
                   fmt::format("行列颠倒（{}）", elem)});
        explained.insert(static_cast<int>(o.buffer));
        return;
      }
    }
  }

  void finding(std::size_t t, const TestResult& tr, const json& f,
               const std::vector<Writes>& writes, std::set<int>& explained, bool races_explained) {
    const PlanTest& pt = plan_.tests[t];
    const std::string kind = f.value("kind", "");
    const std::string where = f.value("where", "");
    const Text it = in_test(t);
    const std::size_t step = f.value("step", std::size_t{0});
    const PlanStep& ps = pt.steps[std::min(step, pt.steps.size() - 1)];
    const bool write = f.value("write", false);
    const Text did = write ? Text{"wrote", "写入"} : Text{"read", "读取"};
    const Text w = who(f.value("block", json()), f.value("thread", json()));
    if (kind == "out_of_bounds") {
      const Hit h = hit_of(f, tr);
      const std::uint64_t hits = f.value("hits", std::uint64_t{1});
      if (h.buffer < 0) {
        generic(t, f);
        return;
      }
      const PlanBuffer& b = pt.buffers[static_cast<std::size_t>(h.buffer)];
      const std::string elem = fmt::format("{}[{}]", name(h.buffer), h.element);
      const std::size_t n = b.elements;
      const std::uint64_t threads =
          std::uint64_t{ps.grid.x} * ps.grid.y * ps.grid.z * ps.block.x * ps.block.y * ps.block.z;
      const ThreadKey k = thread_of(f.value("block", json()), f.value("thread", json()));
      const std::uint64_t g = global_x(k, ps);
      reason(t,
             {fmt::format("{} {} past the end of {} at {}", did.en, elem, name(h.buffer), where),
              fmt::format("在 {} {}了 {}，越过 {} 的末尾", where, did.zh, elem, name(h.buffer))});
      if (h.element < 0) {
        add_once(t, "out_of_bounds", where,
                 {fmt::format("{} {} {} at {}{}, before the start of {}: an index below 0.", w.en,
                              did.en, elem, where, it.en, name(h.buffer)),
                  fmt::format("{}在 {} {}了 {}{}，在 {} 的起点之前：下标小于 0。", w.zh, where,
                              did.zh, elem, it.zh, name(h.buffer))});
        return;
      }
      if (static_cast<std::uint64_t>(h.element) >= n + threads) {
        // Beyond what any thread's index reaches: an address computed wrongly, not a guard.
        add_once(t, "out_of_bounds", where,
                 {fmt::format("{} {} {} at {}{}, far past the end of {} ({} has {} and the launch "
                              "{} threads): an address no index of this launch should reach. "
                              "Check how the pointer or the index is computed.",
                              w.en, did.en, elem, where, it.en, name(h.buffer), name(h.buffer),
                              count_noun(n, "element", "elements"), threads),
                  fmt::format("{} 在 {} {}了 {}{}，远远越过 {} 的末尾（{} 有 {} 个元素，启动了 {} "
                              "个线程）：这个地址不是本次启动的任何下标应该到达的。请检查指针或下标"
                              "的计算。",
                              w.zh, where, did.zh, elem, it.zh, name(h.buffer), name(h.buffer), n,
                              threads)});
        return;
      }
      if (most_hits_[where] <= 1 && static_cast<std::size_t>(h.element) == n) {
        Text detail{
            "An index one too large: check the bound of the guard and any + 1 in the index.",
            "下标大了一：检查边界判断的上限和下标里的 + 1。"};
        if (ps.grid.y == 1 && ps.block.y == 1 && g == n) {
          detail = {"The guard lets i == n through: use i < n, not i <= n.",
                    "边界判断放过了 i == n：应写 i < n，而不是 i <= n。"};
        } else if (ps.grid.y == 1 && ps.block.y == 1 && g + 1 == n) {
          detail = {
              "The index goes one past the end for the last thread (i + 1 when i = n - 1): "
              "the last element has no next one.",
              "最后一个线程的下标越过了末尾（i = n - 1 时的 i + 1）：最后一个元素没有下一个。"};
        }
        add_once(t, "off_by_one", where,
                 {fmt::format("{} {} {} at {}{}: one past the end ({} has {}). An "
                              "off-by-one, not a missing guard: only that one thread went past. {}",
                              w.en, did.en, elem, where, it.en, name(h.buffer),
                              count_noun(n, "element", "elements"), detail.en),
                  fmt::format("{}在 {} {}了 {}{}：刚好越过末尾一个（{} 有 {} 个元素）。这是差一"
                              "错误（off-by-one），不是缺少边界检查：只有这一个线程越界。{}",
                              w.zh, where, did.zh, elem, it.zh, name(h.buffer), n, detail.zh)});
        return;
      }
      add_once(
          t, "missing_guard", where,
          {fmt::format("{} past the end of {} at {}{} ({} has {} and the "
                       "launch {} threads); the first: {} {} {}. A thread whose index is {} "
                       "or more has no element and must do nothing: a missing guard, put the "
                       "access under if (i < n).",
                       count_noun(hits, "access", "accesses"), name(h.buffer), where, it.en,
                       name(h.buffer), count_noun(n, "element", "elements"), threads, w.en, did.en,
                       elem, n),
           fmt::format("在 {} 有 {} 次访问越过 {} 的末尾{}（{} 有 {} 个元素，启动了 {} 个线程）；"
                       "第一次：{} {}了 {}。下标大于等于 {} 的线程没有对应的元素，什么都不应该做："
                       "缺少边界检查（guard），把访问放进 if (i < n)。",
                       where, hits, name(h.buffer), it.zh, name(h.buffer), n, threads, w.zh, did.zh,
                       elem, n)});
      return;
    }
    if (kind == "shared_race") {
      const std::string array = f.value("array", "?");
      const std::string other_where = f.value("other_where", "");
      const json index = f.value("index", json());
      const std::string cell =
          index.is_number() ? fmt::format("{}[{}]", array, index.dump()) : array;
      const bool other_write = f.value("other_write", false);
      const Text other_did = other_write ? Text{"wrote", "写入"} : Text{"read", "读取"};
      const Text first = who(f.value("block", json()), f.value("other_thread", json()));
      if (line_of(other_where) == line_of(where)) {
        reason(t, {fmt::format("race on __shared__ {} at {}", array, where),
                   fmt::format("__shared__ {} 上的竞争（{}）", array, where)});
        add_once(t, "missing_syncthreads", where,
                 {fmt::format("__shared__ {}: {} {} it and {} {} it, both at {}{}, with no "
                              "__syncthreads() between: one step of the loop reads what another "
                              "thread writes in the same step. Add __syncthreads() at the end of "
                              "each step, inside the loop.",
                              cell, first.en, other_did.en, w.en, did.en, where, it.en),
                  fmt::format("__shared__ {}：{} {}了它，{} {}了它，都在 {}{}，中间没有 "
                              "__syncthreads()：循环的一步读到了另一个线程在同一步写的值。在循环内"
                              "每一步的末尾加 __syncthreads()。",
                              cell, first.zh, other_did.zh, w.zh, did.zh, where, it.zh)});
        return;
      }
      // The two phases: the line that wrote and the line that read (by source order, the
      // barrier goes after the write and before the read).
      const bool this_wrote = write && !other_write;
      const std::string write_where = this_wrote ? where : other_where;
      const std::string read_where = this_wrote ? other_where : where;
      const Text writer = this_wrote ? w : first, reader = this_wrote ? first : w;
      const std::string wl = line_of(write_where), rl = line_of(read_where);
      const bool before =
          std::strtol(wl.c_str(), nullptr, 10) < std::strtol(rl.c_str(), nullptr, 10);
      const Text fix =
          before ? Text{fmt::format("Add __syncthreads() between line {} and line {}.", wl, rl),
                        fmt::format("在第 {} 行和第 {} 行之间加 __syncthreads()。", wl, rl)}
                 : Text{fmt::format("Add __syncthreads() after line {}, before line {} runs "
                                    "again (the next step of the loop).",
                                    wl, rl),
                        fmt::format("在第 {} 行之后、第 {} 行再次执行（循环的下一步）之前加 "
                                    "__syncthreads()。",
                                    wl, rl)};
      reason(t, {fmt::format("race on __shared__ {}: written at line {}, read at line {}", array,
                             wl, rl),
                 fmt::format("__shared__ {} 上的竞争：第 {} 行写入，第 {} 行读取", array, wl, rl)});
      add_once(
          t, "missing_syncthreads", rl,
          {fmt::format("__shared__ {}: {} wrote it at line {} and {} read it at line {}{}, "
                       "with no __syncthreads() between the two lines. The threads of a block "
                       "run in no fixed order: every thread must finish one phase before any "
                       "thread reads what another wrote. {}",
                       cell, writer.en, wl, reader.en, rl, it.en, fix.en),
           fmt::format("__shared__ {}：{} 在第 {} 行写入了它，{} 在第 {} 行读取了它{}，两行之间"
                       "没有 __syncthreads()。同一线程块的线程没有固定的先后：所有线程都要做完一个"
                       "阶段，才能有线程读别的线程写的值。{}",
                       cell, writer.zh, wl, reader.zh, rl, it.zh, fix.zh)});
      return;
    }
    if (kind == "global_race") {
      const Hit h = hit_of(f, tr);
      if (h.buffer >= 0 && pt.buffers[static_cast<std::size_t>(h.buffer)].output &&
          !plan_.one_writer_per_element) {
        // One value that many threads update (read, add, write back).
        std::size_t threads = 0;
        std::set<std::uint32_t> blocks;
        for (const Writes& wr : writes) {
          const auto it2 = wr.by_element.find(
              {static_cast<std::uint32_t>(h.buffer), static_cast<std::size_t>(h.element)});
          if (it2 == wr.by_element.end()) continue;
          threads = std::max(threads, it2->second.size());
          for (const ThreadKey& k : it2->second) blocks.insert(k[0] + 65536 * k[1]);
        }
        const PlanBuffer& b = pt.buffers[static_cast<std::size_t>(h.buffer)];
        const std::string elem = element(name(h.buffer), b, h.element);
        const std::string ref = b.elements == 1 ? name(h.buffer) : "&" + elem;
        const Text count =
            threads > 1 ? Text{fmt::format("{} threads in {}", threads,
                                           count_noun(blocks.size(), "block", "blocks")),
                               fmt::format("{} 个线程块中的 {} 个线程", blocks.size(), threads)}
                        : Text{"many threads", "许多线程"};
        add_once(t, "many_writers", "",
                 {fmt::format("{} is updated by {} at {}{}: each reads it, adds its part and "
                              "writes it back, so their updates overwrite one another (a race). "
                              "One value that many threads add to needs atomicAdd({}, value), or "
                              "a reduction: sum within each block in __shared__ memory, then one "
                              "atomicAdd per block.",
                              elem, count.en, where, it.en, ref),
                  fmt::format("{} 被{}更新（{}）{}：每个线程读它、加上自己的部分、再写回，彼此的"
                              "更新互相覆盖（竞争）。许多线程累加到同一个值，需要用 "
                              "atomicAdd({}, value)，或者归约：先在每个线程块的 __shared__ 内存里"
                              "求和，再每块做一次 atomicAdd。",
                              elem, count.zh, where, it.zh, ref)});
        reason(t, {fmt::format("{} updated by {} without atomics", elem, count.en),
                   fmt::format("{} 被{}非原子地更新", elem, count.zh)});
        explained.insert(h.buffer);
        return;
      }
      if (races_explained && h.buffer >= 0) return;  // the index collision told already
      generic(t, f);
      return;
    }
    if (kind == "kernel_fault" &&
        f.value("message", "").find("__syncthreads") != std::string::npos) {
      const Text head{f.value("message", ""), f.value("message", "")};
      add_once(t, "divergent_barrier", where,
               {fmt::format("{}{}: {} Every thread of a block must reach the same "
                            "__syncthreads(): put it outside the if, where all threads pass.",
                            where, it.en, head.en),
                fmt::format("{}{}：{} 同一线程块的所有线程必须到达同一个 __syncthreads()：把它移到 "
                            "if 之外。",
                            where, it.zh, head.zh)});
      reason(t, {"a __syncthreads() not every thread reaches", "有线程到不了的 __syncthreads()"});
      return;
    }
    generic(t, f);
  }

  // Any other finding, in run --check's words, with the student's array for the allocation.
  void generic(std::size_t t, const json& f) {
    RunFinding rf;
    rf.kind = f.value("kind", "");
    rf.where = f.value("where", "");
    rf.other_where = f.value("other_where", "");
    rf.facts = f;
    std::string en = describe_finding(rf, Lang::en), zh = describe_finding(rf, Lang::zh);
    const TestResult& tr = j_.outputs->tests[t];
    const Hit h = hit_of(f, tr);
    if (h.buffer >= 0 && f.contains("region_site")) {
      const std::string site = f.value("region_site", "");
      const auto bytes = f.value("region_bytes", std::uint64_t{0});
      const std::string from_en = fmt::format("the {}-byte allocation made at {}", bytes, site);
      const std::string from_zh = fmt::format("在 {1} 分配的 {0} 字节显存", bytes, site);
      const auto replace = [](std::string& s, const std::string& a, const std::string& b) {
        if (const auto at = s.find(a); at != std::string::npos) s.replace(at, a.size(), b);
      };
      replace(en, from_en, name(h.buffer));
      replace(zh, from_zh, name(h.buffer));
    }
    const std::string at = rf.where.empty() ? "" : rf.where + ": ";
    const Text it = in_test(t);
    add_once(t, rf.kind, rf.where, {at + en + it.en, at + zh + it.zh});
    reason(t,
           {finding_title(rf.kind, Lang::en) + (rf.where.empty() ? "" : " at " + rf.where),
            finding_title(rf.kind, Lang::zh) + (rf.where.empty() ? "" : "（" + rf.where + "）")});
  }

  // A wrong output no finding explains: never written, another element's value, or just wrong.
  void output(std::size_t t, const json& r, const TestResult& tr, bool tell) {
    const PlanTest& pt = plan_.tests[t];
    const std::string buf = r.value("buffer", "out");
    const auto index = r.value("index", std::uint64_t{0});
    const auto rows = r.value("rows", std::size_t{1});
    const std::string cell =
        rows > 1 ? fmt::format("{}[{}][{}]", buf, r.value("row", 0), r.value("col", 0))
                 : fmt::format("{}[{}]", buf, index);
    const std::string after = r.value("after", "");
    const Text after_text = pt.steps.size() > 1 ? Text{fmt::format("after {}, ", after),
                                                       fmt::format("{} 之后，", after)}
                                                : Text{"", ""};
    const std::string got =
        r.contains("got") && r["got"].is_number() ? number(r["got"].get<double>()) : "NaN";
    const std::string expected = number(r.value("expected", 0.0));
    const Text it = in_test(t);
    if (r.value("never_written", false)) {
      reason(t, {fmt::format("{}{} never written", after_text.en, cell),
                 fmt::format("{}{} 从未被写入", after_text.zh, cell)});
      if (!tell) return;
      add_once(t, "never_written", "",
               {fmt::format("{}{} was never written{}: no thread stored a value there ({} of {} "
                            "elements never written). Does every element have a thread (the grid, "
                            "the guard, a loop over the rest)?",
                            after_text.en, cell, it.en, r.value("never_written_count", 0),
                            r.value("elements", 0)),
                fmt::format("{}{} 从未被写入{}：没有线程在那里存值（{} 个元素中缺了 {} 个）。是否每"
                            "个元素都有线程负责（网格大小、边界检查、处理剩余元素的循环）？",
                            after_text.zh, cell, it.zh, r.value("elements", 0),
                            r.value("never_written_count", 0))});
      return;
    }
    // The thread that wrote it (the emulator's recorder).
    Text writer{"", ""};
    for (const StepResult& s : tr.steps) {
      for (const StepOutput& o : s.outputs) {
        if (j_.names[o.buffer] != buf || o.writers.empty() || index >= o.writers.size() ||
            o.writers[index] == 0 || pt.steps[s.step].kernel != after)
          continue;
        const Text w = who(thread_of(o.writers[index], pt.steps[s.step]));
        writer = {", written by " + w.en, "，由" + w.zh + "写入"};
      }
    }
    reason(t, {fmt::format("{}{} is {}, expected {}", after_text.en, cell, got, expected),
               fmt::format("{}{} 是 {}，应为 {}", after_text.zh, cell, got, expected)});
    if (!tell) return;
    if (r.contains("value_of")) {
      const auto j = r["value_of"].get<std::uint64_t>();
      add_once(t, "wrong_index", "",
               {fmt::format("{}{} is {}, expected {}{}{}: that is the value element {} should "
                            "hold. Check the index formula.",
                            after_text.en, cell, got, expected, writer.en, it.en, j),
                fmt::format("{}{} 是 {}，应为 {}{}{}：这是元素 {} 应有的值。请检查下标公式"
                            "（index）。",
                            after_text.zh, cell, got, expected, writer.zh, it.zh, j)});
      return;
    }
    add_once(
        t, "wrong_value", "",
        {fmt::format("{}{} is {}, expected {}{}{}; {} of {} elements are wrong.", after_text.en,
                     cell, got, expected, writer.en, it.en, r.value("wrong", 0),
                     r.value("elements", 0)),
         fmt::format("{}{} 是 {}，应为 {}{}{}；{} 个元素中有 {} 个错误。", after_text.zh, cell, got,
                     expected, writer.zh, it.zh, r.value("elements", 0), r.value("wrong", 0))});
  }

  void rules() {
    for (std::size_t t = 0; t < c_.tests.size(); ++t) {
      const Text it = in_test(t);
      for (const RuleCheck& r : c_.tests[t].rules) {
        if (r.ok || !r.measured_known) continue;
        if (r.counter) {
          counter_rule(t, it, *r.counter);
          continue;
        }
        const Text w = r.who.is_object()
                           ? who(r.who.value("block", json()), r.who.value("thread", json()))
                           : Text{"a thread", "某个线程"};
        const auto limit = static_cast<unsigned long long>(r.limit);
        const auto measured = static_cast<unsigned long long>(r.measured);
        if (r.rule == "max_global_reads" || r.rule == "max_global_writes") {
          const bool reads = r.rule == "max_global_reads";
          add_once(
              t, reads ? "too_many_reads" : "too_many_writes", "",
              {fmt::format("rule broken{}: each thread may {} global memory at most {}; {} "
                           "{} it {}.",
                           it.en, reads ? "read" : "write", count_noun(limit, "time", "times"),
                           w.en, reads ? "read" : "wrote", count_noun(measured, "time", "times")),
               fmt::format("违反规则{}：每个线程最多{}全局内存 {} 次；{}{}了 {} 次。", it.zh,
                           reads ? "读" : "写", limit, w.zh, reads ? "读" : "写", measured)});
          reason(t, {fmt::format("rule broken: {} global {} by one thread (at most {})", measured,
                                 reads ? "reads" : "writes", limit),
                     fmt::format("违反规则：一个线程{}全局内存 {} 次（最多 {} 次）",
                                 reads ? "读" : "写", measured, limit)});
        } else if (r.rule == "uses_shared") {
          add_once(
              t, "no_shared", "",
              {"rule broken" + it.en +
                   ": the kernel must use shared memory (__shared__), and it never touched "
                   "any.",
               "违反规则" + it.zh + "：核函数必须使用共享内存（__shared__），但它一次也没有用。"});
          reason(t, {"rule broken: no shared memory", "违反规则：没有使用共享内存"});
        } else if (r.rule == "max_barriers_per_block") {
          add_once(
              t, "too_many_barriers", "",
              {fmt::format("rule broken{}: at most {} __syncthreads() per block (one per "
                           "step); each block crossed {}.",
                           it.en, limit, number(r.measured)),
               fmt::format("违反规则{}：每个线程块最多 {} 次 __syncthreads()（每步一次）；实际 "
                           "{} 次。",
                           it.zh, limit, number(r.measured))});
          reason(t, {fmt::format("rule broken: {} __syncthreads() per block (at most {})",
                                 number(r.measured), limit),
                     fmt::format("违反规则：每块 {} 次 __syncthreads()（最多 {} 次）",
                                 number(r.measured), limit)});
        }
      }
    }
  }

  // A counter rule broken: the counter, its value, the limit, where, and what to change.
  void counter_rule(std::size_t t, const Text& it, const profile::CounterRuleResult& r) {
    const std::string& rule = r.rule.rule;
    const gpulab::Text said = profile::describe_result(r);
    const std::string value = fmt::format("{:.4g}", r.value),
                      limit = fmt::format("{}", r.rule.limit);
    Text fix;
    std::string mistake;
    if (rule == "max_sectors_per_request") {
      mistake = "uncoalesced";
      fix = {
          "the 32 lanes of a warp should access 32 consecutive, aligned elements: thread k "
          "of a warp takes element base + k, on both the load and the store side",
          "一个线程束（warp）的 32 个通道应访问 32 个连续、对齐的元素：线程束中第 k 个线程取第 "
          "base + k 个元素，读和写两侧都是如此"};
    } else if (rule == "max_bank_conflicts") {
      mistake = "bank_conflicts";
      fix = {
          "lanes of a warp that read different words of one bank wait for each other: a "
          "column of float tile[32][32] lies in one bank; one more float per row "
          "(tile[32][33]) puts each row's column in the next bank",
          "同一线程束中读同一存储体（bank）不同字的通道要互相等待：float tile[32][32] "
          "的一列都在同一个"
          "存储体；每行多一个 float（tile[32][33]），每行的这一列就落在下一个存储体"};
    } else {
      mistake = "divergent_branches";
      fix = {
          "lanes of a warp that take different sides of a branch run one side after the "
          "other: make the condition the same for all 32 lanes of a warp",
          "同一线程束中走分支不同一侧的通道要先后执行：让条件对一个线程束的 32 个通道都相同"};
    }
    add_once(t, mistake, rule,
             {fmt::format("rule broken{}: {} ({} = {}, the limit is {}). Fix: {}.", it.en, said.en,
                          rule, value, limit, fix.en),
              fmt::format("违反规则{}：{}（{} = {}，上限 {}）。改法：{}。", it.zh, said.zh, rule,
                          value, limit, fix.zh)});
    reason(t, {fmt::format("rule broken: {} = {} (the limit is {})", rule, value, limit),
               fmt::format("违反规则：{} = {}（上限 {}）", rule, value, limit)});
  }

  void whole_run() {
    const RunResult& r = c_.run;
    auto add = [&](std::string mistake, Text text) {
      c_.diagnoses.push_back({std::move(mistake), std::move(text), 0});
    };
    if (!c_.channel_problem.empty()) {
      add("bad_outputs",
          {"the data the runner handed back is malformed (" + c_.channel_problem +
               "): nothing of it counts",
           "运行程序交回的数据格式不对（" + c_.channel_problem + "）：其中的内容都不算数"});
    }
    if (r.output_capped) {
      add("output_limit",
          {fmt::format("the kernels printed more than {} MiB and were stopped: print from one "
                       "thread (if (i == 0) printf(...)), not from all",
                       r.max_output_bytes >> 20),
           fmt::format("核函数输出超过 {} MiB，已被停止：只让一个线程打印（if (i == 0) "
                       "printf(...)），不要让所有线程都打印",
                       r.max_output_bytes >> 20)});
    } else if (r.timed_out) {
      add("timeout",
          {fmt::format("still running after {} s: an endless loop (a loop whose index never "
                       "grows)?",
                       r.timeout_ms / 1000),
           fmt::format("运行超过 {} 秒：是否有死循环（循环变量从不增加）？", r.timeout_ms / 1000)});
    } else if (r.signal != 0) {
      std::string where;
      if (r.crash && r.crash->contains("kernel")) {
        where = fmt::format(" in kernel {}, block {} thread {}", r.crash->value("kernel", ""),
                            dims_text(r.crash->value("block", json())),
                            dims_text(r.crash->value("thread", json())));
      }
      add("crash", {"the program crashed" + where + " (" + signal_name(r.signal) + ")",
                    "程序崩溃" + where + "（" + signal_name(r.signal) + "）"});
    } else if (!c_.runner_finished && c_.channel_problem.empty()) {
      bool told = false;
      for (const Diagnosis& d : c_.diagnoses) told = told || d.mistake == "launch_failed";
      if (!told) add("stopped", {"the tests stopped before their end", "测试在结束前中止"});
    }
    // compute-sanitizer on the GPU: run-wide (its runs are not split by test).
    for (const auto& san : r.sanitizer) {
      if (san.errors <= 0) continue;
      std::string first;
      std::istringstream in(san.output);
      std::string line;
      for (int n = 0; n < 4 && std::getline(in, line);) {
        if (line.find("=========     ") == 0 || line == "=========") continue;
        first += "\n    " + line;
        ++n;
      }
      add("sanitizer_" + san.tool,
          {fmt::format("compute-sanitizer --tool {} found {} error(s) in the kernels:{}", san.tool,
                       san.errors, first),
           fmt::format("compute-sanitizer --tool {} 在核函数中发现 {} 个错误：{}", san.tool,
                       san.errors, first)});
    }
  }

  CheckResult& c_;
  const Judged& j_;
  const Plan& plan_;
  std::map<std::string, std::size_t> seen_;
  std::map<std::string, std::set<std::size_t>> tests_of_;
  std::map<std::string, std::uint64_t> most_hits_;
};

}  // namespace

void diagnose(CheckResult& c, const Judged& j) {
  Diagnoser(c, j).run();
  for (TestOutcome& t : c.tests) {
    if (!t.pass && t.reason.en.empty()) {
      t.reason =
          t.ran ? Text{"a check failed in its launches", "它的启动中有检查未通过"}
                : Text{"not run: the runner stopped before it", "未运行：运行程序在此之前已停止"};
    }
  }
}

}  // namespace gpulab::exercise
