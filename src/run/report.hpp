// The report a program built by `gpulab run` leaves for gpulab, declared once: the environment
// gpulab sets for the child, every event the child writes, every finding kind and their fields.
// The writers (the emulator runtime, src/run/runtime/; the GPU launch log, src/run/gpu/) and the
// reader (the engine, src/run/session.cpp) use these names; docs/run.md documents the JSON the
// user sees, which is built from them.
//
// This header is plain C++ with no dependencies: the launch log is linked into programs nvcc
// builds, and the runtime into programs g++ builds against the emulator kit.
#pragma once

namespace gpulab::run::report {

// The report's format. Raise it when an event or a field changes meaning; the emulator writes it
// in its "start" line.
inline constexpr int kFormatVersion = 1;

// ---- The environment contract: what gpulab sets in the child's environment. ----
// The file the child appends its JSON lines to (one object per line, written as things happen,
// so that a crash loses nothing). Unset: the program runs as a plain CUDA program, no report.
inline constexpr const char* kEnvReport = "GPULAB_RUN_REPORT";
// "1": the memory checks of --check (the program was compiled with instrumentation).
inline constexpr const char* kEnvCheck = "GPULAB_RUN_CHECK";
// The emulator's worker threads (a decimal number; unset: one per core).
inline constexpr const char* kEnvWorkers = "GPULAB_RUN_WORKERS";
// --shuffle-blocks: the seed of the blocks' order (a decimal number).
inline constexpr const char* kEnvShuffle = "GPULAB_RUN_SHUFFLE";
// What the program sees as argv[0]: `./NAME` for NAME.cu, as after `nvcc NAME.cu -o NAME`, not
// the path of gpulab's cached build (a sample's usage line and "required for ./simpleP2P").
inline constexpr const char* kEnvArgv0 = "GPULAB_RUN_ARGV0";
// "1": gpulab profile's counters (the program was built as Target::emulator_profiled); a
// "profile" line follows each launch.
inline constexpr const char* kEnvProfile = "GPULAB_RUN_PROFILE";

// ---- Events: the "event" field of every line. ----
inline constexpr const char* kEventField = "event";
namespace event {
// The emulator started: {check: bool, profile: bool, workers: number, format: kFormatVersion}.
inline constexpr const char* start = "start";
// One kernel launch. Emulator: {kernel, site "FILE:LINE", grid [3], block [3], shared_bytes,
// threads, warps, warps_per_block, idle_lanes_per_block, barriers, collectives,
// static_shared_bytes, ms, races_not_listed?, fault? | error?, error_message? and
// error_message_zh?}. GPU launch log: {frames [return addresses], grid [3], block [3],
// shared_bytes, error?}.
inline constexpr const char* launch = "launch";
// A kernel launch starts (emulator): {kernel, site, grid [3], block [3]}. The "launch" line
// follows when it ends; a report that ends after this line ended inside the launch (a crash,
// --timeout), which gpulab then names.
inline constexpr const char* launch_begin = "launch_begin";
// More launches ran than are listed one by one (the rest are only counted).
inline constexpr const char* launches_not_listed = "launches_not_listed";
// A bug found: {kind (see kind:: below), ...the kind's fields}.
inline constexpr const char* finding = "finding";
// The program died of a signal: {signal, address, pc (the faulting instruction), kernel?, site?,
// block? [3], thread? [3], indices_overwritten? (the block and thread were not readable: the
// fault overwrote the emulator's record of them)}.
inline constexpr const char* crash = "crash";
// The emulated program's exit: {launches, lost_printf_bytes, dropped_printf_bytes,
// lost_printf_first_line?}.
inline constexpr const char* exit = "exit";
// The GPU program's exit: {launches}.
inline constexpr const char* gpu_exit = "gpu_exit";
// The access recorder of `gpulab exercise` (simt/access_record): per-launch access counts.
inline constexpr const char* record = "record";
// gpulab profile's counters of one launch (simt/profile_gather, docs/profile.md): {kernel,
// launch_site, grid [3], block [3], has_branches, accesses [{pc, space "global"|"shared", op
// "ld"|"st", width, requests, sectors, ideal_sectors, bytes_used | wavefronts, ideal_wavefronts,
// conflicts, worst_way, array; example {block [3], warp, width, addresses [32, null = idle]}}],
// branches [{pc, targets [pc], uniform, divergent, example {block, warp, active, lanes [mask per
// target]}}], blocks [{pc, inst, thread_inst}]}.
inline constexpr const char* profile = "profile";
// Lines whose event starts with this are the exercise harness's own (exercises/harness.cuh):
// exercise_start, exercise_test, exercise_limit, exercise_buffer, exercise_result,
// exercise_error, exercise_end. gpulab run passes them on untouched (RunResult::other_events).
inline constexpr const char* exercise_prefix = "exercise_";
}  // namespace event

// ---- Finding kinds: the "kind" field of a finding line. ----
inline constexpr const char* kKindField = "kind";
namespace kind {
// A kernel's access outside its allocation: {kernel, launch_site, block, thread, write, atomic,
// bytes, pc, region, region_site, region_bytes, offset, address, hits}.
inline constexpr const char* out_of_bounds = "out_of_bounds";
// A kernel touched memory no cudaMalloc returned (the same fields).
inline constexpr const char* host_memory = "host_memory";
// A kernel read device memory never written (the same fields).
inline constexpr const char* uninitialized_read = "uninitialized_read";
// cudaMemcpy copied unwritten bytes back: {copied, allocation_bytes, allocation_site, bytes,
// first_offset, site}.
inline constexpr const char* uninitialized_copy = "uninitialized_copy";
// Two unordered accesses to global memory (the access fields, plus other_block, other_thread,
// other_write, other_pc).
inline constexpr const char* global_race = "global_race";
// A race on shared memory: {kernel, launch_site, block, thread, other_thread, write,
// other_write, array, dynamic, index, byte_offset, barrier_interval, pc, other_pc, message}.
inline constexpr const char* shared_race = "shared_race";
// The kernel stopped with an error (a barrier not all threads reach, ...): {kernel,
// launch_site, message, message_zh? (an illegal address, worded in Chinese too), pc?}.
inline constexpr const char* kernel_fault = "kernel_fault";
// Memory never freed: {bytes, allocator, site, when "exit" | "cudaDeviceReset"}.
inline constexpr const char* leak = "leak";
// The program ended without waiting for its last kernel: {kernel, site, lost_printf_bytes}.
inline constexpr const char* unsynchronized_exit = "unsynchronized_exit";
// A failed launch the program never asked about: {kernel, site, error}.
inline constexpr const char* unchecked_launch_error = "unchecked_launch_error";
// GPU --check only (compute-sanitizer, read by run/sanitizer.cpp): a misaligned access (the
// access fields), and a launch the CUDA runtime refused {error, api}, which is listed but does not
// fail the check (the program may check it itself). Findings read from compute-sanitizer carry
// "tool" (memcheck, racecheck, synccheck, initcheck) and the tool's own first line ("message").
inline constexpr const char* misaligned_access = "misaligned_access";
inline constexpr const char* launch_error = "launch_error";

// Every kind, in the order docs/run.md lists them: the kinds --check counts as failures.
inline constexpr const char* all[] = {out_of_bounds,       host_memory,
                                      uninitialized_read,  uninitialized_copy,
                                      global_race,         shared_race,
                                      kernel_fault,        leak,
                                      unsynchronized_exit, unchecked_launch_error,
                                      misaligned_access};
}  // namespace kind

}  // namespace gpulab::run::report
