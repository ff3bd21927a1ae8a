// Runs the real gpulab binary for CLI tests (see run.hpp).
#include "support/run.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string_view>

extern char** environ;

namespace gpulab::test {

RunResult run_gpulab(const std::vector<std::string>& args, const std::string& stdin_text,
                     const std::vector<std::string>& env) {
  signal(SIGPIPE, SIG_IGN);  // a child that exits before reading its stdin must not kill the test
  int in[2], out[2], err[2];
  if (pipe(in) != 0 || pipe(out) != 0 || pipe(err) != 0) throw std::runtime_error("pipe failed");
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, in[0], 0);
  posix_spawn_file_actions_adddup2(&fa, out[1], 1);
  posix_spawn_file_actions_adddup2(&fa, err[1], 2);
  for (int fd : {in[0], in[1], out[0], out[1], err[0], err[1]}) {
    posix_spawn_file_actions_addclose(&fa, fd);
  }
  std::vector<std::string> argv_s = {GPULAB_BINARY};
  argv_s.insert(argv_s.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : argv_s) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::vector<std::string> env_s;
  // A variable the test sets replaces the inherited one (getenv finds the first of two).
  const auto set_by_test = [&](const char* entry) {
    const std::string_view e(entry);
    const std::string_view name = e.substr(0, e.find('=') + 1);
    return std::any_of(env.begin(), env.end(),
                       [&](const std::string& mine) { return mine.starts_with(name); });
  };
  for (char** e = environ; *e != nullptr; ++e) {
    // Tests see the plain, English, colourless defaults unless they ask otherwise.
    if (std::strncmp(*e, "NO_COLOR=", 9) == 0 || std::strncmp(*e, "LANG=", 5) == 0 ||
        std::strncmp(*e, "LC_ALL=", 7) == 0 || std::strncmp(*e, "LC_MESSAGES=", 12) == 0 ||
        set_by_test(*e)) {
      continue;
    }
    env_s.emplace_back(*e);
  }
  env_s.insert(env_s.end(), env.begin(), env.end());
  std::vector<char*> envp;
  for (auto& e : env_s) envp.push_back(e.data());
  envp.push_back(nullptr);
  pid_t pid = 0;
  int rc = posix_spawn(&pid, argv[0], &fa, nullptr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&fa);
  close(in[0]);
  close(out[1]);
  close(err[1]);
  if (rc != 0) throw std::runtime_error(std::string("cannot run gpulab: ") + std::strerror(rc));

  RunResult r;
  std::size_t written = 0;
  if (stdin_text.empty()) {
    close(in[1]);
    in[1] = -1;
  }
  fcntl(out[0], F_SETFL, O_NONBLOCK);
  fcntl(err[0], F_SETFL, O_NONBLOCK);
  bool out_open = true, err_open = true;
  while (out_open || err_open) {
    pollfd fds[3] = {{out[0], POLLIN, 0}, {err[0], POLLIN, 0}, {in[1], POLLOUT, 0}};
    int nfds = in[1] >= 0 ? 3 : 2;
    if (!out_open) fds[0].fd = -1;
    if (!err_open) fds[1].fd = -1;
    if (poll(fds, static_cast<nfds_t>(nfds), 120000) <= 0) break;  // a hung child fails the test
    char buf[65536];
    auto drain = [&](int fd, std::string& into, bool& open) {
      ssize_t n = read(fd, buf, sizeof buf);
      if (n > 0)
        into.append(buf, static_cast<std::size_t>(n));
      else if (n == 0)
        open = false;
    };
    if (out_open && (fds[0].revents & (POLLIN | POLLHUP))) drain(out[0], r.out, out_open);
    if (err_open && (fds[1].revents & (POLLIN | POLLHUP))) drain(err[0], r.err, err_open);
    if (nfds == 3 && (fds[2].revents & (POLLOUT | POLLERR))) {
      ssize_t n = write(in[1], stdin_text.data() + written, stdin_text.size() - written);
      if (n > 0) written += static_cast<std::size_t>(n);
      if (n < 0 || written == stdin_text.size()) {
        close(in[1]);
        in[1] = -1;
      }
    }
  }
  if (in[1] >= 0) close(in[1]);
  close(out[0]);
  close(err[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return r;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t nl = text.find('\n', start);
    if (nl == std::string::npos) nl = text.size();
    lines.push_back(text.substr(start, nl - start));
    start = nl + 1;
  }
  return lines;
}

}  // namespace gpulab::test
