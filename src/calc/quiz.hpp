// Quiz questions generated from gpulab's own calculators, and the grading of answers.
#pragma once

#include <cstdint>
#include <optional>
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
  std::vector<double> values;        // the answer: one number, or the tuple's numbers
  std::string word;                  // the answer for AnswerKind::word ("yes", "no", "shared", ...)
  std::vector<std::string> choices;  // the words a word answer may be; empty: yes or no
  double tolerance = 0;              // relative, for AnswerKind::real
  std::string answer;                // the answer as a student would type it
  std::string solution;              // the worked solution, numbers substituted
};

// The topics, in the order the course meets them, and their groups ("amdahl" holds
// amdahl-speedup and amdahl-limit).
const std::vector<std::string>& quiz_topics();
const std::vector<std::string>& quiz_groups();
std::string topic_group(std::string_view topic);  // "" for no topic

// The topics a --topic value names: comma-separated topic names, group names or "all" (empty
// means all), in the course's order; nothing when a name is neither a topic nor a group.
std::optional<std::vector<std::string>> select_topics(std::string_view spec);

// A seed from any text (a student id), stable across versions: digits only, up to 2^63 - 1, are
// that number; any other text is the 64-bit FNV-1a hash of its bytes (offset basis
// 14695981039346656037, prime 1099511628211) with the top bit cleared.
std::uint64_t quiz_seed(std::string_view text);

// The topic of each of `count` questions: the groups in an order mixed by the seed, one topic
// of each group in turn (so the first questions reach as many groups as they can), then a second
// topic of each group that has one, and so on until every topic came once; then again. A group's
// topics take turns in an order also mixed by the seed.
std::vector<std::string> quiz_order(const std::vector<std::string>& topics, int count,
                                    std::uint64_t seed);

// `count` questions on the topics `topics` names (see select_topics), the same for the same seed;
// empty when it names an unknown topic.
std::vector<Question> make_quiz(std::string_view topics, int count, std::uint64_t seed, Lang lang);

// The worked solution without the answer it may start with ("no: each thread reads ..." for the
// answer "no" gives "each thread reads ..."): shown after "The answer is no.", it says no twice.
std::string solution_without_answer(const Question& q);

struct Grade {
  bool correct = false;
  bool malformed = false;  // the answer could not be read as the kind asked for
  std::string note;        // why a malformed answer could not be read
};
// Reads `given` as the kind of answer asked for (see read_answer_number for numbers; a tuple's
// parts are split at commas or spaces; words ignore case, and 是/否 are yes/no) and says whether
// it is right; a malformed answer is not graded, and its note, in `lang`, says why.
Grade grade(const Question& q, std::string_view given, Lang lang = Lang::en);

}  // namespace gpulab::calc
