// Parsing the embedded exercise files (see catalog.hpp; the format is in docs/exercise.md).
#include "exercise/catalog.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <regex>
#include <stdexcept>

#include "core/embedded.hpp"

namespace gpulab::exercise {

namespace {

std::string trim_end(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

void set_text(Text& t, const std::string& lang, const std::string& value,
              const std::string& where) {
  if (lang == "en") {
    t.en = value;
  } else if (lang == "zh") {
    t.zh = value;
  } else {
    throw std::runtime_error(where + ": unknown language '" + lang + "'");
  }
}

}  // namespace

Exercise parse(std::string_view text, const std::string& file) {
  Exercise e;
  std::string section, arg, body;
  int section_line = 0;
  auto flush = [&] {
    if (section.empty()) return;
    const std::string where = fmt::format("{}:{}", file, section_line);
    const std::string value = trim_end(body);
    const auto dot = section.find('.');
    const std::string head = section.substr(0, dot);
    const std::string lang = dot == std::string::npos ? "" : section.substr(dot + 1);
    if (head == "edition") {
      if (arg != "student") throw std::runtime_error(where + ": unknown edition '" + arg + "'");
      e.student_edition = true;
    } else if (head == "id") {
      e.id = arg;
    } else if (head == "lesson") {
      e.lesson = arg;
    } else if (head == "title") {
      set_text(e.title, lang, arg, where);
    } else if (head == "statement") {
      set_text(e.statement, lang, value, where);
    } else if (head == "rules") {
      set_text(e.rules, lang, value, where);
    } else if (head == "hint") {
      // The n-th hint.en and the n-th hint.zh are one hint.
      auto& hints = e.hints;
      const auto filled = std::count_if(hints.begin(), hints.end(), [&](const Text& h) {
        return !(lang == "zh" ? h.zh : h.en).empty();
      });
      if (static_cast<std::size_t>(filled) == hints.size()) hints.emplace_back();
      set_text(hints[static_cast<std::size_t>(filled)], lang, value, where);
    } else if (head == "starter") {
      e.starter = value + "\n";
    } else if (head == "solution") {
      e.solution = value + "\n";
    } else if (head == "mistake") {
      Mistake m;
      const auto space = arg.find(' ');
      m.name = arg.substr(0, space);
      const std::string rest = space == std::string::npos ? "" : arg.substr(space + 1);
      if (rest.rfind("expect=", 0) != 0)
        throw std::runtime_error(where + ": mistake needs expect=");
      // "expect=WORDS" or "expect=WORDS | zh=WORDS": what the explanation says in each language.
      m.expect = rest.substr(7);
      if (const auto bar = m.expect.find(" | zh="); bar != std::string::npos) {
        m.expect_zh = m.expect.substr(bar + 6);
        m.expect.resize(bar);
      }
      m.code = value + "\n";
      e.mistakes.push_back(std::move(m));
    } else {
      throw std::runtime_error(where + ": unknown section '" + section + "'");
    }
  };
  std::size_t pos = 0;
  int line_no = 0;
  while (pos < text.size()) {
    auto nl = text.find('\n', pos);
    if (nl == std::string_view::npos) nl = text.size();
    const std::string line(text.substr(pos, nl - pos));
    pos = nl + 1;
    ++line_no;
    if (line.rfind("@@ ", 0) == 0) {
      flush();
      const std::string head = line.substr(3);
      const auto space = head.find(' ');
      section = head.substr(0, space);
      arg = space == std::string::npos ? "" : head.substr(space + 1);
      body.clear();
      section_line = line_no;
      continue;
    }
    if (section.empty()) continue;
    body += line + "\n";
  }
  flush();
  if (e.id.empty() || e.starter.empty() || (e.solution.empty() && !e.student_edition) ||
      e.title.en.empty() || e.statement.en.empty()) {
    throw std::runtime_error(file +
                             ": an exercise needs id, title, statement, starter and solution");
  }
  return e;
}

const std::vector<Exercise>& all() {
  static const std::vector<Exercise> list = [] {
    std::vector<Exercise> out;
    static const std::regex name(R"(([0-9]+)-[a-z0-9_]+\.txt)");
    for (const auto& f : embedded::exercises()) {
      std::smatch m;
      const std::string path(f.path);
      if (!std::regex_match(path, m, name)) continue;
      Exercise e = parse(f.data, path);
      e.number = std::stoi(m[1].str());
      out.push_back(std::move(e));
    }
    std::sort(out.begin(), out.end(),
              [](const Exercise& a, const Exercise& b) { return a.number < b.number; });
    return out;
  }();
  return list;
}

const Exercise* find(const std::string& key) {
  for (const Exercise& e : all()) {
    if (e.id == key) return &e;
  }
  if (!key.empty() && key.size() <= 3 && key.find_first_not_of("0123456789") == std::string::npos) {
    const int n = std::stoi(key);
    for (const Exercise& e : all()) {
      if (e.number == n) return &e;
    }
  }
  return nullptr;
}

std::string_view harness_library() {
  return embedded::find(embedded::exercises(), "harness.cuh").value_or("");
}

std::string starter_file(const Exercise& e, Lang l) {
  std::string s =
      fmt::format("// gpulab exercise: {}\n//\n// {}. {}\n//\n", e.id, e.number, e.title.in(l));
  auto comment = [&](const std::string& text) {
    std::size_t pos = 0;
    while (pos <= text.size()) {
      auto nl = text.find('\n', pos);
      if (nl == std::string::npos) nl = text.size();
      const std::string line = text.substr(pos, nl - pos);
      s += line.empty() ? "//\n" : "// " + line + "\n";
      pos = nl + 1;
    }
  };
  comment(e.statement.in(l));
  if (!e.rules.en.empty()) {
    s += l == Lang::zh ? "//\n// 规则（由模拟器逐个线程计数检查）：\n"
                       : "//\n// Rules (counted per thread by the emulator):\n";
    comment(e.rules.in(l));
  }
  s += l == Lang::zh ? "//\n// 检查：gpulab exercise check 本文件（提示：gpulab exercise hint " +
                           e.id + "）\n\n"
                     : "//\n// Check it: gpulab exercise check THIS_FILE (a hint: gpulab exercise "
                       "hint " +
                           e.id + ")\n\n";
  return s + e.starter;
}

std::string id_in_file(const std::string& text) {
  static const std::regex marker(R"(//\s*gpulab exercise:\s*([a-z0-9_]+))");
  std::smatch m;
  const std::string head = text.substr(0, 4096);
  if (std::regex_search(head, m, marker)) return m[1].str();
  return "";
}

}  // namespace gpulab::exercise
