// The compute-capability table and the GPU spec sheets, each figure with its source (see
// gpu_specs.hpp and docs/gpu-models.md). Pure data and arithmetic: nothing here touches CUDA.
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

std::vector<GpuModel> build_models() {
  std::vector<GpuModel> v;

  {
    GpuModel m;
    m.name = "NVIDIA GeForce 8800 GTX (G80)";
    m.aliases = {"g80", "8800 gtx", "geforce 8800 gtx", "8800"};
    m.chip = "G80";
    m.architecture = "Tesla";
    m.cc_major = 1;
    m.cc_minor = 0;
    m.year = 2006;
    m.sms = 16;
    m.cores_per_sm = 8;
    m.cores = 128;
    m.memory_gib = 0.75;
    m.memory_type = "GDDR3";
    m.memory_bus_bits = 384;
    m.memory_data_rate_gbps = 1.8;  // 900 MHz, both edges
    m.memory_bandwidth_gbs = 86.4;
    m.l2_kib = 0;                     // no L2 cache for global memory on compute capability 1.x
    m.l1_shared_per_sm_kib = 16;      // shared memory only: 1.x has no L1 data cache
    m.register_file_per_sm_kib = 32;  // 8192 x 32-bit registers
    m.max_threads_per_sm = 768;
    m.max_warps_per_sm = 24;
    m.max_blocks_per_sm = 8;
    m.boost_clock_mhz = 1350;  // the shader clock (no boost clocks in 2006); the core runs at 575
    m.fp32_tflops = 0.3456;    // 128 x 2 FLOP (multiply-add) x 1.35 GHz
    m.power_w = 0;             // not confirmed: reviews quote NVIDIA's figure differently
    m.transistors_billion = 0.681;
    m.sources = {
        "NVIDIA, CUDA Programming Guide 1.0/2.x, Appendix A: compute capability 1.0 (G80), 16 "
        "multiprocessors on the 8800 GTX, 8 processors each; 768 threads, 24 warps, 8 blocks, "
        "8192 registers and 16 KB shared memory per multiprocessor; 512 threads per block",
        "Tom's Hardware, \"GeForce 8800: Here Comes the DX10 Boom\" (2006): 16 blocks of 8 "
        "streaming processors = 128, shader clock 1,350 MHz, core 575 MHz: "
        "https://www.tomshardware.com/reviews/geforce-8800,1357-3.html",
        "NVIDIA GeForce 8800 launch material as reported in 2006 (e.g. techamok.com): 768 MB "
        "GDDR3 at 900 MHz (1.8 GHz effective) on a 384-bit bus; 681 million transistors",
    };
    m.note =
        "Bandwidth: 1.8 Gbit/s per pin x 384 bits / 8 = 86.4 GB/s. FP32 counts one multiply-add "
        "per core per clock; NVIDIA's 2006 figure (~518 GFLOPS) also counted a co-issued MUL. "
        "Board power is left unknown (sources disagree). Compute capability 1.x has no L1/L2 "
        "cache for global memory: every playground trip went to DRAM. The notes' worked question "
        "counts right for the G80: 3 blocks x 256 threads = 768 threads = 24 warps, all "
        "resident, exactly its limit (a 4th block waits). Its one scheduler issues one warp's "
        "instruction per issue slot (over 4 cycles on 8 cores), but the other warps are not "
        "stopped: they stay resident and many are in flight, waiting on memory, so \"only one "
        "warp runs at any moment\" is wrong (errata #9). Kepler, Maxwell and most later SMs have "
        "4 warp schedulers; GP100 (compute capability 6.0) has 2.";
    m.note_zh =
        "带宽：每针脚 1.8 Gbit/s x 384 位 / 8 = 86.4 GB/s。FP32 按每核每时钟一次乘加计算；NVIDIA "
        "2006 年的数字（约 518 GFLOPS）还算上了同时发射的一次 MUL。整卡功耗未知（各来源说法不一）。"
        "计算能力 1.x 的全局内存没有 L1/L2 缓存：每次去操场都要到 DRAM。笔记的例题对 G80 的计数"
        "是对的：3 个线程块 x 256 个线程 = 768 个线程 = 24 个线程束，全部驻留，正好是它的上限"
        "（第 4 个线程块要等）。它唯一的调度器每个发射时隙发射一个线程束的一条指令（8 个核上"
        "分 4 个周期），但其他线程束并没有停下：它们仍驻留在 SM 上，许多正在执行中、等待内存，"
        "所以“任意时刻只有一个线程束在运行”是错的（勘误 #9）。Kepler、Maxwell 和之后大多数 SM "
        "有 4 个线程束调度器；GP100（计算能力 6.0）只有 2 个。";
    m.notes_errata = {
        {"Threads per block (class size)", "1024 (said of every GPU)",
         "512 on compute capability 1.x (the G80); 1024 since 2.0",
         "每个线程块的线程数（班级人数）", "计算能力 1.x（G80）上为 512；从 2.0 起为 1024",
         "1024（说是所有 GPU 都如此）"},
    };
    v.push_back(std::move(m));
  }

  {
    GpuModel m;
    m.name = "NVIDIA T4";
    m.aliases = {"t4", "tesla t4"};
    m.chip = "TU104";
    m.architecture = "Turing";
    m.cc_major = 7;
    m.cc_minor = 5;
    m.year = 2018;
    m.sms = 40;
    m.cores_per_sm = 64;
    m.cores = 2560;
    m.tensor_cores = 320;
    m.tensor_core_generation = "2nd (Turing)";
    m.rt_cores = 40;
    m.rt_core_generation = "1st";
    m.memory_gib = 16;
    m.memory_type = "GDDR6";
    m.memory_bus_bits = 256;
    m.memory_data_rate_gbps = 10;  // deviceQuery: 5001 MHz memory clock, both edges
    m.memory_bandwidth_gbs = 320;
    m.l2_kib = 4096;
    m.l1_shared_per_sm_kib = 96;
    m.register_file_per_sm_kib = 256;
    m.max_threads_per_sm = 1024;
    m.max_warps_per_sm = 32;
    m.max_blocks_per_sm = 16;
    m.boost_clock_mhz = 1590;
    m.fp32_tflops = 8.1;
    m.power_w = 70;
    m.transistors_billion = 13.6;
    m.sources = {
        "NVIDIA T4 Tensor Core GPU datasheet: 2,560 CUDA cores, 320 Turing Tensor Cores, 16 GB "
        "GDDR6 (320+ GB/s), 8.1 TFLOPS FP32, 70 W: "
        "https://www.nvidia.com/en-us/data-center/tesla-t4/",
        "NVIDIA Turing GPU Architecture whitepaper (WP-09183-001): Turing SM = 64 FP32 cores, 8 "
        "Tensor Cores, 1 RT core, 256 KB register file, 96 KB L1/shared; TU104 = 13.6 billion "
        "transistors",
        "deviceQuery on a Tesla T4: 40 multiprocessors x 64 cores = 2560, 1590 MHz, memory clock "
        "5001 MHz, 256-bit, L2 4,194,304 bytes, 1024 threads per multiprocessor: "
        "https://gist.github.com/Terminus-IMRC/5e4b7782c27106dec287050b323cd059",
    };
    m.note =
        "The notes' T4 example (40 SMs x 64 streaming processors) is right. Bandwidth: 2 x 5001 "
        "MHz x 256 bits / 8 = 320 GB/s.";
    m.note_zh =
        "笔记中的 T4 例子（40 个 SM x 64 个流处理器）是对的。带宽：2 x 5001 MHz x 256 位 / 8 = "
        "320 GB/s。";
    v.push_back(std::move(m));
  }

  {
    GpuModel m;
    m.name = "NVIDIA GeForce RTX 2080 (Founders Edition)";
    m.aliases = {"rtx2080", "2080", "geforce rtx 2080", "nvidia geforce rtx 2080", "rtx 2080 fe"};
    m.chip = "TU104";
    m.architecture = "Turing";
    m.cc_major = 7;
    m.cc_minor = 5;
    m.year = 2018;
    m.sms = 46;
    m.cores_per_sm = 64;
    m.cores = 2944;
    m.tensor_cores = 368;
    m.tensor_core_generation = "2nd (Turing)";
    m.rt_cores = 46;
    m.rt_core_generation = "1st";
    m.memory_gib = 8;
    m.memory_type = "GDDR6";
    m.memory_bus_bits = 256;
    m.memory_data_rate_gbps = 14;
    m.memory_bandwidth_gbs = 448;
    m.l2_kib = 4096;
    m.l1_shared_per_sm_kib = 96;
    m.register_file_per_sm_kib = 256;
    m.max_threads_per_sm = 1024;
    m.max_warps_per_sm = 32;
    m.max_blocks_per_sm = 16;
    m.boost_clock_mhz = 1800;  // Founders Edition; the reference card boosts to 1710 MHz
    m.fp32_tflops = 10.6;      // 2944 x 2 x 1.8 GHz; 10.1 at the reference 1710 MHz
    m.power_w = 225;           // Founders Edition; reference 215 W
    m.transistors_billion = 13.6;
    m.sources = {
        "NVIDIA Turing GPU Architecture whitepaper (WP-09183-001), Appendix A, GeForce RTX 2080 "
        "Founders Edition: 46 SMs, 2,944 CUDA cores, 368 Tensor Cores, 46 RT cores, 448 GB/s, "
        "4,096 KB L2, 225 W, 13.6 billion transistors",
        "Guru3D, GeForce RTX 2080 Founders review: boost 1,800 MHz (FE) / 1,710 MHz (reference), "
        "8 GB GDDR6 at 14 Gbps, 13.6 billion transistors: "
        "https://www.guru3d.com/articles-pages/geforce-rtx-2080-founders-review,2.html",
        "Tom's Hardware, \"Nvidia's Turing Architecture Explored\": TU104 SM = 64 CUDA cores, 8 "
        "Tensor cores, 256 KB registers, 96 KB L1/shared; 256-bit GDDR6, 4 MB L2: "
        "https://www.tomshardware.com/reviews/nvidia-turing-gpu-architecture-explored,5801-2.html",
    };
    m.note =
        "Founders Edition figures, as in the course notes (225 W); the reference card has 1710 MHz "
        "and 215 W. Every figure of the notes' RTX 2080 column is right.";
    m.note_zh =
        "Founders Edition 的数字，与课程笔记相同（225 W）；公版卡为 1710 MHz、215 W。笔记中 "
        "RTX 2080 一列的每个数字都是对的。";
    v.push_back(std::move(m));
  }

  {
    GpuModel m;
    m.name = "NVIDIA GeForce RTX 3090";
    m.aliases = {"rtx3090", "3090", "geforce rtx 3090"};
    m.chip = "GA102";
    m.architecture = "Ampere";
    m.cc_major = 8;
    m.cc_minor = 6;
    m.year = 2020;
    m.sms = 82;
    m.cores_per_sm = 128;
    m.cores = 10496;
    m.tensor_cores = 328;
    m.tensor_core_generation = "3rd";
    m.rt_cores = 82;
    m.rt_core_generation = "2nd";
    m.memory_gib = 24;
    m.memory_type = "GDDR6X";
    m.memory_bus_bits = 384;
    m.memory_data_rate_gbps = 19.5;
    m.memory_bandwidth_gbs = 936;
    m.l2_kib = 6144;
    m.l1_shared_per_sm_kib = 128;
    m.register_file_per_sm_kib = 256;
    m.max_threads_per_sm = 1536;
    m.max_warps_per_sm = 48;
    m.max_blocks_per_sm = 16;
    m.boost_clock_mhz = 1695;
    m.fp32_tflops = 35.6;
    m.power_w = 350;
    m.transistors_billion = 28.3;
    m.sources = {
        "NVIDIA Ampere GA102 GPU Architecture whitepaper, GeForce RTX 3090: 82 SMs, 10,496 CUDA "
        "cores, 328 3rd-gen Tensor Cores, 82 2nd-gen RT cores, boost 1,695 MHz, 35.6 TFLOPS, 24 GB "
        "GDDR6X at 19.5 Gbps, 936 GB/s, 6,144 KB L2, 350 W, 28.3 billion transistors",
        "GA102 SM (whitepaper, as quoted in getianao's notes): 128 CUDA cores, 4 3rd-gen Tensor "
        "Cores, 256 KB register file, 128 KB L1/shared per SM; 512 KB L2 per 32-bit memory "
        "controller x 12: https://gist.github.com/getianao",
        "Tom's Hardware RTX 3090 specifications table (2022): same figures",
    };
    m.note = "Every figure of the notes' RTX 3090 column is right.";
    m.note_zh = "笔记中 RTX 3090 一列的每个数字都是对的。";
    v.push_back(std::move(m));
  }

  {
    GpuModel m;
    m.name = "NVIDIA GeForce RTX 4090";
    m.aliases = {"rtx4090", "4090", "geforce rtx 4090"};
    m.chip = "AD102";
    m.architecture = "Ada Lovelace";
    m.cc_major = 8;
    m.cc_minor = 9;
    m.year = 2022;
    m.sms = 128;
    m.cores_per_sm = 128;
    m.cores = 16384;
    m.tensor_cores = 512;
    m.tensor_core_generation = "4th";
    m.rt_cores = 128;
    m.rt_core_generation = "3rd";
    m.memory_gib = 24;
    m.memory_type = "GDDR6X";
    m.memory_bus_bits = 384;
    m.memory_data_rate_gbps = 21;
    m.memory_bandwidth_gbs = 1008;
    m.l2_kib = 73728;  // 72 MB of the full AD102's 96 MB
    m.l1_shared_per_sm_kib = 128;
    m.register_file_per_sm_kib = 256;
    m.max_threads_per_sm = 1536;
    m.max_warps_per_sm = 48;
    m.max_blocks_per_sm = 24;
    m.boost_clock_mhz = 2520;
    m.fp32_tflops = 82.6;
    m.power_w = 450;
    m.transistors_billion = 76.3;
    m.sources = {
        "NVIDIA Ada GPU Architecture whitepaper, GeForce RTX 4090: 128 SMs, 16,384 CUDA cores, 512 "
        "4th-gen Tensor Cores, 128 3rd-gen RT cores, boost 2,520 MHz, 82.6 TFLOPS, 24 GB GDDR6X at "
        "21 Gbps, 1,008 GB/s, 16,384 KB L1, 73,728 KB L2, 32,768 KB registers, 450 W, 76.3 "
        "billion transistors",
        "The FPS Review, RTX 4090 family specifications: Ada SM = 128 CUDA cores, 4 4th-gen "
        "Tensor Cores, 1 RT core, 256 KB register file, 128 KB L1; 384-bit, 1008 GB/s, 2520 MHz: "
        "https://www.thefpsreview.com/gpu-family/nvidia-geforce-rtx-4090-gpu-family-specifications",
        "Tom's Hardware summary of the Ada whitepaper (via mobylak.com): RTX 4090 128 SMs, 16,384 "
        "shaders, 512 tensor cores, 82.6 TFLOPS, 1,008 GB/s, 450 W",
    };
    m.note =
        "The notes' column mixes up generations: an Ada SM has 128 CUDA cores and 4 4th-gen "
        "Tensor Cores. Its L1, L2, register-file, bandwidth, RT-core, power and transistor "
        "figures are right (16,384 KB = 128 SMs x 128 KB).";
    m.note_zh =
        "笔记的这一列混淆了几代架构：一个 Ada SM 有 128 个 CUDA 核心和 4 个第 4 代 Tensor Core。"
        "它的 L1、L2、寄存器文件、带宽、RT 核心、功耗和晶体管数字是对的（16,384 KB = 128 个 "
        "SM x 128 KB）。";
    m.notes_errata = {
        {"CUDA Cores / SM", "192", "128", "CUDA 核心 / SM", "128"},
        {"CUDA Cores / GPU", "24,576", "16,384 (128 SMs x 128)", "CUDA 核心 / GPU",
         "16,384（128 个 SM x 128）"},
        {"Tensor Cores / SM", "6 (3rd Gen)", "4 (4th Gen)", "Tensor Core / SM", "4（第 4 代）",
         "6（第 3 代）"},
        {"Tensor Cores / GPU", "768 (3rd Gen)", "512 (4th Gen)", "Tensor Core / GPU",
         "512（第 4 代）", "768（第 3 代）"},
    };
    v.push_back(std::move(m));
  }

  {
    GpuModel m;
    m.name = "NVIDIA A100 SXM4 40GB";
    m.aliases = {"a100", "a100 sxm4", "a100 40gb", "a100 sxm4 40gb", "a100 sxm"};
    m.chip = "GA100";
    m.architecture = "Ampere";
    m.cc_major = 8;
    m.cc_minor = 0;
    m.year = 2020;
    m.sms = 108;
    m.cores_per_sm = 64;
    m.cores = 6912;
    m.tensor_cores = 432;
    m.tensor_core_generation = "3rd";
    m.memory_gib = 40;
    m.memory_type = "HBM2";
    m.memory_bus_bits = 5120;
    m.memory_data_rate_gbps = 2.43;  // deviceQuery: 1215 MHz memory clock, both edges
    m.memory_bandwidth_gbs = 1555;
    m.l2_kib = 40960;
    m.l1_shared_per_sm_kib = 192;
    m.register_file_per_sm_kib = 256;
    m.max_threads_per_sm = 2048;
    m.max_warps_per_sm = 64;
    m.max_blocks_per_sm = 32;
    m.boost_clock_mhz = 1410;
    m.fp32_tflops = 19.5;
    m.power_w = 400;
    m.transistors_billion = 54.2;
    m.sources = {
        "NVIDIA A100 Tensor Core GPU Architecture whitepaper and the NVIDIA blog \"NVIDIA Ampere "
        "Architecture In-Depth\": 108 SMs, 64 FP32 cores and 4 3rd-gen Tensor Cores per SM, 40 GB "
        "HBM2 at 1555 GB/s, 40 MB L2, 192 KB L1/shared per SM, boost 1410 MHz, 54.2 billion "
        "transistors: https://developer.nvidia.com/blog/nvidia-ampere-architecture-in-depth/",
        "deviceQuery on an A100 SXM4 40GB (Paderborn PC2 documentation): 108 multiprocessors x 64 "
        "cores = 6912, 1410 MHz, memory clock 1215 MHz, 5120-bit, L2 41,943,040 bytes: "
        "https://upb-pc2.atlassian.net/wiki/spaces/PC2DOK/pages/1900609/"
        "NVIDIA+A100+40GB+with+NVLINK",
        "NVIDIA A100 datasheet: 19.5 TFLOPS FP32, 400 W (SXM4)",
    };
    m.note =
        "The 40 GB SXM4 board (2020). The 80 GB SXM4 board has HBM2e at 2,039 GB/s and the same "
        "SMs. The notes' A100 remark (at most 255 registers per thread) is right.";
    m.note_zh =
        "40 GB 的 SXM4 板卡（2020 年）。80 GB 的 SXM4 板卡用 HBM2e，带宽 2,039 GB/s，SM 相同。"
        "笔记中关于 A100 的说法（每个线程最多 255 个寄存器）是对的。";
    v.push_back(std::move(m));
  }

  {
    GpuModel m;
    m.name = "NVIDIA H100 SXM5 80GB";
    // "NVIDIA H100 80GB HBM3" is the name the driver reports for the SXM5 board.
    m.aliases = {"h100",      "h100 sxm",       "h100 sxm5",
                 "h100 80gb", "h100 sxm5 80gb", "nvidia h100 80gb hbm3"};
    m.chip = "GH100";
    m.architecture = "Hopper";
    m.cc_major = 9;
    m.cc_minor = 0;
    m.year = 2022;
    m.sms = 132;
    m.cores_per_sm = 128;
    m.cores = 16896;
    m.tensor_cores = 528;
    m.tensor_core_generation = "4th";
    m.memory_gib = 80;
    m.memory_type = "HBM3";
    m.memory_bus_bits = 5120;
    m.memory_data_rate_gbps = 5.238;  // 2619 MHz memory clock, both edges
    m.memory_bandwidth_gbs = 3352;
    m.l2_kib = 51200;
    m.l1_shared_per_sm_kib = 256;
    m.register_file_per_sm_kib = 256;
    m.max_threads_per_sm = 2048;
    m.max_warps_per_sm = 64;
    m.max_blocks_per_sm = 32;
    m.boost_clock_mhz = 1980;  // the clock behind the FP32 figure (1830 MHz for some tensor math)
    m.fp32_tflops = 66.9;      // the datasheet rounds to 67
    m.power_w = 700;
    m.transistors_billion = 80;
    m.sources = {
        "NVIDIA H100 Tensor Core GPU Architecture whitepaper and the NVIDIA blog \"NVIDIA Hopper "
        "Architecture In-Depth\": H100 SXM5 = 132 SMs, 128 FP32 cores and 4 4th-gen Tensor Cores "
        "per SM (16,896 and 528), 80 GB HBM3 on a 5,120-bit bus, 50 MB L2, 256 KB L1/shared per "
        "SM (up to 228 KB shared), 80 billion transistors, 700 W: "
        "https://developer.nvidia.com/blog/nvidia-hopper-architecture-in-depth/",
        "NVIDIA H100 datasheet: H100 SXM 67 TFLOPS FP32, 3.35 TB/s, up to 700 W",
        "Glenn Lockwood's H100 notes (from the whitepaper): 1.98 GHz behind the FP32/FP64 peaks, "
        "66.9 TFLOPS FP32: https://glennklockwood.com/garden/processors/h100",
    };
    m.note =
        "The SXM5 board. Bandwidth: 2 x 2619 MHz x 5120 bits / 8 = 3,352 GB/s (3.35 TB/s). The "
        "PCIe board (--model h100-pcie) has 114 SMs and HBM2e.";
    m.note_zh =
        "SXM5 板卡。带宽：2 x 2619 MHz x 5120 位 / 8 = 3,352 GB/s（3.35 TB/s）。PCIe 板卡"
        "（--model h100-pcie）有 114 个 SM，用 HBM2e。";
    v.push_back(std::move(m));
  }

  {
    GpuModel m;
    m.name = "NVIDIA H100 PCIe 80GB";
    m.aliases = {"h100-pcie", "h100 pcie 80gb", "nvidia h100 pcie"};
    m.chip = "GH100";
    m.architecture = "Hopper";
    m.cc_major = 9;
    m.cc_minor = 0;
    m.year = 2022;
    m.sms = 114;
    m.cores_per_sm = 128;
    m.cores = 14592;
    m.tensor_cores = 456;
    m.tensor_core_generation = "4th";
    m.memory_gib = 80;
    m.memory_type = "HBM2e";
    m.memory_bus_bits = 5120;
    m.memory_data_rate_gbps = 0;  // not confirmed
    m.memory_bandwidth_gbs = 2000;
    m.l2_kib = 51200;
    m.l1_shared_per_sm_kib = 256;
    m.register_file_per_sm_kib = 256;
    m.max_threads_per_sm = 2048;
    m.max_warps_per_sm = 64;
    m.max_blocks_per_sm = 32;
    m.boost_clock_mhz = 0;  // not confirmed in NVIDIA's documents
    m.fp32_tflops = 51;
    m.power_w = 350;  // configurable 300-350 W
    m.transistors_billion = 80;
    m.sources = {
        "NVIDIA LaunchPad documentation, \"NVIDIA H100\": 114 SMs, 128 FP32 cores per SM = 14,592, "
        "4 4th-gen Tensor Cores per SM = 456, 80 GB HBM2e (5 stacks, 10 512-bit controllers), 50 "
        "MB L2, 2 TB/s: https://docs.nvidia.com/launchpad/ai/h100-mig/latest/h100-mig-gpu.html",
        "NVIDIA H100 datasheet: H100 PCIe 51 TFLOPS FP32, 2 TB/s, 300-350 W",
    };
    m.note =
        "Boost clock and memory data rate are not in the NVIDIA documents checked: unknown here "
        "(51 TFLOPS / (14,592 x 2 FLOP) implies about 1.75 GHz).";
    m.note_zh =
        "加速时钟和显存数据速率不在所查的 NVIDIA 文件中：这里记为未知（51 TFLOPS / (14,592 x 2 "
        "FLOP) 意味着约 1.75 GHz）。";
    v.push_back(std::move(m));
  }
  return v;
}

const std::vector<GpuModel>& models() {
  static const std::vector<GpuModel> table = build_models();
  return table;
}

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

std::span<const GpuModel> gpu_models() {
  return models();
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
  for (const GpuModel& m : models()) {
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
