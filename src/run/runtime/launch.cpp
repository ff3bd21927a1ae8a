// Launches: a kernel run on the emulator (simt), its lines in the report (launch_begin, launch,
// the findings of --check, gpulab exercise's access record, gpulab profile's counters), the
// children a grid launched run after it; function attributes and occupancy.
#include <algorithm>
#include <cstdint>
#include <exception>
#include <map>
#include <mutex>
#include <stdexcept>

#include "calc/gpu_specs.hpp"
#include "calc/occupancy.hpp"
#include "core/error.hpp"
#include "run/runtime/child.hpp"
#include "run/runtime/cooperative.hpp"
#include "run/runtime/graph.hpp"
#include "run/runtime/heap.hpp"
#include "run/runtime/state.hpp"
#include "simt/access_record.hpp"
#include "simt/kernel_code.hpp"
#include "simt/profile_gather.hpp"
#include "simt/race_check.hpp"
#include "simt/scheduler.hpp"
#include "simt/simt.hpp"

namespace gpulab::rt {

namespace {

// The error a GPU reports for a fault in a kernel.
cudaError_t error_of(simt::KernelFault::Kind kind) {
  switch (kind) {
    case simt::KernelFault::Kind::assertion:
      return cudaErrorAssert;
    case simt::KernelFault::Kind::illegal_address:
      return cudaErrorIllegalAddress;
    default:
      // A trap, and what a GPU would meet as one: an unspecified launch failure.
      return cudaErrorLaunchFailure;
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
  // A launch made in a kernel is the emulator's work: its allocations are the host's.
  const simt::detail::EmulatorCode emulator;
  // A launch into a graph (stream capture, a kernel node) is recorded, not run.
  if (graph_record_launch(site, kernel, config, run_thread, closure, closure_bytes, run_threads))
    return;
  // A kernel launched a kernel (dynamic parallelism): it runs when its parent grid has ended.
  if (simt::detail::tl_runner != nullptr) {
    child_record(site, kernel, config, run_thread, closure, closure_bytes, run_threads);
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
  options.cooperative = config.cooperative;
  const simt::detail::ErasedKernel erased{kernel, run_thread, closure, run_threads};
  json line = {{report::kEventField, report::event::launch},
               {"kernel", site.callee},
               {"site", site_text(site.file, site.line)},
               {"grid", dims(config.grid)},
               {"block", dims(config.block)},
               {"shared_bytes", config.dynamic_shared_bytes}};
  const bool checked = s.settings.check;
  const int record_level = checked ? s.record_level : 0;
  // An exercise's recording keeps the accesses in the order they were made: one worker.
  if (record_level > 0) options.workers = 1;
  if (checked) {
    const auto begin = reinterpret_cast<std::uintptr_t>(closure);
    // Blocks taken in linear order are checked in that order whatever the workers (the same
    // findings every run); a shuffled order runs on one worker (report.cpp), a cooperative launch
    // is checked as its blocks go.
    simt::detail::begin_checked_launch(begin, begin + closure_bytes,
                                       !s.settings.shuffle && !config.cooperative);
  }
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
  // Check mode's shared-memory races, each a finding; also those found before a fault, which is
  // often their consequence (a thread that read a slot another had already overwritten).
  const auto write_races = [&](const std::vector<simt::Race>& races) {
    for (const simt::Race& r : races) {
      const Text message = r.describe();
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
                  {"same_warp", r.first.linear / 32 == r.second.linear / 32},
                  {"pc", r.second_pc},
                  {"other_pc", r.first_pc},
                  {"message", message.en},
                  {"message_zh", message.zh}});
    }
  };
  cudaError_t error = cudaSuccess;
  std::uint64_t barriers = 0;
  try {
    if (config.cooperative) check_cooperative_fits(kernel, config);
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
    write_races(st.races);
    if (st.races_found > st.races.size())
      line["races_not_listed"] = st.races_found - st.races.size();
  } catch (const simt::KernelFault& f) {
    // The launch itself succeeds; the fault surfaces when the host next waits for the device.
    write_races(simt::detail::races_of_failed_launch());
    line["fault"] = f.what();
    line["error"] = cudaGetErrorName(error_of(f.kind()));
    json finding = {{report::kEventField, report::event::finding},
                    {report::kKindField, report::kind::kernel_fault},
                    {"kernel", site.callee},
                    {"launch_site", site_text(site.file, site.line)},
                    {"message", f.what()}};
    finding["message_zh"] = f.message(Lang::zh);
    if (f.pc() != 0) finding["pc"] = f.pc();
    write_line(finding);
    std::lock_guard lock(s.mutex);
    s.pending = error_of(f.kind());
    s.sticky_why = f.what();
  } catch (const CudaError& e) {
    error = error_from_name(e.error_name());
    line["error"] = cudaGetErrorName(error);
    line["error_message"] = e.what();
    line["error_message_zh"] = e.message(Lang::zh);
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
    launch_erased(c.site, c.kernel, c.config, c.run_thread, c.closure.get(), c.closure_bytes,
                  c.run_threads);
  }
}

// ---- Function attributes and the occupancy API, answered by gpulab's occupancy calculator
// (src/calc/occupancy) for the emulated device: an H100's limits (compute capability 9.0), as
// `gpulab occupancy --cc 9.0` gives them. The emulator's kernels have no registers: they are not
// counted (numRegs is 0).
namespace {

constexpr int kDefaultSharedPerBlock = 48 * 1024;

// What the program set with cudaFuncSetAttribute, per kernel.
struct Attributes {
  std::mutex mutex;
  std::map<const void*, int> max_dynamic;  // cudaFuncAttributeMaxDynamicSharedMemorySize
  std::map<const void*, int> carveout;     // cudaFuncAttributePreferredSharedMemoryCarveout
};
Attributes& attributes() {
  static Attributes* a = new Attributes;  // never destroyed: late calls at exit still use it
  return *a;
}

const calc::ArchInfo& emulated_arch() {
  static const calc::ArchInfo arch = *calc::arch_info(9, 0);
  return arch;
}

std::optional<int> carveout_of(const void* kernel) {
  auto& a = attributes();
  std::lock_guard lock(a.mutex);
  const auto it = a.carveout.find(kernel);
  if (it == a.carveout.end() || it->second < 0) return std::nullopt;
  return it->second;
}

}  // namespace

cudaError_t func_set_attribute(const void* kernel, cudaFuncAttribute attribute, int value) {
  cudaError_t e;
  if (broken(&e)) return e;
  if (kernel == nullptr) return set_error(cudaErrorInvalidDeviceFunction);
  if (attribute == cudaFuncAttributeMaxDynamicSharedMemorySize) {
    if (value < 0) return set_error(cudaErrorInvalidValue);
    try {
      simt::detail::set_max_dynamic_shared_erased(kernel, static_cast<std::size_t>(value));
    } catch (const CudaError&) {
      return set_error(cudaErrorInvalidValue);  // past the 227 KiB a block may opt in to
    }
    auto& a = attributes();
    std::lock_guard lock(a.mutex);
    a.max_dynamic[kernel] = value;
    return cudaSuccess;
  }
  if (attribute == cudaFuncAttributePreferredSharedMemoryCarveout) {
    if (value < -1 || value > 100) return set_error(cudaErrorInvalidValue);
    auto& a = attributes();
    std::lock_guard lock(a.mutex);
    a.carveout[kernel] = value;
    return cudaSuccess;
  }
  return set_error(cudaErrorInvalidValue);
}

cudaError_t func_get_attributes(cudaFuncAttributes* a, const void* kernel) {
  if (a == nullptr) return set_error(cudaErrorInvalidValue);
  if (kernel == nullptr) return set_error(cudaErrorInvalidDeviceFunction);
  *a = cudaFuncAttributes{};
  a->sharedSizeBytes = simt::detail::static_shared_erased(kernel);
  a->maxThreadsPerBlock = 1024;
  a->numRegs = 0;
  a->ptxVersion = 90;
  a->binaryVersion = 90;
  a->maxDynamicSharedSizeBytes = static_cast<int>(
      kDefaultSharedPerBlock - std::min<std::size_t>(a->sharedSizeBytes, kDefaultSharedPerBlock));
  a->preferredShmemCarveout = -1;
  auto& at = attributes();
  std::lock_guard lock(at.mutex);
  if (const auto it = at.max_dynamic.find(kernel); it != at.max_dynamic.end()) {
    a->maxDynamicSharedSizeBytes = it->second;
  }
  if (const auto it = at.carveout.find(kernel); it != at.carveout.end()) {
    a->preferredShmemCarveout = it->second;
  }
  return cudaSuccess;
}

cudaError_t occupancy_max_active_blocks(int* blocks, const void* kernel, int block_size,
                                        size_t dynamic_shared_bytes, unsigned int flags) {
  if (blocks == nullptr || (flags & ~cudaOccupancyDisableCachingOverride) != 0) {
    return set_error(cudaErrorInvalidValue);
  }
  if (kernel == nullptr) return set_error(cudaErrorInvalidDeviceFunction);
  if (block_size <= 0) return set_error(cudaErrorInvalidValue);
  calc::OccupancyInput in;
  in.threads = block_size;
  in.registers = 0;
  in.static_shared = static_cast<std::int64_t>(simt::detail::static_shared_erased(kernel));
  in.dynamic_shared = static_cast<std::int64_t>(dynamic_shared_bytes);
  in.carveout_percent = carveout_of(kernel);
  try {
    *blocks = calc::occupancy(emulated_arch(), in).blocks;
  } catch (const std::invalid_argument&) {
    return set_error(cudaErrorInvalidValue);
  }
  return cudaSuccess;
}

// cuda_occupancy.h's rule (cudaOccAvailableDynamicSMemPerBlock): the shared memory an SM gives
// `blocks` blocks, each rounded down to the allocation unit and capped by a block's limit, less
// the static shared memory and at most the kernel's dynamic limit.
cudaError_t occupancy_available_dynamic_shared(size_t* bytes, const void* kernel, int blocks,
                                               int block_size) {
  if (bytes == nullptr || blocks <= 0) return set_error(cudaErrorInvalidValue);
  if (kernel == nullptr) return set_error(cudaErrorInvalidDeviceFunction);
  int fit = 0;
  if (const cudaError_t e = occupancy_max_active_blocks(&fit, kernel, block_size, 0, 0);
      e != cudaSuccess) {
    return e;
  }
  if (fit < blocks) return set_error(cudaErrorInvalidValue);
  cudaFuncAttributes a;
  func_get_attributes(&a, kernel);
  const calc::ArchInfo& arch = emulated_arch();
  const std::int64_t unit = arch.shared_alloc_unit;
  // The opt-in limit applies once the kernel asked for more than the default.
  const bool opted_in = static_cast<std::int64_t>(a.sharedSizeBytes) + a.maxDynamicSharedSizeBytes >
                        kDefaultSharedPerBlock;
  const std::int64_t per_block_limit =
      (opted_in ? arch.max_shared_memory_per_block_kib * 1024 : kDefaultSharedPerBlock) +
      arch.reserved_shared_per_block;
  const std::int64_t per_sm =
      blocks == 1 ? per_block_limit : calc::shared_for_carveout(arch, carveout_of(kernel));
  std::int64_t available = per_sm / blocks / unit * unit;
  available = std::min(available, per_block_limit);
  available -= static_cast<std::int64_t>(a.sharedSizeBytes);
  available = std::min<std::int64_t>(available, a.maxDynamicSharedSizeBytes);
  *bytes = static_cast<size_t>(std::max<std::int64_t>(available, 0));
  return cudaSuccess;
}

// ---- cudaLaunchKernel: a kernel named by its address, with an array of pointers to its arguments

namespace {

// A stream a launch may name: a default one or one the program made.
bool stream_usable(cudaStream_t s) {
  if (s == nullptr || s == cudaStreamLegacy || s == cudaStreamPerThread) return true;
  std::lock_guard lock(state().mutex);
  return state().streams.count(s) != 0;
}

}  // namespace

cudaError_t launch_with_arguments(const void* kernel, dim3 grid, dim3 block, void** args,
                                  size_t shared_bytes, cudaStream_t stream,
                                  const std::source_location& where, LaunchFromArguments launch,
                                  bool cooperative) {
  const char* name = cooperative ? "cudaLaunchCooperativeKernel" : "cudaLaunchKernel";
  if (kernel == nullptr) return set_error(cudaErrorInvalidDeviceFunction);
  if (const char* registered = nullptr;
      LaunchFromArguments found = registered_kernel(kernel, &registered)) {
    name = registered;
    if (launch == nullptr) launch = found;
  }
  // A kernel the rewrite could not register (a template's instantiation) named by a void*.
  if (launch == nullptr) return set_error(cudaErrorInvalidDeviceFunction);
  if (!stream_usable(stream)) {
    return set_error(cudaErrorInvalidResourceHandle);
  }
  // The launch's own error, as cudaLaunchKernel returns it; an earlier error stays pending.
  const cudaError_t earlier = cudaGetLastError();
  LaunchConfig c = config(grid, block, shared_bytes, stream);
  c.cooperative = cooperative;
  launch(kernel, LaunchSite{name, where.file_name(), static_cast<int>(where.line())}, c, args);
  const cudaError_t e = cudaPeekAtLastError();
  if (e == cudaSuccess && earlier != cudaSuccess) set_error(earlier);
  return e;
}

}  // namespace gpulab::rt

cudaError_t cudaLaunchKernel(const void* kernel, dim3 grid, dim3 block, void** args,
                             size_t shared_bytes, cudaStream_t stream, std::source_location where) {
  return gpulab::rt::launch_with_arguments(kernel, grid, block, args, shared_bytes, stream, where,
                                           nullptr, false);
}

cudaError_t cudaLaunchCooperativeKernel(const void* kernel, dim3 grid, dim3 block, void** args,
                                        size_t shared_bytes, cudaStream_t stream,
                                        std::source_location where) {
  return gpulab::rt::launch_with_arguments(kernel, grid, block, args, shared_bytes, stream, where,
                                           nullptr, true);
}
