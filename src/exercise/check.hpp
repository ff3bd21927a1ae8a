// gpulab exercise check: one student's file checked against one exercise. gpulab draws the tests
// (exercise/plan.hpp), a child process runs only the student's kernels on them (the runner,
// exercises/harness.cuh, built and run by gpulab's run engine) and hands back what each launch
// stored (exercise/channel.hpp); gpulab compares with its float64 reference, counts the rules
// from the emulator's records and explains what went wrong. `grade` calls check_file per file.
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
  // The exercise to check the file against; null: the one its marker line names. A file whose
  // name names an exercise (15-matmul.cu) must name the same one in its marker.
  const Exercise* exercise = nullptr;
  bool gpu = false;
  std::optional<std::uint64_t> seed;  // none: a fresh one (said in the result)
  bool draw = false;                  // run only the small test and keep every access (the drawing)
  bool use_cache = true;
  std::chrono::milliseconds timeout{std::chrono::seconds(60)};
  Lang lang = Lang::en;  // the language of errors thrown (the result holds both)
};

// A rule of the exercise, measured on one test: a limit and what the worst thread did.
struct RuleCheck {
  std::string rule;  // max_global_reads, max_global_writes, uses_shared, max_barriers_per_block
  double limit = 0, measured = 0;
  nlohmann::json who;  // {"block": [..], "thread": [..]} of the worst thread, when known
  bool measured_known = false;
  bool ok = true;
};

// One test: its outputs against the reference, its rules, what the checks found in its launches.
struct TestOutcome {
  Text name;
  bool ran = false;  // the runner handed back every launch of it
  bool pass = false;
  Text reason;                          // why it failed, in a few words ("out[3] never written")
  std::vector<nlohmann::json> results;  // one per output compared (see docs/exercise.md)
  std::optional<nlohmann::json> error;  // a launch failed: {"kernel", "error"}
  std::vector<RuleCheck> rules;
  std::vector<nlohmann::json> records;   // the emulator's record of each launch
  std::vector<nlohmann::json> findings;  // run --check's findings in its launches (report lines)
};

// One reason the check failed, in both languages, with the mistake it names.
struct Diagnosis {
  std::string mistake;  // missing_guard, off_by_one, index_collision, many_writers, ...
  Text text;
  std::size_t more_tests = 0;  // the same mistake in this many later tests (not repeated)
};

struct CheckResult {
  std::string file;           // the student's file
  std::string source_sha256;  // of the file as it was checked
  const Exercise* exercise = nullptr;
  std::string backend;  // "cpu-emulator" or "cuda"
  std::uint64_t seed = 0;
  bool built = false;
  std::string build_error;
  // What the screen refused in the student's file (nothing was built then).
  std::vector<Refusal> refusals;
  RunResult run;
  bool runner_finished = false;  // the runner handed back every test
  std::string channel_problem;   // the data it handed back was malformed (a fact, English)
  std::vector<TestOutcome> tests;
  std::vector<nlohmann::json> buffers;  // the drawn test's buffers: name, address, elements, rows
  std::vector<RunFinding> findings;     // run --check's findings, FILE:LINE in the student's file
  std::vector<Diagnosis> diagnoses;
  bool passed = false;
  // The outputs were right but a rule could not be measured (--backend gpu, or no record of
  // a launch): the verdict is "not verified", and the check does not pass.
  bool not_verified = false;
  std::vector<std::string> unmeasured_rules;

  // "passed", "failed", "not_verified" or "refused" (the screen, the file's name: nothing ran).
  std::string verdict() const;
};

// Checks one file. Throws UsageError for a file that cannot be read or is no exercise file,
// RuntimeFailure when gpulab itself cannot work (no compiler, no cache or temporary folder).
CheckResult check_file(const CheckOptions& o);

// The runner gpulab compiles as its own translation unit: the runner library, the declarations
// of the exercise's kernels (from its starter) and a main() launching each of them with the
// arguments gpulab sends. The student's file is the other unit, compiled alone with the same
// flags: nothing it defines reaches this one.
std::string runner_source(const Exercise& e);

// The exercise a file's name gives ("15-matmul.cu" -> matmul), or nullptr for another name.
const Exercise* exercise_of_name(const std::string& path);

}  // namespace gpulab::exercise
