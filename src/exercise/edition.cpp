// The student edition of the exercises (see edition.hpp).
#include "exercise/edition.hpp"

#include <vector>

namespace gpulab::exercise {

std::string student_edition(std::string_view text) {
  // The file as sections: what precedes the first "@@ " line, then one per "@@ " line.
  struct Section {
    std::string head;  // "hint.en", "solution", ... ("" for the preamble)
    std::string text;  // its lines, the "@@ " line included
  };
  std::vector<Section> sections(1);
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t nl = text.find('\n', pos);
    nl = nl == std::string_view::npos ? text.size() : nl + 1;
    const std::string_view line = text.substr(pos, nl - pos);
    pos = nl;
    if (line.substr(0, 3) == "@@ ") {
      std::string_view head = line.substr(3);
      head = head.substr(0, head.find_first_of(" \n"));
      sections.push_back({std::string(head), {}});
    }
    sections.back().text += line;
  }
  std::size_t hints_en = 0, hints_zh = 0;
  for (const Section& s : sections) {
    hints_en += s.head == "hint.en" ? 1 : 0;
    hints_zh += s.head == "hint.zh" ? 1 : 0;
  }
  std::string out = std::string(kStudentEditionLine) + "\n";
  std::size_t seen_en = 0, seen_zh = 0;
  for (const Section& s : sections) {
    if (s.head == "solution" || s.head == "mistake" || s.head == "edition") continue;
    if (s.head == "hint.en" && ++seen_en == hints_en && hints_en >= 2) continue;
    if (s.head == "hint.zh" && ++seen_zh == hints_zh && hints_zh >= 2) continue;
    out += s.text;
  }
  return out;
}

}  // namespace gpulab::exercise
