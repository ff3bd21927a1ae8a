// Reading laid-out text in tests: the columns a line takes (an independent count: the layout's
// own is under test) and the English words of a text (a word split at a line break shows up as
// two runs the wide text does not have).
#pragma once

#include <cstddef>
#include <set>
#include <string>

namespace gpulab::test {

// Columns of a line: an independent count (the layout's own is under test), CJK two columns.
inline std::size_t columns(const std::string& line) {
  std::size_t w = 0;
  for (std::size_t i = 0; i < line.size();) {
    const auto c = static_cast<unsigned char>(line[i]);
    const int len = c < 0x80 ? 1 : c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : 2;
    char32_t cp = len == 1 ? c : len == 2 ? c & 0x1F : len == 3 ? c & 0x0F : c & 0x07;
    for (int k = 1; k < len && i + k < line.size(); ++k) {
      cp = (cp << 6) | (static_cast<unsigned char>(line[i + k]) & 0x3F);
    }
    i += len;
    const bool wide = (cp >= 0x2E80 && cp <= 0xA4CF) || (cp >= 0xAC00 && cp <= 0xD7A3) ||
                      (cp >= 0xF900 && cp <= 0xFAFF) || (cp >= 0xFF00 && cp <= 0xFF60) ||
                      (cp >= 0xFFE0 && cp <= 0xFFE6);
    w += wide ? 2 : 1;
  }
  return w;
}

// The runs of ASCII letters and digits of a text that are not numbers (its English words and
// identifiers): a word split at a line break shows up as two runs the wide text does not have.
inline std::set<std::string> letter_runs(const std::string& text) {
  std::set<std::string> out;
  std::string run;
  for (char c : text + " ") {
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_') {
      run += c;
    } else {
      // A number (an address such as 0x7ffd3a0c, which changes from run to run) is no word.
      if (!run.empty() && !(run[0] >= '0' && run[0] <= '9')) out.insert(run);
      run.clear();
    }
  }
  return out;
}

}  // namespace gpulab::test
