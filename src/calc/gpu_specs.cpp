// The compute-capability table, each figure with its source, and the lookups of the GPU spec sheets
// (the sheets themselves are data: gpu_models.json, read by gpu_models.cpp; see gpu_specs.hpp and
// docs/gpu-models.md). Pure data and arithmetic: nothing here touches CUDA.
#include "calc/gpu_specs.hpp"

#include <array>
#include <cctype>

namespace gpulab::calc {
namespace {

// Shared-memory sizes an SM can configure its unified L1/shared memory to (cuda_occupancy.h,
// cudaOccAlignUpShmemSizeVoltaPlus): the driver picks the carve-out the preference asks for, or the
// smallest one that holds a block.
constexpr int kCarveoutsVolta[] = {0, 8, 16, 32, 64, 96};
constexpr int kCarveoutsTuring[] = {32, 64};
constexpr int kCarveouts100[] = {0, 8, 16, 32, 64, 100};
constexpr int kCarveouts164[] = {0, 8, 16, 32, 64, 100, 132, 164};
constexpr int kCarveouts228[] = {0, 8, 16, 32, 64, 100, 132, 164, 196, 228};

// Columns: major, minor, architecture, cores/SM, warp schedulers/SM, threads/SM, warps/SM,
// blocks/SM, shared KiB/SM, shared KiB/block (opt-in), 32-bit registers/SM, registers/thread,
// threads/block; then the allocation columns: registers/block, register allocation unit,
// registers allocated per block (1.x), warp allocation granularity, shared allocation unit
// (bytes), shared bytes reserved per block, shared KiB/block without opt-in, carve-outs.
//
// Allocation columns: cuda_occupancy.h (CUDA 13.0) for 3.0 and later (register unit 256, 4
// sub-partitions, 2 on 6.0; shared unit 256 up to 7.x, 128 since 8.0; the per-block reserve
// since 8.0); NVIDIA's CUDA Occupancy Calculator spreadsheet (CUDA_Occupancy_Calculator.xls,
// "GPU Data") for 1.x and 2.x (1.x: registers per block in units of 256 or 512 after rounding
// the warps up to 2, shared unit 512; 2.x: unit 64 per warp, granularity 2, shared unit 128);
// registers per block from the Programming Guide's table (32 K on 3.2, 5.3 and 6.2).
//
// cores/SM: cuda-samples helper_cuda.h _ConvertSMVer2Cores (its older versions for 1.x and 2.x).
// Threads, warps, blocks, shared memory: the CUDA C++ Programming Guide's compute-capability
// table, checked against CUDA 13.0's cuda_occupancy.h (blocks per SM, shared-memory carve-outs,
// warp sub-partitions) and CCCL's cuda/__device/arch_traits.h (6.0 to 12.1).
// Since 8.0 the driver reserves 1 KiB of shared memory per block, hence 164 -> 163 KiB opt-in.
// clang-format off
constexpr std::array<ArchInfo, 29> kArchs{{
    {1, 0, "Tesla", 8, 1, 768, 24, 8, 16, 16, 8192, 0, 512,
     8192, 256, true, 2, 512, 0, 16, {}},
    {1, 1, "Tesla", 8, 1, 768, 24, 8, 16, 16, 8192, 0, 512,
     8192, 256, true, 2, 512, 0, 16, {}},
    {1, 2, "Tesla", 8, 1, 1024, 32, 8, 16, 16, 16384, 0, 512,
     16384, 512, true, 2, 512, 0, 16, {}},
    {1, 3, "Tesla", 8, 1, 1024, 32, 8, 16, 16, 16384, 0, 512,
     16384, 512, true, 2, 512, 0, 16, {}},
    {2, 0, "Fermi", 32, 2, 1536, 48, 8, 48, 48, 32768, 63, 1024,
     32768, 64, false, 2, 128, 0, 48, {}},
    {2, 1, "Fermi", 48, 2, 1536, 48, 8, 48, 48, 32768, 63, 1024,
     32768, 64, false, 2, 128, 0, 48, {}},
    {3, 0, "Kepler", 192, 4, 2048, 64, 16, 48, 48, 65536, 63, 1024,
     65536, 256, false, 4, 256, 0, 48, {}},
    {3, 2, "Kepler", 192, 4, 2048, 64, 16, 48, 48, 65536, 255, 1024,
     32768, 256, false, 4, 256, 0, 48, {}},
    {3, 5, "Kepler", 192, 4, 2048, 64, 16, 48, 48, 65536, 255, 1024,
     65536, 256, false, 4, 256, 0, 48, {}},
    {3, 7, "Kepler", 192, 4, 2048, 64, 16, 112, 48, 131072, 255, 1024,
     65536, 256, false, 4, 256, 0, 48, {}},
    {5, 0, "Maxwell", 128, 4, 2048, 64, 32, 64, 48, 65536, 255, 1024,
     65536, 256, false, 4, 256, 0, 48, {}},
    {5, 2, "Maxwell", 128, 4, 2048, 64, 32, 96, 48, 65536, 255, 1024,
     65536, 256, false, 4, 256, 0, 48, {}},
    {5, 3, "Maxwell", 128, 4, 2048, 64, 32, 64, 48, 65536, 255, 1024,
     32768, 256, false, 4, 256, 0, 48, {}},
    {6, 0, "Pascal", 64, 2, 2048, 64, 32, 64, 48, 65536, 255, 1024,
     65536, 256, false, 2, 256, 0, 48, {}},
    {6, 1, "Pascal", 128, 4, 2048, 64, 32, 96, 48, 65536, 255, 1024,
     65536, 256, false, 4, 256, 0, 48, {}},
    {6, 2, "Pascal", 128, 4, 2048, 64, 32, 64, 48, 65536, 255, 1024,
     32768, 256, false, 4, 256, 0, 48, {}},
    {7, 0, "Volta", 64, 4, 2048, 64, 32, 96, 96, 65536, 255, 1024,
     65536, 256, false, 4, 256, 0, 48, kCarveoutsVolta},
    {7, 2, "Volta", 64, 4, 2048, 64, 32, 96, 96, 65536, 255, 1024,
     65536, 256, false, 4, 256, 0, 48, kCarveoutsVolta},
    {7, 5, "Turing", 64, 4, 1024, 32, 16, 64, 64, 65536, 255, 1024,
     65536, 256, false, 4, 256, 0, 48, kCarveoutsTuring},
    {8, 0, "Ampere", 64, 4, 2048, 64, 32, 164, 163, 65536, 255, 1024,
     65536, 256, false, 4, 128, 1024, 48, kCarveouts164},
    {8, 6, "Ampere", 128, 4, 1536, 48, 16, 100, 99, 65536, 255, 1024,
     65536, 256, false, 4, 128, 1024, 48, kCarveouts100},
    {8, 7, "Ampere", 128, 4, 1536, 48, 16, 164, 163, 65536, 255, 1024,
     65536, 256, false, 4, 128, 1024, 48, kCarveouts164},
    {8, 9, "Ada Lovelace", 128, 4, 1536, 48, 24, 100, 99, 65536, 255, 1024,
     65536, 256, false, 4, 128, 1024, 48, kCarveouts100},
    {9, 0, "Hopper", 128, 4, 2048, 64, 32, 228, 227, 65536, 255, 1024,
     65536, 256, false, 4, 128, 1024, 48, kCarveouts228},
    {10, 0, "Blackwell", 128, 4, 2048, 64, 32, 228, 227, 65536, 255, 1024,
     65536, 256, false, 4, 128, 1024, 48, kCarveouts228},
    {10, 3, "Blackwell", 128, 4, 2048, 64, 32, 228, 227, 65536, 255, 1024,
     65536, 256, false, 4, 128, 1024, 48, kCarveouts228},
    {11, 0, "Blackwell", 128, 4, 1536, 48, 24, 228, 227, 65536, 255, 1024,
     65536, 256, false, 4, 128, 1024, 48, kCarveouts228},
    {12, 0, "Blackwell", 128, 4, 1536, 48, 24, 100, 99, 65536, 255, 1024,
     65536, 256, false, 4, 128, 1024, 48, kCarveouts100},
    {12, 1, "Blackwell", 128, 4, 1536, 48, 24, 100, 99, 65536, 255, 1024,
     65536, 256, false, 4, 128, 1024, 48, kCarveouts100},
}};
// clang-format on

constexpr std::array<std::string_view, 6> kArchSources{{
    "NVIDIA, CUDA C++ Programming Guide, \"Compute Capabilities\" (technical specifications per "
    "compute capability): https://docs.nvidia.com/cuda/cuda-c-programming-guide/",
    "NVIDIA, CUDA C Programming Guide 4.2 (2012), Appendix F, and CUDA Programming Guide 2.x, "
    "Appendix A (compute capability 1.x: 768 threads, 24 warps and 8 blocks per multiprocessor "
    "on 1.0/1.1, 1024 threads and 32 warps on 1.2/1.3, 8192/16384 registers, 16 KB shared, "
    "512 threads per block)",
    "CUDA 13.0 toolkit, include/cuda_occupancy.h: blocks per SM, shared-memory carve-outs per SM "
    "(Volta 96 KB, Turing 64 KB, 8.0/8.7 164 KB, 8.6/8.9 100 KB, 9.x/10.x 228 KB, 12.x 100 KB), "
    "warp sub-partitions per SM",
    "NVIDIA CCCL, libcudacxx/include/cuda/__device/arch_traits.h: threads, blocks and shared "
    "memory per SM for 6.0 to 12.1: https://github.com/NVIDIA/cccl",
    "NVIDIA, CUDA Occupancy Calculator spreadsheet (CUDA_Occupancy_Calculator.xls, shipped with "
    "the toolkit until CUDA 11), \"GPU Data\" sheet: register and shared-memory allocation units "
    "and granularities for compute capability 1.0 to 8.6 (used here for 1.x and 2.x)",
    "NVIDIA cuda-samples, Common/helper_cuda.h, _ConvertSMVer2Cores (cores per SM; its older "
    "versions list 8 for 1.x, 32 for 2.0, 48 for 2.1): https://github.com/NVIDIA/cuda-samples",
}};

}  // namespace

std::optional<ArchInfo> arch_info(int major, int minor) {
  for (const ArchInfo& a : kArchs) {
    if (a.major == major && a.minor == minor) return a;
  }
  return std::nullopt;
}

std::span<const ArchInfo> known_archs() {
  return kArchs;
}

std::span<const std::string_view> arch_sources() {
  return kArchSources;
}

std::string model_key(std::string_view name) {
  std::string key;
  for (char c : name) {
    const auto u = static_cast<unsigned char>(c);
    if (std::isalnum(u) != 0) key += static_cast<char>(std::tolower(u));
  }
  return key;
}

const GpuModel* find_model(std::string_view name) {
  const std::string key = model_key(name);
  if (key.empty()) return nullptr;
  for (const GpuModel& m : gpu_models()) {
    if (model_key(m.name) == key) return &m;
    for (std::string_view alias : m.aliases) {
      if (model_key(alias) == key) return &m;
    }
  }
  return nullptr;
}

double ddr_bandwidth_gbs(double memory_clock_mhz, int bus_bits) {
  return 2.0 * memory_clock_mhz * 1e6 * static_cast<double>(bus_bits) / 8.0 / 1e9;
}

double fp32_peak_tflops(long long cores, double clock_mhz) {
  return static_cast<double>(cores) * 2.0 * clock_mhz * 1e6 / 1e12;
}

}  // namespace gpulab::calc
