// Parsing lesson files (see lesson.hpp).
#include "core/lesson.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>

#include "core/embedded.hpp"
#include "core/error.hpp"
#include "core/i18n_format.hpp"
#include "core/lines.hpp"

namespace gpulab {

std::vector<std::string> split_args(std::string_view line) {
  std::vector<std::string> out;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
    std::size_t j = i;
    while (j < line.size() && line[j] != ' ' && line[j] != '\t') ++j;
    if (j > i) out.emplace_back(line.substr(i, j - i));
    i = j;
  }
  return out;
}

Lesson parse_lesson(std::string_view id, std::string_view text) {
  Lesson lesson;
  lesson.id = std::string(id);
  LessonStep step;
  int line_no = 0;
  auto fail = [&](std::string_view why) {
    // For lesson authors (tests parse every built-in lesson): the directive's rule stays English.
    throw RuntimeFailure(
        both("lesson {} line {}: {}", "课程 {} 第 {} 行格式错误：{}", id, line_no, why));
  };
  auto finish_step = [&] {
    while (!step.text.empty() && step.text.back() == '\n') step.text.pop_back();
    while (!step.text.empty() && step.text.front() == '\n') step.text.erase(step.text.begin());
    if (step.question && step.question->answer.empty()) fail("@question without @answer");
    if (!step.text.empty() || !step.demo.empty() || step.question)
      lesson.steps.push_back(std::move(step));
    step = LessonStep{};
  };
  std::size_t pos = 0;
  while (pos <= text.size()) {
    std::size_t nl = text.find('\n', pos);
    if (nl == std::string_view::npos) nl = text.size();
    std::string_view raw = text.substr(pos, nl - pos);
    pos = nl + 1;
    ++line_no;
    if (!raw.empty() && raw.back() == '\r') raw.remove_suffix(1);
    if (line_no == 1) {
      if (!raw.starts_with("# ")) fail("the first line must be '# Title'");
      lesson.title = std::string(trim(raw.substr(2)));
      continue;
    }
    if (trim(raw) == "---") {
      finish_step();
      continue;
    }
    if (raw.starts_with("@")) {
      const std::size_t sp = raw.find(' ');
      const std::string_view name = raw.substr(0, sp);
      const std::string_view value =
          sp == std::string_view::npos ? std::string_view{} : trim(raw.substr(sp + 1));
      if (name == "@demo") {
        if (!step.demo.empty()) fail("two @demo in one step");
        step.demo = split_args(value);
        if (step.demo.empty()) fail("@demo needs gpulab arguments");
      } else if (name == "@question") {
        if (step.question) fail("two @question in one step");
        step.question = LessonQuestion{std::string(value), {}, 0, {}};
      } else if (name == "@answer" || name == "@tolerance" || name == "@explain") {
        if (!step.question) fail(fmt::format("{} before @question", name));
        if (name == "@answer") step.question->answer = std::string(value);
        if (name == "@explain") step.question->explain = std::string(value);
        if (name == "@tolerance") {
          double t = 0;
          auto [p, ec] = std::from_chars(value.data(), value.data() + value.size(), t);
          if (ec != std::errc{} || p != value.data() + value.size() || t < 0)
            fail("bad @tolerance");
          step.question->tolerance = t;
        }
      } else {
        fail(fmt::format("unknown directive {}", name));
      }
      continue;
    }
    step.text += std::string(raw);
    step.text += '\n';
    if (pos > text.size()) break;
  }
  finish_step();
  if (lesson.title.empty()) fail("no title");
  return lesson;
}

std::vector<Lesson> load_lessons(std::string_view lang) {
  std::vector<Lesson> lessons;
  const std::string prefix = fmt::format("{}/", lang);
  for (const auto& f : embedded::lessons()) {
    if (!f.path.starts_with(prefix) || !f.path.ends_with(".md")) continue;
    std::string_view name = f.path.substr(prefix.size());
    name.remove_suffix(3);
    lessons.push_back(parse_lesson(name, f.data));
  }
  std::sort(lessons.begin(), lessons.end(),
            [](const Lesson& a, const Lesson& b) { return a.id < b.id; });
  return lessons;
}

std::vector<LessonFile> lesson_files(std::string_view lesson_id) {
  const std::string prefix = fmt::format("files/{}/", lesson_id.substr(0, lesson_id.find('-')));
  std::vector<LessonFile> out;
  for (const auto& f : embedded::lessons()) {
    if (f.path.starts_with(prefix)) out.push_back({f.path.substr(prefix.size()), f.data});
  }
  std::sort(out.begin(), out.end(),
            [](const LessonFile& a, const LessonFile& b) { return a.name < b.name; });
  return out;
}

const std::vector<TaughtCommand>& taught_commands() {
  // The lesson where the command is first explained and demonstrated (index-map is met in 06
  // and 11 too, but 12 is the one about indexing).
  static const std::vector<TaughtCommand> table = {
      {"amdahl", "04"},  {"device-info", "05"}, {"warp-hiding", "07"}, {"occupancy", "07"},
      {"inspect", "09"}, {"hello", "10"},       {"vecadd", "11"},      {"index-map", "12"},
      {"run", "13"},     {"twonorm", "14"},     {"profile", "17"},
  };
  return table;
}

namespace {

std::string normal_key(std::string_view key) {
  std::string k;
  for (char c : trim(key)) {
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    k += c == '_' ? '-' : c;
  }
  return k;
}

std::string_view number_of(std::string_view id) {
  return id.substr(0, id.find('-'));
}

std::string_view slug_of(std::string_view id) {
  const std::size_t dash = id.find('-');
  return dash == std::string_view::npos ? id : id.substr(dash + 1);
}

std::vector<std::string_view> commands_of(std::string_view id) {
  std::vector<std::string_view> out;
  for (const auto& t : taught_commands())
    if (t.lesson == number_of(id)) out.push_back(t.command);
  return out;
}

// "4" and "004" name "04-..." (a number too long to be a lesson's names none).
bool same_number(std::string_view key, std::string_view number) {
  if (key.empty() || key.size() > 4 || number.empty() ||
      !std::all_of(key.begin(), key.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return false;
  return std::stoi(std::string(key)) == std::stoi(std::string(number));
}

}  // namespace

LessonLookup lookup_lesson(const std::vector<Lesson>& lessons, std::string_view key) {
  const std::string k = normal_key(key);
  LessonLookup out;
  if (k.empty()) return out;
  // Each pass looks for matches only where the one before found none.
  auto pass = [&](auto&& matches) {
    if (!out.candidates.empty()) return;
    for (const auto& l : lessons)
      if (matches(l)) out.candidates.push_back(&l);
  };
  pass([&](const Lesson& l) {
    const auto cmds = commands_of(l.id);
    return l.id == k || slug_of(l.id) == k || same_number(k, number_of(l.id)) ||
           std::find(cmds.begin(), cmds.end(), k) != cmds.end();
  });
  pass([&](const Lesson& l) {
    if (slug_of(l.id).starts_with(k)) return true;
    for (auto c : commands_of(l.id))
      if (c.starts_with(k)) return true;
    return false;
  });
  pass([&](const Lesson& l) {
    std::string_view slug = slug_of(l.id);
    std::size_t start = 0;
    while (start <= slug.size()) {
      std::size_t dash = slug.find('-', start);
      if (dash == std::string_view::npos) dash = slug.size();
      if (slug.substr(start, dash - start).starts_with(k)) return true;
      start = dash + 1;
    }
    return false;
  });
  if (out.candidates.size() == 1) out.lesson = out.candidates.front();
  return out;
}

const Lesson* find_lesson(const std::vector<Lesson>& lessons, std::string_view key) {
  return lookup_lesson(lessons, key).lesson;
}

}  // namespace gpulab
