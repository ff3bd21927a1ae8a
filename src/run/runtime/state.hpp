// The emulator runtime's shared state, internal to src/run/runtime/ (not one of the kit's
// headers): the one State every API area uses, the last error, the running-kernel markers of the
// crash handler, and what the areas call in each other. Each API area is a file:
//   errors.cpp          cudaGetLastError & co., CUDA's error names and messages
//   memory.cpp          cudaMalloc/Free & co., pointer attributes, memset
//   copies.cpp          cudaMemcpy & co., copies to and from __device__ symbols
//   streams_events.cpp  streams and events
//   device.cpp          device count, properties, attributes, limits, synchronize, reset
//   launch.cpp          kernel launches and their report lines, function attributes, occupancy
//   kernel_output.cpp   kernel printf and device-side assert
//   report.cpp          the report for gpulab (run/report.hpp): settings, events, exit, crash
//   graph.cpp, child.cpp, heap.cpp, device_heap.cpp, curand.cpp, cublas.cpp: as their names say
// New API goes into the file of its area (or a new one: cooperative launch, ...).
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>
#include <optional>
#include <set>
#include <source_location>
#include <string>

#include <nlohmann/json.hpp>

#include "cuda_runtime.h"
#include "run/report.hpp"
#include "simt/memory_check.hpp"

namespace gpulab::rt {

using nlohmann::json;
namespace report = gpulab::run::report;

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

inline State& state() {
  static State* s = new State;  // never destroyed: exit handlers and late calls still use it
  return *s;
}

inline thread_local cudaError_t t_last_error = cudaSuccess;

// The launch that runs now, for the crash handler.
inline std::atomic<const char*> g_running_kernel{nullptr};
inline std::atomic<const char*> g_running_file{nullptr};
inline std::atomic<int> g_running_line{0};
// Its shape, so that a crash never reports a block or thread the launch does not have (a write
// past a __shared__ array can overwrite the emulator's own blockIdx and threadIdx).
inline std::atomic<unsigned> g_running_grid[3] = {0, 0, 0};
inline std::atomic<unsigned> g_running_block[3] = {0, 0, 0};

// report.cpp: one JSON line appended to the report (nothing without GPULAB_RUN_REPORT).
void write_line(const json& j);
json dims(const dim3& d);
json dims(const uint3& d);
std::string site_text(const char* file, int line);
// Every allocation still live, as "leak" findings.
void report_leaks(const char* when);

// errors.cpp
cudaError_t set_error(cudaError_t e);
// Calls after a kernel fault fail as on a GPU, whose context is then unusable.
bool broken(cudaError_t* out);
cudaError_t error_from_name(const std::string& name);
// A query's answer: `value` stored in *out, or cudaErrorInvalidValue (the last error too) when
// out is null.
template <class T, class V>
cudaError_t answer(T* out, V value) {
  if (out == nullptr) return set_error(cudaErrorInvalidValue);
  *out = value;
  return cudaSuccess;
}

// memory.cpp
cudaError_t check_device_range(const void* p, size_t count, bool* is_device);
cudaError_t allocate(void** ptr, size_t size, simt::AllocationKind kind,
                     const std::source_location& where);
cudaError_t free_kind(void* ptr, simt::AllocationKind kind);

// copies.cpp
cudaError_t copy(void* dst, const void* src, size_t count, cudaMemcpyKind kind, bool blocking,
                 const std::source_location& where = std::source_location::current());

// device.cpp
// The host waited for the device: kernel output is printed, nothing is pending.
void synchronized(bool flush_output);
// synchronized(flush_output), then the status a waiting call returns: a kernel fault's error, or
// cudaSuccess.
cudaError_t wait_for_device(bool flush_output);
std::size_t host_memory_bytes();
std::size_t host_available_bytes();
unsigned worker_count();

// kernel_output.cpp
// Kernel printf's buffer, printed (the caller holds state().mutex).
void flush_printf_locked(State& s);

}  // namespace gpulab::rt
