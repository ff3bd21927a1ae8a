// The data channel between gpulab and an exercise's runner (the child that runs the student's
// kernels): the inputs file gpulab writes (every test's buffers, launches and what each output
// holds before a launch) and the outputs file the runner hands back (what each launch stored),
// read only as data and checked against the plan for order, shape and size. The runner's side of
// the format is exercises/harness.cuh; docs/exercise.md describes both.
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "exercise/plan.hpp"

namespace gpulab::exercise {

// Writes the inputs of `plan` to `path` (created 0600). `writers`: ask the runner for the thread
// that last wrote each output element (the emulator's recorder).
void write_inputs(const Plan& plan, bool writers, const std::filesystem::path& path);

// What one launch stored in one of its outputs, read back right after it.
struct StepOutput {
  std::uint32_t buffer = 0;
  std::vector<float> values;
  // Per element, the thread that last wrote it in this launch: 0 for none, else
  // 1 + block (linear over the grid) * threads per block + thread (linear in the block).
  std::vector<std::uint64_t> writers;
};

// The block (x, y, z) and thread (x, y, z) a writer id of launch `s` names (writer > 0).
std::array<std::uint32_t, 6> writer_thread(std::uint64_t writer, const PlanStep& s);

struct StepResult {
  std::uint32_t step = 0;
  std::int32_t error = 0;  // the launch's CUDA error (0: it ran and the device synchronised)
  std::string error_name;  // "cudaErrorInvalidConfiguration" (at most 64 printable bytes)
  std::uint32_t static_shared_bytes = 0;  // the kernel's __shared__ arrays (on the GPU)
  std::vector<StepOutput> outputs;
};

struct TestResult {
  std::uint32_t test = 0;
  std::vector<std::uint64_t> addresses;  // each buffer's device address (for the findings)
  std::vector<StepResult> steps;
};

struct RunnerOutputs {
  std::vector<TestResult> tests;
  bool done = false;    // the runner reached its end
  std::string problem;  // not empty: the data was malformed (said in English; a fact, not prose)
};

// Reads what the runner handed back, frame by frame against `plan`; stops at the first frame
// that is not the one expected (problem says what) and never reads more than the plan allows.
RunnerOutputs read_outputs(const std::filesystem::path& path, const Plan& plan, bool writers);

// The size the outputs of `plan` can have at most (the file is refused past it).
std::uint64_t max_outputs_bytes(const Plan& plan, bool writers);

}  // namespace gpulab::exercise
