// The exercises of gpulab exercise, parsed from the files compiled into the binary (exercises/).
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/output.hpp"
#include "profile/rules.hpp"

namespace gpulab::exercise {

struct Text {
  std::string en, zh;
  const std::string& in(Lang l) const { return l == Lang::zh && !zh.empty() ? zh : en; }
};

// A planted mistake: a wrong kernel, and words the explanation of its check must contain.
struct Mistake {
  std::string name;       // missing_guard, wrong_index, missing_syncthreads, read_past_end, ...
  std::string expect;     // e.g. "guard"
  std::string expect_zh;  // the same in the Chinese explanation, when given
  std::string code;
};

// A test a teacher's exercise declares (`@@ test NAME | ZH-NAME`, docs/exercise.md): its lines,
// each with its line number in the file, read by exercise/plan_teacher.cpp.
struct TestSpec {
  Text name;
  int line = 0;
  std::vector<std::pair<int, std::string>> lines;
};

struct Exercise {
  int number = 0;      // its place in the course, from 1
  std::string id;      // "map"
  std::string lesson;  // the lesson it practises ("05"), or ""
  Text title, statement, rules;
  std::vector<Text> hints;
  std::string starter, solution;  // solution: empty in the student edition
  std::vector<Mistake> mistakes;
  // Rules checked with gpulab profile's counters (`@@ counter_rules`, one RULE=N a line:
  // max_sectors_per_request, max_bank_conflicts, min_branch_uniformity), in every test.
  std::vector<profile::CounterRule> counter_rules;
  bool student_edition = false;  // from a student edition's file (exercise/edition.hpp)
  // A teacher's exercise (from their folder): its file, and the tests it declares. gpulab's own
  // exercises have their tests in exercise/plan.cpp.
  std::string file;
  std::vector<TestSpec> tests;
};

// Every exercise, in course order: gpulab's own, then those of the teacher's folder (if any).
// Throws UsageError for a teacher's folder that cannot be read or holds a malformed file (naming
// the file and the line).
const std::vector<Exercise>& all();

// The teacher's folder of exercises: `dir`, else $GPULAB_EXERCISES, else none. Its NN-ID.txt
// files are in the format of exercises/ and declare their tests (`@@ test`). Takes effect only
// before the first all(); a later call with another folder throws std::logic_error.
void use_teacher_folder(const std::string& dir);
// The folder in use ("" for none).
std::string teacher_folder();
// By id ("map") or number ("1", "01"); nullptr when there is none.
const Exercise* find(const std::string& id_or_number);
// The runner's host side (exercises/harness.cuh): receive the inputs, launch, hand back.
std::string_view harness_library();

// Parses one exercise file; throws std::runtime_error naming the line for a malformed one.
Exercise parse(std::string_view text, const std::string& file);

// The .cu file `exercise start` writes: the statement and rules in a comment, then the starter.
std::string starter_file(const Exercise& e, Lang l);
// The id in a starter file's first lines ("// gpulab exercise: map"), or "".
std::string id_in_file(const std::string& text);

}  // namespace gpulab::exercise
