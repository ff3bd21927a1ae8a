// Quiz questions generated from gpulab's own calculators, and the grading of answers.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/output.hpp"

namespace gpulab::calc {

enum class AnswerKind { integer, real, tuple, word };

struct Question {
  std::string id;     // "q1", "q2", ...
  std::string topic;  // one of quiz_topics()
  std::string prompt;
  AnswerKind kind = AnswerKind::integer;
  std::vector<double> values;  // the answer: one number, or the tuple's numbers
  std::string word;            // the answer for AnswerKind::word ("yes" / "no")
  double tolerance = 0;        // relative, for AnswerKind::real
  std::string answer;          // the answer as a student would type it
  std::string solution;        // the worked solution, numbers substituted
};

// The topics, in the order the course meets them.
const std::vector<std::string>& quiz_topics();

// `count` questions from `topic` ("all": every topic in turn), the same for the same seed.
std::vector<Question> make_quiz(std::string_view topic, int count, std::uint64_t seed, Lang lang);

struct Grade {
  bool correct = false;
  bool malformed = false;  // the answer could not be read as the kind asked for
  std::string note;        // why a malformed answer could not be read
};
Grade grade(const Question& q, std::string_view given);

}  // namespace gpulab::calc
