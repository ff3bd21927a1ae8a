// Lessons as data: parsing the lesson files of lessons/<lang>/NN-slug.md.
//
// Format: line 1 "# Title"; steps separated by a line "---"; in a step, text paragraphs and the
// directives "@demo <gpulab arguments>", "@question <text>", "@answer <value>",
// "@tolerance <relative>", "@explain <worked solution>".
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpulab {

struct LessonQuestion {
  std::string text;
  std::string answer;
  double tolerance = 0;
  std::string explain;
};

struct LessonStep {
  std::string text;               // paragraphs, blank-line separated
  std::vector<std::string> demo;  // gpulab arguments, empty when none
  std::optional<LessonQuestion> question;
};

struct Lesson {
  std::string id;  // "04-amdahl"
  std::string title;
  std::vector<LessonStep> steps;
};

// Parses one lesson file; throws RuntimeFailure naming the file and line of a malformed directive.
Lesson parse_lesson(std::string_view id, std::string_view text);

// Every lesson of a language, in order, from the files compiled into the binary.
std::vector<Lesson> load_lessons(std::string_view lang);

// The files a lesson has the student run (lessons/files/NN/, the same in every language): what
// `gpulab learn NN --files DIR` writes. `name` is the file's name ("wrong.cu").
struct LessonFile {
  std::string_view name;
  std::string_view data;
};
std::vector<LessonFile> lesson_files(std::string_view lesson_id);

// The gpulab commands a lesson teaches, by lesson number: `learn vecadd` opens lesson 11.
struct TaughtCommand {
  std::string_view command;  // "vecadd"
  std::string_view lesson;   // "11"
};
const std::vector<TaughtCommand>& taught_commands();

// What a key names. Case and '_' for '-' do not matter. First an exact match of a full id
// ("04-amdahl"), a number ("04" or "4"), a slug ("amdahl") or a command a lesson teaches
// ("vecadd"); else a prefix of a slug or command ("vec"); else a prefix of a word of a slug
// ("pytorch" finds 16-pytorch-extensions). `lesson` is set when exactly one lesson matches;
// otherwise `candidates` holds every lesson that matched (empty: none did).
struct LessonLookup {
  const Lesson* lesson = nullptr;
  std::vector<const Lesson*> candidates;
};
LessonLookup lookup_lesson(const std::vector<Lesson>& lessons, std::string_view key);

// lookup_lesson's lesson; nullptr when the key names none or more than one.
const Lesson* find_lesson(const std::vector<Lesson>& lessons, std::string_view key);

// Splits a @demo line into arguments (whitespace-separated; no quoting needed by the lessons).
std::vector<std::string> split_args(std::string_view line);

}  // namespace gpulab
