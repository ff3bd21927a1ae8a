// Parsing the embedded exercise files (see catalog.hpp; the format is in docs/exercise.md).
#include "exercise/catalog.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <regex>
#include <stdexcept>

#include "core/embedded.hpp"
#include "core/error.hpp"
#include "core/i18n_format.hpp"

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

// A section's lines that hold something, each with its line number in the file (the section's
// heading is line `first`); a `#` starts a comment.
std::vector<std::pair<int, std::string>> section_lines(const std::string& body, int first) {
  std::vector<std::pair<int, std::string>> out;
  int n = first;
  std::size_t at = 0;
  while (at < body.size()) {
    const auto nl = body.find('\n', at);
    ++n;
    std::string line = body.substr(at, nl - at);
    at = nl == std::string::npos ? body.size() : nl + 1;
    const auto hash = line.find('#');
    if (hash != std::string::npos) line.resize(hash);  // a comment
    if (line.find_first_not_of(" \t") != std::string::npos) out.emplace_back(n, line);
  }
  return out;
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
    } else if (head == "counter_rules") {
      for (auto [n, line] : section_lines(body, section_line)) {
        line.erase(line.find_last_not_of(" \t") + 1);
        line.erase(0, line.find_first_not_of(" \t"));
        const auto rule = profile::parse_counter_rule(line);
        if (!rule) {
          std::string names;
          for (const std::string& r : profile::counter_rule_names())
            names += (names.empty() ? "" : ", ") + r;
          throw std::runtime_error(fmt::format(
              "{}:{}: '{}' is not a counter rule (RULE=N, RULE one of {})", file, n, line, names));
        }
        e.counter_rules.push_back(*rule);
      }
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
    } else if (head == "test") {
      TestSpec t;
      const auto bar = arg.find(" | ");
      t.name.en = arg.substr(0, bar);
      t.name.zh = bar == std::string::npos ? t.name.en : arg.substr(bar + 3);
      t.line = section_line;
      t.lines = section_lines(body, section_line);
      if (t.name.en.empty()) throw std::runtime_error(where + ": a test needs a name");
      e.tests.push_back(std::move(t));
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
  if (e.id.empty() || e.starter.empty() ||
      (e.solution.empty() && !e.student_edition && e.tests.empty()) || e.title.en.empty() ||
      e.statement.en.empty()) {
    throw std::runtime_error(
        file +
        ": an exercise needs id, title, statement, starter and a solution or @@ test "
        "sections");
  }
  return e;
}

namespace {

std::string& chosen_folder() {
  static std::string dir;
  return dir;
}
bool& loaded() {
  static bool done = false;
  return done;
}

// A teacher's error in their folder: the file, the line, what is wrong (the detail in English, as
// the file's format is written).
[[noreturn]] void bad_teacher_file(const std::string& what) {
  throw UsageError(both("teacher's exercises: {}", "教师的练习：{}", what));
}

// The teacher's exercises in `dir`, checked against gpulab's own (`known`) and one another.
void load_teacher_folder(const std::string& dir, std::vector<Exercise>& out) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) {
    throw UsageError(both("teacher's exercises {}: not a folder (--exercises or GPULAB_EXERCISES)",
                          "教师的练习 {}：不是文件夹（--exercises 或 GPULAB_EXERCISES）", dir));
  }
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    if (entry.path().extension() == ".txt") files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  static const std::regex name(R"(([0-9]{1,3})-([a-z0-9_]+)\.txt)");
  for (const fs::path& path : files) {
    const std::string file = path.string();
    std::smatch m;
    const std::string base = path.filename().string();
    if (!std::regex_match(base, m, name)) {
      bad_teacher_file(file + ": not named NN-ID.txt (a number, a dash, an id of a-z, 0-9 and _)");
    }
    std::ifstream in(path, std::ios::binary);
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (!in.good() && !in.eof()) bad_teacher_file(file + ": cannot be read");
    Exercise e;
    try {
      e = parse(text, file);
    } catch (const std::runtime_error& x) {
      bad_teacher_file(x.what());
    }
    e.number = std::stoi(m[1].str());
    e.file = file;
    if (e.id != m[2].str()) {
      bad_teacher_file(
          fmt::format("{}: its @@ id is '{}', its name says '{}'", file, e.id, m[2].str()));
    }
    if (e.tests.empty()) {
      bad_teacher_file(file +
                       ": no @@ test section: gpulab has no tests to check its kernels with");
    }
    for (const Exercise& other : out) {
      const std::string whose = other.file.empty() ? "gpulab's own" : other.file;
      if (other.id == e.id) {
        bad_teacher_file(fmt::format("{}: the id '{}' is taken ({})", file, e.id, whose));
      }
      if (other.number == e.number) {
        bad_teacher_file(
            fmt::format("{}: number {} is exercise {}'s ({})", file, e.number, other.id, whose));
      }
    }
    out.push_back(std::move(e));
  }
}

}  // namespace

void use_teacher_folder(const std::string& dir) {
  if (dir == teacher_folder()) return;
  if (loaded()) throw std::logic_error("use_teacher_folder after the exercises were loaded");
  chosen_folder() = dir;
}

std::string teacher_folder() {
  if (!chosen_folder().empty()) return chosen_folder();
  const char* env = std::getenv("GPULAB_EXERCISES");
  return env != nullptr ? env : "";
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
    if (const std::string dir = teacher_folder(); !dir.empty()) load_teacher_folder(dir, out);
    std::stable_sort(out.begin(), out.end(),
                     [](const Exercise& a, const Exercise& b) { return a.number < b.number; });
    loaded() = true;
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
    if (!e.counter_rules.empty()) {
      s += l == Lang::zh ? "//\n// 规则（由模拟器按 gpulab profile 的计数检查）：\n"
                         : "//\n// Rules (counted by the emulator as gpulab profile counts):\n";
    } else {
      s += l == Lang::zh ? "//\n// 规则（由模拟器逐个线程计数检查）：\n"
                         : "//\n// Rules (counted per thread by the emulator):\n";
    }
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
