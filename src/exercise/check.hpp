// gpulab exercise check: the student's kernels and the exercise's harness built and run the way
// `gpulab run --check` runs a program, and the harness's facts turned into a verdict with reasons.
#pragma once

#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "exercise/catalog.hpp"
#include "exercise/screen.hpp"
#include "run/session.hpp"

namespace gpulab::exercise {

struct CheckOptions {
  std::string file;
  bool gpu = false;
  std::optional<std::uint64_t> seed;
  bool draw = false;  // run only the small test and keep every access (the drawing)
  bool use_cache = true;
  std::chrono::milliseconds timeout{std::chrono::seconds(60)};
  Lang lang = Lang::en;
};

// A rule of the exercise, measured on one test: a limit and what the worst thread did.
struct RuleCheck {
  std::string rule;  // max_global_reads, max_global_writes, uses_shared, max_barriers_per_block
  double limit = 0, measured = 0;
  nlohmann::json who;  // {"block": [..], "thread": [..]} of the worst thread, when known
  bool measured_known = false;
  bool ok = true;
};

struct TestOutcome {
  std::string name;
  bool pass = true;
  std::vector<nlohmann::json> results;  // the harness's exercise_result lines
  std::optional<nlohmann::json> error;  // the launch failed (exercise_error)
  std::vector<RuleCheck> rules;
  std::vector<nlohmann::json> records;  // the recorder's lines of this test's launches
};

// One reason the check failed, in both languages, with the mistake it names.
struct Diagnosis {
  std::string mistake;  // missing_guard, wrong_index, never_written, missing_syncthreads, ...
  Text text;
  std::size_t more_tests = 0;  // the same mistake in this many later tests (not repeated)
};

struct CheckResult {
  std::string file;  // the student's file
  const Exercise* exercise = nullptr;
  std::string backend;  // "cpu-emulator" or "cuda"
  std::uint64_t seed = 0;
  bool built = false;
  std::string build_error;
  // What the screen refused in the student's file (nothing was built then).
  std::vector<Refusal> refusals;
  RunResult run;
  bool harness_finished = false;
  std::vector<TestOutcome> tests;
  std::vector<nlohmann::json> buffers;  // exercise_buffer lines of the drawn test
  std::vector<RunFinding> findings;     // run --check's findings, FILE:LINE in the student's file
  std::vector<Diagnosis> diagnoses;
  bool passed = false;
  // The outputs were right but a rule could not be measured (--backend gpu, or no record of
  // a launch): the verdict is "not verified", and the check does not pass.
  bool not_verified = false;
  std::vector<std::string> unmeasured_rules;
};

CheckResult check_file(const CheckOptions& o);

// The harness gpulab compiles as its own translation unit: the harness library, the declarations
// of the exercise's kernels (from its starter), and the exercise's main(). The student's file is
// the other unit, compiled alone with the same flags: nothing it defines reaches this one.
std::string program_source(const Exercise& e);

// The exercise a file's name gives ("15-matmul.cu" -> matmul), or nullptr for another name.
const Exercise* exercise_of_name(const std::string& path);

}  // namespace gpulab::exercise
