// gpulab twonorm: the two-norm distance sqrt(sum((a-b)^2)) of two random matrices on the GPU.
#pragma once

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "commands/bench.hpp"
#include "commands/common.hpp"

namespace gpulab {

enum class TwoNormKernel { course, reduce };

struct TwoNormOptions {
  std::int64_t rows = 0, cols = 0;
  TwoNormKernel kernel = TwoNormKernel::reduce;
  std::uint64_t seed = 0;
  std::optional<int> bench_reps;  // --bench [--reps R]
};

struct TwoNormLaunch {
  std::string kernel;  // kernel function name
  LaunchShape shape;
  double kernel_ms = 0;
};

struct TwoNormResult {
  std::int64_t rows, cols, count;
  TwoNormKernel kernel;
  std::uint64_t seed;
  double result;          // what the GPU computed
  double reference;       // float64 on the host from the same float inputs
  double relative_error;  // |result - reference| / reference
  double tolerance;
  bool verified;
  std::vector<TwoNormLaunch> launches;
  double kernel_ms = 0;  // all launches
  double h2d_ms = 0;
  std::string backend, device;
  KernelRun run;  // the last launch (emulator facts)
  std::optional<BenchResult> bench;
};

// The course kernel's shared buffer: 64 * 64 floats.
inline constexpr std::int64_t kCourseKernelMaxElements = 64 * 64;
inline constexpr int kCourseKernelThreads = 512;

TwoNormResult run_twonorm(const TwoNormOptions& o, Backend& backend);
std::string render_twonorm(const TwoNormResult& r, const OutputOptions& out);
nlohmann::json twonorm_json(const TwoNormResult& r);
void setup_twonorm(CLI::App& app, GlobalOptions& g);

}  // namespace gpulab
