// The student's progress file (see state.hpp).
#include "core/state.hpp"

#include <fcntl.h>
#include <sys/file.h>  // flock
#include <unistd.h>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include "core/i18n_format.hpp"

namespace gpulab {
namespace {

// A step number nobody needs more than: a lesson has a handful of steps.
constexpr std::uint64_t kMaxStep = 10'000;

// The valid entries of a file's text, and a line for each problem (the whole file, or an entry).
SavedProgress parse_progress(const std::string& text, const std::string& where) {
  SavedProgress p;
  auto& problems = p.problems;
  const auto j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded()) {
    problems.push_back(text.empty() ? both("{}: the file is empty", "{}：文件是空的", where)
                                    : both("{}: the file is not JSON (damaged or truncated)",
                                           "{}：文件不是 JSON（已损坏或不完整）", where));
    return p;
  }
  if (!j.is_object() || (j.contains("lessons") && !j["lessons"].is_object())) {
    problems.push_back(both("{}: not gpulab progress (expected {{\"lessons\": {{...}}}})",
                            "{}：不是 gpulab 的学习进度（应为 {{\"lessons\": {{...}}}}）", where));
    return p;
  }
  if (j.contains("exercises")) {
    if (!j["exercises"].is_object()) {
      problems.push_back(both("{}: \"exercises\" is not an object; they start afresh",
                              "{}：\"exercises\" 不是对象；练习进度从头开始", where));
    } else {
      for (const auto& [id, entry] : j["exercises"].items()) {
        if (!entry.is_object() || !entry.value("checks", nlohmann::json()).is_number_unsigned() ||
            !entry.value("passed", nlohmann::json()).is_boolean()) {
          problems.push_back(both(
              "{}: exercise {}: {} is not a check count and passed flag; "
              "that exercise starts afresh",
              "{}：练习 {}：{} 不是检查次数和通过标记；该练习从头开始", where, id, entry.dump()));
          continue;
        }
        p.exercises[id] = {entry["checks"].get<std::uint64_t>(), entry["passed"].get<bool>()};
      }
    }
  }
  if (!j.contains("lessons")) return p;
  for (const auto& [id, entry] : j["lessons"].items()) {
    auto bad = [&](const Text& why) {
      problems.push_back(
          {fmt::format("{}: lesson {}: {}; that lesson starts afresh", where, id, why.en),
           fmt::format("{}：第 {} 课：{}；该课从头开始", where, id, why.zh)});
    };
    if (!entry.is_object()) {
      bad(both("{} is not a step and done flag", "{} 不是步骤和完成标记", entry.dump()));
      continue;
    }
    LessonProgress lp;
    if (entry.contains("step")) {
      const auto& s = entry["step"];
      // Only whole numbers in range: 1e30 or -3 would become a nonsense (or undefined) step.
      if (!s.is_number_integer() ||
          (s.is_number_unsigned()
               ? s.get<std::uint64_t>() > kMaxStep
               : s.get<std::int64_t>() < 0 ||
                     s.get<std::int64_t>() > static_cast<std::int64_t>(kMaxStep))) {
        bad(both("\"step\": {} is not a step number (0 to {})",
                 "\"step\"：{} 不是步骤编号（0 到 {}）", s.dump(), kMaxStep));
        continue;
      }
      lp.step = s.get<std::size_t>();
    }
    if (entry.contains("done")) {
      if (!entry["done"].is_boolean()) {
        bad(both("\"done\": {} is neither true nor false", "\"done\"：{} 既不是 true 也不是 false",
                 entry["done"].dump()));
        continue;
      }
      lp.done = entry["done"].get<bool>();
    }
    if (entry.contains("right")) {
      const auto& r = entry["right"];
      const bool valid =
          r.is_array() && std::all_of(r.begin(), r.end(), [](const auto& x) {
            return x.is_number_unsigned() && x.template get<std::uint64_t>() <= kMaxStep;
          });
      if (!valid) {
        bad(both("\"right\": {} is not a list of step numbers (0 to {})",
                 "\"right\"：{} 不是步骤编号的列表（0 到 {}）", r.dump(), kMaxStep));
        continue;
      }
      std::vector<std::size_t> steps;
      for (const auto& x : r) steps.push_back(x.get<std::size_t>());
      std::sort(steps.begin(), steps.end());
      steps.erase(std::unique(steps.begin(), steps.end()), steps.end());
      lp.right = std::move(steps);
    }
    p.lessons[id] = lp;
  }
  return p;
}

// The whole file, or nothing when it does not exist; `error` says why it could not be read.
std::optional<std::string> read_file(const std::filesystem::path& path, Text& error) {
  // A folder opens and reads as nothing: it would pass for an empty file, set aside again and
  // again. Say what it is instead.
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  if (std::filesystem::is_directory(status)) {
    error = {"it is a folder, not a file", "它是文件夹，不是文件"};
    return std::nullopt;
  }
  if (std::filesystem::exists(status) && !std::filesystem::is_regular_file(status)) {
    error = {"it is not a regular file", "它不是普通文件"};
    return std::nullopt;
  }
  errno = 0;
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    if (errno != ENOENT) error = chosen(std::strerror(errno));  // the system's words
    return std::nullopt;
  }
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

nlohmann::json to_json(const SavedProgress& p) {
  nlohmann::json lessons = nlohmann::json::object();
  for (const auto& [id, lp] : p.lessons) {
    lessons[id] = {{"step", lp.step}, {"done", lp.done}};
    if (lp.right) lessons[id]["right"] = *lp.right;
  }
  nlohmann::json out = {{"lessons", lessons}};
  if (!p.exercises.empty()) {
    nlohmann::json exercises = nlohmann::json::object();
    for (const auto& [id, e] : p.exercises) {
      exercises[id] = {{"checks", e.checks}, {"passed", e.passed}};
    }
    out["exercises"] = exercises;
  }
  return out;
}

// Writes `text` to `path` through a temporary file, fsync and rename; "" or the reason.
std::string write_atomically(const std::filesystem::path& path, const std::string& text) {
  const std::string tmp = path.string() + ".tmp." + std::to_string(getpid());
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return std::strerror(errno);
  bool ok = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  int err = ok ? 0 : (errno != 0 ? errno : EIO);
  if (::fsync(fd) != 0 && err == 0) err = errno;
  if (::close(fd) != 0 && err == 0) err = errno;
  if (err == 0 && std::rename(tmp.c_str(), path.c_str()) != 0) err = errno;
  if (err != 0) {
    ::unlink(tmp.c_str());
    return std::strerror(err);
  }
  return {};
}

// The first free name progress.json.bad-1, -2, ...
std::filesystem::path aside_name(const std::filesystem::path& path) {
  for (int i = 1;; ++i) {
    std::filesystem::path candidate = path.string() + ".bad-" + std::to_string(i);
    std::error_code ec;
    if (!std::filesystem::exists(candidate, ec)) return candidate;
  }
}

}  // namespace

std::optional<std::filesystem::path> progress_path() {
  const char* xdg = std::getenv("XDG_STATE_HOME");
  if (xdg != nullptr && *xdg == '/') return std::filesystem::path(xdg) / "gpulab" / "progress.json";
  const char* home = std::getenv("HOME");
  if (home != nullptr && *home != '\0') {
    return std::filesystem::path(home) / ".local" / "state" / "gpulab" / "progress.json";
  }
  return std::nullopt;
}

SavedProgress load_progress() {
  auto path = progress_path();
  if (!path) return {};
  Text error;
  auto text = read_file(*path, error);
  if (!text) {
    SavedProgress p;
    if (!error.empty()) {
      p.problems.push_back({fmt::format("{}: cannot read: {}", path->string(), error.en),
                            fmt::format("{}：无法读取：{}", path->string(), error.zh)});
    }
    return p;
  }
  return parse_progress(*text, path->string());
}

namespace {

// Under the lock: re-read, apply `change` to the valid entries, write atomically.
template <class Change>
SaveOutcome update_progress(Change change) {
  SaveOutcome out;
  auto path = progress_path();
  if (!path) {
    out.messages.push_back(
        {"could not save your progress: neither XDG_STATE_HOME (an absolute path) nor HOME is set",
         "无法保存学习进度：XDG_STATE_HOME（须为绝对路径）和 HOME 都没有设置"});
    return out;
  }
  auto fail = [&](const std::filesystem::path& what, const Text& why) {
    out.messages.push_back(
        {fmt::format("could not save your progress to {}: {}", what.string(), why.en),
         fmt::format("无法把学习进度保存到 {}：{}", what.string(), why.zh)});
    return out;
  };
  // The system's reason (strerror, std::error_code) is in the system's words.
  auto system = [](const std::string& why) { return chosen(why); };
  std::error_code ec;
  std::filesystem::create_directories(path->parent_path(), ec);
  if (ec) return fail(path->parent_path(), system(ec.message()));

  // One writer at a time: the lock file, never replaced, is what every gpulab locks.
  const std::string lock_path = path->string() + ".lock";
  int lock = ::open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (lock < 0) return fail(lock_path, system(std::strerror(errno)));
  while (::flock(lock, LOCK_EX) != 0) {
    if (errno != EINTR) {
      const int err = errno;
      ::close(lock);
      return fail(lock_path, system(std::strerror(err)));
    }
  }
  struct Unlock {
    int fd;
    ~Unlock() { ::close(fd); }  // closing releases the lock
  } unlock{lock};

  // Re-read under the lock: what another gpulab saved a moment ago is kept.
  Text error;
  auto text = read_file(*path, error);
  if (!text && !error.empty()) {
    return fail(*path, {"cannot read it: " + error.en, "无法读取：" + error.zh});
  }
  SavedProgress current;
  if (text) current = parse_progress(*text, path->string());
  out.messages = current.problems;
  if (!current.problems.empty()) {
    // Nothing is lost: the file as it was goes aside before the valid part is written back.
    const std::filesystem::path aside = aside_name(*path);
    const std::string why = write_atomically(aside, *text);
    if (!why.empty()) {
      return fail(aside,
                  {"cannot keep the damaged file aside: " + why, "无法另存损坏的文件：" + why});
    }
    out.messages.push_back(
        both("kept the file as it was in {}", "原文件已原样保存为 {}", aside.string()));
  }
  change(current);
  const std::string why = write_atomically(*path, to_json(current).dump(2) + "\n");
  if (!why.empty()) return fail(*path, system(why));
  out.saved = true;
  return out;
}

}  // namespace

SaveOutcome save_lesson_progress(const std::string& lesson_id, LessonProgress progress) {
  return update_progress([&](SavedProgress& p) { p.lessons[lesson_id] = progress; });
}

SaveOutcome save_exercise_check(const std::string& exercise_id, bool passed) {
  return update_progress([&](SavedProgress& p) {
    ExerciseProgress& e = p.exercises[exercise_id];
    ++e.checks;
    e.passed = e.passed || passed;
  });
}

}  // namespace gpulab
