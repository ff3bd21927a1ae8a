// Launches: a kernel run on the emulator (simt), its line in the report, the findings of
// --check, the access recorder of gpulab exercise; function attributes, occupancy, and kernel
// printf (the device's buffer, printed when the host waits or the next kernel starts).
#include <algorithm>
#include <cstdarg>
#include <cstdio>
#include <string>

#include "run/runtime/state.hpp"
#include "simt/access_record.hpp"
#include "simt/memory_check.hpp"
#include "simt/scheduler.hpp"
#include "simt/simt.hpp"

#undef printf

namespace gpulab::rt {

void flush_printf_locked(State& s) {
  if (s.printf_buffer.empty()) return;
  std::fwrite(s.printf_buffer.data(), 1, s.printf_buffer.size(), stdout);
  std::fflush(stdout);
  s.printf_buffer.clear();
}

namespace {

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
                   void (*run_thread)(const void*), const void* closure, size_t closure_bytes) {
  State& s = state();
  {
    std::lock_guard lock(s.mutex);
    // The device's printf buffer is printed when the next kernel starts.
    flush_printf_locked(s);
    if (s.sticky != cudaSuccess) {
      t_last_error = s.sticky;
      return;
    }
  }
  if (simt::detail::tl_runner != nullptr) {
    throw simt::KernelFault(
        simt::KernelFault::Kind::outside_kernel,
        std::string("a kernel launched ") + site.callee + ": dynamic parallelism is not emulated");
  }
  simt::RunOptions options;
  options.workers = s.settings.workers;
  options.shuffle_seed = s.settings.shuffle;
  options.check = s.settings.check;
  options.assume_instrumented = s.settings.check;  // gpulab run compiled the program so
  options.max_reports = 16;
  const simt::detail::ErasedKernel erased{kernel, run_thread, closure};
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
  g_running_file = site.file;
  g_running_line = site.line;
  g_running_kernel = site.callee;
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
    // A GPU reports a fault in a kernel (a trap, an illegal access) as an unspecified launch
    // failure.
    error = cudaErrorLaunchFailure;
    line["fault"] = f.what();
    json finding = {{report::kEventField, report::event::finding},
                    {report::kKindField, report::kind::kernel_fault},
                    {"kernel", site.callee},
                    {"launch_site", site_text(site.file, site.line)},
                    {"message", f.what()}};
    if (f.pc() != 0) finding["pc"] = f.pc();
    write_line(finding);
    std::lock_guard lock(s.mutex);
    s.sticky = error;
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
  if (error != cudaSuccess) set_error(error);
  std::lock_guard lock(s.mutex);
  ++s.launches;
  s.last_launch = site;
  if (error == cudaSuccess || s.sticky != cudaSuccess) s.unsynchronized = true;
  if (s.launch_lines < 2000) {
    ++s.launch_lines;
    write_line(line);
  } else if (s.launch_lines == 2000) {
    ++s.launch_lines;
    write_line({{report::kEventField, report::event::launches_not_listed}});
  }
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
