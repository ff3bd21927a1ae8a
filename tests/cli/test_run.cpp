// gpulab run on the emulator: the course notes' programs and typical teaching programs run
// unmodified with the expected output; every planted bug is found by --check at its line; bad input
// gets a clear message.
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
#include "support/says.hpp"

using namespace gpulab::test;
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

const fs::path kCorpus = fs::path(GPULAB_SOURCE_DIR) / "tests" / "run_corpus";

// A cache of its own, so that tests neither read nor fill the user's.
std::string cache_env() {
  static const fs::path dir = [] {
    fs::path d = fs::temp_directory_path() / ("gpulab-run-test-" + std::to_string(::getpid()));
    fs::remove_all(d);
    fs::create_directories(d);
    return d;
  }();
  return "XDG_CACHE_HOME=" + dir.string();
}

RunResult run_program(const std::vector<std::string>& args) {
  std::vector<std::string> all = {"run", "--backend", "cpu"};
  all.insert(all.end(), args.begin(), args.end());
  return run_gpulab(all, {}, {cache_env()});
}

json report_of(const RunResult& r) {
  CAPTURE(r.err);
  return json::parse(r.err);
}

std::string read(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The `// expect: KIND` marks of a planted bug: kind -> line.
std::vector<std::pair<std::string, int>> expected_findings(const fs::path& file) {
  std::vector<std::pair<std::string, int>> out;
  std::istringstream in(read(file));
  std::string line;
  int n = 0;
  static const std::regex mark(R"(// expect: ([a-z_]+))");
  while (std::getline(in, line)) {
    ++n;
    std::smatch m;
    if (std::regex_search(line, m, mark)) out.emplace_back(m[1].str(), n);
  }
  return out;
}

std::vector<fs::path> corpus(const char* folder) {
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(kCorpus / folder)) {
    if (e.path().extension() == ".cu") files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace

TEST_CASE("run: correct programs give the expected output and no finding, with and without --check",
          "[run]") {
  for (const fs::path& file : corpus("ok")) {
    for (const bool check : {false, true}) {
      CAPTURE(file, check);
      std::vector<std::string> args = {"--json", file.string()};
      if (check) args.insert(args.begin(), "--check");
      const RunResult r = run_program(args);
      CHECK(r.exit_code == 0);
      const json j = report_of(r);
      CHECK(j["backend"] == "cpu-emulator");
      CHECK(j["exit_code"] == 0);
      CHECK(j["launches_total"].get<int>() >= 1);
      CHECK(j["findings"].empty());
      CHECK(j["check"] == check);
      // gpulab's transformation of each compiles (no fallback to the file as written).
      CHECK(j["compiled_as_written"].empty());
      const fs::path expected = fs::path(file).replace_extension(".out");
      REQUIRE(fs::exists(expected));
      CHECK(r.out == read(expected));
    }
  }
}

TEST_CASE("run --check finds every planted bug once, at its line", "[run]") {
  for (const fs::path& file : corpus("bugs")) {
    CAPTURE(file);
    const RunResult r = run_program({"--check", "--json", file.string()});
    CHECK(r.exit_code == 1);
    const json j = report_of(r);
    CHECK(j["check_failures"].get<int>() >= 1);
    const auto expected = expected_findings(file);
    REQUIRE_FALSE(expected.empty());
    for (const auto& [kind, line] : expected) {
      CAPTURE(kind, line, j["findings"].dump(2));
      const std::string where = file.filename().string() + ":" + std::to_string(line);
      int found = 0;
      for (const json& f : j["findings"]) {
        if (f["kind"] == kind && f["where"] == where) ++found;
      }
      CHECK(found == 1);
      // Nothing else is reported: a planted bug, not a wall of noise.
      CHECK(j["findings"].size() == expected.size());
    }
  }
}

TEST_CASE("run --check: the same findings, field for field, with one worker and with four",
          "[run]") {
  // Each block's global accesses are checked in parts by address on several workers; the
  // findings (the first access of each kind and line, its block and thread, the other access of a
  // race, the hits) are those of one worker checking the blocks in order.
  const std::string file = (kCorpus / "check" / "spread_findings.cu").string();
  const auto findings = [&](const char* workers) {
    const RunResult r = run_program({"--check", "--json", "--emu-threads", workers, file});
    CHECK(r.exit_code == 1);
    json f = report_of(r)["findings"];
    for (json& one : f) {
      one.erase("address");  // where the allocations are differs from run to run
      for (auto& [key, value] : one.items()) {
        if (value.is_string())
          value = std::regex_replace(value.get<std::string>(), std::regex("0x[0-9a-f]+"), "0x");
      }
    }
    return f;
  };
  const json one = findings("1");
  std::map<std::string, int> kinds;
  for (const json& f : one) ++kinds[f["kind"].get<std::string>()];
  CHECK(kinds["global_race"] >= 2);
  CHECK(kinds["uninitialized_read"] >= 1);
  CHECK(kinds["out_of_bounds"] >= 1);
  CHECK(findings("4") == one);
  CHECK(findings("4") == one);
}

namespace {

// The findings of tests/run_corpus/check/FILE under --check with `workers` workers: a program
// that prints "done" and whose bugs make gpulab run exit with 1.
json checked_findings(const char* file, const char* workers) {
  const RunResult r = run_program(
      {"--check", "--json", "--emu-threads", workers, (kCorpus / "check" / file).string()});
  CHECK(r.exit_code == 1);
  CHECK(r.out == "done\n");
  return report_of(r)["findings"];
}

}  // namespace

TEST_CASE("run --check: bugs met after whole blocks were checked as ranges, as access by access",
          "[run]") {
  // Blocks whose threads each touch the next element are checked as ranges and their accesses
  // kept as runs; a later access that meets those ranges has them written into the race shadow
  // first, so that what is found is what the check of each access in order finds (the values
  // below are those of the check access by access, before ranges): the race with the last thread
  // of the block before, in every block but block 0; the one read of the element never written;
  // and, among ranges that several threads and blocks only read, the race of a write with the
  // last of those reads.
  for (const char* workers : {"1", "2"}) {
    CAPTURE(workers);
    const json f = checked_findings("kept_ranges.cu", workers);
    REQUIRE(f.size() == 3);
    CHECK(f[0]["kind"] == "global_race");
    CHECK(f[0]["where"] == "kept_ranges.cu:22");
    CHECK(f[0]["block"] == json::array({1, 0, 0}));
    CHECK(f[0]["thread"] == json::array({0, 0, 0}));
    CHECK(f[0]["write"] == true);
    CHECK(f[0]["other_where"] == "kept_ranges.cu:21");
    CHECK(f[0]["other_block"] == json::array({0, 0, 0}));
    CHECK(f[0]["other_thread"] == json::array({255, 0, 0}));
    CHECK(f[0]["other_write"] == true);
    CHECK(f[0]["offset"] == 1020);
    CHECK(f[0]["hits"] == 255);
    CHECK(f[1]["kind"] == "uninitialized_read");
    CHECK(f[1]["where"] == "kept_ranges.cu:21");
    CHECK(f[1]["block"] == json::array({255, 0, 0}));
    CHECK(f[1]["thread"] == json::array({255, 0, 0}));
    CHECK(f[1]["offset"] == 262140);
    CHECK(f[1]["hits"] == 1);
    CHECK(f[2]["kind"] == "global_race");
    CHECK(f[2]["where"] == "kept_ranges.cu:30");
    CHECK(f[2]["block"] == json::array({200, 0, 0}));
    CHECK(f[2]["thread"] == json::array({7, 0, 0}));
    CHECK(f[2]["other_where"] == "kept_ranges.cu:28");
    CHECK(f[2]["other_block"] == json::array({1, 0, 0}));
    CHECK(f[2]["other_thread"] == json::array({45, 0, 0}));
    CHECK(f[2]["other_write"] == false);
    CHECK(f[2]["offset"] == 1200);
    CHECK(f[2]["hits"] == 1);
  }
}

TEST_CASE(
    "run --check: a shared-memory race after intervals checked as ranges, as access by access",
    "[run]") {
  // Barrier intervals in which no two threads touch one element, one of them writing, are checked
  // as ranges, with no shadow written; the interval in which two threads meet is checked access by
  // access, in the order the threads made them, and a __syncwarp() orders the warp as before. The
  // values below are those of the check access by access, before ranges.
  for (const char* workers : {"1", "2"}) {
    CAPTURE(workers);
    const json f = checked_findings("shared_intervals.cu", workers);
    REQUIRE(f.size() == 1);
    CHECK(f[0]["kind"] == "shared_race");
    CHECK(f[0]["block"] == json::array({5, 0, 0}));
    CHECK(f[0]["index"] == 7);
    CHECK(f[0]["barrier_interval"] == 1);
    CHECK(f[0]["where"] == "shared_intervals.cu:13");
    CHECK(f[0]["thread"] == json::array({6, 0, 0}));
    CHECK(f[0]["write"] == false);
    CHECK(f[0]["other_where"] == "shared_intervals.cu:14");
    CHECK(f[0]["other_thread"] == json::array({0, 0, 0}));
    CHECK(f[0]["other_write"] == true);
  }
}

TEST_CASE("run explains a finding in words, in English and Chinese", "[run]") {
  const std::string file = (kCorpus / "bugs" / "oob_global.cu").string();
  RunResult r = run_program({"--check", file});
  CHECK(r.exit_code == 1);
  CHECK_THAT(r.err, Catch::Contains("out of bounds  oob_global.cu:4"));
  CHECK(gpulab::test::says(r.err,
                           "of the 4000-byte allocation made at oob_global.cu:10 at byte 4000"));
  CHECK_THAT(r.err, Catch::Contains("if (i < n)"));
  r = run_program({"--check", "--lang", "zh", file});
  CHECK_THAT(r.err, Catch::Contains("越界"));
  CHECK_THAT(r.err, Catch::Contains("oob_global.cu:4"));
}

TEST_CASE("run: lost printf without a wait, exit codes, argv[0] and arguments pass through",
          "[run]") {
  const RunResult lost = run_program({"--json", (kCorpus / "bugs" / "no_sync.cu").string()});
  CHECK(lost.out.empty());  // as on a GPU: the kernel's printf is never shown
  const json j = report_of(lost);
  CHECK(j["lost_printf_bytes"].get<int>() == 4 * 20);
  CHECK(lost.exit_code == 0);  // without --check a finding does not change the exit code

  const fs::path dir =
      fs::temp_directory_path() / ("gpulab-run-args-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const fs::path prog = dir / "args.cu";
  std::ofstream(prog) << "#include <cstdio>\n#include <cstdlib>\n"
                         "__global__ void k(int* out, int v) { *out = v * 2; }\n"
                         "int main(int argc, char** argv) {\n"
                         "  int* d; int h = 0; cudaMalloc(&d, sizeof(int));\n"
                         "  k<<<1, 1>>>(d, atoi(argv[1]));\n"
                         "  cudaMemcpy(&h, d, sizeof(int), cudaMemcpyDeviceToHost);\n"
                         "  printf(\"%s %s %d\\n\", argv[0], argv[2], h); cudaFree(d);\n"
                         "  return h == 42 ? 3 : 4;\n}\n";
  const RunResult r = run_program({prog.string(), "--", "21", "answer"});
  // argv[0] is the file's name, as after `nvcc args.cu -o args`, not the cached build's path.
  CHECK(r.out == "./args answer 42\n");
  CHECK(r.exit_code == 3);
  fs::remove_all(dir);
}

TEST_CASE("run: a second run uses the cached build", "[run]") {
  const std::string file = (kCorpus / "ok" / "notes_hello.cu").string();
  run_program({"--json", file});
  const RunResult r = run_program({"--json", file});
  CHECK(r.exit_code == 0);
  CHECK(r.out == "hello world");
  CHECK(report_of(r)["cached"] == true);
  CHECK(report_of(run_program({"--json", "--no-cache", file}))["cached"] == false);
}

TEST_CASE("run: bad input, compile errors, crashes, hangs and floods", "[run]") {
  check_usage_error({"run", "--backend", "cpu", "/no/such/file.cu"},
                    "/no/such/file.cu: no such file");
  check_usage_error({"run", "--backend", "cpu", "--timeout", "0", "x.cu"}, "--timeout 0");

  const fs::path dir = fs::temp_directory_path() / ("gpulab-run-bad-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const auto write = [&](const char* name, const char* text) {
    std::ofstream(dir / name) << text;
    return (dir / name).string();
  };

  // A compile error names the user's file and line, not gpulab's generated code.
  RunResult r = run_program({write(
      "typo.cu", "__global__ void k() {}\nint main() {\n  k<<<1, 1>>>()\n  return 0;\n}\n")});
  CHECK(r.exit_code == 1);
  CHECK_THAT(r.err, Catch::Contains("typo.cu:3"));
  CHECK_THAT(r.err, Catch::Contains("could not compile"));

  // A feature the emulator does not run is named before compiling.
  r = run_program({write("tex.cu",
                         "texture<float, 1> t;\n__global__ void k(float* o) { o[0] = tex1Dfetch(t, "
                         "0); }\nint main() {}\n")});
  CHECK(r.exit_code == 1);
  CHECK_THAT(r.err, Catch::Contains("tex.cu:1"));
  CHECK_THAT(r.err, Catch::Contains("textures and surfaces"));
  // In Chinese, the feature too.
  r = run_program({"--lang", "zh", (dir / "tex.cu").string()});
  CHECK(r.exit_code == 1);
  CHECK_THAT(r.err, Catch::Contains("'texture' 需要纹理和表面，gpulab 的模拟器不支持"));

  // A kernel that writes through a bad pointer fails its launch with an illegal address, as on a
  // GPU, and the report says which kernel, block, thread and line; the program goes on.
  r = run_program(
      {"--json",
       write("crash.cu",
             "__global__ void k(int** p) { *p[threadIdx.x] = 1; }\nint main() {\n  int** p; "
             "cudaMallocManaged(&p, 64 * sizeof(int*));\n  for (int i = 0; i < 64; ++i) p[i] = "
             "(int*)16;\n  k<<<1, 64>>>(p);\n  return cudaDeviceSynchronize() == "
             "cudaErrorIllegalAddress ? 7 : 0;\n}\n")});
  CHECK(r.exit_code == 7);
  json j = report_of(r);
  CHECK(j["launches"][0]["kernel"] == "k");
  CHECK(j["launches"][0]["error"] == "cudaErrorIllegalAddress");
  REQUIRE(j["findings"].size() == 1);
  CHECK(j["findings"][0]["where"] == "crash.cu:1");
  CHECK_THAT(j["findings"][0]["message"].get<std::string>(),
             Catch::Contains("block (0,0,0): thread 0: illegal address: it writes 0x10, through "
                             "a null pointer"));
  // A crash in host code is still a crash, named as such; the exit code is the shell's for the
  // program run by itself (128 + SIGSEGV), as on a GPU.
  r = run_program({"--json", write("host_crash.cu",
                                   "int main() {\n  volatile int* p = nullptr;\n  *p = 1;\n}\n")});
  CHECK(r.exit_code == 139);
  j = report_of(r);
  CHECK(j["signal"] == "SIGSEGV");

  // A hang is stopped at --timeout.
  r = run_program({"--json", "--timeout", "2",
                   write("hang.cu",
                         "__global__ void k(volatile int* f) { while (*f == 0) {} }\nint main() { "
                         "int* f; cudaMalloc(&f, 4); cudaMemset(f, 0, 4); k<<<1, 1>>>(f); "
                         "cudaDeviceSynchronize(); }\n")});
  CHECK(r.exit_code == 1);
  CHECK(report_of(r)["timed_out"] == true);

  // A flood of output is stopped at --max-output.
  r = run_program(
      {"--json", "--max-output", "100000",
       write("flood.cu",
             "#include <cstdio>\nint main() { for (;;) printf(\"flood flood flood\\n\"); }\n")});
  CHECK(r.exit_code == 1);
  CHECK(report_of(r)["output_capped"] == true);
  CHECK(r.out.size() == 100000);
  fs::remove_all(dir);
}
