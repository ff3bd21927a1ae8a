// What an exercise check found: each test's outcome, the rules measured, the mistakes with their
// fixes in both languages, and the verdict (exercise/check.hpp makes it, exercise/diagnose.hpp
// explains it).
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "exercise/catalog.hpp"
#include "exercise/screen.hpp"
#include "profile/rules.hpp"
#include "run/session.hpp"

namespace gpulab::exercise {

// A rule of the exercise, measured on one test: a limit and what the worst thread did.
struct RuleCheck {
  std::string rule;  // max_global_reads, max_global_writes, uses_shared, max_barriers_per_block
  double limit = 0, measured = 0;
  nlohmann::json who;  // {"block": [..], "thread": [..]} of the worst thread, when known
  bool measured_known = false;
  bool ok = true;
  // A counter rule (max_sectors_per_request, ...): what gpulab profile's counters gave, the worst
  // instruction's kernel and FILE:LINE in the student's file.
  std::optional<profile::CounterRuleResult> counter;
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

}  // namespace gpulab::exercise
