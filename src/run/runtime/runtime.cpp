// The CUDA runtime API on the emulator (declared in src/run/include/cuda_runtime.h), and the report
// a program built by `gpulab run` leaves for gpulab: its launches and the bugs found.
//
// Linked whole into every emulated program. When GPULAB_RUN_REPORT names a file, facts are appended
// to it as JSON lines as they happen (so that a crash loses nothing). The environment, the events
// and the finding kinds are declared in run/report.hpp. Without GPULAB_RUN_REPORT the program runs
// as a plain CUDA program on the CPU.
#include <assert.h>
#include <fcntl.h>
#include <signal.h>
#include <ucontext.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdarg>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "cuda_runtime.h"
#include "run/report.hpp"
#include "run/runtime/child.hpp"
#include "run/runtime/graph.hpp"
#include "run/runtime/heap.hpp"
#include "simt/access_record.hpp"
#include "simt/memory_check.hpp"
#include "simt/profile_gather.hpp"
#include "simt/scheduler.hpp"
#include "simt/simt.hpp"

#undef printf
#undef malloc
#undef free

namespace gpulab::rt {

namespace {

using nlohmann::json;
namespace report = gpulab::run::report;
using Clock = std::chrono::steady_clock;

// What the program asked for, from the environment gpulab sets.
struct Settings {
  int report_fd = -1;
  bool check = false;
  bool profile =
      false;  // GPULAB_RUN_PROFILE=1: gpulab profile's counters, a "profile" line per launch
  unsigned workers = 0;
  std::optional<std::uint64_t> shuffle;
};

struct State {
  Settings settings;
  std::mutex mutex;  // guards everything below

  cudaError_t sticky = cudaSuccess;  // a kernel fault: every later call fails with it
  std::string sticky_why;
  // A kernel fault the host has not seen yet. Launches are asynchronous on a GPU: the fault
  // surfaces at the next call that waits for the device (cudaDeviceSynchronize, a blocking copy,
  // stream or event synchronisation, cudaFree) and only then becomes sticky. Until then later
  // launches are skipped, as a faulted context runs nothing more.
  cudaError_t pending = cudaSuccess;
  // What the device writes to stderr when the host synchronises: device-side assert messages.
  std::string pending_stderr;

  // Kernel printf: the device's buffer (1 MiB by default, as on a GPU).
  std::string printf_buffer;
  std::size_t printf_limit = 1 << 20;
  std::uint64_t printf_dropped = 0;

  // Launches and synchronisation.
  std::uint64_t launches = 0;
  std::uint64_t launch_lines = 0;
  bool unsynchronized = false;  // a launch since the last wait for the device
  LaunchSite last_launch{"", "", 0};
  // A launch that failed and that no cudaGetLastError/PeekAtLastError has seen yet.
  bool unchecked = false;
  LaunchSite unchecked_site{"", "", 0};
  cudaError_t unchecked_error = cudaSuccess;

  std::set<cudaStream_t> streams;
  std::set<cudaEvent_t> events;
  bool exited = false;

  // gpulab exercise's harness: 1 counts each thread's accesses (a "record" line per launch), 2
  // also lists every access of small launches (for the drawing).
  int record_level = 0;
};

State& state() {
  static State* s = new State;  // never destroyed: exit handlers and late calls still use it
  return *s;
}

thread_local cudaError_t t_last_error = cudaSuccess;

// The launch that runs now, for the crash handler.
std::atomic<const char*> g_running_kernel{nullptr};
std::atomic<const char*> g_running_file{nullptr};
std::atomic<int> g_running_line{0};
// Its shape, so that a crash never reports a block or thread the launch does not have (a write
// past a __shared__ array can overwrite the emulator's own blockIdx and threadIdx).
std::atomic<unsigned> g_running_grid[3] = {0, 0, 0};
std::atomic<unsigned> g_running_block[3] = {0, 0, 0};

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

cudaError_t set_error(cudaError_t e) {
  if (e != cudaSuccess) t_last_error = e;
  return e;
}

// Calls after a kernel fault fail as on a GPU, whose context is then unusable.
bool broken(cudaError_t* out) {
  State& s = state();
  std::lock_guard lock(s.mutex);
  if (s.sticky == cudaSuccess) return false;
  *out = set_error(s.sticky);
  return true;
}

cudaError_t error_from_name(const std::string& name) {
  static const std::map<std::string, cudaError_t> names = {
      {"cudaErrorInvalidValue", cudaErrorInvalidValue},
      {"cudaErrorInvalidConfiguration", cudaErrorInvalidConfiguration},
      {"cudaErrorMemoryAllocation", cudaErrorMemoryAllocation},
      {"cudaErrorLaunchOutOfResources", cudaErrorLaunchOutOfResources},
  };
  const auto it = names.find(name);
  return it == names.end() ? cudaErrorUnknown : it->second;
}

json dims(const dim3& d) {
  return json::array({d.x, d.y, d.z});
}
json dims(const uint3& d) {
  return json::array({d.x, d.y, d.z});
}

void flush_printf_locked(State& s) {
  if (s.printf_buffer.empty()) return;
  std::fwrite(s.printf_buffer.data(), 1, s.printf_buffer.size(), stdout);
  std::fflush(stdout);
  s.printf_buffer.clear();
}

// The host waits for the device: a fault of an earlier launch surfaces now and becomes sticky.
void surface_locked(State& s) {
  if (!s.pending_stderr.empty()) {
    std::fflush(stdout);
    std::fwrite(s.pending_stderr.data(), 1, s.pending_stderr.size(), stderr);
    std::fflush(stderr);
    s.pending_stderr.clear();
  }
  if (s.pending == cudaSuccess) return;
  if (s.sticky == cudaSuccess) s.sticky = s.pending;
  s.pending = cudaSuccess;
}

// The host waited for the device: kernel output is printed, nothing is pending.
void synchronized(bool flush_output) {
  State& s = state();
  std::lock_guard lock(s.mutex);
  s.unsynchronized = false;
  if (flush_output) flush_printf_locked(s);
  surface_locked(s);
}

// The error a GPU reports for a fault in a kernel.
cudaError_t error_of(simt::KernelFault::Kind kind) {
  switch (kind) {
    case simt::KernelFault::Kind::assertion:
      return cudaErrorAssert;
    default:
      // A trap, and what a GPU would meet as one: an unspecified launch failure.
      return cudaErrorLaunchFailure;
  }
}

std::string site_text(const char* file, int line) {
  return std::string(file) + ":" + std::to_string(line);
}

const char* kind_name(simt::AllocationKind k) {
  switch (k) {
    case simt::AllocationKind::device:
      return "cudaMalloc";
    case simt::AllocationKind::managed:
      return "cudaMallocManaged";
    case simt::AllocationKind::host_pinned:
      return "cudaMallocHost";
    case simt::AllocationKind::device_heap:
      return "malloc in a kernel";
  }
  return "";
}

void report_leaks(const char* when) {
  for (const simt::Allocation& a : simt::live_allocations()) {
    // The device heap goes away with the context; compute-sanitizer's leak check does not list it.
    if (a.kind == simt::AllocationKind::device_heap) continue;
    write_line({{report::kEventField, report::event::finding},
                {report::kKindField, report::kind::leak},
                {"bytes", a.bytes},
                {"allocator", kind_name(a.kind)},
                {"site", a.site},
                {"when", when}});
  }
}

std::string memory_kind_name(simt::MemoryFinding::Kind k) {
  switch (k) {
    case simt::MemoryFinding::Kind::out_of_bounds:
      return report::kind::out_of_bounds;
    case simt::MemoryFinding::Kind::host_memory:
      return report::kind::host_memory;
    case simt::MemoryFinding::Kind::uninitialized_read:
      return report::kind::uninitialized_read;
    case simt::MemoryFinding::Kind::global_race:
      return report::kind::global_race;
  }
  return "";
}

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
  // SA_RESETHAND restored the default action: returning re-runs the fault (or abort re-raises).
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
      s.settings.workers = 1;  // one block after another: the same findings every run
    }
    // Crash reports need a stack of their own only for stack overflows, which this cannot catch
    // on a fiber's stack anyway; faults on a good stack are reported.
    struct sigaction sa {};
    sa.sa_sigaction = on_crash;
    sa.sa_flags = SA_SIGINFO | SA_RESETHAND | SA_NODEFER;
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

cudaError_t check_device_range(const void* p, size_t count, bool* is_device) {
  *is_device = false;
  const auto a = simt::find_allocation(p);
  if (!a) return cudaSuccess;
  *is_device = true;
  const auto begin = reinterpret_cast<std::uintptr_t>(p);
  if (begin + count > a->begin + a->bytes) return cudaErrorInvalidValue;
  return cudaSuccess;
}

cudaError_t copy(void* dst, const void* src, size_t count, cudaMemcpyKind kind, bool blocking,
                 const std::source_location& where = std::source_location::current()) {
  cudaError_t e;
  if (blocking) synchronized(false);  // a blocking copy waits for the launches before it
  if (broken(&e)) return e;
  if (count == 0) return cudaSuccess;
  if (dst == nullptr || src == nullptr) return set_error(cudaErrorInvalidValue);
  if (kind < cudaMemcpyHostToHost || kind > cudaMemcpyDefault) {
    return set_error(cudaErrorInvalidMemcpyDirection);
  }
  bool dst_device = false, src_device = false;
  if (check_device_range(dst, count, &dst_device) != cudaSuccess ||
      check_device_range(src, count, &src_device) != cudaSuccess) {
    return set_error(cudaErrorInvalidValue);
  }
  const bool dst_should = kind == cudaMemcpyHostToDevice || kind == cudaMemcpyDeviceToDevice;
  const bool src_should = kind == cudaMemcpyDeviceToHost || kind == cudaMemcpyDeviceToDevice;
  if ((dst_should && !dst_device) || (src_should && !src_device)) {
    return set_error(cudaErrorInvalidValue);
  }
  if (src_device && simt::memory_checks_enabled() && !dst_device) {
    std::size_t first = 0;
    if (const std::size_t n = simt::count_uninitialized(src, count, &first); n > 0) {
      const auto a = simt::find_allocation(src);
      write_line({{report::kEventField, report::event::finding},
                  {report::kKindField, report::kind::uninitialized_copy},
                  {"bytes", n},
                  {"first_offset", reinterpret_cast<std::uintptr_t>(src) - a->begin + first},
                  {"copied", count},
                  {"allocation_bytes", a->bytes},
                  {"allocation_site", a->site},
                  {"site", site_text(where.file_name(), static_cast<int>(where.line()))}});
    }
  }
  std::memmove(dst, src, count);
  if (dst_device) simt::copy_initialized(dst, src, count);
  if (blocking) synchronized(true);
  return cudaSuccess;
}

cudaError_t allocate(void** ptr, size_t size, simt::AllocationKind kind,
                     const std::source_location& where) {
  cudaError_t e;
  if (broken(&e)) return e;
  if (ptr == nullptr) return set_error(cudaErrorInvalidValue);
  try {
    *ptr = simt::allocate(size, kind, site_text(where.file_name(), static_cast<int>(where.line())));
  } catch (const CudaError&) {
    *ptr = nullptr;
    return set_error(cudaErrorMemoryAllocation);
  }
  return cudaSuccess;
}

cudaError_t free_kind(void* ptr, simt::AllocationKind kind) {
  cudaError_t e;
  if (broken(&e)) return e;
  if (ptr == nullptr) return cudaSuccess;
  if (!simt::release(ptr, kind)) return set_error(cudaErrorInvalidValue);
  return cudaSuccess;
}

std::size_t host_memory_bytes() {
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
  return pages > 0 && page > 0 ? static_cast<std::size_t>(pages) * static_cast<std::size_t>(page)
                               : 0;
}
std::size_t host_available_bytes() {
  const long pages = sysconf(_SC_AVPHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
  return pages > 0 && page > 0 ? static_cast<std::size_t>(pages) * static_cast<std::size_t>(page)
                               : 0;
}

unsigned worker_count() {
  const unsigned w = state().settings.workers;
  return w != 0 ? w : std::max(1u, std::thread::hardware_concurrency());
}

// What one launch of an exercise did, per thread (docs/exercise.md).
void write_record(const LaunchSite& site, const simt::LaunchRecord& r, int level,
                  std::uint64_t barriers, const LaunchConfig& config) {
  json line = {{report::kEventField, report::event::record},
               {"kernel", site.callee},
               {"max_global_reads", r.max_global_reads},
               {"max_reads_block", dims(r.max_reads_block)},
               {"max_reads_thread", dims(r.max_reads_thread)},
               {"max_global_writes", r.max_global_writes},
               {"max_writes_block", dims(r.max_writes_block)},
               {"max_writes_thread", dims(r.max_writes_thread)},
               {"shared_reads", r.shared_reads},
               {"shared_writes", r.shared_writes},
               {"atomics", r.atomics},
               {"threads_counted", r.threads_counted},
               {"barriers", barriers},
               {"grid", dims(config.grid)},
               {"block", dims(config.block)}};
  if (level >= 2 && r.accesses_complete) {
    json list = json::array();
    for (const simt::RecordedAccess& a : r.accesses) {
      list.push_back({a.shared ? json(a.array) : json(nullptr), a.address, a.bytes, a.block.x,
                      a.block.y, a.block.z, a.thread.x, a.thread.y, a.thread.z, a.write ? 1 : 0});
    }
    line["accesses"] = std::move(list);
  }
  write_line(line);
}

// gpulab profile: what one launch counted (src/simt/profile_gather.hpp; docs/profile.md).
void write_profile(const LaunchSite& site, const simt::LaunchProfile& p,
                   const LaunchConfig& config) {
  const auto lanes = [](const profile::WarpAccess& a) {
    json list = json::array();
    for (unsigned l = 0; l < profile::kWarpLanes; ++l)
      list.push_back((a.active >> l & 1u) != 0 ? json(a.address[l]) : json(nullptr));
    return list;
  };
  json accesses = json::array();
  for (const simt::ProfiledAccess& a : p.accesses) {
    json j = {{"pc", a.pc},
              {"space", a.shared ? "shared" : "global"},
              {"op", a.store ? "st" : "ld"},
              {"width", a.width},
              {"example",
               {{"block", dims(a.example_block)},
                {"warp", a.example_warp},
                {"width", a.example.width},
                {"addresses", lanes(a.example)}}}};
    if (a.shared) {
      j["array"] = a.array != nullptr ? a.array : "";
      j["requests"] = a.smem.requests;
      j["wavefronts"] = a.smem.wavefronts;
      j["ideal_wavefronts"] = a.smem.ideal_wavefronts;
      j["conflicts"] = a.smem.conflicts;
      j["worst_way"] = a.smem.worst_way;
    } else {
      j["requests"] = a.global.requests;
      j["sectors"] = a.global.sectors;
      j["ideal_sectors"] = a.global.ideal_sectors;
      j["bytes_used"] = a.global.bytes_used;
    }
    accesses.push_back(std::move(j));
  }
  json branches = json::array();
  for (const simt::ProfiledBranch& b : p.branches) {
    branches.push_back({{"pc", b.pc},
                        {"targets", b.targets},
                        {"uniform", b.uniform},
                        {"divergent", b.divergent},
                        {"example",
                         {{"block", dims(b.example_block)},
                          {"warp", b.example_warp},
                          {"active", b.example_active},
                          {"lanes", b.example_masks}}}});
  }
  json blocks = json::array();
  for (const simt::ProfiledBlock& b : p.blocks)
    blocks.push_back({{"pc", b.pc}, {"inst", b.inst}, {"thread_inst", b.thread_inst}});
  write_line({{report::kEventField, report::event::profile},
              {"kernel", site.callee},
              {"launch_site", site_text(site.file, site.line)},
              {"grid", dims(config.grid)},
              {"block", dims(config.block)},
              {"has_branches", p.has_branches},
              {"accesses", std::move(accesses)},
              {"branches", std::move(branches)},
              {"blocks", std::move(blocks)}});
}

}  // namespace

// The exercise harness's calls (declared by the harness itself; no CUDA program needs them).
extern "C" void gpulab_rt_record(int level) {
  if (level > 0) simt::enable_access_recording();
  std::lock_guard lock(state().mutex);
  state().record_level = level;
}
extern "C" int gpulab_rt_last_writer(const void* p, unsigned* block_thread) {
  const auto w = simt::last_writer(p);
  if (!w) return 0;
  const unsigned v[6] = {w->block.x, w->block.y, w->block.z, w->thread.x, w->thread.y, w->thread.z};
  for (int i = 0; i < 6; ++i) block_thread[i] = v[i];
  return 1;
}

// ---- Launches

void launch_erased(const LaunchSite& site, const void* kernel, const LaunchConfig& config,
                   void (*run_thread)(const void*), const void* closure, size_t closure_bytes,
                   void (*run_threads)(const void*, simt::detail::ThreadLoop&)) {
  // A launch into a graph (stream capture, a kernel node) is recorded, not run.
  if (graph_record_launch(site, kernel, config, run_thread, closure, closure_bytes)) return;
  // A kernel launched a kernel (dynamic parallelism): it runs when its parent grid has ended.
  if (simt::detail::tl_runner != nullptr) {
    child_record(site, kernel, config, run_thread, closure, closure_bytes);
    return;
  }
  State& s = state();
  {
    std::lock_guard lock(s.mutex);
    // The device's printf buffer is printed when the next kernel starts.
    flush_printf_locked(s);
    if (s.sticky != cudaSuccess) {
      t_last_error = s.sticky;
      return;
    }
    // An earlier launch faulted and the host has not waited yet: the launch is accepted, as on a
    // GPU, but a faulted context runs nothing more.
    if (s.pending != cudaSuccess) {
      s.unsynchronized = true;
      return;
    }
  }
  simt::RunOptions options;
  options.workers = s.settings.workers;
  options.shuffle_seed = s.settings.shuffle;
  options.check = s.settings.check || s.settings.profile;
  // gpulab run compiled the program so
  options.assume_instrumented = s.settings.check || s.settings.profile;
  options.max_reports = 16;
  const simt::detail::ErasedKernel erased{kernel, run_thread, closure, run_threads};
  json line = {{report::kEventField, report::event::launch},
               {"kernel", site.callee},
               {"site", site_text(site.file, site.line)},
               {"grid", dims(config.grid)},
               {"block", dims(config.block)},
               {"shared_bytes", config.dynamic_shared_bytes}};
  const bool checked = s.settings.check;
  if (checked) {
    const auto begin = reinterpret_cast<std::uintptr_t>(closure);
    simt::detail::begin_checked_launch(begin, begin + closure_bytes);
  }
  const int record_level = checked ? s.record_level : 0;
  if (record_level > 0) simt::detail::begin_recorded_launch(config.grid, config.block);
  if (s.settings.profile) simt::detail::begin_profiled_launch();
  g_running_file = site.file;
  g_running_line = site.line;
  const unsigned grid[3] = {config.grid.x, config.grid.y, config.grid.z};
  const unsigned block[3] = {config.block.x, config.block.y, config.block.z};
  for (int i = 0; i < 3; ++i) {
    g_running_grid[i] = grid[i];
    g_running_block[i] = block[i];
  }
  g_running_kernel = site.callee;
  {
    // Which launch runs: a crash or a --timeout (SIGKILL, no word from here) ends the program
    // with this line last.
    std::lock_guard lock(s.mutex);
    if (s.launch_lines < 2000) {
      write_line({{report::kEventField, report::event::launch_begin},
                  {"kernel", site.callee},
                  {"site", site_text(site.file, site.line)},
                  {"grid", dims(config.grid)},
                  {"block", dims(config.block)}});
    }
  }
  cudaError_t error = cudaSuccess;
  std::uint64_t barriers = 0;
  try {
    const simt::LaunchStats st = simt::detail::launch_erased(erased, config.grid, config.block,
                                                             config.dynamic_shared_bytes, options);
    line["threads"] = st.threads;
    line["warps"] = st.warps;
    line["warps_per_block"] = st.warps_per_block;
    line["idle_lanes_per_block"] = st.idle_lanes_last_warp;
    line["barriers"] = st.barriers_crossed;
    barriers = st.barriers_crossed;
    line["collectives"] = st.warp_collectives;
    line["static_shared_bytes"] = st.static_shared_bytes;
    line["ms"] = st.elapsed_ms;
    for (const simt::Race& r : st.races) {
      write_line({{report::kEventField, report::event::finding},
                  {report::kKindField, report::kind::shared_race},
                  {"kernel", site.callee},
                  {"launch_site", site_text(site.file, site.line)},
                  {"block", dims(r.block)},
                  {"thread", dims(r.second.index)},
                  {"other_thread", dims(r.first.index)},
                  {"write", r.second_wrote},
                  {"other_write", r.first_wrote},
                  {"array", r.array},
                  {"dynamic", r.space == simt::MemorySpace::dynamic_shared},
                  {"index", r.index ? json(*r.index) : json(nullptr)},
                  {"byte_offset", r.byte_offset},
                  {"barrier_interval", r.barrier_interval},
                  {"pc", r.second_pc},
                  {"other_pc", r.first_pc},
                  {"message", r.describe()}});
    }
    if (st.races_found > st.races.size())
      line["races_not_listed"] = st.races_found - st.races.size();
  } catch (const simt::KernelFault& f) {
    // The launch itself succeeds; the fault surfaces when the host next waits for the device.
    line["fault"] = f.what();
    line["error"] = cudaGetErrorName(error_of(f.kind()));
    json finding = {{report::kEventField, report::event::finding},
                    {report::kKindField, report::kind::kernel_fault},
                    {"kernel", site.callee},
                    {"launch_site", site_text(site.file, site.line)},
                    {"message", f.what()}};
    if (f.pc() != 0) finding["pc"] = f.pc();
    write_line(finding);
    std::lock_guard lock(s.mutex);
    s.pending = error_of(f.kind());
    s.sticky_why = f.what();
  } catch (const CudaError& e) {
    error = error_from_name(e.error_name());
    line["error"] = cudaGetErrorName(error);
    line["error_message"] = e.what();
    std::lock_guard lock(s.mutex);
    s.unchecked = true;
    s.unchecked_site = site;
    s.unchecked_error = error;
  } catch (const std::exception& e) {
    error = cudaErrorUnknown;
    line["error"] = cudaGetErrorName(error);
    line["error_message"] = e.what();
  }
  g_running_kernel = nullptr;
  heap_launch_ended();
  if (checked) {
    for (const simt::MemoryFinding& f : simt::detail::end_checked_launch()) {
      json j = {{report::kEventField, report::event::finding},
                {report::kKindField, memory_kind_name(f.kind)},
                {"kernel", site.callee},
                {"launch_site", site_text(site.file, site.line)},
                {"block", dims(f.block)},
                {"thread", dims(f.thread.index)},
                {"write", f.write},
                {"atomic", f.atomic},
                {"bytes", f.bytes},
                {"pc", f.pc},
                {"region", f.region},
                {"region_site", f.region_site},
                {"region_bytes", f.region_bytes},
                {"offset", f.offset},
                {"address", f.address},
                {"hits", f.hits}};
      if (f.kind == simt::MemoryFinding::Kind::global_race) {
        j["other_block"] = dims(f.other_block);
        j["other_thread"] = dims(f.other_thread.index);
        j["other_write"] = f.other_write;
        j["other_pc"] = f.other_pc;
      }
      write_line(j);
    }
  }
  if (record_level > 0) {
    write_record(site, simt::detail::end_recorded_launch(), record_level, barriers, config);
  }
  if (s.settings.profile) write_profile(site, simt::detail::end_profiled_launch(), config);
  if (error != cudaSuccess) set_error(error);
  {
    std::lock_guard lock(s.mutex);
    ++s.launches;
    s.last_launch = site;
    if (error == cudaSuccess) s.unsynchronized = true;
    if (s.launch_lines < 2000) {
      ++s.launch_lines;
      write_line(line);
    } else if (s.launch_lines == 2000) {
      ++s.launch_lines;
      write_line({{report::kEventField, report::event::launches_not_listed}});
    }
  }
  // The grids this grid launched run now: a grid is complete only when its children are (CUDA 12).
  // After a fault they run nothing, as every launch then.
  for (const ChildLaunch& c : child_take()) {
    launch_erased(c.site, c.kernel, c.config, c.run_thread, c.closure.get(), c.closure_bytes);
  }
}

cudaError_t memcpy_symbol(void* symbol, size_t symbol_bytes, void* host, size_t count,
                          size_t offset, cudaMemcpyKind kind, bool to_symbol) {
  cudaError_t e;
  synchronized(false);  // a synchronous copy: launches before it are waited for
  if (broken(&e)) return e;
  if (offset > symbol_bytes || count > symbol_bytes - offset) {
    return set_error(cudaErrorInvalidValue);
  }
  auto* at = static_cast<unsigned char*>(symbol) + offset;
  if (to_symbol) {
    if (kind != cudaMemcpyHostToDevice && kind != cudaMemcpyDeviceToDevice &&
        kind != cudaMemcpyDefault) {
      return set_error(cudaErrorInvalidMemcpyDirection);
    }
    std::memmove(at, host, count);
  } else {
    if (kind != cudaMemcpyDeviceToHost && kind != cudaMemcpyDeviceToDevice &&
        kind != cudaMemcpyDefault) {
      return set_error(cudaErrorInvalidMemcpyDirection);
    }
    std::memmove(host, at, count);
  }
  synchronized(true);
  return cudaSuccess;
}

cudaError_t func_set_attribute(const void* kernel, cudaFuncAttribute attribute, int value) {
  cudaError_t e;
  if (broken(&e)) return e;
  if (attribute == cudaFuncAttributeMaxDynamicSharedMemorySize) {
    if (value < 0 || kernel == nullptr) return set_error(cudaErrorInvalidValue);
    try {
      simt::detail::set_max_dynamic_shared_erased(kernel, static_cast<std::size_t>(value));
    } catch (const CudaError&) {
      return set_error(cudaErrorInvalidValue);
    }
    return cudaSuccess;
  }
  if (attribute == cudaFuncAttributePreferredSharedMemoryCarveout) {
    return value >= -1 && value <= 100 ? cudaSuccess : set_error(cudaErrorInvalidValue);
  }
  return set_error(cudaErrorInvalidValue);
}

cudaError_t func_get_attributes(cudaFuncAttributes* a, const void* kernel) {
  if (a == nullptr || kernel == nullptr) return set_error(cudaErrorInvalidValue);
  *a = cudaFuncAttributes{};
  a->sharedSizeBytes = simt::detail::static_shared_erased(kernel);
  a->maxThreadsPerBlock = 1024;
  a->ptxVersion = 90;
  a->binaryVersion = 90;
  a->maxDynamicSharedSizeBytes =
      static_cast<int>(48 * 1024 - std::min<std::size_t>(a->sharedSizeBytes, 48 * 1024));
  a->preferredShmemCarveout = -1;
  return cudaSuccess;
}

cudaError_t occupancy_max_active_blocks(int* blocks, const void*, int block_size, size_t) {
  if (blocks == nullptr || block_size <= 0 || block_size > 1024) {
    return set_error(cudaErrorInvalidValue);
  }
  // The emulator runs one block per worker at a time.
  *blocks = 1;
  return cudaSuccess;
}

}  // namespace gpulab::rt

using gpulab::rt::broken;
using gpulab::rt::set_error;
using gpulab::rt::state;

// ---- Kernel printf

extern "C" int gpulab_rt_printf(const char* format, ...) {
  va_list args;
  va_start(args, format);
  int n;
  if (gpulab::simt::detail::tl_runner == nullptr) {
    n = std::vprintf(format, args);  // host code: straight to stdout
  } else {
    char small[512];
    va_list copy;
    va_copy(copy, args);
    n = std::vsnprintf(small, sizeof small, format, copy);
    va_end(copy);
    std::string text;
    if (n >= 0 && static_cast<std::size_t>(n) < sizeof small) {
      text.assign(small, static_cast<std::size_t>(n));
    } else if (n > 0) {
      text.resize(static_cast<std::size_t>(n) + 1);
      std::vsnprintf(text.data(), text.size(), format, args);
      text.resize(static_cast<std::size_t>(n));
    }
    auto& s = state();
    std::lock_guard lock(s.mutex);
    if (s.printf_buffer.size() + text.size() <= s.printf_limit) {
      s.printf_buffer += text;
    } else {
      s.printf_dropped += text.size();
    }
  }
  va_end(args);
  return n;
}

// ---- Device-side assert (src/run/include/assert.h)

// The C library's (declared by <assert.h> only without NDEBUG).
extern "C" void __assert_fail(const char* expression, const char* file, unsigned line,
                              const char* function) noexcept __attribute__((__noreturn__));

void gpulab_rt_assert_fail(const char* expression, const char* file, unsigned line,
                           const char* function) {
  if (gpulab::simt::detail::tl_runner == nullptr) __assert_fail(expression, file, line, function);
  // The GPU's own message, printed to stderr when the host synchronises.
  char text[1024];
  std::snprintf(text, sizeof text,
                "%s:%u: %s: block: [%u,%u,%u], thread: [%u,%u,%u] Assertion `%s` failed.\n", file,
                line, function, blockIdx.x, blockIdx.y, blockIdx.z, threadIdx.x, threadIdx.y,
                threadIdx.z, expression);
  {
    auto& s = state();
    std::lock_guard lock(s.mutex);
    s.pending_stderr += text;
  }
  // Ends this CUDA thread and the launch, which fails with cudaErrorAssert.
  throw gpulab::simt::KernelFault(
      gpulab::simt::KernelFault::Kind::assertion,
      "block (" + std::to_string(blockIdx.x) + "," + std::to_string(blockIdx.y) + "," +
          std::to_string(blockIdx.z) + "), thread (" + std::to_string(threadIdx.x) + "," +
          std::to_string(threadIdx.y) + "," + std::to_string(threadIdx.z) + "): assert(" +
          expression + ") failed at " + file + ":" + std::to_string(line) + " in " + function);
}

// ---- Errors

cudaError_t cudaGetLastError(void) {
  auto& s = state();
  {
    std::lock_guard lock(s.mutex);
    s.unchecked = false;
    if (s.sticky != cudaSuccess) return s.sticky;
  }
  const cudaError_t e = gpulab::rt::t_last_error;
  gpulab::rt::t_last_error = cudaSuccess;
  return e;
}

cudaError_t cudaPeekAtLastError(void) {
  auto& s = state();
  std::lock_guard lock(s.mutex);
  s.unchecked = false;
  if (s.sticky != cudaSuccess) return s.sticky;
  return gpulab::rt::t_last_error;
}

namespace {
struct ErrorText {
  cudaError_t code;
  const char* name;
  const char* text;
};
// CUDA's own names and messages.
constexpr ErrorText kErrors[] = {
    {cudaSuccess, "cudaSuccess", "no error"},
    {cudaErrorInvalidValue, "cudaErrorInvalidValue", "invalid argument"},
    {cudaErrorMemoryAllocation, "cudaErrorMemoryAllocation", "out of memory"},
    {cudaErrorInitializationError, "cudaErrorInitializationError", "initialization error"},
    {cudaErrorCudartUnloading, "cudaErrorCudartUnloading", "driver shutting down"},
    {cudaErrorInvalidConfiguration, "cudaErrorInvalidConfiguration",
     "invalid configuration argument"},
    {cudaErrorInvalidPitchValue, "cudaErrorInvalidPitchValue", "invalid pitch argument"},
    {cudaErrorInvalidSymbol, "cudaErrorInvalidSymbol", "invalid device symbol"},
    {cudaErrorInvalidHostPointer, "cudaErrorInvalidHostPointer", "invalid host pointer"},
    {cudaErrorInvalidDevicePointer, "cudaErrorInvalidDevicePointer", "invalid device pointer"},
    {cudaErrorInvalidMemcpyDirection, "cudaErrorInvalidMemcpyDirection",
     "invalid copy direction for memcpy"},
    {cudaErrorInsufficientDriver, "cudaErrorInsufficientDriver",
     "CUDA driver version is insufficient for CUDA runtime version"},
    {cudaErrorInvalidDeviceFunction, "cudaErrorInvalidDeviceFunction", "invalid device function"},
    {cudaErrorNoDevice, "cudaErrorNoDevice", "no CUDA-capable device is detected"},
    {cudaErrorInvalidDevice, "cudaErrorInvalidDevice", "invalid device ordinal"},
    {cudaErrorInvalidResourceHandle, "cudaErrorInvalidResourceHandle", "invalid resource handle"},
    {cudaErrorIllegalState, "cudaErrorIllegalState",
     "the operation cannot be performed in the present state"},
    {cudaErrorSymbolNotFound, "cudaErrorSymbolNotFound", "named symbol not found"},
    {cudaErrorNotReady, "cudaErrorNotReady", "device not ready"},
    {cudaErrorIllegalAddress, "cudaErrorIllegalAddress",
     "an illegal memory access was encountered"},
    {cudaErrorLaunchOutOfResources, "cudaErrorLaunchOutOfResources",
     "too many resources requested for launch"},
    {cudaErrorLaunchTimeout, "cudaErrorLaunchTimeout", "the launch timed out and was terminated"},
    {cudaErrorAssert, "cudaErrorAssert", "device-side assert triggered"},
    {cudaErrorIllegalInstruction, "cudaErrorIllegalInstruction",
     "an illegal instruction was encountered"},
    {cudaErrorMisalignedAddress, "cudaErrorMisalignedAddress", "misaligned address"},
    {cudaErrorLaunchFailure, "cudaErrorLaunchFailure", "unspecified launch failure"},
    {cudaErrorCooperativeLaunchTooLarge, "cudaErrorCooperativeLaunchTooLarge",
     "too many blocks in cooperative launch"},
    {cudaErrorNotPermitted, "cudaErrorNotPermitted", "operation not permitted"},
    {cudaErrorNotSupported, "cudaErrorNotSupported", "operation not supported"},
    {cudaErrorStreamCaptureUnsupported, "cudaErrorStreamCaptureUnsupported",
     "operation not permitted when stream is capturing"},
    {cudaErrorStreamCaptureImplicit, "cudaErrorStreamCaptureImplicit",
     "operation would make the legacy stream depend on a capturing blocking stream"},
    {cudaErrorGraphExecUpdateFailure, "cudaErrorGraphExecUpdateFailure",
     "the graph update was not performed because it included changes which violated "
     "constraints specific to instantiated graph update"},
    {cudaErrorUnknown, "cudaErrorUnknown", "unknown error"},
};
const ErrorText* find_error(cudaError_t e) {
  for (const ErrorText& t : kErrors)
    if (t.code == e) return &t;
  return nullptr;
}
}  // namespace

const char* cudaGetErrorString(cudaError_t error) {
  const ErrorText* t = find_error(error);
  return t != nullptr ? t->text : "unrecognized error code";
}
const char* cudaGetErrorName(cudaError_t error) {
  const ErrorText* t = find_error(error);
  return t != nullptr ? t->name : "cudaErrorUnknown";
}

// ---- Device

cudaError_t cudaGetDeviceCount(int* count) {
  if (count == nullptr) return set_error(cudaErrorInvalidValue);
  *count = 1;
  return cudaSuccess;
}
cudaError_t cudaGetDevice(int* device) {
  if (device == nullptr) return set_error(cudaErrorInvalidValue);
  *device = 0;
  return cudaSuccess;
}
cudaError_t cudaSetDevice(int device) {
  return device == 0 ? cudaSuccess : set_error(cudaErrorInvalidDevice);
}
cudaError_t cudaSetDeviceFlags(unsigned int) {
  return cudaSuccess;
}

cudaError_t cudaGetDeviceProperties(cudaDeviceProp* p, int device) {
  if (p == nullptr) return set_error(cudaErrorInvalidValue);
  if (device != 0) return set_error(cudaErrorInvalidDevice);
  *p = cudaDeviceProp{};
  const unsigned workers = gpulab::rt::worker_count();
  std::snprintf(p->name, sizeof p->name, "gpulab emulator (CPU, %u worker threads)", workers);
  std::memcpy(p->uuid.bytes, "gpulab-emulator", 16);
  p->totalGlobalMem = gpulab::rt::host_memory_bytes();
  p->sharedMemPerBlock = 48 * 1024;
  p->regsPerBlock = 65536;
  p->warpSize = 32;
  p->memPitch = SIZE_MAX / 2;
  p->maxThreadsPerBlock = 1024;
  p->maxThreadsDim[0] = 1024;
  p->maxThreadsDim[1] = 1024;
  p->maxThreadsDim[2] = 64;
  p->maxGridSize[0] = 2147483647;
  p->maxGridSize[1] = 65535;
  p->maxGridSize[2] = 65535;
  p->totalConstMem = 64 * 1024;
  // The launch limits the emulator enforces are an H100's (compute capability 9.0).
  p->major = 9;
  p->minor = 0;
  p->textureAlignment = 512;
  p->multiProcessorCount = static_cast<int>(workers);  // one "SM" per worker thread
  p->integrated = 1;                                   // device memory is host memory
  p->canMapHostMemory = 1;
  p->concurrentKernels = 0;  // launches run one after another
  p->asyncEngineCount = 0;
  p->unifiedAddressing = 1;
  p->memoryBusWidth = 0;  // no memory model: no bus, no L2
  p->l2CacheSize = 0;
  p->maxThreadsPerMultiProcessor = 2048;
  p->sharedMemPerMultiprocessor = 228 * 1024;
  p->regsPerMultiprocessor = 65536;
  p->managedMemory = 1;
  p->pageableMemoryAccess = 1;
  p->concurrentManagedAccess = 1;
  p->cooperativeLaunch = 0;
  p->sharedMemPerBlockOptin = 227 * 1024;
  p->maxBlocksPerMultiProcessor = 32;
  p->reservedSharedMemPerBlock = 1024;
  return cudaSuccess;
}

cudaError_t cudaDeviceGetAttribute(int* value, cudaDeviceAttr attr, int device) {
  if (value == nullptr) return set_error(cudaErrorInvalidValue);
  cudaDeviceProp p;
  if (const cudaError_t e = cudaGetDeviceProperties(&p, device); e != cudaSuccess) return e;
  switch (attr) {
    case cudaDevAttrMaxThreadsPerBlock:
      *value = p.maxThreadsPerBlock;
      break;
    case cudaDevAttrMaxBlockDimX:
      *value = p.maxThreadsDim[0];
      break;
    case cudaDevAttrMaxBlockDimY:
      *value = p.maxThreadsDim[1];
      break;
    case cudaDevAttrMaxBlockDimZ:
      *value = p.maxThreadsDim[2];
      break;
    case cudaDevAttrMaxGridDimX:
      *value = p.maxGridSize[0];
      break;
    case cudaDevAttrMaxGridDimY:
      *value = p.maxGridSize[1];
      break;
    case cudaDevAttrMaxGridDimZ:
      *value = p.maxGridSize[2];
      break;
    case cudaDevAttrMaxSharedMemoryPerBlock:
      *value = static_cast<int>(p.sharedMemPerBlock);
      break;
    case cudaDevAttrTotalConstantMemory:
      *value = static_cast<int>(p.totalConstMem);
      break;
    case cudaDevAttrWarpSize:
      *value = p.warpSize;
      break;
    case cudaDevAttrMaxRegistersPerBlock:
      *value = p.regsPerBlock;
      break;
    case cudaDevAttrClockRate:
      *value = 0;
      break;
    case cudaDevAttrMultiProcessorCount:
      *value = p.multiProcessorCount;
      break;
    case cudaDevAttrIntegrated:
      *value = p.integrated;
      break;
    case cudaDevAttrCanMapHostMemory:
      *value = p.canMapHostMemory;
      break;
    case cudaDevAttrComputeMode:
      *value = cudaComputeModeDefault;
      break;
    case cudaDevAttrConcurrentKernels:
      *value = p.concurrentKernels;
      break;
    case cudaDevAttrMemoryClockRate:
      *value = 0;
      break;
    case cudaDevAttrGlobalMemoryBusWidth:
      *value = p.memoryBusWidth;
      break;
    case cudaDevAttrL2CacheSize:
      *value = p.l2CacheSize;
      break;
    case cudaDevAttrMaxThreadsPerMultiProcessor:
      *value = p.maxThreadsPerMultiProcessor;
      break;
    case cudaDevAttrAsyncEngineCount:
      *value = p.asyncEngineCount;
      break;
    case cudaDevAttrUnifiedAddressing:
      *value = p.unifiedAddressing;
      break;
    case cudaDevAttrComputeCapabilityMajor:
      *value = p.major;
      break;
    case cudaDevAttrComputeCapabilityMinor:
      *value = p.minor;
      break;
    case cudaDevAttrMaxSharedMemoryPerMultiprocessor:
      *value = static_cast<int>(p.sharedMemPerMultiprocessor);
      break;
    case cudaDevAttrMaxRegistersPerMultiprocessor:
      *value = p.regsPerMultiprocessor;
      break;
    case cudaDevAttrManagedMemory:
      *value = p.managedMemory;
      break;
    case cudaDevAttrConcurrentManagedAccess:
      *value = p.concurrentManagedAccess;
      break;
    case cudaDevAttrCooperativeLaunch:
      *value = p.cooperativeLaunch;
      break;
    case cudaDevAttrMaxSharedMemoryPerBlockOptin:
      *value = static_cast<int>(p.sharedMemPerBlockOptin);
      break;
    case cudaDevAttrMaxBlocksPerMultiprocessor:
      *value = p.maxBlocksPerMultiProcessor;
      break;
    default:
      return set_error(cudaErrorInvalidValue);
  }
  return cudaSuccess;
}

cudaError_t cudaDeviceSynchronize(void) {
  if (gpulab::simt::detail::tl_runner != nullptr) {
    // CUDA 12 removed the device-side cudaDeviceSynchronize (nvcc refuses to compile it): a parent
    // grid cannot wait for its children, which run after it.
    throw gpulab::simt::KernelFault(
        gpulab::simt::KernelFault::Kind::invalid_argument,
        "cudaDeviceSynchronize() called in a kernel: CUDA 12 and newer have no device-side "
        "cudaDeviceSynchronize (nvcc does not compile it); a child grid ends before its parent "
        "grid, and cudaStreamTailLaunch runs a grid after its parent");
  }
  cudaError_t e;
  gpulab::rt::synchronized(true);
  if (broken(&e)) return e;
  return cudaSuccess;
}

cudaError_t cudaDeviceReset(void) {
  gpulab::rt::synchronized(true);
  // As compute-sanitizer's leak check does, memory still allocated when the context goes away is
  // reported; then it is freed.
  gpulab::rt::report_leaks("cudaDeviceReset");
  for (const gpulab::simt::Allocation& a : gpulab::simt::live_allocations()) {
    gpulab::simt::release(reinterpret_cast<void*>(a.begin), a.kind);
  }
  gpulab::rt::reset_heap();
  auto& s = state();
  std::lock_guard lock(s.mutex);
  s.sticky = cudaSuccess;
  s.pending = cudaSuccess;
  s.streams.clear();
  s.events.clear();
  return cudaSuccess;
}

cudaError_t cudaDeviceSetLimit(cudaLimit limit, size_t value) {
  if (limit == cudaLimitPrintfFifoSize) {
    auto& s = state();
    std::lock_guard lock(s.mutex);
    s.printf_limit = value;
    return cudaSuccess;
  }
  if (limit == cudaLimitMallocHeapSize) {
    // As CUDA: the heap's size is fixed once a kernel has used it.
    return gpulab::rt::set_heap_limit(value) ? cudaSuccess : set_error(cudaErrorInvalidValue);
  }
  if (limit == cudaLimitStackSize) return cudaSuccess;
  return set_error(cudaErrorInvalidValue);
}
cudaError_t cudaDeviceGetLimit(size_t* value, cudaLimit limit) {
  if (value == nullptr) return set_error(cudaErrorInvalidValue);
  switch (limit) {
    case cudaLimitPrintfFifoSize: {
      auto& s = state();
      std::lock_guard lock(s.mutex);
      *value = s.printf_limit;
      return cudaSuccess;
    }
    case cudaLimitStackSize:
      *value = 1024;
      return cudaSuccess;
    case cudaLimitMallocHeapSize:
      *value = gpulab::rt::heap_limit();
      return cudaSuccess;
  }
  return set_error(cudaErrorInvalidValue);
}
cudaError_t cudaDeviceSetCacheConfig(cudaFuncCache) {
  return cudaSuccess;
}
cudaError_t cudaDeviceSetSharedMemConfig(cudaSharedMemConfig) {
  return cudaSuccess;
}
cudaError_t cudaDriverGetVersion(int* version) {
  if (version == nullptr) return set_error(cudaErrorInvalidValue);
  *version = CUDART_VERSION;
  return cudaSuccess;
}
cudaError_t cudaRuntimeGetVersion(int* version) {
  if (version == nullptr) return set_error(cudaErrorInvalidValue);
  *version = CUDART_VERSION;
  return cudaSuccess;
}
cudaError_t cudaMemGetInfo(size_t* free, size_t* total) {
  if (free == nullptr || total == nullptr) return set_error(cudaErrorInvalidValue);
  *free = gpulab::rt::host_available_bytes();
  *total = gpulab::rt::host_memory_bytes();
  return cudaSuccess;
}

// ---- Memory

cudaError_t cudaMalloc(void** ptr, size_t size, std::source_location where) {
  return gpulab::rt::allocate(ptr, size, gpulab::simt::AllocationKind::device, where);
}
cudaError_t cudaMallocManaged(void** ptr, size_t size, unsigned int flags,
                              std::source_location where) {
  if (flags != cudaMemAttachGlobal && flags != cudaMemAttachHost) {
    return set_error(cudaErrorInvalidValue);
  }
  const cudaError_t e =
      gpulab::rt::allocate(ptr, size, gpulab::simt::AllocationKind::managed, where);
  // The host may write managed memory directly: it counts as written.
  if (e == cudaSuccess && *ptr != nullptr) gpulab::simt::mark_initialized(*ptr, size);
  return e;
}
cudaError_t cudaMallocHost(void** ptr, size_t size, std::source_location where) {
  const cudaError_t e =
      gpulab::rt::allocate(ptr, size, gpulab::simt::AllocationKind::host_pinned, where);
  if (e == cudaSuccess && *ptr != nullptr) gpulab::simt::mark_initialized(*ptr, size);
  return e;
}
cudaError_t cudaHostAlloc(void** ptr, size_t size, unsigned int, std::source_location where) {
  return cudaMallocHost(ptr, size, where);
}
cudaError_t cudaMallocPitch(void** ptr, size_t* pitch, size_t width, size_t height,
                            std::source_location where) {
  if (pitch == nullptr) return set_error(cudaErrorInvalidValue);
  *pitch = (width + 511) / 512 * 512;
  return gpulab::rt::allocate(ptr, *pitch * height, gpulab::simt::AllocationKind::device, where);
}
cudaError_t cudaFree(void* ptr) {
  gpulab::rt::synchronized(false);  // cudaFree waits for the device
  const auto a = gpulab::simt::find_allocation(ptr);
  const bool managed = a && a->begin == reinterpret_cast<std::uintptr_t>(ptr) &&
                       a->kind == gpulab::simt::AllocationKind::managed;
  return gpulab::rt::free_kind(
      ptr, managed ? gpulab::simt::AllocationKind::managed : gpulab::simt::AllocationKind::device);
}
cudaError_t cudaFreeHost(void* ptr) {
  return gpulab::rt::free_kind(ptr, gpulab::simt::AllocationKind::host_pinned);
}
cudaError_t cudaHostGetDevicePointer(void** device_ptr, void* host_ptr, unsigned int) {
  if (device_ptr == nullptr || !gpulab::simt::find_allocation(host_ptr)) {
    return set_error(cudaErrorInvalidValue);
  }
  *device_ptr = host_ptr;
  return cudaSuccess;
}
cudaError_t cudaPointerGetAttributes(cudaPointerAttributes* attributes, const void* ptr) {
  if (attributes == nullptr) return set_error(cudaErrorInvalidValue);
  *attributes = cudaPointerAttributes{};
  attributes->device = 0;
  if (const auto a = gpulab::simt::find_allocation(ptr)) {
    attributes->type = a->kind == gpulab::simt::AllocationKind::device    ? cudaMemoryTypeDevice
                       : a->kind == gpulab::simt::AllocationKind::managed ? cudaMemoryTypeManaged
                                                                          : cudaMemoryTypeHost;
    attributes->devicePointer = const_cast<void*>(ptr);
    attributes->hostPointer =
        a->kind == gpulab::simt::AllocationKind::device ? nullptr : const_cast<void*>(ptr);
  } else {
    attributes->type = cudaMemoryTypeUnregistered;
    attributes->hostPointer = const_cast<void*>(ptr);
  }
  return cudaSuccess;
}

cudaError_t cudaMemcpy(void* dst, const void* src, size_t count, cudaMemcpyKind kind,
                       std::source_location where) {
  return gpulab::rt::copy(dst, src, count, kind, true, where);
}
cudaError_t cudaMemcpyAsync(void* dst, const void* src, size_t count, cudaMemcpyKind kind,
                            cudaStream_t stream, std::source_location where) {
  if (gpulab::rt::graph_record_copy(dst, src, count, kind, stream)) return cudaSuccess;
  return gpulab::rt::copy(dst, src, count, kind, false, where);
}
cudaError_t cudaMemcpy2D(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width,
                         size_t height, cudaMemcpyKind kind) {
  if (width > dpitch || width > spitch) return set_error(cudaErrorInvalidPitchValue);
  gpulab::rt::synchronized(false);
  for (size_t row = 0; row < height; ++row) {
    const cudaError_t e = gpulab::rt::copy(static_cast<char*>(dst) + row * dpitch,
                                           static_cast<const char*>(src) + row * spitch, width,
                                           kind, row + 1 == height);
    if (e != cudaSuccess) return e;
  }
  return cudaSuccess;
}

static cudaError_t memset_impl(void* ptr, int value, size_t count) {
  cudaError_t e;
  if (broken(&e)) return e;
  if (count == 0) return cudaSuccess;
  bool device = false;
  if (gpulab::rt::check_device_range(ptr, count, &device) != cudaSuccess || !device) {
    return set_error(cudaErrorInvalidValue);
  }
  std::memset(ptr, value, count);
  gpulab::simt::mark_initialized(ptr, count);
  return cudaSuccess;
}
cudaError_t cudaMemset(void* ptr, int value, size_t count) {
  return memset_impl(ptr, value, count);
}
cudaError_t cudaMemsetAsync(void* ptr, int value, size_t count, cudaStream_t stream) {
  if (gpulab::rt::graph_record_memset(ptr, value, count, stream)) return cudaSuccess;
  return memset_impl(ptr, value, count);
}
cudaError_t cudaMemPrefetchAsync(const void* ptr, size_t, int, cudaStream_t) {
  return gpulab::simt::find_allocation(ptr) ? cudaSuccess : set_error(cudaErrorInvalidValue);
}

// ---- Streams and events: accepted; every operation runs at once, in order (the default stream).

struct CUstream_st {
  int id;
};
struct CUevent_st {
  std::chrono::steady_clock::time_point when;
  bool recorded = false;
  bool timing = true;
};

cudaError_t cudaStreamCreate(cudaStream_t* stream) {
  return cudaStreamCreateWithFlags(stream, cudaStreamDefault);
}
cudaError_t cudaStreamCreateWithFlags(cudaStream_t* stream, unsigned int) {
  if (stream == nullptr) return set_error(cudaErrorInvalidValue);
  *stream = new CUstream_st{0};
  auto& s = state();
  std::lock_guard lock(s.mutex);
  s.streams.insert(*stream);
  return cudaSuccess;
}
cudaError_t cudaStreamDestroy(cudaStream_t stream) {
  auto& s = state();
  std::lock_guard lock(s.mutex);
  if (s.streams.erase(stream) == 0) return set_error(cudaErrorInvalidResourceHandle);
  delete stream;
  return cudaSuccess;
}
cudaError_t cudaStreamSynchronize(cudaStream_t) {
  gpulab::rt::synchronized(true);
  cudaError_t e;
  if (broken(&e)) return e;
  return cudaSuccess;
}
cudaError_t cudaStreamQuery(cudaStream_t) {
  // Every launch has ended when the host asks: a fault of one surfaces here.
  gpulab::rt::synchronized(false);
  cudaError_t e;
  if (broken(&e)) return e;
  return cudaSuccess;
}
cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event, unsigned int) {
  gpulab::rt::graph_wait_event(stream, event);  // joins a capture when the event was captured
  return cudaSuccess;
}

cudaError_t cudaEventCreate(cudaEvent_t* event) {
  return cudaEventCreateWithFlags(event, cudaEventDefault);
}
cudaError_t cudaEventCreateWithFlags(cudaEvent_t* event, unsigned int flags) {
  if (event == nullptr) return set_error(cudaErrorInvalidValue);
  *event = new CUevent_st{};
  (*event)->timing = (flags & cudaEventDisableTiming) == 0;
  auto& s = state();
  std::lock_guard lock(s.mutex);
  s.events.insert(*event);
  return cudaSuccess;
}
cudaError_t cudaEventDestroy(cudaEvent_t event) {
  auto& s = state();
  std::lock_guard lock(s.mutex);
  if (s.events.erase(event) == 0) return set_error(cudaErrorInvalidResourceHandle);
  delete event;
  return cudaSuccess;
}
cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream) {
  {
    auto& s = state();
    std::lock_guard lock(s.mutex);
    if (s.events.count(event) == 0) return set_error(cudaErrorInvalidResourceHandle);
  }
  if (gpulab::rt::graph_record_event(event, stream)) return cudaSuccess;
  // Launches have finished when they return: the time is the CPU's, after the emulated work.
  event->when = std::chrono::steady_clock::now();
  event->recorded = true;
  return cudaSuccess;
}
cudaError_t cudaEventSynchronize(cudaEvent_t event) {
  {
    auto& s = state();
    std::lock_guard lock(s.mutex);
    if (s.events.count(event) == 0) return set_error(cudaErrorInvalidResourceHandle);
  }
  gpulab::rt::synchronized(true);
  cudaError_t e;
  if (broken(&e)) return e;
  return cudaSuccess;
}
cudaError_t cudaEventQuery(cudaEvent_t event) {
  {
    auto& s = state();
    std::lock_guard lock(s.mutex);
    if (s.events.count(event) == 0) return set_error(cudaErrorInvalidResourceHandle);
  }
  gpulab::rt::synchronized(false);
  cudaError_t e;
  if (broken(&e)) return e;
  return cudaSuccess;
}
cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t start, cudaEvent_t end) {
  if (ms == nullptr) return set_error(cudaErrorInvalidValue);
  {
    auto& s = state();
    std::lock_guard lock(s.mutex);
    if (s.events.count(start) == 0 || s.events.count(end) == 0) {
      return set_error(cudaErrorInvalidResourceHandle);
    }
  }
  if (!start->recorded || !end->recorded) return set_error(cudaErrorInvalidResourceHandle);
  if (!start->timing || !end->timing) return set_error(cudaErrorInvalidResourceHandle);
  *ms = std::chrono::duration<float, std::milli>(end->when - start->when).count();
  return cudaSuccess;
}
