// gpulab twonorm --kernel all: the reduction ladder. The same two-norm computed by the course
// kernel (where the size allows it) and then by each classic optimisation step in turn, each
// checked against float64 and, with --bench, timed against the same run's copy bandwidth.
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

#include "commands/twonorm.hpp"

namespace gpulab {

enum class Rung { course, interleaved, sequential, first_add, warp_shuffle, grid_stride };

struct LadderStepResult {
  Rung rung;
  std::string name;  // "interleaved", "grid-stride", ...
  Text skipped_why;  // not empty: the step did not run (the course kernel, too large)
  std::vector<TwoNormLaunch> launches;
  double kernel_ms = 0;  // one run: all its launches (cold on a GPU unless --bench)
  double result = 0, relative_error = 0, tolerance = 0;
  bool verified = false;
  double elements_per_thread = 0;  // elements each thread of the first launch reads
  std::optional<BenchResult> bench;
};

struct LadderResult : TwoNormProblem {
  std::vector<LadderStepResult> steps;
  std::optional<CopyPeak> copy;  // --bench: measured once, shared by every step
  std::string backend, device;
  KernelRun run;          // the emulator's counts over every launch
  bool verified() const;  // every step that ran
};

LadderResult run_twonorm_ladder(const TwoNormOptions& o, Backend& backend);
std::string render_twonorm_ladder(const LadderResult& r, const OutputOptions& out);
nlohmann::json twonorm_ladder_json(const LadderResult& r);

}  // namespace gpulab
