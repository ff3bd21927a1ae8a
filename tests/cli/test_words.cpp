// What gpulab says, in both languages: Chinese errors, honest emulator wording, plurals, numbers.
#include <catch2/catch.hpp>

#include <regex>
#include <string>
#include <vector>

#include "support/run.hpp"

using gpulab::test::run_gpulab;

namespace {

bool has_cjk(const std::string& s) {
  for (unsigned char c : s) {
    if (c >= 0xE4 && c <= 0xE9) return true;
  }
  return false;
}

// Three English words in a row, outside option names, CUDA names and file names: untranslated.
bool has_english_phrase(const std::string& s) {
  static const std::regex phrase("(^|[^-_A-Za-z0-9.])[a-z]{3,} [a-z]{3,} [a-z]{3,}([^A-Za-z]|$)");
  return std::regex_search(s, phrase);
}

}  // namespace

TEST_CASE("usage errors read in Chinese with --lang zh", "[cli][words]") {
  const std::vector<std::vector<std::string>> bad = {
      {"vecadd", "--n", "0"},
      {"vecadd"},
      {"vecadd", "--n", "10", "--block", "2048"},
      {"hello", "--blocks", "4096", "--threads", "1024"},
      {"amdahl", "--p", "2"},
      {"amdahl", "--p", "0.5", "--n", "1,,2"},
      {"index-map", "--grid", "0", "--block", "4"},
      {"index-map", "--grid", "4"},
      {"twonorm", "--rows", "100", "--cols", "100", "--kernel", "course"},
      {"warp-hiding", "--latency", "400"},
      {"occupancy", "--threads", "128"},
      {"occupancy", "--cc", "1.5", "--threads", "128"},
      {"device-info", "--model", "nosuchgpu"},
      {"learn", "nosuchlesson"},
      {"vecadd", "--n", "10", "--reps", "3"},
      {"hello", "--shuffle-blocks", "1", "--backend", "gpu"},
  };
  for (auto args : bad) {
    args.insert(args.begin(), {"--lang", "zh"});
    const auto r = run_gpulab(args);
    CAPTURE(args, r.err);
    CHECK(r.exit_code == 2);
    CHECK(r.err.rfind("gpulab: error: ", 0) == 0);
    CHECK(has_cjk(r.err));
    CHECK_FALSE(has_english_phrase(r.err));
    // The same error in English has no Chinese.
    args.erase(args.begin(), args.begin() + 2);
    const auto en = run_gpulab(args, {}, {"LANG=C"});
    CHECK_FALSE(has_cjk(en.err));
  }
  // A zh LANG chooses Chinese errors too.
  const auto r = run_gpulab({"vecadd", "--n", "0"}, {}, {"LANG=zh_CN.UTF-8"});
  CHECK(has_cjk(r.err));
}

TEST_CASE("the no-GPU notice and device-info's reason in Chinese", "[cli][words]") {
  const auto r = run_gpulab({"--lang", "zh", "device-info"});
  CAPTURE(r.out);
  if (r.out.find("没有可用的 CUDA GPU") == std::string::npos) return;  // a GPU is here
  CHECK(r.out.find("原因：") != std::string::npos);
  const auto reason = r.out.substr(r.out.find("原因："), 200);
  CHECK_FALSE(has_english_phrase(reason.substr(0, reason.find('\n'))));
  const auto hello = run_gpulab({"--lang", "zh", "hello"});
  CHECK(hello.err.find("没有可用的 GPU") != std::string::npos);
  CHECK_FALSE(has_english_phrase(hello.err));
}

TEST_CASE("spec-sheet notes and index-map headers in Chinese", "[cli][words]") {
  const auto g80 = run_gpulab({"--lang", "zh", "device-info", "--model", "g80"});
  CHECK(g80.out.find("说明：") != std::string::npos);
  CHECK(g80.out.find("（英文）") == std::string::npos);
  CHECK(g80.out.find("GP100") != std::string::npos);
  const auto map =
      run_gpulab({"--lang", "zh", "index-map", "--grid", "4", "--block", "8", "--find", "21"});
  CHECK(map.out.find("线程块号") != std::string::npos);
  CHECK(map.out.find("block#") == std::string::npos);
  // Block 2 counted from 0 is "线程块 2", never "第 2 个线程块".
  CHECK(map.out.find("= 线程块 2，余数为线程 5") != std::string::npos);
  CHECK(map.out.find("第 2 个线程块") == std::string::npos);
}

TEST_CASE("on the emulator gpulab never says GPU for what the emulator did", "[cli][words]") {
  const auto hello = run_gpulab({"--backend", "cpu", "hello", "--threads", "2"});
  CHECK(hello.out.find("Hello from the emulator") != std::string::npos);
  CHECK(hello.out.find("Hello from the GPU") == std::string::npos);
  const auto hello_zh = run_gpulab({"--lang", "zh", "--backend", "cpu", "hello"});
  CHECK(hello_zh.out.find("来自模拟器的问候") != std::string::npos);
  CHECK(hello_zh.out.find("来自 GPU 的问候") == std::string::npos);
  CHECK(hello_zh.out.find("模拟器：跨越") != std::string::npos);  // no space after "："

  const auto two = run_gpulab({"--backend", "cpu", "twonorm", "--rows", "8", "--cols", "8"});
  CHECK(two.out.find("Emulator result") != std::string::npos);
  CHECK(two.out.find("GPU result") == std::string::npos);
  CHECK(two.out.find("copied to the device") == std::string::npos);
  CHECK(two.out.find("emulator's device memory (host memory)") != std::string::npos);

  const auto bench =
      run_gpulab({"--backend", "cpu", "vecadd", "--n", "100000", "--bench", "--reps", "2"});
  CAPTURE(bench.out);
  CHECK(bench.out.find("device-to-device") == std::string::npos);
  CHECK(bench.out.find("in the emulator's device memory") != std::string::npos);
  CHECK(bench.out.find(" 0 GB/s") == std::string::npos);
  CHECK(bench.out.find(" 0.0 GB/s") == std::string::npos);

  const auto version = run_gpulab({"--version"});
  const auto probe = run_gpulab({"device-info"});
  if (probe.out.find("No usable CUDA GPU") != std::string::npos) {
    CHECK(version.out.find("backends: cpu-emulator") != std::string::npos);
    CHECK(version.out.find("backends: cuda") == std::string::npos);
  }
}

TEST_CASE("warp-hiding --measure on the emulator plots no cycles", "[cli][words]") {
  const auto r =
      run_gpulab({"--backend", "cpu", "warp-hiding", "--measure", "--steps", "4", "--seed", "1"});
  CAPTURE(r.out);
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("FMA/cycle") == std::string::npos);
  CHECK(r.out.find("FMA per cycle") == std::string::npos);
  CHECK(r.out.find("% of limit") == std::string::npos);
  CHECK(r.out.find("FMA/CPU ns") != std::string::npos);
}

TEST_CASE("counts agree with their nouns", "[cli][words]") {
  const auto hello = run_gpulab({"--backend", "cpu", "hello"});
  CHECK(hello.out.find("1 block x 1 thread = 1 thread, so 1 line.") != std::string::npos);
  const auto hello2 = run_gpulab({"--backend", "cpu", "hello", "--blocks", "2", "--threads", "3"});
  CHECK(hello2.out.find("2 blocks x 3 threads = 6 threads, so 6 lines.") != std::string::npos);
  CHECK(hello2.out.find("Order: 2 warps in 2 blocks.") != std::string::npos);
  const auto one = run_gpulab({"--backend", "cpu", "vecadd", "--n", "10", "--block", "256"});
  CAPTURE(one.out);
  CHECK(one.out.find("= 1 block\n") != std::string::npos);
  CHECK(one.out.find("1 blocks") == std::string::npos);
  CHECK(one.out.find("(246 idle threads)") != std::string::npos);
  // 246 idle threads, so "no idle lanes" would contradict it two lines later.
  CHECK(one.out.find("no idle lanes") == std::string::npos);
  const auto single = run_gpulab({"--backend", "cpu", "vecadd", "--n", "255", "--block", "256"});
  CHECK(single.out.find("(1 idle thread)") != std::string::npos);
  const auto full = run_gpulab({"--backend", "cpu", "vecadd", "--n", "256", "--block", "256"});
  CHECK(full.out.find("no idle lanes") != std::string::npos);
}

TEST_CASE("amdahl's words match its table", "[cli][words]") {
  const auto zero = run_gpulab({"amdahl", "--p", "0"});
  CHECK(zero.out.find("stays below") == std::string::npos);
  CHECK(zero.out.find("exactly 1x") != std::string::npos);
  const auto tiny = run_gpulab({"amdahl", "--p", "0.999999999999"});
  CAPTURE(tiny.out);
  CHECK(tiny.out.find("1 - P = 1e-12") != std::string::npos);
  CHECK(tiny.out.find("1 - P = 0 ") == std::string::npos);
  CHECK(tiny.out.find("P = 0.999999999999") != std::string::npos);
  const auto p95 = run_gpulab({"amdahl", "--p", "0.95"});
  CAPTURE(p95.out);
  // One precision for the efficiency column, separators in formulas.
  CHECK(p95.out.find("68.97%") != std::string::npos);
  CHECK(p95.out.find("68.966%") == std::string::npos);
  CHECK(p95.out.find("0.95/100,000") != std::string::npos);
  const std::regex percent(R"(([0-9<.]+)%)");
  for (std::sregex_iterator it(p95.out.begin(), p95.out.end(), percent), end; it != end; ++it) {
    const std::string v = (*it)[1];
    if (v.find('.') != std::string::npos) {
      CHECK(v.size() - v.find('.') - 1 == 2);
    }
  }
}
