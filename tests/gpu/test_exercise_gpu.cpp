// gpulab exercise on the GPU: every reference solution passes its check under nvcc, and an
// untouched starter fails there too (with the harness's verdict, not a crash).
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>

#include <unistd.h>

#include "support/run.hpp"

using namespace gpulab::test;
namespace fs = std::filesystem;
using nlohmann::json;

TEST_CASE("exercise check --backend gpu: every reference solution passes on the GPU",
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
  for (const json& e : exercises) {
    const std::string id = e.at("id");
    CAPTURE(id);
    const auto solution = run_gpulab({"exercise", "solution", id}, {}, env);
    REQUIRE(solution.exit_code == 0);
    const fs::path file = dir / (id + ".cu");
    std::ofstream(file) << "// gpulab exercise: " << id << "\n" << solution.out;
    const auto r =
        run_gpulab({"exercise", "check", "--backend", "gpu", "--json", file.string()}, {}, env);
    CAPTURE(r.out, r.err);
    CHECK(r.exit_code == 0);
    const json j = json::parse(r.out);
    CHECK(j.at("backend") == "cuda");
    CHECK(j.at("passed") == true);
    CHECK(j.at("tests").size() >= 4);
  }
  // The starter of the first exercise writes nothing: the harness's poison shows on the GPU too.
  REQUIRE(run_gpulab({"exercise", "start", "map", "--dir", dir.string()}, {}, env).exit_code == 0);
  const auto r = run_gpulab(
      {"exercise", "check", "--backend", "gpu", "--json", (dir / "01-map.cu").string()}, {}, env);
  CAPTURE(r.out, r.err);
  CHECK(r.exit_code == 1);
  CHECK(json::parse(r.out).at("diagnoses").at(0).at("mistake") == "never_written");
  fs::remove_all(dir);
}
