// gpulab quiz: exercises generated from gpulab's calculators, graded, with worked solutions.
#pragma once

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <iosfwd>
#include <string>
#include <vector>

#include "calc/quiz.hpp"
#include "commands/common.hpp"

namespace gpulab {

struct QuizOptions {
  std::string topic = "all";        // --topic as given: topics and groups, comma-separated
  std::vector<std::string> topics;  // the topics it selects
  int count = 10;
  std::uint64_t seed = 0;
  std::string seed_text;  // --seed as given (a student id), or the number picked
  bool answers = false;   // --answers: the teacher's key
  std::string results;    // --results FILE: one JSON line per quiz taken, appended
};

struct QuizAnswer {
  std::string given;
  bool answered = false;
  calc::Grade grade;
  int malformed = 0;  // answers that could not be read and were asked again
};

struct QuizResult {
  std::uint64_t seed;
  std::vector<calc::Question> questions;
  std::vector<QuizAnswer> answers;  // one per question answered (fewer when input ended)
  int score = 0;
  bool input_ended = false;
  double seconds = 0;  // from the first question to the last answer
};

// The verdict's note on an answer line longer than kMaxAnswerBytes (never read whole, never
// echoed).
std::string too_long_note(Lang lang);

// Asks every question, reading one answer per line from `in`; an answer that cannot be read as
// the kind asked for is asked again, not graded. A quiz is a dialogue, so it prints each prompt
// and verdict to `echo` as it goes (stdout; stderr under --json on a terminal; nullptr: silent).
QuizResult run_quiz(const QuizOptions& o, Lang lang, std::istream& in, std::FILE* echo,
                    const Style& st);
nlohmann::json quiz_key_json(const QuizOptions& o, const std::vector<calc::Question>& qs);

// The line --results appends for one quiz taken (see docs/teaching.md).
nlohmann::json quiz_result_record(const QuizOptions& o, const QuizResult& r, std::string_view when);

void setup_quiz(CLI::App& app, GlobalOptions& g);

}  // namespace gpulab
