// What gpulab knows about GPUs without asking one: per-architecture limits by compute capability,
// and the spec sheets of the GPUs the course mentions (with their sources).
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/json_fields.hpp"

namespace gpulab::calc {

// Per compute capability (CUDA C++ Programming Guide, "Compute Capabilities" table).
struct ArchInfo {
  int major = 0, minor = 0;
  std::string_view architecture;  // "Hopper", "Ampere", ...
  int cores_per_sm = 0;           // FP32 CUDA cores per SM
  int warp_schedulers_per_sm = 0;
  int max_threads_per_sm = 0;
  int max_warps_per_sm = 0;
  int max_blocks_per_sm = 0;
  int max_shared_memory_per_sm_kib = 0;
  int max_shared_memory_per_block_kib = 0;  // with the opt-in attribute
  int registers_per_sm = 0;                 // 32-bit registers
  int max_registers_per_thread = 0;         // 0: not confirmed (compute capability 1.x)
  int max_threads_per_block = 0;            // 512 on 1.x, 1024 since 2.0

  // How the SM hands out registers and shared memory to blocks (calc/occupancy.hpp uses them).
  int max_registers_per_block = 0;    // 32-bit registers one block may hold
  int register_alloc_unit = 0;        // registers are allocated in units of this many
  bool registers_per_block = false;   // 1.x: allocated per block; since 2.0 per warp
  int warp_alloc_granularity = 0;     // since 2.0: register sub-partitions (one per scheduler
                                      // on Kepler and later); 1.x: a block's warps round up to it
  int shared_alloc_unit = 0;          // bytes: shared memory is allocated in units of this
  int reserved_shared_per_block = 0;  // bytes the driver keeps per block (1 KiB since 8.0)
  int max_shared_per_block_default_kib = 0;   // without the opt-in attribute
  std::span<const int> shared_carveouts_kib;  // sizes the L1/shared split can take; empty: fixed
};
// The limits in JSON under the members' names (`gpulab device-info --json` adds the compute
// capability and the registers per thread).
GPULAB_JSON_WRITER(ArchInfo, architecture, cores_per_sm, warp_schedulers_per_sm, max_threads_per_sm,
                   max_warps_per_sm, max_blocks_per_sm, max_shared_memory_per_sm_kib,
                   max_shared_memory_per_block_kib, registers_per_sm, max_threads_per_block)
// Unknown compute capabilities return nothing: callers say "unknown", never guess.
std::optional<ArchInfo> arch_info(int major, int minor);
// Every compute capability in the table, oldest first.
std::span<const ArchInfo> known_archs();
// Where the arch_info() figures come from.
std::span<const std::string_view> arch_sources();

// What the course notes' spec table says, and what the sources say.
struct NotesErratum {
  std::string_view field;          // "CUDA Cores / SM"
  std::string_view notes_say;      // "192"
  std::string_view correct;        // "128"
  std::string_view field_zh = {};  // the field and the correction in Chinese (empty: as in English)
  std::string_view correct_zh = {};
  std::string_view notes_say_zh = {};  // empty: the notes' words are the same in both languages
};

// A spec sheet: one record of src/calc/gpu_models.json (data, compiled in; read by
// calc/gpu_models.cpp); every figure has a source in its record.
// A figure that could not be confirmed is 0 (unknown): callers print "unknown", never a guess.
struct GpuModel {
  std::string_view name;                  // "NVIDIA H100 SXM5 80GB"
  std::vector<std::string_view> aliases;  // keys accepted by --model: "h100", "rtx 4090", ...
  std::string_view architecture;
  int cc_major = 0, cc_minor = 0;
  int year = 0;
  int sms = 0;
  int cores_per_sm = 0;
  int cores = 0;
  int tensor_cores = 0;  // 0: none
  std::string_view tensor_core_generation;
  double memory_gib = 0;
  std::string_view memory_type;
  int memory_bus_bits = 0;
  double memory_bandwidth_gbs = 0;
  double l2_kib = 0;
  double l1_shared_per_sm_kib = 0;
  double register_file_per_sm_kib = 0;
  int max_threads_per_sm = 0;
  int max_warps_per_sm = 0;
  int max_blocks_per_sm = 0;
  double boost_clock_mhz = 0;
  double fp32_tflops = 0;
  double power_w = 0;
  double transistors_billion = 0;
  std::vector<std::string_view> sources;
  std::string_view note;     // which variant, what is unknown, what the notes got right
  std::string_view note_zh;  // the same note in Chinese

  std::string_view chip;  // "GH100"
  int rt_cores = 0;       // ray-tracing cores; 0: none
  std::string_view rt_core_generation;
  double memory_data_rate_gbps = 0;        // per pin; bandwidth = rate x bus bits / 8
  std::vector<NotesErratum> notes_errata;  // where the course notes' spec table differs
};
std::span<const GpuModel> gpu_models();
// By name or alias, case- and space-insensitive: "H100", "rtx 4090", "RTX4090", "g80".
const GpuModel* find_model(std::string_view name);
// The key names are compared by: lower-case letters and digits only ("RTX-4090" -> "rtx4090").
std::string model_key(std::string_view name);

// Theoretical DRAM bandwidth in GB/s (10^9 bytes/s): DDR memory moves data on both clock edges,
// so 2 transfers per memory clock, each as wide as the bus: 2 x clock x bus bits / 8.
double ddr_bandwidth_gbs(double memory_clock_mhz, int bus_bits);
// FP32 peak in TFLOPS: every core finishes one fused multiply-add (2 FLOP) per clock.
double fp32_peak_tflops(long long cores, double clock_mhz);

}  // namespace gpulab::calc
