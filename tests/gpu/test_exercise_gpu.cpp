// gpulab exercise on the GPU: what the GPU can measure decides, and nothing else passes. Every
// reference solution has right outputs and no finding there; its verdict is "passed" only when
// every rule of the exercise can be measured on a GPU, else "not_verified" naming exactly the
// rules that cannot (per-thread counts need the emulator). A missing guard and an off-by-one fail
// through compute-sanitizer's memcheck, an untouched starter fails with its never-written
// output, and an honest kernel with printf keeps its output out of the JSON.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <future>
#include <set>

#include "support/run.hpp"

using namespace gpulab::test;
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// The rules no GPU run can measure: each thread's accesses and the barriers per block.
// Per-thread counts and gpulab profile's counter rules: the emulator's alone.
const std::set<std::string> kEmulatorOnly = {"max_global_reads",       "max_global_writes",
                                             "max_barriers_per_block", "max_sectors_per_request",
                                             "max_bank_conflicts",     "min_branch_uniformity"};

struct Check {
  std::string name;
  fs::path file;
  RunResult r;
};

}  // namespace

TEST_CASE("exercise check --backend gpu: verdicts only from what the GPU measures",
          "[gpu][exercise]") {
  const fs::path dir =
      fs::temp_directory_path() / ("gpulab-exercise-gpu-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const std::vector<std::string> env = {"XDG_CACHE_HOME=" + (dir / "cache").string(),
                                        "XDG_STATE_HOME=" + (dir / "state").string()};
  const auto list = run_gpulab({"exercise", "--json"}, {}, env);
  REQUIRE(list.exit_code == 0);
  const json exercises = json::parse(list.out).at("exercises");
  REQUIRE(exercises.size() >= 16);

  // The files: every solution, two planted mistakes of exercise 3, the first starter, printf.
  std::vector<Check> checks;
  for (const json& e : exercises) {
    const std::string id = e.at("id");
    const auto solution = run_gpulab({"exercise", "solution", id}, {}, env);
    REQUIRE(solution.exit_code == 0);
    const fs::path file = dir / (id + ".cu");
    std::ofstream(file) << "// gpulab exercise: " << id << "\n" << solution.out;
    checks.push_back({"solution " + id, file, {}});
  }
  const fs::path guard = dir / "guard-missing.cu", off = dir / "guard-off-by-one.cu";
  std::ofstream(guard) << "// gpulab exercise: guard\n"
                          "__global__ void map_guard(const float* a, float* out, int n) {\n"
                          "  int i = threadIdx.x;\n  out[i] = a[i] + 10.0f;\n}\n";
  std::ofstream(off) << "// gpulab exercise: guard\n"
                        "__global__ void map_guard(const float* a, float* out, int n) {\n"
                        "  int i = threadIdx.x;\n  if (i <= n) out[i] = a[i] + 10.0f;\n}\n";
  checks.push_back({"missing guard", guard, {}});
  checks.push_back({"off-by-one", off, {}});
  REQUIRE(run_gpulab({"exercise", "start", "map", "--dir", dir.string()}, {}, env).exit_code == 0);
  checks.push_back({"starter", dir / "01-map.cu", {}});
  const fs::path printf_file = dir / "printf-map.cu";
  std::ofstream(printf_file) << "// gpulab exercise: map\n#include <cstdio>\n"
                                "__global__ void map_add_ten(const float* a, float* out, int n) {\n"
                                "  int i = threadIdx.x;\n"
                                "  if (i == 0) printf(\"hello from thread %d of %d\\n\", i, n);\n"
                                "  out[i] = a[i] + 10.0f;\n}\n";
  checks.push_back({"printf", printf_file, {}});

  // Eight at a time (each builds with nvcc and runs compute-sanitizer's four tools).
  for (std::size_t start = 0; start < checks.size(); start += 8) {
    std::vector<std::future<RunResult>> running;
    for (std::size_t k = start; k < std::min(checks.size(), start + 8); ++k) {
      const fs::path f = checks[k].file;
      running.push_back(std::async(std::launch::async, [f, env] {
        return run_gpulab(
            {"exercise", "check", "--backend", "gpu", "--json", "--seed", "2026", f.string()}, {},
            env);
      }));
    }
    for (std::size_t k = start; k < std::min(checks.size(), start + 8); ++k) {
      checks[k].r = running[k - start].get();
    }
  }

  for (const Check& c : checks) {
    CAPTURE(c.name, c.r.out, c.r.err);
    const json j = json::parse(c.r.out);
    CHECK(j.at("backend") == "cuda");
    const std::vector<std::string> unmeasured = j.at("unmeasured_rules");
    CHECK(std::find(unmeasured.begin(), unmeasured.end(), "bounds_and_races") ==
          unmeasured.end());  // compute-sanitizer is installed on the GPU machine
    if (c.name.rfind("solution ", 0) == 0 || c.name == "printf") {
      // Right outputs, no finding; the rules decide between passed and not_verified.
      CHECK(j.at("diagnoses").empty());
      CHECK(j.at("tests").size() >= 4);
      std::set<std::string> emulator_only;
      for (const json& t : j.at("tests")) {
        CHECK(t.at("pass") == true);
        for (const json& r : t.at("rules")) {
          const std::string rule = r.at("rule");
          if (kEmulatorOnly.count(rule) != 0) {
            emulator_only.insert(rule);
            CHECK_FALSE(r.contains("measured"));
          } else {
            CHECK(r.at("ok") == true);  // uses_shared: the kernel's __shared__ bytes
            CHECK(r.at("measured").get<double>() > 0);
          }
        }
      }
      CHECK(std::set<std::string>(unmeasured.begin(), unmeasured.end()) == emulator_only);
      CHECK(j.at("verdict") == (emulator_only.empty() ? "passed" : "not_verified"));
      CHECK(c.r.exit_code == (emulator_only.empty() ? 0 : 1));
      if (c.name == "printf") {
        CHECK_THAT(j.at("kernel_output").get<std::string>(),
                   Catch::Contains("hello from thread 0 of 5"));
      }
    } else {
      CHECK(c.r.exit_code == 1);
      CHECK(j.at("verdict") == "failed");
      std::string mistakes;
      for (const json& d : j.at("diagnoses")) mistakes += d.at("mistake").get<std::string>() + " ";
      if (c.name == "starter") CHECK_THAT(mistakes, Catch::Contains("never_written"));
      if (c.name == "missing guard" || c.name == "off-by-one") {
        CHECK_THAT(mistakes, Catch::Contains("sanitizer_memcheck"));
      }
    }
  }
  fs::remove_all(dir);
}
