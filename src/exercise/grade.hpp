// gpulab exercise grade: a class's exercise files re-checked from source with the teacher's own
// build and cache, one row per student and exercise, each file checked in a worker process of
// its own (as many at once as --jobs) with the student's program contained (run/contain.hpp).
// Never reads a progress file. The layout of the submissions is in docs/teaching.md.
#pragma once

#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "exercise/catalog.hpp"
#include "run/contain.hpp"

namespace gpulab::exercise {

// One file to grade, and whose it is.
struct Submission {
  std::string student;
  std::string file;      // the path as found (under the PATH given)
  std::string problem;   // why it cannot be graded (a symbolic link, ...): a row saying so
  bool missing = false;  // a required exercise with no file (--require)
  const Exercise* exercise = nullptr;  // missing: the one required
};

// The students and files under `paths` (docs/teaching.md): a file is one submission of the
// student its folder names; a folder's sub-folders are students (their .cu files at any depth),
// and the .cu files directly in it are the folder's own student; with `student`, every file
// found is that student's. `required`: each student without a file for one of them gets a
// `missing` row. Sorted by student, then exercise. Throws UsageError for a path that is not there.
std::vector<Submission> find_submissions(const std::vector<std::string>& paths,
                                         const std::string& student,
                                         const std::vector<const Exercise*>& required);

// The exercise a submission's file name gives: "09-shared.cu" (or "9-shared.cu"). nullptr and
// `why` (both languages) for a name that gives none or whose number is not its id's.
const Exercise* exercise_of_file_name(const std::string& file, Text& why);

struct GradeOptions {
  std::vector<Submission> submissions;
  std::uint64_t seed = 0;
  unsigned jobs = 1;
  bool gpu = false;
  std::chrono::milliseconds timeout{std::chrono::seconds(60)};
  run::ContainLimits limits;        // per submission; grade adds the folders to hide
  std::vector<std::string> hidden;  // the paths given: hidden from every student's program
  Lang lang = Lang::en;
};

struct GradeTest {
  Text name, reason;
  bool pass = false;
};

struct GradeRow {
  std::string student, file;
  std::string exercise;  // its id ("shared"), "" when the name gives none
  int number = 0;
  // passed, failed, not_verified, refused (as exercise check); missing (no file for a required
  // exercise); not_graded (gpulab could not check it: the name, a link, its own failure).
  std::string verdict;
  std::vector<GradeTest> tests;
  struct Note {
    std::string mistake;
    Text text;
  };
  std::vector<Note> diagnoses;
  std::string source_sha256;
  // The containment stopped it: "processes", "cpu", "file_size", "time", "output", "memory"; "".
  std::string stopped;
  std::string kernel_output;  // the kernels' printf, at most 4 KiB
  double seconds = 0;         // checking it, build included
};

struct GradeResult {
  std::uint64_t seed = 0;
  std::string version;  // gpulab's
  std::string backend;  // "cpu-emulator" or "cuda"
  run::Containment containment;
  run::ContainLimits limits;
  unsigned jobs = 1;
  std::chrono::milliseconds timeout{0};  // each run's
  double seconds = 0;
  std::vector<GradeRow> rows;  // in the order of the submissions
  std::size_t passed() const;
};

// Grades every submission (rows in their order). Throws Interrupted (after ending every worker
// and what they started) on SIGINT/SIGTERM/SIGHUP, RuntimeFailure when bubblewrap is required
// and does not work.
GradeResult grade(const GradeOptions& o);

// The same facts for machines (grade_formats.cpp): gpulab's JSON; Gradescope's results.json
// (one point per exercise file; a file named for no exercise counts 0 of 0); JUnit XML (a suite
// per row, a case per test and one for the verdict). Text a student's file or program gave is
// made valid UTF-8 (and valid XML) first.
nlohmann::json grade_json(const GradeResult& r);
nlohmann::json gradescope_json(const GradeResult& r, Lang lang);
std::string junit_xml(const GradeResult& r, Lang lang);
// A verdict in capitals, as the table and the feedback show it: "PASSED", "NOT GRADED".
Text verdict_words(const std::string& verdict);
// The row's verdict and each test as lines of text ("pass  test n = 1"), in `lang`.
std::string row_feedback(const GradeRow& row, Lang lang);

// A row from a worker's message / to it (the rows cross a pipe between processes).
nlohmann::json row_json(const GradeRow& row);
GradeRow row_from_json(const nlohmann::json& j);

}  // namespace gpulab::exercise
