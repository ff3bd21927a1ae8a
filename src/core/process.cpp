// Running other programs (see process.hpp).
#include "core/process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <map>
#include <thread>

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
  for (char** e = environ; *e != nullptr; ++e) {
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

}  // namespace

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
    default:
      return fmt::format("signal {}", signal);
  }
}

std::string ProcessResult::describe() const {
  if (!started) return "could not be started: " + start_error;
  if (timed_out) return fmt::format("stopped after {:.1f} s (time limit)", wall_ms / 1000.0);
  if (output_capped)
    return fmt::format("stopped after printing {} bytes (output limit)", output_bytes);
  if (signal != 0) return fmt::format("killed by {} ({})", signal_name(signal), strsignal(signal));
  return fmt::format("exit code {}", exit_code);
}

ProcessResult run_process(const ProcessSpec& spec) {
  ProcessResult result;
  if (spec.argv.empty()) {
    result.start_error = "no program given";
    return result;
  }
  // Our own writes to a pipe whose reader left must not kill gpulab.
  struct sigaction ignore {
  }, old_pipe{};
  ignore.sa_handler = SIG_IGN;
  sigaction(SIGPIPE, &ignore, &old_pipe);
  struct RestorePipe {
    struct sigaction* old;
    ~RestorePipe() { sigaction(SIGPIPE, old, nullptr); }
  } restore_pipe{&old_pipe};

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
  short flags = POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK;
  // A tool (a compiler and its sub-processes) gets a process group of its own, so that a time-out
  // stops all of it; the student's program stays in ours, so that Ctrl-C reaches it.
  const bool own_group = spec.output == ProcessSpec::Output::capture;
  if (own_group) flags |= POSIX_SPAWN_SETPGROUP;
  posix_spawnattr_setflags(&attr, flags);
  posix_spawnattr_setpgroup(&attr, 0);
  sigset_t defaults, empty;
  sigemptyset(&defaults);
  sigaddset(&defaults, SIGPIPE);
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
  const int rc = posix_spawnp(&pid, argv[0], &fa, &attr, argv.data(), envp.data());
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

  const auto deadline = start + spec.timeout;
  const bool limited = spec.timeout.count() > 0;
  bool stopped = false;
  const auto stop = [&] {
    if (stopped) return;
    stopped = true;
    ::kill(own_group ? -pid : pid, SIGKILL);
  };
  bool forward_out = true, forward_err = true;  // until our own reader goes away
  int fds_open = 2;
  int fd[2] = {out[0], err[0]};
  char buf[65536];
  while (fds_open > 0) {
    int wait_ms = -1;
    if (limited && !stopped) {
      const auto left =
          std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
      if (left.count() <= 0) {
        result.timed_out = true;
        stop();
        wait_ms = 100;
      } else {
        wait_ms = static_cast<int>(std::min<long long>(left.count(), 1000));
      }
    }
    pollfd p[2] = {{fd[0], POLLIN, 0}, {fd[1], POLLIN, 0}};
    const int n = poll(p, 2, stopped ? 100 : wait_ms);
    if (n < 0 && errno == EINTR) continue;
    if (n == 0 && stopped) break;  // a grandchild holds the pipe open: do not wait for it
    for (int i = 0; i < 2; ++i) {
      if (fd[i] < 0 || !(p[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      const ssize_t got = ::read(fd[i], buf, sizeof buf);
      if (got < 0 && errno == EINTR) continue;
      if (got <= 0) {
        close(fd[i]);
        fd[i] = -1;
        --fds_open;
        continue;
      }
      std::size_t size = static_cast<std::size_t>(got);
      if (spec.max_output_bytes > 0 && result.output_bytes + size > spec.max_output_bytes) {
        size = spec.max_output_bytes - result.output_bytes;
        if (!stopped) result.output_capped = true;
        stop();
      }
      result.output_bytes += size;
      if (i == 0 && size > 0) result.last_stdout_byte = buf[size - 1];
      if (spec.output == ProcessSpec::Output::capture) {
        (i == 0 ? result.out : result.err).append(buf, size);
      } else if (i == 0 && forward_out) {
        forward_out = write_all(STDOUT_FILENO, buf, size);
      } else if (i == 1 && forward_err) {
        forward_err = write_all(STDERR_FILENO, buf, size);
      }
    }
  }
  for (int f : fd)
    if (f >= 0) close(f);

  int status = 0;
  while (true) {
    const pid_t w = waitpid(pid, &status, limited && !stopped ? WNOHANG : 0);
    if (w == pid) break;
    if (w < 0 && errno == EINTR) continue;
    if (w < 0) break;
    if (Clock::now() >= deadline) {
      result.timed_out = true;
      stop();
    } else {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
  }
  if (own_group && !stopped) ::kill(-pid, SIGKILL);  // leftovers of a tool that exited
  result.wall_ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
  if (WIFEXITED(status)) {
    result.exit_code = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    result.signal = WTERMSIG(status);
    if (stopped) result.signal = 0;  // our own SIGKILL: timed_out or output_capped says why
  }
  return result;
}

ProcessResult run_capture(const std::vector<std::string>& argv, std::chrono::milliseconds timeout) {
  ProcessSpec spec;
  spec.argv = argv;
  spec.timeout = timeout;
  return run_process(spec);
}

}  // namespace gpulab
