// gpulab exercise grade (see grade.hpp): the submissions found, each checked in a worker process
// of its own, the rows collected from the workers as data.
#include "exercise/grade.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <filesystem>
#include <map>
#include <regex>
#include <thread>

#include "core/error.hpp"
#include "core/i18n_format.hpp"
#include "core/process.hpp"
#include "exercise/check.hpp"

namespace gpulab::exercise {

namespace fs = std::filesystem;
using nlohmann::json;
using Clock = std::chrono::steady_clock;

namespace {

// both() (core/i18n_format.hpp) for the exercise's own Text.
template <class... Args>
Text words(fmt::format_string<Args...> en, fmt::format_string<Args...> zh, Args&&... args) {
  const gpulab::Text t = both(en, zh, std::forward<Args>(args)...);
  return {t.en, t.zh};
}

bool hidden_name(const fs::path& p) {
  const std::string name = p.filename().string();
  return !name.empty() && name[0] == '.';
}

// The .cu files under `dir` (sub-folders too, hidden ones left out), as submissions of
// `student`; a symbolic link is a submission that says it was not followed.
void collect(const fs::path& dir, const std::string& student, bool deep,
             std::vector<Submission>& out) {
  std::error_code ec;
  std::vector<fs::directory_entry> entries;
  for (const auto& e : fs::directory_iterator(dir, ec)) entries.push_back(e);
  std::sort(entries.begin(), entries.end());
  for (const auto& e : entries) {
    if (hidden_name(e.path())) continue;
    const bool link = e.is_symlink(ec);
    if (!link && e.is_directory(ec)) {
      if (deep) collect(e.path(), student, true, out);
      continue;
    }
    if (e.path().extension() != ".cu") continue;
    Submission s;
    s.student = student;
    s.file = e.path().string();
    if (link) {
      s.problem = "symlink";
    } else if (!e.is_regular_file(ec)) {
      s.problem = "not_a_file";
    }
    out.push_back(std::move(s));
  }
}

Text problem_text(const std::string& problem, const std::string& file) {
  const std::string name = fs::path(file).filename().string();
  if (problem == "symlink") {
    return {fmt::format("{} is a symbolic link: not followed (hand in the file itself)", name),
            fmt::format("{} 是符号链接：不跟随（请提交文件本身）", name)};
  }
  return {fmt::format("{} is not a regular file", name), fmt::format("{} 不是普通文件", name)};
}

GradeRow not_graded(GradeRow row, const std::string& why, Text text) {
  row.verdict = "not_graded";
  row.diagnoses.push_back({why, std::move(text)});
  return row;
}

// One submission checked (in a worker process): its row.
GradeRow grade_one(const Submission& s, const GradeOptions& o, unsigned workers) {
  const auto start = Clock::now();
  GradeRow row;
  row.student = s.student;
  row.file = s.file;
  if (s.missing) {
    row.exercise = s.exercise->id;
    row.number = s.exercise->number;
    row.verdict = "missing";
    const std::string name = fmt::format("{:02}-{}.cu", s.exercise->number, s.exercise->id);
    row.diagnoses.push_back({"missing",
                             {fmt::format("no file for exercise {} ({}): hand in {}",
                                          s.exercise->number, s.exercise->id, name),
                              fmt::format("没有练习 {}（{}）的文件：请提交 {}", s.exercise->number,
                                          s.exercise->id, name)}});
    return row;
  }
  if (!s.problem.empty()) return not_graded(row, s.problem, problem_text(s.problem, s.file));
  Text why;
  const Exercise* e = exercise_of_file_name(s.file, why);
  if (e == nullptr) return not_graded(row, "file_name", why);
  row.exercise = e->id;
  row.number = e->number;

  CheckOptions c;
  c.file = s.file;
  c.exercise = e;  // the name's, checked against the file's marker line
  c.gpu = o.gpu;
  c.seed = o.seed;
  c.timeout = o.timeout;
  c.lang = o.lang;
  c.workers = workers;
  c.contain = o.limits;
  for (const std::string& h : o.hidden) {
    const fs::path p = fs::absolute(h).lexically_normal();
    std::error_code ec;
    c.contain->hidden.push_back(fs::is_directory(p, ec) ? p : p.parent_path());
  }
  CheckResult r;
  try {
    r = check_file(c);
  } catch (const Error& x) {
    row.seconds = std::chrono::duration<double>(Clock::now() - start).count();
    return not_graded(row, "check", {x.message(Lang::en), x.message(Lang::zh)});
  }
  row.verdict = r.verdict();
  row.source_sha256 = r.source_sha256;
  for (const TestOutcome& t : r.tests) row.tests.push_back({t.name, t.reason, t.pass});
  for (const Diagnosis& d : r.diagnoses) {
    Text text = d.text;
    if (d.more_tests > 0) {
      const Text more =
          words(" (the same in {} more tests)", "（另有 {} 个测试出现同样的问题）", d.more_tests);
      text.en += more.en;
      text.zh += more.zh;
    }
    row.diagnoses.push_back({d.mistake, std::move(text)});
  }
  const RunResult& run = r.run;
  if (run.processes_capped) {
    row.stopped = "processes";
  } else if (!run::limit_of_signal(run.signal).empty()) {
    row.stopped = run::limit_of_signal(run.signal);
  } else if (run.timed_out) {
    row.stopped = "time";
  } else if (run.output_capped) {
    row.stopped = "output";
  }
  if (row.stopped == "processes" || row.stopped == "cpu" || row.stopped == "file_size") {
    // The run engine's own words say a crash or a stop; these say which limit.
    const Text said =
        row.stopped == "processes"
            ? words("stopped by the grader: more than {} processes at once (a fork bomb?)",
                    "被评分程序停止：同时有超过 {} 个进程（是否是 fork 炸弹？）",
                    o.limits.processes)
        : row.stopped == "cpu"
            ? words("stopped by the grader: it used its {} s of CPU time",
                    "被评分程序停止：用完了它的 {} 秒 CPU 时间", o.limits.cpu.count())
            : words("stopped by the grader: it wrote a file larger than {} bytes",
                    "被评分程序停止：它写的文件超过 {} 字节", o.limits.file_bytes);
    row.diagnoses.push_back({"limit_" + row.stopped, said});
  }
  row.kernel_output = run.output.substr(0, 4096);
  row.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  return row;
}

// A row for a worker that ended without handing one back.
GradeRow worker_lost(const Submission& s, const Text& how) {
  GradeRow row;
  row.student = s.student;
  row.file = s.file;
  Text why;
  if (const Exercise* e = exercise_of_file_name(s.file, why)) {
    row.exercise = e->id;
    row.number = e->number;
  }
  return not_graded(row, "grader_stopped", how);
}

// Ends every process left under us (the orphans of workers that were stopped), for up to 2 s:
// each ended process's own children come to us next.
void end_orphans(const std::map<pid_t, std::size_t>& live) {
  const auto until = Clock::now() + std::chrono::seconds(2);
  while (Clock::now() < until) {
    bool any = false;
    for (int pid : child_processes()) {
      if (live.count(pid) != 0) continue;
      ::kill(pid, SIGKILL);
      any = true;
    }
    while (::waitpid(-1, nullptr, WNOHANG) > 0) {
    }
    if (!any) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

}  // namespace

const Exercise* exercise_of_file_name(const std::string& file, Text& why) {
  static const std::regex pattern(R"(([0-9]+)-([A-Za-z0-9_]+)\.cu)");
  const std::string name = fs::path(file).filename().string();
  std::smatch m;
  if (!std::regex_match(name, m, pattern)) {
    why = words(
        "{}: not named for an exercise (NN-ID.cu, as gpulab exercise start writes it: "
        "09-shared.cu)",
        "{}：文件名不对应任何练习（应为 NN-ID.cu，即 gpulab exercise start 生成的名字，"
        "如 09-shared.cu）",
        name);
    return nullptr;
  }
  const Exercise* e = find(m[2].str());
  if (e == nullptr) {
    why = words("{}: there is no exercise {} (gpulab exercise lists them)",
                "{}：没有练习 {}（gpulab exercise 会列出全部）", name, m[2].str());
    return nullptr;
  }
  const std::string digits = m[1].str();
  if (digits.size() > 3 || std::stoi(digits) != e->number) {
    why = words("{}: exercise {} is number {}, not {}: name it {:02}-{}.cu",
                "{}：练习 {} 的编号是 {}，不是 {}：请命名为 {:02}-{}.cu", name, e->id, e->number,
                digits, e->number, e->id);
    return nullptr;
  }
  return e;
}

std::vector<Submission> find_submissions(const std::vector<std::string>& paths,
                                         const std::string& student,
                                         const std::vector<const Exercise*>& required) {
  std::vector<Submission> out;
  std::vector<std::string> students;  // every student found, with or without files
  const auto add_student = [&](const std::string& s) {
    if (std::find(students.begin(), students.end(), s) == students.end()) students.push_back(s);
  };
  if (!student.empty()) add_student(student);
  for (const std::string& p : paths) {
    std::error_code ec;
    const fs::path path = p;
    if (p.empty() || !fs::exists(path, ec)) {
      throw UsageError(
          both("{}: no such file or folder", "{}：文件或文件夹不存在", p.empty() ? "''" : p));
    }
    const fs::path named = fs::absolute(path).lexically_normal();
    const std::string own =
        (named.has_filename() ? named : named.parent_path()).filename().string();
    if (!fs::is_directory(path, ec)) {
      Submission s;
      s.student = !student.empty() ? student : named.parent_path().filename().string();
      s.file = p;
      if (!fs::is_regular_file(path, ec)) s.problem = "not_a_file";
      add_student(s.student);
      out.push_back(std::move(s));
      continue;
    }
    if (!student.empty()) {
      collect(path, student, true, out);
      continue;
    }
    // Its own .cu files: the folder's student; each sub-folder: a student.
    const std::size_t before = out.size();
    collect(path, own, false, out);
    if (out.size() > before) add_student(own);
    std::vector<fs::directory_entry> entries;
    for (const auto& e : fs::directory_iterator(path, ec)) entries.push_back(e);
    std::sort(entries.begin(), entries.end());
    for (const auto& e : entries) {
      if (hidden_name(e.path()) || e.is_symlink(ec) || !e.is_directory(ec)) continue;
      const std::string name = e.path().filename().string();
      add_student(name);
      collect(e.path(), name, true, out);
    }
  }
  for (const Exercise* e : required) {
    for (const std::string& s : students) {
      const bool has = std::any_of(out.begin(), out.end(), [&](const Submission& x) {
        Text why;
        return x.student == s && !x.missing && exercise_of_file_name(x.file, why) == e;
      });
      if (has) continue;
      Submission m;
      m.student = s;
      m.missing = true;
      m.exercise = e;
      out.push_back(std::move(m));
    }
  }
  const auto number = [](const Submission& s) {
    if (s.missing) return s.exercise->number;
    Text why;
    const Exercise* e = exercise_of_file_name(s.file, why);
    return e != nullptr ? e->number : 1000;
  };
  std::stable_sort(out.begin(), out.end(), [&](const Submission& a, const Submission& b) {
    if (a.student != b.student) return a.student < b.student;
    if (number(a) != number(b)) return number(a) < number(b);
    return a.file < b.file;
  });
  return out;
}

std::size_t GradeResult::passed() const {
  return static_cast<std::size_t>(std::count_if(
      rows.begin(), rows.end(), [](const GradeRow& r) { return r.verdict == "passed"; }));
}

GradeResult grade(const GradeOptions& o) {
  const auto start = Clock::now();
  GradeResult result;
  result.seed = o.seed;
  result.version = GPULAB_VERSION;
  result.backend = o.gpu ? "cuda" : "cpu-emulator";
  result.limits = o.limits;
  result.timeout = o.timeout;
  // Tried here, once, before the workers start (they inherit what was found).
  result.containment = run::containment_for(o.limits);
  const std::size_t n = o.submissions.size();
  result.jobs = static_cast<unsigned>(std::max<std::size_t>(1, std::min<std::size_t>(o.jobs, n)));
  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  const unsigned workers = std::max(1u, cores / result.jobs);
  result.rows.resize(n);
  // A worker ends within its limits: the build's (5 minutes) and the run's, with room to spare.
  const auto worker_limit =
      std::chrono::minutes(6) + o.timeout * (o.gpu ? 6 : 2) + std::chrono::seconds(10);

  struct Worker {
    std::size_t index;
    int fd;
    std::string data;
    Clock::time_point deadline;
    bool stopping = false;
    Clock::time_point stopped_at{};
  };
  std::map<pid_t, Worker> running;
  const SignalGuard signals;
  ::prctl(PR_SET_CHILD_SUBREAPER, 1);
  std::map<pid_t, std::size_t> keep;  // our processes that are not a worker's leftovers
  for (int p : child_processes()) keep[p] = 0;

  const auto start_worker = [&](std::size_t i) {
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0) {
      const int error = errno;
      throw RuntimeFailure(both("cannot start a grading worker: {}", "无法启动评分工作进程：{}",
                                std::string(std::strerror(error))));
    }
    const pid_t pid = ::fork();
    if (pid < 0) {
      const int error = errno;
      ::close(fds[0]);
      ::close(fds[1]);
      throw RuntimeFailure(both("cannot start a grading worker: {}", "无法启动评分工作进程：{}",
                                std::string(std::strerror(error))));
    }
    if (pid == 0) {
      // The worker: one file checked, its row handed back as one JSON document, then gone
      // without running the parent's exit handlers.
      ::close(fds[0]);
      int code = 0;
      try {
        const std::string doc = row_json(grade_one(o.submissions[i], o, workers))
                                    .dump(-1, ' ', false, json::error_handler_t::replace);
        std::size_t at = 0;
        while (at < doc.size()) {
          const ssize_t w = ::write(fds[1], doc.data() + at, doc.size() - at);
          if (w < 0 && errno == EINTR) continue;
          if (w <= 0) break;
          at += static_cast<std::size_t>(w);
        }
      } catch (const Interrupted& x) {
        code = 128 + x.signal();
      } catch (...) {
        code = 70;
      }
      ::_exit(code);
    }
    ::close(fds[1]);
    running[pid] = Worker{i, fds[0], "", Clock::now() + worker_limit};
  };

  const auto finish = [&](pid_t pid, Worker& w) {
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    ::close(w.fd);
    const Submission& s = o.submissions[w.index];
    try {
      result.rows[w.index] = row_from_json(json::parse(w.data));
      return;
    } catch (const std::exception&) {
    }
    Text how;
    if (w.stopping) {
      how = words("grading this file took longer than {} s and was stopped",
                  "评分此文件超过 {} 秒，已被停止",
                  std::chrono::duration_cast<std::chrono::seconds>(worker_limit).count());
    } else if (WIFSIGNALED(status)) {
      how = words("the grading worker for this file was killed by {}",
                  "此文件的评分工作进程被 {} 终止", signal_name(WTERMSIG(status)));
    } else {
      how = words("the grading worker for this file ended without a result (exit code {})",
                  "此文件的评分工作进程没有给出结果就结束了（退出码 {}）",
                  WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    }
    result.rows[w.index] = worker_lost(s, how);
  };

  const auto stop_all = [&](int signal) {
    for (auto& [pid, w] : running) ::kill(pid, SIGTERM);
    const auto grace = Clock::now() + std::chrono::seconds(2);
    while (!running.empty() && Clock::now() < grace) {
      for (auto it = running.begin(); it != running.end();) {
        if (::waitpid(it->first, nullptr, WNOHANG) == it->first) {
          ::close(it->second.fd);
          it = running.erase(it);
        } else {
          ++it;
        }
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    for (auto& [pid, w] : running) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, nullptr, 0);
      ::close(w.fd);
    }
    running.clear();
    end_orphans(keep);
    throw Interrupted(signal);
  };

  std::size_t next = 0;
  char buf[65536];
  while (next < n || !running.empty()) {
    try {
      throw_if_interrupted();
    } catch (const Interrupted& x) {
      stop_all(x.signal());
    }
    while (running.size() < result.jobs && next < n) start_worker(next++);
    std::vector<pollfd> fds;
    std::vector<pid_t> pids;
    for (auto& [pid, w] : running) {
      fds.push_back({w.fd, POLLIN, 0});
      pids.push_back(pid);
    }
    const int got = ::poll(fds.data(), fds.size(), 100);
    if (got < 0 && errno != EINTR) break;
    const auto now = Clock::now();
    for (std::size_t k = 0; k < fds.size(); ++k) {
      Worker& w = running.at(pids[k]);
      if (fds[k].revents & (POLLIN | POLLHUP | POLLERR)) {
        const ssize_t r = ::read(w.fd, buf, sizeof buf);
        if (r > 0 && w.data.size() < (64u << 20)) {
          w.data.append(buf, static_cast<std::size_t>(r));
        } else if (r == 0 || (r < 0 && errno != EINTR && errno != EAGAIN)) {
          finish(pids[k], w);
          running.erase(pids[k]);
          continue;
        }
      }
      if (!w.stopping && now >= w.deadline) {
        w.stopping = true;
        w.stopped_at = now;
        ::kill(pids[k], SIGTERM);
      } else if (w.stopping && now >= w.stopped_at + std::chrono::seconds(2)) {
        ::kill(pids[k], SIGKILL);
      }
    }
  }
  // What the workers left (a contained program whose worker was stopped) goes now.
  end_orphans(keep);
  result.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  return result;
}

}  // namespace gpulab::exercise
