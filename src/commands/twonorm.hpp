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

enum class TwoNormKernel { course, reduce, all };  // all: the reduction ladder

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

// The matrices a run works on, as both kinds of result (one kernel; the ladder) report them.
struct TwoNormProblem {
  std::int64_t rows = 0, cols = 0, count = 0;
  std::uint64_t seed = 0;
  double reference = 0;  // float64 on the host from the same float inputs
};
// Sets rows, cols, count (rows * cols) and seed from the options; the reference comes later, with
// the inputs.
void take_problem(TwoNormProblem& p, const TwoNormOptions& o);
// The problem's JSON fields (rows, cols, elements, seed, reference) and a launch's JSON, alike in
// both results' JSON (a vector of launches converts to an array).
nlohmann::json problem_json(const TwoNormProblem& p);
void to_json(nlohmann::json& j, const TwoNormLaunch& l);

struct TwoNormResult : TwoNormProblem {
  TwoNormKernel kernel;
  double result;          // what the GPU computed
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
// Relative error allowed against float64: the course kernel's serial float sums over up to 4096
// elements round more than the reductions, whose partial sums are added in double.
inline constexpr double kCourseTolerance = 1e-4;
inline constexpr double kReduceTolerance = 1e-5;

// Random inputs: a[i] and b[i] from the seed's streams 2i and 2i + 1, uniform in [-1, 1); and
// their distance in float64 on the host, the reference every kernel is checked against.
struct TwoNormInputs {
  std::vector<float> a, b;
  double reference = 0;
};
TwoNormInputs make_twonorm_inputs(std::int64_t count, std::uint64_t seed);

// Blocks of two_norm_partials for `count` elements: on a GPU enough to fill every SM, on the
// emulator at most 1024.
std::uint64_t reduce_blocks(std::int64_t count, Backend& backend);
inline constexpr std::uint64_t kReduceBlock = 256;  // TWO_NORM_BLOCK in twonorm_reduce.cuh

// |result - reference| / reference (|result| when the reference is 0).
double relative_error(double result, double reference);

// Runs --kernel course or --kernel reduce (--kernel all: run_twonorm_ladder, twonorm_ladder.hpp).
TwoNormResult run_twonorm(const TwoNormOptions& o, Backend& backend);
std::string render_twonorm(const TwoNormResult& r, const OutputOptions& out);
nlohmann::json twonorm_json(const TwoNormResult& r);
void setup_twonorm(CLI::App& app, GlobalOptions& g);

}  // namespace gpulab
