// The student's progress through the lessons: a small JSON file under the XDG state directory,
// written atomically (temporary file, fsync, rename) under a lock, so that a kill never leaves half
// a file and two lessons learnt at once never lose each other's progress.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/i18n.hpp"

namespace gpulab {

// $XDG_STATE_HOME/gpulab/progress.json, else $HOME/.local/state/gpulab/progress.json; nothing
// when neither variable is set.
std::optional<std::filesystem::path> progress_path();

struct LessonProgress {
  std::size_t step = 0;  // the step to resume at, counting from 0
  bool done = false;
  // The steps whose question was answered right, counting from 0, ascending: the lesson's score
  // survives a pause and a resume. Nothing for progress saved before scores were kept.
  std::optional<std::vector<std::size_t>> right;
};

// One exercise of gpulab exercise: checks run, and whether one has passed.
struct ExerciseProgress {
  std::uint64_t checks = 0;
  bool passed = false;
};

struct SavedProgress {
  std::map<std::string, LessonProgress> lessons;  // by lesson id; only the entries that are valid
  std::map<std::string, ExerciseProgress> exercises;  // by exercise id, the same way
  // One line per problem found ("<path>: ..."), in both languages: a file that is not progress,
  // an entry that is not a lesson's progress. Empty when the file is missing or wholly valid.
  std::vector<Text> problems;
};

// Reads and validates the progress file. Never changes it: a bad file is set aside only when
// progress is next saved.
SavedProgress load_progress();

// Records one lesson's progress: under a lock, re-reads the file, changes only this lesson's
// entry and writes the result atomically, so that other lessons' progress (even saved a moment
// ago by another gpulab) is kept. A file with problems is first kept aside as progress.json.bad-N
// (whole, as it was) and only its valid entries carry on. Returns the problems found and, when
// the save itself failed, a last line naming the path and the reason.
struct SaveOutcome {
  bool saved = false;
  std::vector<Text> messages;  // in both languages
};
SaveOutcome save_lesson_progress(const std::string& lesson_id, LessonProgress progress);
// The same for one check of an exercise: counts it, and keeps "passed" once it has passed.
SaveOutcome save_exercise_check(const std::string& exercise_id, bool passed);

}  // namespace gpulab
