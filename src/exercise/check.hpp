// gpulab exercise check: one student's file checked against one exercise. gpulab draws the tests
// (exercise/plan.hpp), a child process runs only the student's kernels on them (the runner,
// exercises/harness.cuh, built and run by gpulab's run engine) and hands back what each launch
// stored (exercise/channel.hpp); gpulab compares with its float64 reference, counts the rules
// from the emulator's records and explains what went wrong. `grade` calls check_file per file.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "exercise/catalog.hpp"
#include "exercise/result.hpp"
#include "run/contain.hpp"

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
  // gpulab exercise grade: the student's program contained (run/contain.hpp), with this many
  // emulator workers (0: the run engine's default).
  std::optional<run::ContainLimits> contain;
  unsigned workers = 0;
};

// Checks one file. Throws UsageError for a file that cannot be read or is no exercise file,
// RuntimeFailure when gpulab itself cannot work (no compiler, no cache or temporary folder).
CheckResult check_file(const CheckOptions& o);

// Whether a rule is counted by gpulab profile's counters (max_bank_conflicts ...) rather than
// from the emulator's access records.
bool is_counter_rule(const std::string& rule);

// The runner gpulab compiles as its own translation unit: the runner library, the declarations
// of the exercise's kernels (from its starter) and a main() launching each of them with the
// arguments gpulab sends. The student's file is the other unit, compiled alone with the same
// flags: nothing it defines reaches this one.
std::string runner_source(const Exercise& e);

// The exercise a file's name gives ("15-matmul.cu" -> matmul), or nullptr for another name.
const Exercise* exercise_of_name(const std::string& path);

}  // namespace gpulab::exercise
