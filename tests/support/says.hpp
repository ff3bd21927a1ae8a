// Word-wrapped explanations: does a text say a phrase, whatever its line breaks and spaces?
#pragma once

#include <string>

namespace gpulab::test {

// Explanations are word-wrapped to the terminal, so a phrase may span lines: compare text with
// all spaces and line breaks removed.
inline std::string squeeze(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c != ' ' && c != '\n') out += c;
  }
  return out;
}

inline bool says(const std::string& text, const std::string& phrase) {
  return squeeze(text).find(squeeze(phrase)) != std::string::npos;
}

}  // namespace gpulab::test
