// Runs another program (a compiler, a student's compiled program) with a time limit and a cap on
// what it may print, and says how it ended. The program runs in a session (and process group) of
// its own with gpulab as its subreaper: whatever it starts is ended with it, never orphaned.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "core/i18n.hpp"
#include "core/noncopyable.hpp"
#include "core/output.hpp"

namespace gpulab {

struct ProcessSpec {
  std::vector<std::string> argv;  // argv[0] is looked up on PATH when it has no '/'
  std::vector<std::pair<std::string, std::string>> env;  // set (or replaced) in the child
  std::filesystem::path cwd;                             // empty: ours
  std::chrono::milliseconds timeout{0};                  // 0: none
  // capture: stdout and stderr are collected into the result, stdin is /dev/null.
  // forward: they are copied to ours as they come, stdin is ours (the program is interactive).
  enum class Output { capture, forward } output = Output::capture;
  // Past this many bytes of stdout + stderr the program is stopped (a program that floods the
  // terminal); 0: no limit.
  std::size_t max_output_bytes = 0;
  // Once the program's own process has exited, how long its output may stay open (held by a
  // process it started) before what is left of it is ended.
  std::chrono::milliseconds drain_after_exit{500};
  // Resource limits set in the child before its program starts (setrlimit: RLIMIT_CPU,
  // RLIMIT_AS, RLIMIT_FSIZE, RLIMIT_NPROC, ...), soft and hard alike, but RLIMIT_CPU's hard limit
  // is a second later so that SIGXCPU comes first. run/contain.hpp fills these.
  std::vector<std::pair<int, std::uint64_t>> limits;
  // false: the child's environment is `env` alone; nothing of ours is passed on.
  bool inherit_env = true;
  // More than this many processes at once (the program and everything under it, also what left
  // its session) and all of them are stopped; watched every 10 ms. 0: not watched.
  std::size_t max_processes = 0;
};

struct ProcessResult {
  bool started = false;            // false: the program could not be run (start_error says why)
  std::string start_error;         // "No such file or directory", ...
  int exit_code = -1;              // when it exited
  int signal = 0;                  // when a signal ended it (SIGSEGV, ...); 0 otherwise
  bool timed_out = false;          // stopped by us after `timeout`
  bool output_capped = false;      // stopped by us after max_output_bytes
  bool processes_capped = false;   // stopped by us: more than max_processes at once
  std::size_t most_processes = 0;  // the most seen at once (with max_processes)
  std::size_t output_bytes = 0;
  char last_stdout_byte = '\n';  // the last byte the program wrote to stdout ('\n' if none)
  std::string out, err;          // captured (capture mode only)
  double wall_ms = 0;
  // The program's own process exited by itself (main returned, exit(), a crash), as opposed to
  // being stopped by us.
  bool main_returned = false;
  // Processes it started that were still running when it had exited (or had been stopped), ended
  // by us; and whether they held its output open past drain_after_exit.
  int leftover_processes = 0;
  bool leftovers_held_output = false;
  // Forward mode: errno of the first failed write to our own stdout / stderr (0: none failed).
  int stdout_errno = 0, stderr_errno = 0;

  bool ok() const {
    return started && signal == 0 && !timed_out && !output_capped && !processes_capped &&
           exit_code == 0;
  }
  // "exit code 3", "killed by SIGSEGV (Segmentation fault)", "stopped after 10.0 s (time
  // limit)", ... in both languages (the system's own words, strerror's, stay as they are).
  Text describe() const;
};

// Throws Interrupted (core/error.hpp) when gpulab receives SIGINT, SIGTERM or SIGHUP while the
// program runs: the program's whole session is ended first.
ProcessResult run_process(const ProcessSpec& spec);

// While one lives, SIGINT, SIGTERM and SIGHUP do not end gpulab at once: they are recorded, the
// running program (if any) is ended, and Interrupted is thrown at the next check, so that the
// destructors remove temporary files. Nests; run_process holds one of its own.
class SignalGuard : NonCopyable {
 public:
  SignalGuard();
  ~SignalGuard();
};

// "stopped by SIGINT: ...", the line main() prints for Interrupted.
std::string interrupted_message(int signal, Lang lang);

// Throws Interrupted when a SignalGuard recorded a signal.
void throw_if_interrupted();

// Capture mode with a time limit: the common case of running a tool and reading its output.
ProcessResult run_capture(const std::vector<std::string>& argv, std::chrono::milliseconds timeout);

// The processes whose parent is this one now: with the subreaper flag (run_process sets it), also
// the orphans of the programs it ran. gpulab exercise grade ends those its workers left.
std::set<int> child_processes();

// The name of a signal: "SIGSEGV".
std::string signal_name(int signal);

}  // namespace gpulab
