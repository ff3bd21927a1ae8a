// gpulab quiz: exercises generated from gpulab's calculators, graded, with worked solutions.
#pragma once

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <iosfwd>
#include <string>
#include <vector>

#include "calc/quiz.hpp"
#include "commands/common.hpp"

namespace gpulab {

struct QuizOptions {
  std::string topic = "all";
  int count = 10;
  std::uint64_t seed = 0;
  bool answers = false;  // --answers: the teacher's key
};

struct QuizAnswer {
  std::string given;
  bool answered = false;
  calc::Grade grade;
};

struct QuizResult {
  std::uint64_t seed;
  std::vector<calc::Question> questions;
  std::vector<QuizAnswer> answers;  // one per question asked (fewer when input ended)
  int score = 0;
  bool input_ended = false;
};

// Asks every question, reading one answer per line from `in`. A quiz is a dialogue, so with `echo`
// it prints each prompt and verdict on stdout as it goes (off for --json, which prints at the end).
// The verdict's note on an answer line longer than kMaxAnswerBytes (never read whole, never
// echoed).
std::string too_long_note(Lang lang);
QuizResult run_quiz(const QuizOptions& o, Lang lang, std::istream& in, bool echo, const Style& st);
nlohmann::json quiz_key_json(const QuizOptions& o, const std::vector<calc::Question>& qs);
void setup_quiz(CLI::App& app, GlobalOptions& g);

}  // namespace gpulab
