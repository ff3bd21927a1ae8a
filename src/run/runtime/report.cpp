// The report a program built by `gpulab run` leaves for gpulab (run/report.hpp): the settings
// from the environment gpulab sets, the JSON lines as things happen (so that a crash loses
// nothing), the leaks, the exit line and the crash handler. Without GPULAB_RUN_REPORT the program
// runs as a plain CUDA program on the CPU and nothing is written. The runtime is linked whole into
// every emulated program, so the startup object below always runs.
#include <fcntl.h>
#include <signal.h>
#include <ucontext.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "run/runtime/state.hpp"
#include "simt/guard.hpp"
#include "simt/profile_gather.hpp"
#include "simt/scheduler.hpp"
#include "simt/simt.hpp"

namespace gpulab::rt {

void write_line(const json& j) {
  const int fd = state().settings.report_fd;
  if (fd < 0) return;
  const std::string line = j.dump(-1, ' ', false, json::error_handler_t::replace) + "\n";
  const char* p = line.data();
  std::size_t left = line.size();
  while (left > 0) {
    const ssize_t n = ::write(fd, p, left);
    if (n <= 0) return;
    p += n;
    left -= static_cast<std::size_t>(n);
  }
}

json dims(const dim3& d) {
  return json::array({d.x, d.y, d.z});
}
json dims(const uint3& d) {
  return json::array({d.x, d.y, d.z});
}

std::string site_text(const char* file, int line) {
  return std::string(file) + ":" + std::to_string(line);
}

void report_leaks(const char* when) {
  for (const simt::Allocation& a : simt::live_allocations()) {
    // The device heap goes away with the context; compute-sanitizer's leak check does not list it,
    // nor host memory left registered (the program's own).
    if (a.kind == simt::AllocationKind::device_heap ||
        a.kind == simt::AllocationKind::host_registered)
      continue;
    write_line({{report::kEventField, report::event::finding},
                {report::kKindField, report::kind::leak},
                {"bytes", a.bytes},
                {"allocator", simt::allocator_name(a.kind)},
                {"site", a.site},
                {"when", when}});
  }
}

namespace {

void at_exit() {
  State& s = state();
  json exit_line = {{report::kEventField, report::event::exit}};
  {
    std::lock_guard lock(s.mutex);
    if (s.exited) return;
    s.exited = true;
    exit_line["launches"] = s.launches;
    exit_line["lost_printf_bytes"] = s.printf_buffer.size();
    exit_line["dropped_printf_bytes"] = s.printf_dropped;
    if (!s.printf_buffer.empty()) {
      const std::size_t nl = s.printf_buffer.find('\n');
      exit_line["lost_printf_first_line"] =
          s.printf_buffer.substr(0, std::min<std::size_t>(nl, 200));
    }
    // After a kernel fault the launch ended in that fault: its findings are the fault's.
    if (s.unsynchronized && s.sticky == cudaSuccess) {
      write_line({{report::kEventField, report::event::finding},
                  {report::kKindField, report::kind::unsynchronized_exit},
                  {"kernel", s.last_launch.callee},
                  {"site", site_text(s.last_launch.file, s.last_launch.line)},
                  {"lost_printf_bytes", s.printf_buffer.size()}});
    }
    if (s.unchecked) {
      write_line({{report::kEventField, report::event::finding},
                  {report::kKindField, report::kind::unchecked_launch_error},
                  {"kernel", s.unchecked_site.callee},
                  {"site", site_text(s.unchecked_site.file, s.unchecked_site.line)},
                  {"error", cudaGetErrorName(s.unchecked_error)}});
    }
  }
  // After a kernel fault the context is gone, and so is every chance to free: no leak report.
  bool faulted;
  {
    std::lock_guard lock(s.mutex);
    faulted = s.sticky != cudaSuccess || s.pending != cudaSuccess;
  }
  if (!faulted) report_leaks("exit");
  write_line(exit_line);
}

// A crash: say where (which kernel, block and thread, when it was in one), then die of it.
// Written with snprintf (async-signal-safe), so the "crash" event's line is spelled out here.
void on_crash(int sig, siginfo_t* info, void* context) {
  // A fault in kernel code fails its launch, as on a GPU, and the program goes on.
  simt::detail::recover(sig, info, context);
  char line[768];
  const char* kernel = g_running_kernel.load();
  // The faulting instruction: gpulab names its FILE:LINE with addr2line.
  const auto pc = static_cast<unsigned long long>(
      static_cast<const ucontext_t*>(context)->uc_mcontext.gregs[REG_RIP]);
  int n;
  const bool in_shape = blockIdx.x < g_running_grid[0] && blockIdx.y < g_running_grid[1] &&
                        blockIdx.z < g_running_grid[2] && threadIdx.x < g_running_block[0] &&
                        threadIdx.y < g_running_block[1] && threadIdx.z < g_running_block[2];
  if (kernel != nullptr && simt::detail::tl_runner != nullptr && in_shape) {
    n = std::snprintf(line, sizeof line,
                      "{\"event\":\"crash\",\"signal\":%d,\"address\":\"%p\",\"pc\":%llu,"
                      "\"kernel\":\"%s\",\"site\":\"%s:%d\",\"block\":[%u,%u,%u],"
                      "\"thread\":[%u,%u,%u]}\n",
                      sig, info->si_addr, pc, kernel, g_running_file.load(), g_running_line.load(),
                      blockIdx.x, blockIdx.y, blockIdx.z, threadIdx.x, threadIdx.y, threadIdx.z);
  } else if (kernel != nullptr && simt::detail::tl_runner != nullptr) {
    // The emulator's own record of the block and thread was overwritten: say so, not garbage.
    n = std::snprintf(line, sizeof line,
                      "{\"event\":\"crash\",\"signal\":%d,\"address\":\"%p\",\"pc\":%llu,"
                      "\"kernel\":\"%s\",\"site\":\"%s:%d\",\"indices_overwritten\":true}\n",
                      sig, info->si_addr, pc, kernel, g_running_file.load(), g_running_line.load());
  } else {
    n = std::snprintf(line, sizeof line,
                      "{\"event\":\"crash\",\"signal\":%d,\"address\":\"%p\",\"pc\":%llu}\n", sig,
                      info->si_addr, pc);
  }
  const int fd = state().settings.report_fd;
  if (fd >= 0 && n > 0) {
    [[maybe_unused]] const ssize_t w = ::write(fd, line, static_cast<std::size_t>(n));
  }
  // With the default action back, returning re-runs the fault (or abort re-raises).
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  sigemptyset(&dfl.sa_mask);
  sigaction(sig, &dfl, nullptr);
}

// Runs before main(): reads the settings and opens the report.
struct Startup {
  Startup() {
    State& s = state();
    if (const char* path = std::getenv(report::kEnvReport); path != nullptr && *path != '\0') {
      s.settings.report_fd = ::open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
    }
    if (const char* c = std::getenv(report::kEnvCheck); c != nullptr && std::string(c) == "1") {
      s.settings.check = simt::check_supported();
    }
    if (const char* w = std::getenv(report::kEnvWorkers); w != nullptr) {
      s.settings.workers = static_cast<unsigned>(std::strtoul(w, nullptr, 10));
    }
    if (const char* sh = std::getenv(report::kEnvShuffle); sh != nullptr && *sh != '\0') {
      s.settings.shuffle = std::strtoull(sh, nullptr, 10);
    }
    if (const char* p = std::getenv(report::kEnvProfile); p != nullptr && std::string(p) == "1") {
      s.settings.profile = simt::check_supported();
      if (s.settings.profile) simt::enable_profiling(!s.settings.check);
    }
    if (s.settings.check) {
      simt::enable_memory_checks();
      // Blocks in linear order are checked in that order on any number of workers
      // (simt/memory_check.hpp); a shuffled order, one block after another: the same findings
      // every run.
      if (s.settings.shuffle) s.settings.workers = 1;
    }
    // On the alternate stack where a worker has one (simt/guard.cpp), so that a CUDA thread's
    // stack overflow is caught too. Not reset on delivery: a kernel's fault is recovered from,
    // and the next one must be caught as well.
    struct sigaction sa {};
    sa.sa_sigaction = on_crash;
    sa.sa_flags = SA_SIGINFO | SA_NODEFER | SA_ONSTACK;
    sigemptyset(&sa.sa_mask);
    for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT}) sigaction(sig, &sa, nullptr);
    std::atexit(at_exit);
    write_line({{report::kEventField, report::event::start},
                {"check", s.settings.check},
                {"profile", s.settings.profile},
                {"workers", s.settings.workers},
                {"format", report::kFormatVersion}});
  }
};
const Startup startup;

// glibc calls the functions of .init_array with main's own (argc, argv, envp) before main: there
// argv[0] becomes the name gpulab run gives the program (report::kEnvArgv0), the environment's
// string, which lives as long as the process.
void set_argv0(int argc, char** argv, char**) {
  if (const char* name = std::getenv(report::kEnvArgv0);
      argc > 0 && argv != nullptr && name != nullptr && *name != '\0') {
    argv[0] = const_cast<char*>(name);
  }
}
[[gnu::used, gnu::section(".init_array")]] void (*set_argv0_entry)(int, char**, char**) = set_argv0;

}  // namespace

}  // namespace gpulab::rt
