// Running other programs (see process.hpp).
#include "core/process.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <map>
#include <set>
#include <sstream>
#include <thread>

#include "core/error.hpp"
#include "core/i18n_format.hpp"

#include <fmt/format.h>

extern char** environ;

namespace gpulab {

namespace {

using Clock = std::chrono::steady_clock;

// Writes all of `data` to `fd`; false when the reader is gone (the output is then dropped).
bool write_all(int fd, const char* data, std::size_t size) {
  while (size > 0) {
    const ssize_t n = ::write(fd, data, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    data += n;
    size -= static_cast<std::size_t>(n);
  }
  return true;
}

std::vector<std::string> child_environment(const ProcessSpec& spec) {
  std::map<std::string, std::string> vars;
  for (char** e = environ; spec.inherit_env && *e != nullptr; ++e) {
    const std::string_view entry(*e);
    const auto eq = entry.find('=');
    if (eq == std::string_view::npos) continue;
    vars[std::string(entry.substr(0, eq))] = std::string(entry.substr(eq + 1));
  }
  for (const auto& [name, value] : spec.env) vars[name] = value;
  std::vector<std::string> out;
  out.reserve(vars.size());
  for (const auto& [name, value] : vars) out.push_back(name + "=" + value);
  return out;
}

// The signal a SignalGuard recorded (0: none), and how many guards live.
volatile sig_atomic_t g_signal = 0;
int g_guards = 0;
struct sigaction g_old[3];
constexpr int kGuarded[3] = {SIGINT, SIGTERM, SIGHUP};

extern "C" void record_signal(int s) {
  if (g_signal == 0) g_signal = s;
}

struct ProcEntry {
  pid_t pid = 0, ppid = 0, pgrp = 0;
  bool zombie = false;
};

// Every process we can see, from /proc/PID/stat (the fields after the name: state, parent,
// process group). /proc/PID/task/TID/children is not in every kernel; this is.
std::vector<ProcEntry> processes() {
  std::vector<ProcEntry> all;
  DIR* proc = opendir("/proc");
  if (proc == nullptr) return all;
  while (const dirent* e = readdir(proc)) {
    if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
    // read(), not a stream: a process that ends while we read fails the read (ESRCH), which
    // libstdc++'s filebuf would throw.
    char buf[512];
    const int fd =
        ::open((std::string("/proc/") + e->d_name + "/stat").c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) continue;
    const ssize_t got = ::read(fd, buf, sizeof buf);
    ::close(fd);
    if (got <= 0) continue;
    const std::string stat(buf, static_cast<std::size_t>(got));
    const auto paren = stat.rfind(')');
    if (paren == std::string::npos) continue;
    std::istringstream fields(stat.substr(paren + 1));
    std::string state;
    ProcEntry p;
    long ppid = 0, pgrp = 0;
    if (!(fields >> state >> ppid >> pgrp)) continue;
    p.pid = static_cast<pid_t>(std::atol(e->d_name));
    p.ppid = static_cast<pid_t>(ppid);
    p.pgrp = static_cast<pid_t>(pgrp);
    p.zombie = state == "Z" || state == "X";
    all.push_back(p);
  }
  closedir(proc);
  return all;
}

// Our children now: with the subreaper flag, the orphans of the program's processes are ours.
std::set<pid_t> own_children() {
  std::set<pid_t> pids;
  const pid_t self = ::getpid();
  for (const ProcEntry& p : processes())
    if (p.ppid == self) pids.insert(p.pid);
  return pids;
}

// Ends what is left of the program started as `leader` (its process group, and the orphans that
// came to us, also those that left the group), reaps them, and says how many were running.
int end_leftovers(pid_t leader, const std::set<pid_t>& children_before) {
  std::set<pid_t> ended;
  const pid_t self = ::getpid();
  const auto until = Clock::now() + std::chrono::seconds(2);
  while (Clock::now() < until) {
    std::set<pid_t> left;
    for (const ProcEntry& p : processes()) {
      const bool ours = p.ppid == self && children_before.count(p.pid) == 0;
      if (ours && p.zombie) {
        waitpid(p.pid, nullptr, WNOHANG);  // an orphan that had already ended
        continue;
      }
      if (p.zombie || p.pid == self) continue;
      if (p.pgrp == leader || ours) left.insert(p.pid);
    }
    if (left.empty()) break;
    ::kill(-leader, SIGKILL);
    for (pid_t p : left) {
      ::kill(p, SIGKILL);
      ended.insert(p);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  ended.erase(leader);
  return static_cast<int>(ended.size());
}

// How many processes the program started as `leader` has now: it and everything under it, and
// the orphans that came to us (they left its tree when their parent ended).
std::size_t count_program(pid_t leader, const std::set<pid_t>& children_before) {
  const std::vector<ProcEntry> all = processes();
  std::map<pid_t, std::vector<pid_t>> children;
  const pid_t self = ::getpid();
  std::vector<pid_t> todo = {leader};
  for (const ProcEntry& p : all) {
    if (p.zombie) continue;
    children[p.ppid].push_back(p.pid);
    if (p.ppid == self && p.pid != leader && children_before.count(p.pid) == 0)
      todo.push_back(p.pid);
  }
  std::set<pid_t> seen;
  while (!todo.empty()) {
    const pid_t p = todo.back();
    todo.pop_back();
    if (!seen.insert(p).second) continue;
    for (pid_t c : children[p]) todo.push_back(c);
  }
  return seen.size();
}

// posix_spawn cannot set resource limits: for a child that needs them, fork and exec, with only
// async-signal-safe calls between the two (as posix_spawn does). The program is looked up on
// PATH before. Returns 0 or the errno that kept it from starting.
int spawn_limited(pid_t* pid, const ProcessSpec& spec, int out_w, int err_w, char* const argv[],
                  char* const envp[]) {
  std::string path = argv[0];
  if (path.find('/') == std::string::npos) {  // on PATH, as posix_spawnp looks
    const char* env_path = std::getenv("PATH");
    std::istringstream dirs(env_path != nullptr ? env_path : "/usr/bin:/bin");
    std::string dir, found;
    while (found.empty() && std::getline(dirs, dir, ':')) {
      const std::string candidate = (dir.empty() ? "." : dir) + "/" + path;
      if (::access(candidate.c_str(), X_OK) == 0) found = candidate;
    }
    if (found.empty()) return ENOENT;
    path = found;
  }
  std::vector<std::pair<int, rlimit>> limits;
  for (const auto& [resource, value] : spec.limits) {
    rlimit r{static_cast<rlim_t>(value), static_cast<rlim_t>(value)};
    if (resource == RLIMIT_CPU) r.rlim_max = r.rlim_cur + 1;
    limits.emplace_back(resource, r);
  }
  int status[2];
  if (pipe2(status, O_CLOEXEC) != 0) return errno;
  const bool capture = spec.output == ProcessSpec::Output::capture;
  const char* cwd = spec.cwd.empty() ? nullptr : spec.cwd.c_str();
  const pid_t child = ::fork();
  if (child < 0) {
    const int error = errno;
    close(status[0]);
    close(status[1]);
    return error;
  }
  if (child == 0) {
    struct sigaction dfl {};
    dfl.sa_handler = SIG_DFL;
    for (int s : {SIGPIPE, SIGINT, SIGTERM, SIGHUP}) sigaction(s, &dfl, nullptr);
    int error = 0;
    if (::setsid() < 0) error = errno;
    if (error == 0 && capture) {
      const int null = ::open("/dev/null", O_RDONLY);
      if (null < 0 || ::dup2(null, 0) < 0) error = errno;
    }
    if (error == 0 && (::dup2(out_w, 1) < 0 || ::dup2(err_w, 2) < 0)) error = errno;
    if (error == 0 && cwd != nullptr && ::chdir(cwd) != 0) error = errno;
    for (const auto& [resource, r] : limits) {
      if (error == 0 && ::setrlimit(static_cast<__rlimit_resource_t>(resource), &r) != 0)
        error = errno;
    }
    sigset_t empty;
    sigemptyset(&empty);
    sigprocmask(SIG_SETMASK, &empty, nullptr);
    if (error == 0) {
      ::execve(path.c_str(), argv, envp);
      error = errno;
    }
    (void)!::write(status[1], &error, sizeof error);
    ::_exit(127);
  }
  close(status[1]);
  int error = 0;
  ssize_t got = 0;
  do {
    got = ::read(status[0], &error, sizeof error);
  } while (got < 0 && errno == EINTR);
  close(status[0]);
  if (got == static_cast<ssize_t>(sizeof error) && error != 0) {
    while (waitpid(child, nullptr, 0) < 0 && errno == EINTR) {
    }
    return error;
  }
  *pid = child;
  return 0;
}

}  // namespace

SignalGuard::SignalGuard() {
  if (g_guards++ > 0) return;
  g_signal = 0;
  struct sigaction sa {};
  sa.sa_handler = record_signal;
  sigemptyset(&sa.sa_mask);
  for (int i = 0; i < 3; ++i) sigaction(kGuarded[i], &sa, &g_old[i]);
}

SignalGuard::~SignalGuard() {
  if (--g_guards > 0) return;
  for (int i = 0; i < 3; ++i) sigaction(kGuarded[i], &g_old[i], nullptr);
}

std::string interrupted_message(int signal, Lang lang) {
  return say(lang,
             "stopped by {}: what it had started was ended, its temporary "
             "files removed",
             "被 {} 终止：它启动的进程已结束，临时文件已删除", signal_name(signal));
}

void throw_if_interrupted() {
  if (const int s = g_signal; s != 0) throw Interrupted(s);
}

std::string signal_name(int signal) {
  switch (signal) {
    case SIGSEGV:
      return "SIGSEGV";
    case SIGBUS:
      return "SIGBUS";
    case SIGFPE:
      return "SIGFPE";
    case SIGILL:
      return "SIGILL";
    case SIGABRT:
      return "SIGABRT";
    case SIGKILL:
      return "SIGKILL";
    case SIGTERM:
      return "SIGTERM";
    case SIGINT:
      return "SIGINT";
    case SIGPIPE:
      return "SIGPIPE";
    case SIGTRAP:
      return "SIGTRAP";
    case SIGHUP:
      return "SIGHUP";
    case SIGXCPU:
      return "SIGXCPU";
    case SIGXFSZ:
      return "SIGXFSZ";
    default:
      return fmt::format("signal {}", signal);
  }
}

Text ProcessResult::describe() const {
  if (!started) return both("could not be started: {}", "无法启动：{}", start_error);
  if (timed_out) {
    return both("stopped after {:.1f} s (time limit)", "{:.1f} 秒后被停止（时间上限）",
                wall_ms / 1000.0);
  }
  if (output_capped) {
    return both("stopped after printing {} bytes (output limit)",
                "输出 {} 字节后被停止（输出上限）", output_bytes);
  }
  if (processes_capped) {
    return both("stopped with {} processes running (process limit)",
                "有 {} 个进程在运行时被停止（进程数上限）", most_processes);
  }
  if (signal != 0) {
    return both("killed by {} ({})", "被 {} 终止（{}）", signal_name(signal), strsignal(signal));
  }
  return both("exit code {}", "退出码 {}", exit_code);
}

ProcessResult run_process(const ProcessSpec& spec) {
  ProcessResult result;
  if (spec.argv.empty()) {
    result.start_error = std::strerror(EINVAL);  // an empty argv: the caller's mistake
    return result;
  }
  const SignalGuard signals;
  throw_if_interrupted();
  // Our own writes to a pipe whose reader left must not kill gpulab.
  struct sigaction ignore {
  }, old_pipe{};
  ignore.sa_handler = SIG_IGN;
  sigaction(SIGPIPE, &ignore, &old_pipe);
  struct RestorePipe {
    struct sigaction* old;
    ~RestorePipe() { sigaction(SIGPIPE, old, nullptr); }
  } restore_pipe{&old_pipe};
  // Processes the program leaves behind are re-parented to us, not to init, so that we can end
  // them even when they left its session.
  ::prctl(PR_SET_CHILD_SUBREAPER, 1);
  const std::set<pid_t> children_before = own_children();

  int out[2] = {-1, -1}, err[2] = {-1, -1};
  if (pipe2(out, O_CLOEXEC) != 0 || pipe2(err, O_CLOEXEC) != 0) {
    result.start_error = std::strerror(errno);
    for (int fd : {out[0], out[1], err[0], err[1]})
      if (fd >= 0) close(fd);
    return result;
  }
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  if (spec.output == ProcessSpec::Output::capture) {
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  }
  posix_spawn_file_actions_adddup2(&fa, out[1], 1);
  posix_spawn_file_actions_adddup2(&fa, err[1], 2);
  if (!spec.cwd.empty()) posix_spawn_file_actions_addchdir_np(&fa, spec.cwd.c_str());
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  // A session of its own: its process group is ours to end as a whole (a compiler and its
  // sub-processes, a program and what it forks), and the terminal's Ctrl-C reaches gpulab, which
  // passes it on. Without a controlling terminal the program still reads ours as its stdin.
  short flags = POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSID;
  posix_spawnattr_setflags(&attr, flags);
  sigset_t defaults, empty;
  sigemptyset(&defaults);
  for (int s : {SIGPIPE, SIGINT, SIGTERM, SIGHUP}) sigaddset(&defaults, s);
  sigemptyset(&empty);
  posix_spawnattr_setsigdefault(&attr, &defaults);
  posix_spawnattr_setsigmask(&attr, &empty);

  std::vector<std::string> argv_s = spec.argv;
  std::vector<char*> argv;
  for (auto& a : argv_s) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::vector<std::string> env_s = child_environment(spec);
  std::vector<char*> envp;
  for (auto& e : env_s) envp.push_back(e.data());
  envp.push_back(nullptr);

  const auto start = Clock::now();
  pid_t pid = 0;
  const int rc = spec.limits.empty()
                     ? posix_spawnp(&pid, argv[0], &fa, &attr, argv.data(), envp.data())
                     : spawn_limited(&pid, spec, out[1], err[1], argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&fa);
  posix_spawnattr_destroy(&attr);
  close(out[1]);
  close(err[1]);
  if (rc != 0) {
    close(out[0]);
    close(err[0]);
    result.start_error = std::strerror(rc);
    return result;
  }
  result.started = true;
  const int pidfd = static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));  // -1: poll less finely

  const auto deadline = start + spec.timeout;
  const bool limited = spec.timeout.count() > 0;
  bool stopped = false, reaped = false;
  int status = 0;
  Clock::time_point exited_at{}, stopped_at{}, next_count{};
  const auto stop = [&] {
    if (stopped) return;
    stopped = true;
    stopped_at = Clock::now();
    ::kill(-pid, SIGKILL);
  };
  const auto reap = [&] {
    if (reaped) return;
    pid_t w = 0;
    do {
      w = waitpid(pid, &status, WNOHANG);
    } while (w < 0 && errno == EINTR);
    if (w == pid || (w < 0 && errno == ECHILD)) {
      reaped = true;
      exited_at = Clock::now();
      if (!stopped) result.main_returned = true;
    }
  };
  bool forward_out = true, forward_err = true;  // until our own output fails
  int fd[2] = {out[0], err[0]};
  char buf[65536];
  while (true) {
    reap();
    if (fd[0] < 0 && fd[1] < 0 && reaped) break;
    if (const int s = g_signal; s != 0) {
      // Passed on to the whole session, as a terminal would have; what does not end goes.
      ::kill(-pid, s);
      const auto grace = Clock::now() + std::chrono::milliseconds(1000);
      while (!reaped && Clock::now() < grace) {
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
        reap();
      }
      stop();
      for (int f : fd)
        if (f >= 0) close(f);
      if (pidfd >= 0) close(pidfd);
      if (!reaped) waitpid(pid, &status, 0);
      end_leftovers(pid, children_before);
      throw Interrupted(s);
    }
    const auto now = Clock::now();
    if (limited && !stopped && !reaped && now >= deadline) {
      result.timed_out = true;
      stop();
    }
    // A program that forks without end (a fork bomb) is stopped as a whole, whatever its user
    // (the kernel exempts root from RLIMIT_NPROC) and wherever its processes went.
    if (spec.max_processes > 0 && !stopped && now >= next_count) {
      const std::size_t n = count_program(pid, children_before);
      result.most_processes = std::max(result.most_processes, n);
      if (n > spec.max_processes) {
        result.processes_capped = true;
        stop();
        end_leftovers(pid, children_before);
      }
      next_count = now + std::chrono::milliseconds(10);
    }
    // Its process is gone but its output is still open: a process it started holds it.
    if (reaped && !stopped && now >= exited_at + spec.drain_after_exit) {
      result.leftovers_held_output = true;
      break;
    }
    if (stopped && reaped && now >= stopped_at + std::chrono::milliseconds(100)) break;
    int wait_ms = 200;
    if (pidfd < 0 && !reaped) wait_ms = 10;
    if (limited && !stopped && !reaped) {
      wait_ms = static_cast<int>(std::clamp<long long>(
          std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now).count() + 1, 0,
          wait_ms));
    }
    if (reaped) wait_ms = 20;
    if (spec.max_processes > 0 && !stopped) wait_ms = std::min(wait_ms, 10);
    pollfd p[3] = {{fd[0], POLLIN, 0}, {fd[1], POLLIN, 0}, {reaped ? -1 : pidfd, POLLIN, 0}};
    const int n = poll(p, 3, wait_ms);
    if (n < 0 && errno == EINTR) continue;
    for (int i = 0; i < 2; ++i) {
      if (fd[i] < 0 || !(p[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      const ssize_t got = ::read(fd[i], buf, sizeof buf);
      if (got < 0 && errno == EINTR) continue;
      if (got <= 0) {
        close(fd[i]);
        fd[i] = -1;
        continue;
      }
      std::size_t size = static_cast<std::size_t>(got);
      if (spec.max_output_bytes > 0 && result.output_bytes + size > spec.max_output_bytes) {
        size = spec.max_output_bytes - result.output_bytes;
        if (!stopped && !reaped) result.output_capped = true;
        stop();
      }
      result.output_bytes += size;
      if (i == 0 && size > 0) result.last_stdout_byte = buf[size - 1];
      if (spec.output == ProcessSpec::Output::capture) {
        (i == 0 ? result.out : result.err).append(buf, size);
      } else if (i == 0 && forward_out) {
        forward_out = write_all(STDOUT_FILENO, buf, size);
        if (!forward_out) result.stdout_errno = errno;
      } else if (i == 1 && forward_err) {
        forward_err = write_all(STDERR_FILENO, buf, size);
        if (!forward_err) result.stderr_errno = errno;
      }
    }
  }
  for (int f : fd)
    if (f >= 0) close(f);
  if (pidfd >= 0) close(pidfd);
  if (!reaped) {
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
  }
  // Whatever it left running (a forked child, a daemon, a compiler's sub-process) goes now.
  result.leftover_processes = end_leftovers(pid, children_before);
  result.wall_ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
  if (WIFEXITED(status)) {
    result.exit_code = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    result.signal = WTERMSIG(status);
    if (stopped && !result.main_returned) result.signal = 0;  // our SIGKILL: the flags say why
  }
  return result;
}

std::set<int> child_processes() {
  std::set<int> out;
  for (pid_t p : own_children()) out.insert(static_cast<int>(p));
  return out;
}

ProcessResult run_capture(const std::vector<std::string>& argv, std::chrono::milliseconds timeout) {
  ProcessSpec spec;
  spec.argv = argv;
  spec.timeout = timeout;
  return run_process(spec);
}

}  // namespace gpulab
