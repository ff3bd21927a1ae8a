// gpulab inspect: options -> run_inspect (src/inspect/) -> text or JSON (see inspect.hpp).
#include "commands/inspect.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <memory>
#include <regex>
#include <utility>

#include "calc/gpu_specs.hpp"
#include "commands/occupancy.hpp"
#include "core/error.hpp"
#include "core/file_check.hpp"
#include "core/i18n_format.hpp"
#include "core/layout.hpp"
#include "core/parse.hpp"
#include "core/text.hpp"

namespace gpulab {
namespace {

namespace fs = std::filesystem;

std::string bytes(std::int64_t b) {
  return fmt::format("{} B", group_thousands(static_cast<unsigned long long>(b)));
}

std::string render_listing(const std::vector<ListingLine>& listing, const std::string& main_file,
                           const Style& st) {
  std::string s;
  for (const ListingLine& l : listing) {
    if (l.source_line > 0) {
      const std::string where =
          l.file == main_file || fs::path(l.file).filename() == fs::path(main_file).filename()
              ? fmt::format("{:>4}", l.source_line)
              : fmt::format("{}:{}", fs::path(l.file).filename().string(), l.source_line);
      s += "  " + st.code(fmt::format("// {}  {}", where, l.text)) + "\n";
    } else {
      s += "        " + l.text + "\n";
    }
  }
  return verbatim(s);  // a listing is cut to the terminal, never wrapped
}

std::string render_notes(const std::vector<InstructionNote>& notes, const Style& st, Lang l) {
  std::string s;
  std::size_t width = 0;
  for (const auto& n : notes) width = std::max(width, n.opcode.size());
  for (const auto& n : notes) {
    s +=
        "    " + st.bold(pad_right(n.opcode, width)) + "  " + std::string(tr(l, n.en, n.zh)) + "\n";
  }
  return s;
}

}  // namespace

std::string render_inspect(const InspectResult& r, const OutputOptions& out) {
  const Style st = style_for(out);
  const Lang l = out.lang;
  std::string s;
  s += st.dim("$ " + fmt::format("{}", fmt::join(r.nvcc_command, " "))) + "\n";
  if (!r.sass_missing.empty()) s += st.warn(r.sass_missing) + "\n";
  if (r.kernels.empty()) {
    s += say(l, "{} defines no __global__ kernel.\n", "{} 没有定义 __global__ 核函数。\n", r.file);
    return s;
  }
  for (const InspectedKernel& k : r.kernels) {
    const KernelResources& x = k.res;
    s += "\n" + st.heading(say(l, "Kernel {} ({})", "核函数 {}（{}）", x.name, r.arch)) + "\n";
    Table t({std::string(tr(l, "resource", "资源")), std::string(tr(l, "per", "单位")),
             std::string(tr(l, "amount", "数量")), std::string(tr(l, "what it is", "含义"))});
    t.add_row({std::string(tr(l, "registers", "寄存器")), std::string(tr(l, "thread", "线程")),
               std::to_string(x.registers),
               std::string(tr(l, "the fastest storage; fewer per thread, more warps per SM",
                              "最快的存储；每线程越少，每个 SM 的线程束越多"))});
    t.add_row({std::string(tr(l, "static shared memory", "静态共享内存")),
               std::string(tr(l, "block", "线程块")), bytes(x.static_shared_bytes),
               std::string(tr(l, "__shared__ arrays; dynamic shared memory comes on top",
                              "__shared__ 数组；动态共享内存另算"))});
    t.add_row({std::string(tr(l, "local: stack frame", "局部：栈帧")),
               std::string(tr(l, "thread", "线程")), bytes(x.stack_frame_bytes),
               std::string(tr(l, "local arrays and calls, in DRAM (cached)",
                              "局部数组和函数调用，位于 DRAM（有缓存）"))});
    t.add_row({std::string(tr(l, "local: spill stores/loads", "局部：溢出存/取")),
               std::string(tr(l, "thread", "线程")),
               fmt::format("{} / {}", bytes(x.spill_store_bytes), bytes(x.spill_load_bytes)),
               std::string(tr(l, "registers that did not fit, moved to local memory",
                              "放不下的寄存器，被移到局部内存"))});
    t.add_row({std::string(tr(l, "constant memory (bank 0)", "常量内存（bank 0）")),
               std::string(tr(l, "kernel", "核函数")),
               x.constant_bank0_bytes ? bytes(*x.constant_bank0_bytes) : std::string("?"),
               std::string(tr(l, "the kernel's arguments and what the driver passes",
                              "核函数参数和驱动传入的内容"))});
    t.add_row(
        {std::string(tr(l, "barriers", "屏障")), std::string(tr(l, "block", "线程块")),
         std::to_string(x.barriers),
         std::string(tr(l, "named barriers __syncthreads() uses", "__syncthreads() 使用的屏障"))});
    s += t.render(st);
    if (x.cubin_shared_bytes && *x.cubin_shared_bytes != x.static_shared_bytes) {
      s += say(l,
               "  (The cubin's shared-memory section holds {}: on sm_90 and later it includes the "
               "1 KiB the driver\n  reserves per block, which the occupancy below counts "
               "separately.)\n",
               "  （cubin 的共享内存段为 {}：sm_90 起它包含驱动为每个线程块保留的 1 KiB，"
               "下面的占用率单独计算这部分。）\n",
               bytes(*x.cubin_shared_bytes));
    }
    if (x.spill_store_bytes > 0) {
      s += "  " +
           st.warn(std::string(tr(l,
                                  "Spills: the compiler ran out of registers (a cap, or too many "
                                  "live values); each spill is a memory access.",
                                  "有溢出：编译器的寄存器不够用（有上限，或同时活跃的值太多）；"
                                  "每次溢出都是一次访存。"))) +
           "\n";
    }
    if (k.occ.max_warps > 0) {
      s += "\n" + say(l, "  Occupancy with blocks of {} threads on compute capability {}.{}:\n",
                      "  每块 {} 个线程、计算能力 {}.{} 时的占用率：\n", k.occ.in.threads,
                      k.occ.arch.major, k.occ.arch.minor);
      s += render_occupancy_steps(k.occ, st, l);
    }
    if (!k.ptx.empty()) {
      s += "\n" +
           st.heading(say(l, "PTX of {} (source lines interleaved)", "{} 的 PTX（穿插源代码行）",
                          x.short_name)) +
           "\n";
      s += render_listing(k.ptx, r.file, st);
      if (!k.ptx_notes.empty()) {
        s += "  " + st.bold(std::string(tr(l, "Instructions worth knowing:", "值得认识的指令："))) +
             "\n" + render_notes(k.ptx_notes, st, l);
      }
    }
    if (!k.sass.empty()) {
      s += "\n" +
           st.heading(say(l, "SASS of {} ({}, the machine code the SM runs)",
                          "{} 的 SASS（{}，SM 实际执行的机器码）", x.short_name, r.sass_tool)) +
           "\n";
      s += render_listing(k.sass, r.file, st);
      if (!k.sass_notes.empty()) {
        s += "  " + st.bold(std::string(tr(l, "Instructions worth knowing:", "值得认识的指令："))) +
             "\n" + render_notes(k.sass_notes, st, l);
      }
    }
  }
  return s;
}

nlohmann::json inspect_json(const InspectResult& r) {
  auto listing = [](const std::vector<ListingLine>& v) {
    nlohmann::json a = nlohmann::json::array();
    for (const auto& l : v) {
      if (l.source_line > 0) {
        a.push_back({{"file", l.file}, {"line", l.source_line}, {"source", l.text}});
      } else {
        a.push_back({{"code", l.text}});
      }
    }
    return a;
  };
  auto notes = [](const std::vector<InstructionNote>& v) {
    nlohmann::json a = nlohmann::json::array();
    for (const auto& n : v) a.push_back({{"opcode", n.opcode}, {"en", n.en}, {"zh", n.zh}});
    return a;
  };
  nlohmann::json kernels = nlohmann::json::array();
  for (const auto& k : r.kernels) {
    const KernelResources& x = k.res;
    nlohmann::json j = x;
    j["name"] = x.short_name;
    j["signature"] = x.name;
    j["occupancy"] = k.occ.max_warps > 0 ? occupancy_facts_json(k.occ) : nlohmann::json(nullptr);
    if (!k.ptx.empty()) {
      j["ptx"] = listing(k.ptx);
      j["ptx_notes"] = notes(k.ptx_notes);
    }
    if (!k.sass.empty()) {
      j["sass"] = listing(k.sass);
      j["sass_notes"] = notes(k.sass_notes);
    }
    kernels.push_back(std::move(j));
  }
  return {
      {"command", "inspect"},
      {"file", r.file},
      {"arch", r.arch},
      {"nvcc", r.nvcc},
      {"nvcc_version", r.nvcc_version},
      {"nvcc_command", r.nvcc_command},
      {"sass_tool", r.sass_tool.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.sass_tool)},
      {"sass_missing",
       r.sass_missing.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.sass_missing)},
      {"kernels", kernels}};
}

void setup_inspect(CLI::App& app, GlobalOptions& g) {
  struct Raw {
    std::string file, kernel, arch, block, threads, dynamic;
    bool ptx = false, sass = false;
  };
  const auto [sub, raw] = add_command<Raw>(
      app, g, "inspect",
      {"Compile FILE.cu with nvcc: each kernel's registers, shared, local and constant "
       "memory, the occupancy that follows, and its PTX or SASS beside the source",
       "用 nvcc 编译 FILE.cu：每个内核的寄存器、共享内存、局部内存和常量内存，由此得出的"
       "占用率，以及与源码对照的 PTX 或 SASS"},
      [&g](Raw& args) {
        InspectOptions o;
        if (args.file.empty()) {
          throw UsageError("inspect needs a file: gpulab inspect FILE.cu",
                           "inspect 需要一个文件：gpulab inspect FILE.cu");
        }
        require_readable_file(args.file);
        o.file = args.file;
        o.kernel = args.kernel;
        if (!args.arch.empty()) {
          static const std::regex arch_re(R"(sm_(\d{2,3}))");
          std::smatch m;
          if (!std::regex_match(args.arch, m, arch_re)) {
            bad_value("--arch", args.arch,
                      {"write it as sm_XY, e.g. sm_90 for compute capability 9.0",
                       "请写成 sm_XY，例如计算能力 9.0 写作 sm_90"});
          }
          o.arch = std::stoi(m[1]);
          if (!calc::arch_info(o.arch / 10, o.arch % 10)) {
            bad_value("--arch", args.arch,
                      {"not a compute capability gpulab knows", "不是 gpulab 认识的计算能力"});
          }
        }
        const calc::ArchInfo a = *calc::arch_info(o.arch / 10, o.arch % 10);
        const auto [block_name, block] =
            renamed_option("--block", args.block, "--threads", args.threads);
        if (!block.empty()) {
          o.threads = static_cast<int>(parse_int(block_name, block, 1, a.max_threads_per_block,
                                                 both("the most threads a block may have on sm_{}",
                                                      "sm_{} 上一个线程块最多的线程数", o.arch)));
        }
        if (!args.dynamic.empty()) {
          o.dynamic_shared = parse_bytes("--dynamic-shared", args.dynamic,
                                         std::int64_t{a.max_shared_memory_per_block_kib} * 1024,
                                         both("the most shared memory a block may have on sm_{}",
                                              "sm_{} 上一个线程块最多的共享内存", o.arch));
        }
        o.ptx = args.ptx;
        o.sass = args.sass;
        InspectResult r = run_inspect(o, g.out.lang);
        emit(g, inspect_json(r), render_inspect(r, g.out));
      });
  needed(sub->add_option("FILE", raw->file,
                         help_tr(g, "A CUDA source file (the same files gpulab run takes)",
                                 "一个 CUDA 源文件（与 gpulab run 接受的文件相同）"))
             ->type_name("FILE.cu"));
  sub->add_option("--kernel", raw->kernel,
                  help_tr(g, "Only this kernel (its name, e.g. vector_add)",
                          "只看这个内核（写它的名字，例如 vector_add）"))
      ->type_name("NAME");
  sub->add_flag(
      "--ptx", raw->ptx,
      help_tr(g, "Show the PTX with the source lines interleaved", "显示 PTX，并穿插对应的源码行"));
  sub->add_flag("--sass", raw->sass,
                help_tr(g, "Show the SASS (needs nvdisasm or cuobjdump from the CUDA toolkit)",
                        "显示 SASS（需要 CUDA 工具包中的 nvdisasm 或 cuobjdump）"));
  sub->add_option("--arch", raw->arch,
                  help_tr(g, "Compile for this GPU (default sm_75, nvcc's own)",
                          "为这种 GPU 编译（默认 sm_75，即 nvcc 自己的默认值）"))
      ->type_name("sm_XY");
  sub->add_option("--block", raw->block,
                  help_tr(g, "Threads per block, for the occupancy (default 256; also --threads)",
                          "计算占用率所用的每块线程数（默认 256；也可写 --threads）"))
      ->type_name("B");
  sub->add_option("--threads", raw->threads)->group("");  // the first name, still taken
  sub->add_option("--dynamic-shared", raw->dynamic,
                  help_tr(g, "Dynamic shared memory per block, for the occupancy: bytes, or 12K",
                          "每个线程块的动态共享内存，用于计算占用率：字节数，或 12K"))
      ->type_name("BYTES");
}

}  // namespace gpulab
