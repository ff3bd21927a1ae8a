// gpulab profile on the emulator: every program of the profile corpus (tests/profile/corpus) gives
// the counts Nsight Compute measured on an H100 (tests/profile/ncu_h100.csv), except the values
// tests/profile/known_differences.csv lists with the reason; the text explains in both languages.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>

#include <unistd.h>

#include "support/cli.hpp"
#include "support/run.hpp"

using namespace gpulab::test;
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

const fs::path kProfile = fs::path(GPULAB_SOURCE_DIR) / "tests" / "profile";

// A cache of its own, so that tests neither read nor fill the user's.
std::string cache_env() {
  static const fs::path dir = [] {
    fs::path d = fs::temp_directory_path() / ("gpulab-profile-test-" + std::to_string(::getpid()));
    fs::remove_all(d);
    fs::create_directories(d);
    return d;
  }();
  return "XDG_CACHE_HOME=" + dir.string();
}

// One CSV record with quoted fields ("1,024").
std::vector<std::string> fields(const std::string& line) {
  std::vector<std::string> out(1);
  bool quoted = false;
  for (char c : line) {
    if (c == '"') {
      quoted = !quoted;
    } else if (c == ',' && !quoted) {
      out.emplace_back();
    } else {
      out.back() += c;
    }
  }
  return out;
}

double number(std::string s) {
  s.erase(std::remove(s.begin(), s.end(), ','), s.end());
  return std::stod(s);
}

// program -> metric -> value, from a CSV whose first columns are program, (kernel,) metric, value.
std::map<std::string, std::map<std::string, double>> h100() {
  std::map<std::string, std::map<std::string, double>> v;
  std::ifstream in(kProfile / "ncu_h100.csv");
  std::string line;
  std::getline(in, line);
  while (std::getline(in, line)) {
    const auto f = fields(line);
    if (f.size() == 4) v[f[0]][f[2]] = number(f[3]);
  }
  return v;
}

struct Known {
  double emulator, h100;
};
std::map<std::pair<std::string, std::string>, Known> known_differences() {
  std::map<std::pair<std::string, std::string>, Known> k;
  std::ifstream in(kProfile / "known_differences.csv");
  std::string line;
  std::getline(in, line);
  while (std::getline(in, line)) {
    const auto f = fields(line);
    if (f.size() >= 4) k[{f[0], f[1]}] = Known{number(f[2]), number(f[3])};
  }
  return k;
}

json profile_json(const fs::path& file) {
  const fs::path report =
      fs::temp_directory_path() / ("gpulab-profile-" + std::to_string(::getpid()) + ".json");
  const auto r = run_gpulab(
      {"profile", file.string(), "--backend", "cpu", "--json", "--report", report.string()}, {},
      {cache_env()});
  CAPTURE(file, r.out, r.err);
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::EndsWith(": ok\n"));  // the program's own output passes through
  std::ifstream in(report);
  std::stringstream s;
  s << in.rdbuf();
  fs::remove(report);
  return json::parse(s.str());
}

// The text with its line breaks (and the indent after them) taken out: sentences are wrapped at
// 100 columns at most, whatever COLUMNS says.
std::string flat(const std::string& text, const char* joiner = " ") {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '\n') {
      out += text[i];
      continue;
    }
    while (i + 1 < text.size() && text[i + 1] == ' ') ++i;
    out += joiner;
  }
  return out;
}

// program -> metric -> value, from tests/profile/hand_counts.csv (program,metric,value).
std::map<std::string, std::map<std::string, double>> hand_counts() {
  std::map<std::string, std::map<std::string, double>> v;
  std::ifstream in(kProfile / "hand_counts.csv");
  std::string line;
  std::getline(in, line);
  while (std::getline(in, line)) {
    const auto f = fields(line);
    if (f.size() == 3) v[f[0]][f[1]] = number(f[2]);
  }
  return v;
}

}  // namespace

TEST_CASE("profile: the corpus counts what ncu measured on the H100, but the known differences",
          "[run]") {
  const auto gpu = h100();
  const auto known = known_differences();
  // 16 programs measured 2026-11-25, 20 more 2026-11-27.
  REQUIRE(gpu.size() == 36);
  int equal = 0, differ = 0;
  for (const auto& [program, metrics] : gpu) {
    const json j = profile_json(kProfile / "corpus" / (program + ".cu"));
    REQUIRE(j.at("launches").size() == 1);
    const json& m = j["launches"][0]["metrics"];
    for (const auto& [metric, value] : m.items()) {
      CAPTURE(program, metric, value);
      REQUIRE(metrics.count(metric) == 1);
      const double ours = value.get<double>(), theirs = metrics.at(metric);
      const auto k = known.find({program, metric});
      if (k == known.end()) {
        CHECK(ours == Approx(theirs).margin(0.005));
        ++equal;
      } else {
        CHECK(ours == Approx(k->second.emulator).margin(0.005));
        CHECK(theirs == Approx(k->second.h100).margin(0.005));
        ++differ;
      }
    }
  }
  CHECK(equal == 322);
  CHECK(differ == 38);
}

TEST_CASE("profile: the textbook kernels give their counts worked out by hand from the source",
          "[run]") {
  // Every corpus program is measured on the H100 (above), worked out from its source by
  // tests/profile/hand_counts.py (here: global requests and sectors, shared requests, wavefronts
  // and bank conflicts, loads and stores apart), or both.
  const auto gpu = h100();
  const auto hand = hand_counts();
  REQUIRE(hand.size() == 20);
  int programs = 0, values = 0;
  for (const auto& entry : fs::directory_iterator(kProfile / "corpus")) {
    const std::string program = entry.path().stem().string();
    CAPTURE(program);
    REQUIRE(gpu.count(program) + hand.count(program) >= 1);
    if (hand.count(program) == 0) continue;
    ++programs;
    const json j = profile_json(entry.path());
    REQUIRE(j.at("launches").size() == 1);
    const json& m = j["launches"][0]["metrics"];
    for (const auto& [metric, value] : hand.at(program)) {
      CAPTURE(metric);
      if (metric == "shared_ld_requests" || metric == "shared_st_requests") continue;
      REQUIRE(m.contains(metric));
      CHECK(m[metric].get<double>() == value);
      ++values;
    }
  }
  CHECK(programs == 20);
  CHECK(values == 160);
}

TEST_CASE("profile: a branch is named at its own line, the loop's or the if's", "[run]") {
  // scan_hillis_steele.cu: the loop's condition is line 25 (for), the if is line 28.
  const json j = profile_json(kProfile / "corpus" / "scan_hillis_steele.cu");
  std::map<int, json> lines;
  for (const json& l : j["launches"][0]["lines"]) lines[l["line"].get<int>()] = l["metrics"];
  const char* uniformity = "smsp__sass_average_branch_targets_threads_uniform.pct";
  REQUIRE(lines.count(28) == 1);
  REQUIRE(lines[28].contains(uniformity));
  // 8 warps x 8 steps per block; warp 0 splits at offsets 1..16: 59 of 64 uniform.
  CHECK(lines[28][uniformity].get<double>() == Approx(100.0 * 59 / 64));
  REQUIRE(lines.count(25) == 1);
  CHECK(lines[25][uniformity].get<double>() == 100.0);
  for (const auto& [line, metrics] : lines)
    if (line != 25 && line != 28) CHECK_FALSE(metrics.contains(uniformity));
}

TEST_CASE("profile: per line, worst first, in English and Chinese", "[run]") {
  const fs::path file = kProfile / "corpus" / "transpose_tiled.cu";
  // Wide enough that no sentence is wrapped where the test looks for it.
  const auto en =
      run_gpulab({"profile", file.string(), "--backend", "cpu"}, {}, {cache_env(), "COLUMNS=300"});
  CAPTURE(en.err);
  REQUIRE(en.exit_code == 0);
  CHECK_THAT(flat(en.err),
             Catch::Contains("transpose_tiled.cu:26: each warp load of "
                             "transpose_tiled::tile needs 32 wavefronts where 1 would do"));
  CHECK_THAT(en.err, Catch::Contains("wavefront 2  1"));  // the drawing: lane 1 waits for lane 0
  CHECK_THAT(en.err, Catch::Contains("4,096/3968"));      // the listing's line 26
  const auto zh = run_gpulab({"profile", file.string(), "--backend", "cpu", "--lang", "zh"}, {},
                             {cache_env(), "COLUMNS=300"});
  REQUIRE(zh.exit_code == 0);
  // Chinese lines break anywhere, without a space: compare without any.
  std::string zh_text = zh.err;
  zh_text.erase(
      std::remove_if(zh_text.begin(), zh_text.end(), [](char c) { return c == ' ' || c == '\n'; }),
      zh_text.end());
  CHECK_THAT(zh_text, Catch::Contains("需要32个波前（wavefront），本来1个就够"));

  const json j = profile_json(kProfile / "corpus" / "strided.cu");
  const json& launch = j["launches"][0];
  CHECK(launch["kernel"] == "gather_strided");
  CHECK(launch["grid"] == json::array({32, 1, 1}));
  CHECK(launch["findings"][0]["kind"] == "uncoalesced");
  CHECK(launch["findings"][0]["line"] == 19);
  bool line19 = false;
  for (const json& l : launch["lines"]) {
    if (l["line"] != 19) continue;
    line19 = true;
    CHECK(l["metrics"]["l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"] == 8192);
  }
  CHECK(line19);
}

TEST_CASE("profile: bad input is a usage error", "[run]") {
  check_usage_error({"profile", "no-such-file.cu"}, "no-such-file.cu");
  check_usage_error({"profile", (kProfile / "corpus" / "coalesced.cu").string(), "--timeout", "0"},
                    "--timeout");
}

TEST_CASE("profile: lesson 17 quotes what gpulab profile prints for its programs", "[run]") {
  // Each indented block of the lesson that starts with a kernel's heading is output of
  // `gpulab profile FILE` on lessons/files/17/FILE, in the lesson's language: every line of it
  // must be in what the command prints now (line breaks and spacing aside).
  const fs::path root = fs::path(GPULAB_SOURCE_DIR) / "lessons";
  const auto squeeze = [](const std::string& s, bool zh) {
    std::string out;
    for (char c : s) {
      if (c == ' ' || c == '\n') {
        if (!zh && !out.empty() && out.back() != ' ') out += ' ';
      } else {
        out += c;
      }
    }
    while (!out.empty() && out.back() == ' ') out.pop_back();
    return out;
  };
  int blocks = 0, lines = 0;
  for (const char* lang : {"en", "zh"}) {
    const bool zh = std::string(lang) == "zh";
    std::ifstream in(root / lang / "17-coalescing-and-bank-conflicts.md");
    REQUIRE(in.good());
    std::map<std::string, std::string> printed;  // file -> the command's output, squeezed
    std::string line, file;
    const std::regex heading(zh ? R"(^    内核 \S+，启动于 (\w+\.cu):)"
                                : R"(^    Kernel \S+ at (\w+\.cu):)");
    while (std::getline(in, line)) {
      std::smatch m;
      if (std::regex_search(line, m, heading)) {
        file = m[1];
        ++blocks;
        if (printed.count(file) == 0) {
          const auto r = run_gpulab({"profile", (root / "files" / "17" / file).string(), "--lang",
                                     lang, "--backend", "cpu"},
                                    {}, {cache_env(), "COLUMNS=80"});
          REQUIRE(r.exit_code == 0);
          printed[file] = squeeze(r.err, zh);
        }
      } else if (line.rfind("    ", 0) != 0) {
        file.clear();  // the block ended
        continue;
      }
      if (file.empty()) continue;
      CAPTURE(lang, file, line);
      CHECK_THAT(printed[file], Catch::Contains(squeeze(line, zh)));
      ++lines;
    }
  }
  CHECK(blocks == 12);
  CHECK(lines == 68);
}

TEST_CASE("profile --require: a rule that is not one is a usage error naming the rules", "[run]") {
  check_usage_error(
      {"profile", (kProfile / "corpus" / "coalesced.cu").string(), "--require", "max_sectors=4"},
      "max_sectors_per_request=N");
  check_usage_error({"profile", (kProfile / "corpus" / "coalesced.cu").string(), "--require",
                     "min_branch_uniformity=101"},
                    "--require");
}

TEST_CASE("profile: nvcc's flags and the program's arguments, as gpulab run takes them", "[run]") {
  // The options that build and run the program are gpulab run's, declared once for both.
  const fs::path dir =
      fs::temp_directory_path() / ("gpulab-profile-flags-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const fs::path file = dir / "scaled.cu";
  std::ofstream(file) << R"(#include <cstdio>
#ifndef SCALE
#error SCALE must be defined
#endif
#ifdef BROKEN
#error BROKEN must be undefined
#endif
__global__ void scale(float* x) { x[threadIdx.x] *= SCALE; }
int main(int argc, char** argv) {
  float* d;
  cudaMalloc(&d, 32 * sizeof(float));
  cudaMemset(d, 0, 32 * sizeof(float));
  scale<<<1, 32>>>(d);
  cudaDeviceSynchronize();
  cudaFree(d);
  printf("arg %s\n", argc > 1 ? argv[1] : "none");
  return 0;
}
)";
  const auto r = run_gpulab(
      {"profile", file.string(), "--backend", "cpu", "--json", "-DSCALE=2", "-DBROKEN", "-UBROKEN",
       "-Xcompiler", "-Wno-unused-variable,-fno-strict-aliasing", "-lm", "-O3", "--", "-7"},
      {}, {cache_env()});
  CAPTURE(r.out, r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.out == "arg -7\n");
  const json j = json::parse(r.err);
  REQUIRE(j["launches"].size() == 1);
  CHECK(j["launches"][0]["kernel"] == "scale");
  // nvcc's flag for a GPU build is said, as gpulab run says it, not dropped.
  CHECK(j["flags_without_effect"] == json::array({"-O3"}));
  const auto text =
      run_gpulab({"profile", file.string(), "--backend", "cpu", "-DSCALE=2", "-arch=sm_90", "-O3"},
                 {}, {cache_env()});
  CHECK(text.exit_code == 0);
  CHECK_THAT(text.err, Catch::Contains("Accepted, no effect on the emulator: -arch=sm_90 -O3"));
  // Without the -D the program does not compile: the flag reached the compiler.
  const auto without =
      run_gpulab({"profile", file.string(), "--backend", "cpu"}, {}, {cache_env()});
  CHECK(without.exit_code != 0);
  CHECK_THAT(without.err, Catch::Contains("SCALE must be defined"));
  check_usage_error({"profile", file.string(), "-Xbogus"}, "-Xbogus");
  // A program that crashes in its host code: 128 + SIGSEGV, as gpulab run and a shell give.
  const fs::path crash = dir / "crash.cu";
  std::ofstream(crash) << "int main() {\n  volatile int* p = nullptr;\n  *p = 1;\n}\n";
  const auto crashed =
      run_gpulab({"profile", crash.string(), "--backend", "cpu", "--json"}, {}, {cache_env()});
  CHECK(crashed.exit_code == 139);
  const json cj = json::parse(crashed.err);
  CHECK(cj["signal"] == "SIGSEGV");
  CHECK(cj["crash"] == "The program crashed (SIGSEGV) in its host code.");
  CHECK(!cj.contains("faults"));
  fs::remove_all(dir);
}

TEST_CASE("profile: the host compiler's -O from -Xcompiler does not change the counts", "[run]") {
  // At -O3 g++ merges branch_divergent's loads and stores, and its finding lines were gone; the
  // profiled build keeps its own level after the user's flags.
  const std::string file = (kProfile / "corpus" / "branch_divergent.cu").string();
  const auto plain = run_gpulab({"profile", file, "--json"}, {}, {cache_env()});
  const auto o3 = run_gpulab({"profile", file, "--json", "-Xcompiler", "-O3"}, {}, {cache_env()});
  REQUIRE(plain.exit_code == 0);
  REQUIRE(o3.exit_code == 0);
  const json a = json::parse(plain.err), b = json::parse(o3.err);
  REQUIRE(a["launches"].size() == 1);
  CHECK(a["launches"][0]["findings"].size() >= 4);
  CHECK(b["launches"] == a["launches"]);
}
