// gpulab device-info (see device_info.hpp).
#include "commands/device_info.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <utility>

#include "core/enum_names.hpp"
#include "core/error.hpp"
#include "core/i18n_format.hpp"
#include "core/layout.hpp"
#include "core/parse.hpp"
#include "core/text.hpp"

namespace gpulab {
namespace {

// ---- text helpers ----------------------------------------------------------------------------

// "48 KiB (49,152 bytes)"
std::string bytes_text(std::uint64_t b) {
  if (b < 1024) return fmt::format("{} bytes", b);
  return fmt::format("{} ({} bytes)", format_bytes(static_cast<double>(b)), group_thousands(b));
}

std::string kib_text(double kib) {
  return format_bytes(kib * 1024.0);
}

// Totals in KiB, as the notes' table writes them: "16,384 KiB".
std::string kib_total(double kib) {
  return format_number(kib, 0) + " KiB";
}

std::string yes_no(Lang l, bool b) {
  return std::string(b ? tr(l, "yes", "是") : tr(l, "no", "否"));
}

std::string cuda_version(int v) {
  return v <= 0 ? std::string("?") : fmt::format("{}.{}", v / 1000, (v % 1000) / 10);
}

// `text` wrapped under `indent`: `width` columns of text on a wide terminal, fewer on a narrower
// one.
std::string wrap(std::string_view text, std::size_t width, std::string_view indent) {
  if (text.empty()) return {};
  const std::size_t total = std::min(indent.size() + width, std::min(output_width(), kProseWidth));
  return std::string(indent) + wrap_text(text, total, indent.size(), indent.size()) + "\n";
}

// A sheet of "label  value" rows, each with its explanation (wrapped, dimmed) underneath.
class Sheet {
 public:
  explicit Sheet(const Style& st) : st_(st) {}
  void section(std::string_view title) { out_ += "\n  " + st_.heading(title) + "\n"; }
  void row(std::string_view label, const std::string& value, const std::string& explain = {}) {
    out_ += "    " + pad_right(label, kLabelWidth) + "  " + st_.bold(value) + "\n";
    if (!explain.empty()) out_ += st_.dim(wrap(explain, 92, "        "));
  }
  void text(const std::string& s) { out_ += s; }
  const std::string& str() const { return out_; }

 private:
  static constexpr std::size_t kLabelWidth = 32;
  const Style& st_;
  std::string out_;
};

std::string unknown(Lang l) {
  return std::string(tr(l, "unknown (not confirmed by the sources)", "未知（来源未能确认）"));
}

std::string compute_mode_key(cuda::ComputeMode m) {
  static constexpr std::array<std::string_view, 5> kKeys{
      "default", "exclusive_thread", "prohibited", "exclusive_process", "unknown"};
  static_assert(kKeys.size() == static_cast<std::size_t>(cuda::ComputeMode::unknown) + 1);
  return std::string(enum_name(m, kKeys, "unknown"));
}

std::string compute_mode_text(Lang l, cuda::ComputeMode m) {
  switch (m) {
    case cuda::ComputeMode::default_mode:
      return std::string(
          tr(l, "default: any process may use the device", "默认：任何进程都可以使用此设备"));
    case cuda::ComputeMode::exclusive_thread:
      return std::string(tr(l, "exclusive thread: one thread of one process (an old mode)",
                            "独占线程：只允许一个进程的一个线程（旧模式）"));
    case cuda::ComputeMode::prohibited:
      return std::string(
          tr(l, "prohibited: no process may use the device", "禁止：任何进程都不能使用此设备"));
    case cuda::ComputeMode::exclusive_process:
      return std::string(
          tr(l, "exclusive process: one process at a time", "独占进程：同一时间只允许一个进程"));
    case cuda::ComputeMode::unknown:
      break;
  }
  return std::string(tr(l, "unknown", "未知"));
}

std::string known_models() {
  std::string names;
  for (const auto& m : calc::gpu_models()) {
    if (!names.empty()) names += ", ";
    names += m.aliases.front();
  }
  return names;
}

// "3rd" -> "3rd" in English, "第 3 代" in Chinese; "2nd (Turing)" -> "第 2 代 (Turing)".
std::string generation(Lang l, std::string_view g) {
  if (l == Lang::en) return std::string(g);
  std::size_t digits = 0;
  while (digits < g.size() && g[digits] >= '0' && g[digits] <= '9') ++digits;
  if (digits == 0) return std::string(g);
  std::size_t rest = digits;
  while (rest < g.size() && g[rest] != ' ') ++rest;  // skip "st", "nd", "rd", "th"
  return fmt::format("第 {} 代{}", g.substr(0, digits), g.substr(rest));
}

// ---- one real device -------------------------------------------------------------------------

std::string cc_text(int major, int minor) {
  return fmt::format("{}.{}", major, minor);
}

// The compute capability in a device's or a spec sheet's JSON: "8.6" and its two numbers.
void put_compute_capability(nlohmann::json& j, int major, int minor) {
  j["compute_capability"] = cc_text(major, minor);
  j["cc_major"] = major;
  j["cc_minor"] = minor;
}

}  // namespace

std::string render_device(const cuda::DeviceProperties& d, const OutputOptions& out) {
  const Style st = style_for(out);
  const Lang l = out.lang;
  const auto arch = calc::arch_info(d.cc_major, d.cc_minor);
  const std::string cc = cc_text(d.cc_major, d.cc_minor);
  const long long sms = d.multiprocessors;
  Sheet s(st);

  s.text(st.heading(say(l, "Device {}: {}", "设备 {}：{}", d.index, d.name)) + "\n");
  s.text(say(l, "  {}, PCI {:04x}:{:02x}:{:02x}.0\n", "  {}，PCI {:04x}:{:02x}:{:02x}.0\n", d.uuid,
             d.pci_domain, d.pci_bus, d.pci_device));

  // The school: the whole GPU.
  s.section(tr(l, "The school (the whole GPU)", "学校（整块 GPU）"));
  s.row(tr(l, "Compute capability", "计算能力"),
        arch ? fmt::format("{} ({})", cc, arch->architecture) : cc,
        arch
            ? say(l,
                  "The SM generation. It fixes the per-classroom limits below: desks, students, "
                  "classes, podium space.",
                  "SM 的代号，决定下面每间教室的上限：课桌、学生、班级、讲台空间。")
            : say(l,
                  "Compute capability {} is not in gpulab's table (it is newer than the table), so "
                  "its per-SM figures that CUDA does not report are unknown, not guessed.",
                  "计算能力 {} 不在 gpulab 的表中（比表更新），CUDA 不报告的每 SM "
                  "数字因此未知，不做猜测。",
                  cc));
  s.row(
      tr(l, "SMs (streaming multiprocessors)", "SM（流多处理器）数"), format_integer(sms),
      say(l,
          "{} classrooms (SMs). Each block (a class) is seated in one classroom and stays there "
          "until it finishes.",
          "{} "
          "间教室（SM，流多处理器）。每个线程块（一个班级）被安排在一间教室里，直到完成都不离开。",
          format_integer(sms)));
  if (arch) {
    const long long cores = sms * arch->cores_per_sm;
    s.row(tr(l, "CUDA cores", "CUDA 核心"),
          say(l, "{} per SM, {} in total", "每 SM {} 个，共 {} 个", arch->cores_per_sm,
              format_integer(cores)),
          say(l,
              "{} classrooms x {} desks = {} desks (FP32 CUDA cores; {} per SM from the "
              "compute-capability table, as deviceQuery does). At most {} students compute at the "
              "same instant.",
              "{} 间教室 x {} 张课桌 = {} 张课桌（FP32 CUDA 核心；每 SM {} 个来自计算能力表，与 "
              "deviceQuery 相同）。同一时刻最多 {} 个学生在计算。",
              format_integer(sms), arch->cores_per_sm, format_integer(cores), arch->cores_per_sm,
              format_integer(cores)));
  } else {
    s.row(tr(l, "CUDA cores", "CUDA 核心"), std::string(tr(l, "unknown", "未知")),
          say(l,
              "CUDA does not report cores per SM, and compute capability {} is not in gpulab's "
              "table: the desks per classroom are unknown (not guessed).",
              "CUDA 不报告每 SM 的核心数，而计算能力 {} 不在 gpulab "
              "的表中：每间教室的课桌数未知（不做猜测）。",
              cc));
  }
  if (d.clock_khz > 0) {
    const double mhz = d.clock_khz / 1000.0;
    std::string explain =
        say(l, "The school bell: {} billion ticks a second.", "学校的铃声：每秒响 {1} 亿次。",
            format_number(mhz / 1000.0, 3), format_number(mhz / 100.0, 2));
    if (arch) {
      const long long cores = sms * arch->cores_per_sm;
      explain += say(l,
                     " Each desk can finish one fused multiply-add (2 FLOP) per tick: {} x 2 x {} "
                     "GHz = {} TFLOPS FP32 peak.",
                     "每张课桌每次铃响可完成一次乘加（2 次浮点运算）：{} x 2 x {} GHz = {} "
                     "TFLOPS（FP32 峰值）。",
                     format_integer(cores), format_number(mhz / 1000.0, 3),
                     format_number(calc::fp32_peak_tflops(cores, mhz), 1));
    }
    s.row(tr(l, "GPU max clock", "GPU 最高频率"),
          fmt::format("{} MHz ({} GHz)", format_number(mhz, 0), format_number(mhz / 1000.0, 2)),
          explain);
  } else {
    s.row(tr(l, "GPU max clock", "GPU 最高频率"),
          std::string(tr(l, "not reported by the driver", "驱动未报告")));
  }
  s.row(
      tr(l, "Global memory", "全局内存"), bytes_text(d.total_global_mem),
      say(l,
          "The playground (global memory): every student of every class can go there, and the "
          "host copies data in and out of it, but a trip takes hundreds of cycles.",
          "操场（全局内存）：所有班级的所有学生都能去，主机也在这里拷入拷出数据，但去一趟要几百个周"
          "期。"));
  if (d.memory_clock_khz > 0) {
    const double mem_mhz = d.memory_clock_khz / 1000.0;
    s.row(tr(l, "Memory clock", "显存频率"), fmt::format("{} MHz", format_number(mem_mhz, 0)),
          say(l,
              "The memory's clock as CUDA reports it; data moves on both edges of each tick (DDR).",
              "CUDA 报告的显存时钟；每个时钟周期的上升沿和下降沿都传数据（DDR）。"));
    s.row(tr(l, "Memory bus width", "显存位宽"),
          fmt::format("{}-bit", format_integer(d.memory_bus_bits)),
          say(l, "{} wires between the chip and its memory, one bit each per transfer.",
              "芯片与显存之间有 {} 根数据线，每次传输每根 1 bit。",
              format_integer(d.memory_bus_bits)));
    const double gbs = calc::ddr_bandwidth_gbs(mem_mhz, d.memory_bus_bits);
    s.row(tr(l, "Memory bandwidth (theoretical)", "显存带宽（理论值）"),
          fmt::format("{} GB/s", format_number(gbs, 1)),
          say(l,
              "How much the playground gate lets through: DDR, 2 transfers per clock: 2 x {} MHz x "
              "{} bit / 8 = {} GB/s. Real copies reach less.",
              "操场大门的通行能力：DDR，每个时钟传 2 次：2 x {} MHz x {} bit / 8 = {} "
              "GB/s。实际拷贝达不到。",
              format_number(mem_mhz, 0), format_integer(d.memory_bus_bits), format_number(gbs, 1)));
  } else {
    s.row(
        tr(l, "Memory clock", "显存频率"),
        std::string(tr(l, "not reported by the driver", "驱动未报告")),
        say(l, "Without it the theoretical bandwidth (2 x clock x {} bit / 8) cannot be computed.",
            "没有它就算不出理论带宽（2 x 频率 x {} bit / 8）。",
            format_integer(d.memory_bus_bits)));
    s.row(tr(l, "Memory bus width", "显存位宽"),
          fmt::format("{}-bit", format_integer(d.memory_bus_bits)));
  }
  s.row(tr(l, "L2 cache", "L2 缓存"), bytes_text(static_cast<std::uint64_t>(d.l2_bytes)),
        say(l,
            "A store room between all {} classrooms and the playground: what was fetched recently "
            "is kept there, so the next trip is shorter.",
            "所有 {} 间教室与操场之间的储藏室：最近取过的数据放在这里，下次就不用跑那么远。",
            format_integer(sms)));
  s.row(
      tr(l, "Persisting L2 max", "L2 持久化上限"),
      bytes_text(static_cast<std::uint64_t>(d.persisting_l2_max_bytes)),
      say(l,
          "Of the L2, this much can be set aside for data a program marks \"keep\" "
          "(cudaAccessPolicyWindow, windows up to {}).",
          "L2 中最多这么多可以留给程序标记为“常驻”的数据（cudaAccessPolicyWindow，窗口最大 {}）。",
          bytes_text(static_cast<std::uint64_t>(d.access_policy_max_window_bytes))));
  s.row(tr(l, "Constant memory", "常量内存"), bytes_text(d.total_const_mem),
        say(l,
            "The notice board: the host writes it before the lesson; every student reads the same "
            "values, fast when a warp reads the same address.",
            "公告栏：上课前由主机写好；所有学生读同样的内容，一个线程束读同一地址时很快。"));
  s.row(tr(l, "Copy engines", "拷贝引擎"), format_integer(d.async_engines),
        say(l,
            "Delivery vans between host memory and the playground. Copy and kernel run at the same "
            "time: {}.",
            "主机内存与操场之间的送货车。拷贝与核函数可同时进行：{}。",
            yes_no(l, d.gpu_overlap && d.async_engines > 0)));
  s.row(tr(l, "Max texture sizes", "最大纹理尺寸"),
        fmt::format("1D=({}), 2D=({}, {}), 3D=({}, {}, {})", d.max_texture_1d, d.max_texture_2d[0],
                    d.max_texture_2d[1], d.max_texture_3d[0], d.max_texture_3d[1],
                    d.max_texture_3d[2]),
        say(l, "Read-only images the texture units can filter.", "纹理单元可以过滤的只读图像。"));

  // One classroom: per SM.
  s.section(tr(l, "One classroom (per SM)", "一间教室（每个 SM）"));
  const int warps_per_sm = d.warp_size > 0 ? d.max_threads_per_sm / d.warp_size : 0;
  s.row(tr(l, "Max threads per SM", "每 SM 最多线程"), format_integer(d.max_threads_per_sm),
        say(l, "At most {} students in one classroom at once, from all the classes seated there.",
            "一间教室同时最多 {} 个学生，来自在这里上课的所有班级。",
            format_integer(d.max_threads_per_sm)));
  s.row(
      tr(l, "Max warps per SM", "每 SM 最多线程束"), format_integer(warps_per_sm),
      arch
          ? say(l,
                "{} / {} = {} groups of {} (warps). {} warp schedulers each pick a ready group "
                "every cycle: while some groups wait for the playground, others compute.",
                "{} / {} = {} 个 {} 人小组（线程束）。{} 个线程束调度器每个周期各挑一个就绪的小组："
                "一些小组等操场的数据时，别的小组在计算。",
                format_integer(d.max_threads_per_sm), d.warp_size, warps_per_sm, d.warp_size,
                arch->warp_schedulers_per_sm)
          : say(l, "{} / {} = {} groups of {} (warps).", "{} / {} = {} 个 {} 人小组（线程束）。",
                format_integer(d.max_threads_per_sm), d.warp_size, warps_per_sm, d.warp_size));
  s.row(tr(l, "Max blocks per SM", "每 SM 最多线程块"), format_integer(d.max_blocks_per_sm),
        say(l, "At most {} classes (blocks) share one classroom, however small they are.",
            "一间教室最多同时容纳 {} 个班级（线程块），不管班级多小。",
            format_integer(d.max_blocks_per_sm)));
  s.row(
      tr(l, "Registers per SM", "每 SM 寄存器"),
      say(l, "{} x 32-bit ({})", "{} 个 32 位（{}）", format_integer(d.regs_per_sm),
          format_bytes(static_cast<double>(d.regs_per_sm) * 4.0)),
      d.max_threads_per_sm > 0
          ? say(l,
                "Each student's own desk drawers (registers): the fastest storage. With all {} "
                "students seated, {} / {} = {} each; a kernel that needs more per thread fits "
                "fewer students.",
                "每个学生自己的课桌抽屉（寄存器）：最快的存储。{} 个学生坐满时，{} / {} = 每人 {} "
                "个；每个线程要得更多，能坐下的学生就更少。",
                format_integer(d.max_threads_per_sm), format_integer(d.regs_per_sm),
                format_integer(d.max_threads_per_sm), d.regs_per_sm / d.max_threads_per_sm)
          : std::string());
  s.row(tr(l, "Shared memory per SM", "每 SM 共享内存"), bytes_text(d.shared_per_sm),
        say(l,
            "The classroom's podium space (shared memory), split among the classes seated there; "
            "it is carved out of the same on-chip memory as the L1 cache.",
            "教室的讲台空间（共享内存），由在这里上课的班级分用；它和 L1 "
            "缓存是同一块片上存储划分出来的。"));
  s.row(tr(l, "L1 caches globals / locals", "L1 缓存全局 / 局部变量"),
        fmt::format("{} / {}", yes_no(l, d.global_l1_cache), yes_no(l, d.local_l1_cache)),
        say(l,
            "Whether playground data (global) and spilled per-thread data (local memory) are kept "
            "in the classroom's L1 on the way.",
            "操场数据（全局）和溢出的线程私有数据（局部内存）途中是否放进教室的 L1 缓存。"));

  // One class: per block.
  s.section(tr(l, "One class (per block)", "一个班级（每个线程块）"));
  s.row(tr(l, "Warp size", "线程束大小"), format_integer(d.warp_size),
        say(l,
            "Students get their instructions in groups of {} (a warp): the whole group does the "
            "same instruction together.",
            "学生以 {} 人为一组（线程束）接受指令：整组一起执行同一条指令。", d.warp_size));
  s.row(tr(l, "Max threads per block", "每块最多线程"), format_integer(d.max_threads_per_block),
        say(l, "A class (block) has at most {} students = {} warps.",
            "一个班级（线程块）最多 {} 个学生 = {} 个线程束。",
            format_integer(d.max_threads_per_block),
            d.warp_size > 0 ? d.max_threads_per_block / d.warp_size : 0));
  s.row(tr(l, "Max block dimensions", "线程块最大维度"),
        fmt::format("({}, {}, {})", d.max_block_dims[0], d.max_block_dims[1], d.max_block_dims[2]),
        say(l, "x, y and z each at most this, and x*y*z at most {}.",
            "x、y、z 各不超过它，且 x*y*z 不超过 {}。", format_integer(d.max_threads_per_block)));
  s.row(tr(l, "Max grid dimensions", "网格最大维度"),
        fmt::format("({}, {}, {})", d.max_grid_dims[0], d.max_grid_dims[1], d.max_grid_dims[2]),
        say(l, "A grade (grid) can have this many classes along x, y and z.",
            "一个年级（网格）沿 x、y、z 最多有这么多个班级。"));
  s.row(tr(l, "Shared memory per block", "每块共享内存"), bytes_text(d.shared_per_block),
        say(l,
            "Each class's podium: {} without asking; up to {} if the kernel opts in "
            "(cudaFuncSetAttribute, cudaFuncAttributeMaxDynamicSharedMemorySize). The driver keeps "
            "{} per block for itself.",
            "每个班级的讲台：默认 {}；核函数申请（cudaFuncSetAttribute，"
            "cudaFuncAttributeMaxDynamicSharedMemorySize）后最多 {}。驱动每块自留 {}。",
            format_bytes(static_cast<double>(d.shared_per_block)),
            format_bytes(static_cast<double>(d.shared_per_block_optin)),
            bytes_text(d.reserved_shared_per_block)));
  s.row(tr(l, "Registers per block", "每块寄存器"), format_integer(d.regs_per_block),
        say(l, "All the drawers one class may use together.", "一个班级加起来最多能用的抽屉数。"));
  s.row(tr(l, "Max memory pitch", "最大内存间距"), bytes_text(d.mem_pitch),
        say(l, "The widest row cudaMallocPitch / cudaMemcpy2D accept.",
            "cudaMallocPitch / cudaMemcpy2D 允许的最大行宽。"));
  s.row(tr(l, "Texture alignment", "纹理对齐"), bytes_text(d.texture_alignment));

  // Features.
  s.section(tr(l, "Features", "特性"));
  s.row(tr(l, "Kernel run-time limit", "核函数运行时限"), yes_no(l, d.kernel_timeout),
        d.kernel_timeout ? say(l, "A display watchdog stops kernels that run for seconds.",
                               "显示看门狗会终止运行数秒的核函数。")
                         : say(l, "No watchdog: a kernel may run as long as it needs.",
                               "没有看门狗：核函数可以运行任意长时间。"));
  s.row(tr(l, "Integrated GPU", "集成 GPU"), yes_no(l, d.integrated),
        d.integrated ? say(l, "The playground is the host's own memory.", "操场就是主机内存。")
                     : say(l, "A separate card with its own memory, reached over PCIe or NVLink.",
                           "独立显卡，有自己的显存，经 PCIe 或 NVLink 连接。"));
  s.row(tr(l, "Maps host memory", "可映射主机内存"), yes_no(l, d.can_map_host_memory),
        say(l, "Kernels can read pinned host memory directly (cudaHostAlloc, zero-copy).",
            "核函数可直接读锁页主机内存（cudaHostAlloc，零拷贝）。"));
  s.row(tr(l, "Unified addressing (UVA)", "统一寻址（UVA）"), yes_no(l, d.unified_addressing),
        say(l, "Host and device pointers share one address space: a pointer tells where it points.",
            "主机和设备指针共用一个地址空间：看指针就知道它指向哪里。"));
  s.row(tr(l, "Managed memory", "托管内存"), yes_no(l, d.managed_memory),
        say(l,
            "cudaMallocManaged: one pointer for host and device; pages move on demand. Concurrent "
            "host access while kernels run: {}.",
            "cudaMallocManaged：主机和设备共用一个指针，页面按需迁移。核函数运行时主机可同时访问：{"
            "}。",
            yes_no(l, d.concurrent_managed_access)));
  s.row(tr(l, "Concurrent kernels", "并发核函数"), yes_no(l, d.concurrent_kernels),
        say(l, "Kernels from different streams can run at once in different classrooms.",
            "不同流的核函数可以同时在不同教室里运行。"));
  s.row(tr(l, "ECC", "ECC 校验"), yes_no(l, d.ecc_enabled),
        d.ecc_enabled
            ? say(l, "Memory errors are detected and corrected.", "显存错误会被检测并纠正。")
            : say(l, "Memory errors are not corrected (usual on gaming cards).",
                  "显存错误不会被纠正（游戏卡通常如此）。"));
  s.row(tr(l, "Cooperative launch", "协作启动"), yes_no(l, d.cooperative_launch),
        say(l,
            "cudaLaunchCooperativeKernel: a barrier for the whole grid, if all its classes fit in "
            "the school at once.",
            "cudaLaunchCooperativeKernel：整个网格的同步屏障，前提是所有班级能同时坐进学校。"));
  s.row(tr(l, "Thread-block clusters", "线程块簇"), yes_no(l, d.cluster_launch),
        say(l,
            "Classes in neighbouring classrooms can read each other's podiums (distributed shared "
            "memory, since compute capability 9.0).",
            "相邻教室的班级可以读彼此的讲台（分布式共享内存，计算能力 9.0 起）。"));
  s.row(tr(l, "Compute preemption", "计算抢占"), yes_no(l, d.compute_preemption),
        say(l, "A running kernel can be paused for another context.",
            "正在运行的核函数可以被暂停，让给别的上下文。"));
  s.row(tr(l, "Stream priorities", "流优先级"), yes_no(l, d.stream_priorities));
  s.row(tr(l, "Compute mode", "计算模式"), compute_mode_text(l, d.compute_mode));
  s.row(tr(l, "PCI domain / bus / device", "PCI 域 / 总线 / 设备"),
        fmt::format("{} / {} / {}", d.pci_domain, d.pci_bus, d.pci_device));
  return s.str();
}

nlohmann::json device_json(const cuda::DeviceProperties& d) {
  using nlohmann::json;
  const auto arch = calc::arch_info(d.cc_major, d.cc_minor);
  json j;
  j["index"] = d.index;
  j["name"] = d.name;
  j["uuid"] = d.uuid;
  put_compute_capability(j, d.cc_major, d.cc_minor);
  j["architecture"] = arch ? json(arch->architecture) : json(nullptr);
  j["total_global_memory_bytes"] = d.total_global_mem;
  j["sms"] = d.multiprocessors;
  j["cores_per_sm"] = arch ? json(arch->cores_per_sm) : json(nullptr);
  j["cuda_cores"] =
      arch ? json(static_cast<long long>(d.multiprocessors) * arch->cores_per_sm) : json(nullptr);
  j["warp_schedulers_per_sm"] = arch ? json(arch->warp_schedulers_per_sm) : json(nullptr);
  j["clock_mhz"] = d.clock_khz > 0 ? json(d.clock_khz / 1000.0) : json(nullptr);
  j["memory_clock_mhz"] =
      d.memory_clock_khz > 0 ? json(d.memory_clock_khz / 1000.0) : json(nullptr);
  j["memory_bus_width_bits"] = d.memory_bus_bits;
  j["memory_bandwidth_gbs"] =
      d.memory_clock_khz > 0
          ? json(calc::ddr_bandwidth_gbs(d.memory_clock_khz / 1000.0, d.memory_bus_bits))
          : json(nullptr);
  j["fp32_peak_tflops"] = arch && d.clock_khz > 0
                              ? json(calc::fp32_peak_tflops(
                                    static_cast<long long>(d.multiprocessors) * arch->cores_per_sm,
                                    d.clock_khz / 1000.0))
                              : json(nullptr);
  j["l2_cache_bytes"] = d.l2_bytes;
  j["persisting_l2_max_bytes"] = d.persisting_l2_max_bytes;
  j["access_policy_max_window_bytes"] = d.access_policy_max_window_bytes;
  j["max_texture_1d"] = d.max_texture_1d;
  j["max_texture_2d"] = d.max_texture_2d;
  j["max_texture_3d"] = d.max_texture_3d;
  j["total_constant_memory_bytes"] = d.total_const_mem;
  j["shared_memory_per_block_bytes"] = d.shared_per_block;
  j["shared_memory_per_block_optin_bytes"] = d.shared_per_block_optin;
  j["shared_memory_per_sm_bytes"] = d.shared_per_sm;
  j["reserved_shared_memory_per_block_bytes"] = d.reserved_shared_per_block;
  j["registers_per_block"] = d.regs_per_block;
  j["registers_per_sm"] = d.regs_per_sm;
  j["warp_size"] = d.warp_size;
  j["max_threads_per_sm"] = d.max_threads_per_sm;
  j["max_warps_per_sm"] =
      d.warp_size > 0 ? json(d.max_threads_per_sm / d.warp_size) : json(nullptr);
  j["max_threads_per_block"] = d.max_threads_per_block;
  j["max_block_dims"] = d.max_block_dims;
  j["max_grid_dims"] = d.max_grid_dims;
  j["max_blocks_per_sm"] = d.max_blocks_per_sm;
  j["memory_pitch_bytes"] = d.mem_pitch;
  j["texture_alignment_bytes"] = d.texture_alignment;
  j["async_copy_engines"] = d.async_engines;
  j["concurrent_copy_and_kernel"] = d.gpu_overlap;
  j["kernel_timeout"] = d.kernel_timeout;
  j["integrated"] = d.integrated;
  j["can_map_host_memory"] = d.can_map_host_memory;
  j["unified_addressing"] = d.unified_addressing;
  j["managed_memory"] = d.managed_memory;
  j["concurrent_managed_access"] = d.concurrent_managed_access;
  j["pageable_memory_access"] = d.pageable_memory_access;
  j["concurrent_kernels"] = d.concurrent_kernels;
  j["ecc_enabled"] = d.ecc_enabled;
  j["tcc_driver"] = d.tcc_driver;
  j["pci_domain_id"] = d.pci_domain;
  j["pci_bus_id"] = d.pci_bus;
  j["pci_device_id"] = d.pci_device;
  j["compute_mode"] = compute_mode_key(d.compute_mode);
  j["cooperative_launch"] = d.cooperative_launch;
  j["cluster_launch"] = d.cluster_launch;
  j["global_l1_cache"] = d.global_l1_cache;
  j["local_l1_cache"] = d.local_l1_cache;
  j["compute_preemption"] = d.compute_preemption;
  j["stream_priorities"] = d.stream_priorities;
  j["host_native_atomics"] = d.host_native_atomics;
  j["multi_gpu_board"] = d.multi_gpu_board;
  j["memory_pools"] = d.memory_pools;
  return j;
}

// ---- a spec sheet ----------------------------------------------------------------------------

namespace {

nlohmann::json arch_json(const calc::ArchInfo& a) {
  nlohmann::json j = a;
  j["compute_capability"] = cc_text(a.major, a.minor);
  j["max_registers_per_thread"] = a.max_registers_per_thread > 0
                                      ? nlohmann::json(a.max_registers_per_thread)
                                      : nlohmann::json(nullptr);
  return j;
}

// 0 means unknown in the model table: JSON null.
// Whole numbers print as integers (73728, not 73728.0).
nlohmann::json known(double v) {
  if (v <= 0) return nlohmann::json(nullptr);
  if (std::floor(v) == v && v < 1e15) return nlohmann::json(static_cast<long long>(v));
  return nlohmann::json(v);
}

}  // namespace

nlohmann::json model_json(const calc::GpuModel& m) {
  using nlohmann::json;
  const auto arch = calc::arch_info(m.cc_major, m.cc_minor);
  const bool no_l2 = m.cc_major == 1;  // compute capability 1.x had no L2 for global memory
  json j;
  j["name"] = m.name;
  j["aliases"] = m.aliases;
  j["chip"] = m.chip;
  j["architecture"] = m.architecture;
  put_compute_capability(j, m.cc_major, m.cc_minor);
  j["year"] = m.year;
  j["sms"] = m.sms;
  j["cores_per_sm"] = m.cores_per_sm;
  j["cuda_cores"] = m.cores;
  j["tensor_cores"] = m.tensor_cores;
  j["tensor_core_generation"] = m.tensor_cores > 0 ? json(m.tensor_core_generation) : json(nullptr);
  j["tensor_cores_per_sm"] = m.sms > 0 ? json(m.tensor_cores / m.sms) : json(nullptr);
  j["rt_cores"] = m.rt_cores;
  j["rt_core_generation"] = m.rt_cores > 0 ? json(m.rt_core_generation) : json(nullptr);
  j["memory_gib"] = known(m.memory_gib);
  j["memory_type"] = m.memory_type;
  j["memory_bus_width_bits"] = m.memory_bus_bits;
  j["memory_data_rate_gbps"] = known(m.memory_data_rate_gbps);
  j["memory_bandwidth_gbs"] = known(m.memory_bandwidth_gbs);
  j["l2_cache_kib"] = no_l2 ? json(0) : known(m.l2_kib);
  j["l1_shared_per_sm_kib"] = known(m.l1_shared_per_sm_kib);
  j["l1_shared_total_kib"] = known(m.l1_shared_per_sm_kib * m.sms);
  j["register_file_per_sm_kib"] = known(m.register_file_per_sm_kib);
  j["register_file_total_kib"] = known(m.register_file_per_sm_kib * m.sms);
  j["registers_per_sm"] = known(m.register_file_per_sm_kib * 1024 / 4);
  j["max_threads_per_sm"] = m.max_threads_per_sm;
  j["max_warps_per_sm"] = m.max_warps_per_sm;
  j["max_blocks_per_sm"] = m.max_blocks_per_sm;
  j["max_threads_per_block"] = arch ? json(arch->max_threads_per_block) : json(nullptr);
  j["boost_clock_mhz"] = known(m.boost_clock_mhz);
  j["fp32_tflops"] = known(m.fp32_tflops);
  j["power_w"] = known(m.power_w);
  j["transistors_billion"] = known(m.transistors_billion);
  json unknown_fields = json::array();
  auto mark = [&](const char* key, double v) {
    if (v <= 0) unknown_fields.push_back(key);
  };
  mark("memory_data_rate_gbps", m.memory_data_rate_gbps);
  mark("boost_clock_mhz", m.boost_clock_mhz);
  mark("power_w", m.power_w);
  mark("transistors_billion", m.transistors_billion);
  if (!no_l2) mark("l2_cache_kib", m.l2_kib);
  j["unknown_fields"] = unknown_fields;
  j["sources"] = m.sources;
  j["arch_sources"] = calc::arch_sources();
  j["note"] = m.note;
  j["note_zh"] = m.note_zh;
  json errata = json::array();
  for (const auto& e : m.notes_errata) {
    errata.push_back({{"field", e.field}, {"notes_say", e.notes_say}, {"correct", e.correct}});
  }
  j["course_notes_differences"] = errata;
  j["arch"] = arch ? arch_json(*arch) : json(nullptr);
  return j;
}

std::string render_model(const calc::GpuModel& m, const OutputOptions& out) {
  const Style st = style_for(out);
  const Lang l = out.lang;
  const auto arch = calc::arch_info(m.cc_major, m.cc_minor);
  const std::string cc = cc_text(m.cc_major, m.cc_minor);
  Sheet s(st);

  s.text(
      st.heading(say(l, "{}: {}, {}, compute capability {}, {}", "{}：{}，{}，计算能力 {}，{} 年",
                     m.name, m.chip, m.architecture, cc, m.year)) +
      "\n");
  s.text(wrap(tr(l,
                 "A spec sheet from gpulab's table, not a GPU on this machine (no GPU was asked). "
                 "Every figure has a source, listed at the end; a figure no source confirmed is "
                 "marked unknown.",
                 "这是 gpulab 表中的规格，不是本机的 GPU（没有查询任何 "
                 "GPU）。每个数字都有来源（列在最后）；"
                 "没有来源确认的数字标为未知。"),
              96, "  "));

  s.section(tr(l, "The school (the whole GPU)", "学校（整块 GPU）"));
  s.row(tr(l, "SMs (streaming multiprocessors)", "SM（流多处理器）数"), format_integer(m.sms),
        say(l, "{} classrooms (SMs). Each block (a class) is seated in one classroom.",
            "{} 间教室（SM，流多处理器）。每个线程块（一个班级）被安排在一间教室里。",
            format_integer(m.sms)));
  s.row(tr(l, "CUDA cores", "CUDA 核心"),
        say(l, "{} per SM, {} in total", "每 SM {} 个，共 {} 个", m.cores_per_sm,
            format_integer(m.cores)),
        say(l, "{} classrooms x {} desks = {} desks (FP32 CUDA cores).",
            "{} 间教室 x {} 张课桌 = {} 张课桌（FP32 CUDA 核心）。", format_integer(m.sms),
            m.cores_per_sm, format_integer(static_cast<long long>(m.sms) * m.cores_per_sm)));
  if (m.tensor_cores > 0) {
    s.row(tr(l, "Tensor cores", "张量核心"),
          say(l, "{} ({} gen), {} per SM", "{}（{}），每 SM {} 个", format_integer(m.tensor_cores),
              generation(l, m.tensor_core_generation), m.tensor_cores / m.sms),
          say(l,
              "Matrix units beside the desks: each multiplies small matrices in one step (deep "
              "learning). {} x {} = {}.",
              "课桌旁的矩阵单元：一步完成小矩阵乘法（用于深度学习）。{} x {} = {}。",
              format_integer(m.sms), m.tensor_cores / m.sms, format_integer(m.tensor_cores)));
  } else {
    s.row(tr(l, "Tensor cores", "张量核心"), std::string(tr(l, "none", "无")));
  }
  if (m.rt_cores > 0) {
    s.row(tr(l, "RT cores", "光线追踪核心"),
          say(l, "{} ({} gen), 1 per SM", "{}（{}），每 SM 1 个", format_integer(m.rt_cores),
              generation(l, m.rt_core_generation)),
          say(l, "Ray-tracing units for graphics; CUDA kernels do not use them.",
              "用于图形光线追踪的单元；CUDA 核函数不用它们。"));
  } else {
    s.row(tr(l, "RT cores", "光线追踪核心"), std::string(tr(l, "none", "无")));
  }
  // Compute capability 1.x GPUs ran their cores on a shader clock and had no boost clock.
  const std::string_view clock_label =
      m.cc_major == 1 ? tr(l, "Shader clock", "着色器频率") : tr(l, "Boost clock", "加速频率");
  if (m.boost_clock_mhz > 0) {
    s.row(clock_label, fmt::format("{} MHz", format_number(m.boost_clock_mhz, 0)),
          say(l, "The school bell: {} billion ticks a second.", "学校的铃声：每秒响 {1} 亿次。",
              format_number(m.boost_clock_mhz / 1000.0, 3),
              format_number(m.boost_clock_mhz / 100.0, 2)));
  } else {
    s.row(clock_label, unknown(l));
  }
  if (m.fp32_tflops > 0) {
    std::string explain;
    if (m.boost_clock_mhz > 0) {
      explain = say(l,
                    "Each desk finishes one multiply-add (2 FLOP) per tick: {} x 2 x {} GHz = {} "
                    "TFLOPS.",
                    "每张课桌每次铃响完成一次乘加（2 次浮点运算）：{} x 2 x {} GHz = {} TFLOPS。",
                    format_integer(m.cores), format_number(m.boost_clock_mhz / 1000.0, 3),
                    format_number(calc::fp32_peak_tflops(m.cores, m.boost_clock_mhz),
                                  m.fp32_tflops < 1 ? 4 : 2));
    } else {
      explain = say(l, "From the datasheet; = {} cores x 2 FLOP x the (unknown) clock.",
                    "来自数据手册；= {} 个核心 x 2 次浮点运算 x（未知的）频率。",
                    format_integer(m.cores));
    }
    s.row(tr(l, "FP32 peak", "FP32 峰值"),
          fmt::format("{} TFLOPS", format_number(m.fp32_tflops, 4)), explain);
  }
  s.row(tr(l, "Global memory", "全局内存"),
        fmt::format("{} {}", format_bytes(m.memory_gib * 1024.0 * 1024.0 * 1024.0), m.memory_type),
        say(l,
            "The playground (global memory): every student of every class can go there, but a "
            "trip takes hundreds of cycles.",
            "操场（全局内存）：所有班级的所有学生都能去，但去一趟要几百个周期。"));
  s.row(tr(l, "Memory bus width", "显存位宽"),
        fmt::format("{}-bit", format_integer(m.memory_bus_bits)));
  if (m.memory_data_rate_gbps > 0) {
    const double gbs = m.memory_data_rate_gbps * m.memory_bus_bits / 8.0;
    s.row(tr(l, "Memory bandwidth", "显存带宽"),
          fmt::format("{} GB/s", format_number(m.memory_bandwidth_gbs, 1)),
          say(l,
              "How much the playground gate lets through: {} Gbit/s per wire (DDR: 2 transfers per "
              "{} MHz memory clock) x {} wires / 8 = {} GB/s.",
              "操场大门的通行能力：每根线 {} Gbit/s（DDR：{} MHz 显存时钟每周期传 2 次）x {} 根 / "
              "8 = "
              "{} GB/s。",
              format_number(m.memory_data_rate_gbps, 3),
              format_number(m.memory_data_rate_gbps * 500.0, 1), format_integer(m.memory_bus_bits),
              format_number(gbs, 1)));
  } else {
    s.row(tr(l, "Memory bandwidth", "显存带宽"),
          fmt::format("{} GB/s", format_number(m.memory_bandwidth_gbs, 1)),
          say(l, "From the datasheet (the per-pin data rate is unknown here).",
              "来自数据手册（每根线的数据率此处未知）。"));
  }
  if (m.cc_major == 1) {
    s.row(tr(l, "L2 cache", "L2 缓存"),
          std::string(tr(l, "none for global memory", "全局内存没有 L2 缓存")),
          say(l, "Compute capability 1.x did not cache the playground: every trip went to DRAM.",
              "计算能力 1.x 不缓存操场数据：每次都要跑到显存。"));
  } else if (m.l2_kib > 0) {
    s.row(tr(l, "L2 cache", "L2 缓存"), kib_text(m.l2_kib),
          say(l,
              "A store room between all {} classrooms and the playground: recently fetched data "
              "is kept there.",
              "所有 {} 间教室与操场之间的储藏室：最近取过的数据放在这里。", format_integer(m.sms)));
  } else {
    s.row(tr(l, "L2 cache", "L2 缓存"), unknown(l));
  }
  s.row(tr(l, "Board power", "整卡功耗"),
        m.power_w > 0 ? fmt::format("{} W", format_number(m.power_w, 0)) : unknown(l));
  s.row(tr(l, "Transistors", "晶体管"),
        m.transistors_billion > 0
            ? say(l, "{} billion", "{1} 亿", format_number(m.transistors_billion, 3),
                  format_number(m.transistors_billion * 10.0, 2))
            : unknown(l));

  s.section(say(l, "One classroom (per SM, compute capability {})",
                "一间教室（每个 SM，计算能力 {}）", cc));
  s.row(tr(l, "Max threads per SM", "每 SM 最多线程"), format_integer(m.max_threads_per_sm),
        say(l, "At most {} students in one classroom at once, from all the classes seated there.",
            "一间教室同时最多 {} 个学生，来自在这里上课的所有班级。",
            format_integer(m.max_threads_per_sm)));
  s.row(tr(l, "Max warps per SM", "每 SM 最多线程束"), format_integer(m.max_warps_per_sm),
        arch && arch->warp_schedulers_per_sm == 1
            ? say(l,
                  "{} / 32 = {} groups of 32 (warps). {} warp scheduler picks ready groups: "
                  "while some wait for the playground, others compute.",
                  "{} / 32 = {} 个 32 人小组（线程束）。{} 个线程束调度器挑选就绪的小组："
                  "一些小组等操场的数据时，别的小组在计算。",
                  format_integer(m.max_threads_per_sm), m.max_threads_per_sm / 32,
                  arch->warp_schedulers_per_sm)
        : arch
            ? say(l,
                  "{} / 32 = {} groups of 32 (warps). {} warp schedulers pick ready groups: "
                  "while some wait for the playground, others compute.",
                  "{} / 32 = {} 个 32 人小组（线程束）。{} 个线程束调度器挑选就绪的小组："
                  "一些小组等操场的数据时，别的小组在计算。",
                  format_integer(m.max_threads_per_sm), m.max_threads_per_sm / 32,
                  arch->warp_schedulers_per_sm)
            : say(l, "{} / 32 = {} groups of 32 (warps).", "{} / 32 = {} 个 32 人小组（线程束）。",
                  format_integer(m.max_threads_per_sm), m.max_threads_per_sm / 32));
  s.row(tr(l, "Max blocks per SM", "每 SM 最多线程块"), format_integer(m.max_blocks_per_sm),
        say(l, "At most {} classes (blocks) share one classroom.",
            "一间教室最多同时容纳 {} 个班级（线程块）。", format_integer(m.max_blocks_per_sm)));
  if (m.register_file_per_sm_kib > 0) {
    const long long regs = static_cast<long long>(m.register_file_per_sm_kib * 1024.0 / 4.0);
    s.row(
        tr(l, "Register file per SM", "每 SM 寄存器堆"),
        say(l, "{} = {} x 32-bit registers", "{} = {} 个 32 位寄存器",
            kib_text(m.register_file_per_sm_kib), format_integer(regs)),
        say(l,
            "Each student's own desk drawers (registers). With all {} students seated, {} / {} = "
            "{} each. The whole GPU: {} x {} = {}.",
            "每个学生自己的课桌抽屉（寄存器）。{} 个学生坐满时，{} / {} = 每人 {} 个。整块 GPU：{} "
            "x {} = {}。",
            format_integer(m.max_threads_per_sm), format_integer(regs),
            format_integer(m.max_threads_per_sm),
            m.max_threads_per_sm > 0
                ? format_real(static_cast<double>(regs) / m.max_threads_per_sm, 1)
                : std::string("?"),
            format_integer(m.sms), kib_text(m.register_file_per_sm_kib),
            kib_total(m.register_file_per_sm_kib * m.sms)));
  }
  if (m.l1_shared_per_sm_kib > 0) {
    std::string explain =
        m.cc_major == 1
            ? say(l,
                  "Only shared memory (the podium, 讲台): compute capability 1.x has no L1 cache. "
                  "The whole GPU: {} x {} = {}.",
                  "只有共享内存（讲台）：计算能力 1.x 没有 L1 缓存。整块 GPU：{} x {} = {}。",
                  format_integer(m.sms), kib_text(m.l1_shared_per_sm_kib),
                  kib_total(m.l1_shared_per_sm_kib * m.sms))
            : say(l,
                  "One on-chip memory split between the L1 cache and the podium (shared memory). "
                  "The whole GPU: {} x {} = {}.",
                  "一块片上存储，分给 L1 缓存和讲台（共享内存）。整块 GPU：{} x {} = {}。",
                  format_integer(m.sms), kib_text(m.l1_shared_per_sm_kib),
                  kib_total(m.l1_shared_per_sm_kib * m.sms));
    if (arch && arch->max_shared_memory_per_block_kib > 48) {
      explain +=
          say(l,
              " Shared memory: up to {} KiB per SM; per block 48 KiB by default, up to {} KiB "
              "if the kernel opts in.",
              "共享内存：每 SM 最多 {} KiB；每块默认 48 KiB，核函数申请后最多 {} KiB。",
              arch->max_shared_memory_per_sm_kib, arch->max_shared_memory_per_block_kib);
    } else if (arch && m.cc_major > 1) {
      explain += say(l, " Shared memory: up to {} KiB per SM, {} KiB per block.",
                     "共享内存：每 SM 最多 {} KiB，每块最多 {} KiB。",
                     arch->max_shared_memory_per_sm_kib, arch->max_shared_memory_per_block_kib);
    }
    s.row(tr(l, "L1 + shared memory per SM", "每 SM 的 L1 + 共享内存"),
          kib_text(m.l1_shared_per_sm_kib), explain);
  }
  if (arch) {
    s.section(tr(l, "One class (per block)", "一个班级（每个线程块）"));
    s.row(tr(l, "Max threads per block", "每块最多线程"),
          format_integer(arch->max_threads_per_block),
          say(l, "A class (block) has at most {} students = {} warps.",
              "一个班级（线程块）最多 {} 个学生 = {} 个线程束。",
              format_integer(arch->max_threads_per_block), arch->max_threads_per_block / 32));
    s.row(tr(l, "Max registers per thread", "每线程最多寄存器"),
          arch->max_registers_per_thread > 0 ? format_integer(arch->max_registers_per_thread)
                                             : unknown(l),
          say(l,
              "The most drawers one student may use; beyond that, variables spill to local memory.",
              "一个学生最多能用的抽屉数；再多，变量就溢出到局部内存。"));
  }

  if (!m.note.empty()) {
    const std::string_view note = l == Lang::zh && !m.note_zh.empty() ? m.note_zh : m.note;
    s.text("\n" + wrap(std::string(tr(l, "Note: ", "说明：")) + std::string(note), 96, "  "));
  }
  if (!m.notes_errata.empty()) {
    s.section(tr(l, "Where the course notes differ", "课程讲义与来源不符之处"));
    Table t({std::string(tr(l, "field", "项目")), std::string(tr(l, "notes say", "讲义写的")),
             std::string(tr(l, "sources say", "来源"))});
    for (const auto& e : m.notes_errata) {
      const bool zh = l == Lang::zh && !e.field_zh.empty();
      const bool zh_say = l == Lang::zh && !e.notes_say_zh.empty();
      t.add_row({std::string(zh ? e.field_zh : e.field),
                 std::string(zh_say ? e.notes_say_zh : e.notes_say),
                 std::string(zh ? e.correct_zh : e.correct)});
    }
    s.text(t.render(st, 4));
  }
  s.section(tr(l, "Sources", "来源"));
  int i = 1;
  for (std::string_view src : m.sources) {
    s.text(wrap(fmt::format("[{}] {}", i++, src), 96, "    "));
  }
  s.text(wrap(say(l, "[{}] Per-SM limits for compute capability {}:",
                  "[{}] 计算能力 {} 的每 SM 上限：", i, cc),
              96, "    "));
  for (std::string_view src : calc::arch_sources())
    s.text(wrap("- " + std::string(src), 92, "      "));
  return s.str();
}

// ---- the command -----------------------------------------------------------------------------

DeviceInfoResult run_device_info(const DeviceInfoOptions& o) {
  DeviceInfoResult r;
  if (!o.model.empty()) {
    r.model = calc::find_model(o.model);
    if (r.model == nullptr) {
      bad_value("--model", o.model, {"not in gpulab's table", "不在 gpulab 的表中"},
                both("known: {}", "已知型号：{}", known_models()));
    }
    return r;
  }
  const GpuProbe probe = probe_gpu();
  r.gpu_usable = probe.usable;
  r.device_count = probe.device_count;
  r.reason = probe.reason;
  // Asking for a GPU that is not there is a runtime failure, as for every kernel command
  // (docs/reliability.md): the command line is right, this machine lacks the device.
  if (!probe.usable && (o.gpu_asked || o.device)) {
    const std::string asked =
        o.device ? fmt::format("--device {}", *o.device) : std::string("--backend gpu");
    throw RuntimeFailure(both("{0}: no GPU is usable: {1}", "{0}：没有可用的 GPU：{2}", asked,
                              probe.reason.en, probe.reason.zh));
  }
  if (!probe.usable) return r;
#if GPULAB_HAVE_CUDA
  if (o.device && *o.device >= probe.device_count) {
    const auto count = static_cast<unsigned long long>(probe.device_count);
    throw RuntimeFailure(
        fmt::format("--device {}: no such device: this machine has {}, numbered 0 to {}", *o.device,
                    count_noun(count, "CUDA device", "CUDA devices"), probe.device_count - 1),
        fmt::format("--device {}：没有这个设备：这台机器有 {} 个 CUDA 设备，编号从 0 到 {}",
                    *o.device, probe.device_count, probe.device_count - 1));
  }
  r.versions = cuda::query_versions();
  for (int i = 0; i < probe.device_count; ++i) {
    if (!o.device || *o.device == i) r.devices.push_back(cuda::query_device(i));
  }
  if (!o.device && probe.device_count >= 2)
    r.peer_access = cuda::query_peer_access(probe.device_count);
#endif
  return r;
}

std::string render_device_info(const DeviceInfoResult& r, const OutputOptions& out) {
  if (r.model != nullptr) return render_model(*r.model, out);
  const Style st = style_for(out);
  const Lang l = out.lang;
  std::string s;
  if (!r.gpu_usable) {
    s += st.heading(std::string(tr(l, "No usable CUDA GPU", "没有可用的 CUDA GPU"))) + "\n";
    s += wrap(say(l, "Why: {}.", "原因：{}。", r.reason.in(l)), 96, "  ");
    s +=
        wrap(say(l,
                 "gpulab can still show a GPU's spec sheet from its table, explained the same way "
                 "(classrooms, desks, podiums): gpulab device-info --model h100. Known models: {}.",
                 "gpulab 仍可以展示它表中某块 GPU 的规格，并用同样的方式解释（教室、课桌、讲台）："
                 "gpulab device-info --model h100。已知型号：{}。",
                 known_models()),
             96, "  ");
    return s;
  }
  s += st.heading(say(l, "{} CUDA device{} (CUDA driver {}, runtime {})",
                      "{0} 个 CUDA 设备（CUDA 驱动 {2}，运行时 {3}）", r.device_count,
                      r.device_count == 1 ? "" : "s", cuda_version(r.versions.driver),
                      cuda_version(r.versions.runtime))) +
       "\n";
  s +=
      wrap(tr(l,
              "The school model: the GPU is a school, an SM a classroom, a CUDA core a desk, a "
              "thread a student, a warp a group of 32 students, a block a class, shared memory "
              "the class's podium, global memory the playground, registers each student's "
              "drawers.",
              "学校模型：GPU 是学校，SM 是教室，CUDA 核心是课桌，线程是学生，线程束是 32 人的小组，"
              "线程块是班级，共享内存是班级的讲台，全局内存是操场，寄存器是每个学生的抽屉。"),
           96, "  ");
  for (const auto& d : r.devices) s += "\n" + render_device(d, out);
  if (!r.peer_access.empty()) {
    s += "\n  " + st.heading(tr(l, "Peer access", "设备间直接访问")) + "\n";
    for (const auto& p : r.peer_access) {
      s += say(l, "    GPU{} -> GPU{}: {}\n", "    GPU{} -> GPU{}：{}\n", p.from, p.to,
               yes_no(l, p.can_access));
    }
  }
  return s;
}

nlohmann::json device_info_json(const DeviceInfoResult& r) {
  using nlohmann::json;
  if (r.model != nullptr) return {{"command", "device-info"}, {"model", model_json(*r.model)}};
  json devices = json::array();
  for (const auto& d : r.devices) devices.push_back(device_json(d));
  json peers = json::array();
  for (const auto& p : r.peer_access) {
    peers.push_back({{"from", p.from}, {"to", p.to}, {"can_access", p.can_access}});
  }
  json j = {{"command", "device-info"},
            {"gpu_usable", r.gpu_usable},
            {"reason", r.gpu_usable ? json(nullptr) : json(r.reason.en)},
            {"device_count", r.device_count},
            {"devices", devices},
            {"peer_access", peers}};
  j["cuda_driver_version"] =
      r.versions.driver > 0 ? json(cuda_version(r.versions.driver)) : json(nullptr);
  j["cuda_runtime_version"] =
      r.versions.runtime > 0 ? json(cuda_version(r.versions.runtime)) : json(nullptr);
  return j;
}

void setup_device_info(CLI::App& app, GlobalOptions& g) {
  struct Raw {
    std::string device, model;
  };
  const auto [sub, raw] = add_command<Raw>(
      app, g, "device-info",
      {"Everything deviceQuery reports about each CUDA device, or a GPU's spec sheet "
       "(--model), explained",
       "deviceQuery 报告的每个 CUDA 设备的全部信息，或某款 GPU 的规格表（--model），"
       "逐项解释"},
      [&g](Raw& args) {
        DeviceInfoOptions o;
        if (!args.device.empty() && !args.model.empty()) {
          throw UsageError(
              "--device and --model: give one or the other (--device K asks this machine's GPU "
              "K; --model NAME shows a spec sheet from gpulab's table)",
              "--device 和 --model：只能给出其中一个（--device K 询问这台机器的第 K 号 GPU；"
              "--model NAME 显示 gpulab 表中的一份规格）");
        }
        if (!args.device.empty()) {
          o.device = parse_int("--device", args.device, 0, INT64_MAX,
                               {"CUDA numbers devices from 0", "CUDA 从 0 开始给设备编号"});
        }
        o.model = args.model;
        o.gpu_asked = g.backend == BackendChoice::gpu;
        DeviceInfoResult r = run_device_info(o);
        emit(g, device_info_json(r), render_device_info(r, g.out));
      });
  sub->add_option("--device", raw->device,
                  help_tr(g, "Show only CUDA device K (default: every device)",
                          "只显示 CUDA 设备 K（默认：全部设备）"))
      ->type_name("K");
  set_completer(
      sub->add_option(
             "--model", raw->model,
             help_tr(g,
                     "Show a GPU's spec sheet from gpulab's table instead: g80, t4, rtx2080, "
                     "rtx3090, rtx4090, a100, h100, h100-pcie",
                     "改为显示 gpulab 表中某款 GPU 的规格表：g80、t4、rtx2080、rtx3090、"
                     "rtx4090、a100、h100、h100-pcie"))
          ->type_name("NAME"),
      gpu_model_names);
}

}  // namespace gpulab
