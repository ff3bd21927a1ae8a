// gpulab inspect (see inspect.hpp).
#include "commands/inspect.hpp"

#include <cxxabi.h>  // abi::__cxa_demangle
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <regex>
#include <sstream>
#include <utility>

#include "calc/gpu_specs.hpp"
#include "commands/occupancy.hpp"
#include "core/error.hpp"
#include "core/file_check.hpp"
#include "core/layout.hpp"
#include "core/parse.hpp"
#include "core/process.hpp"
#include "core/text.hpp"
#include "core/toolchain.hpp"

namespace gpulab {
namespace {

namespace fs = std::filesystem;

template <class... Args>
std::string F(Lang l, std::string_view en, std::string_view zh, Args&&... args) {
  return fmt::format(fmt::runtime(tr(l, en, zh)), std::forward<Args>(args)...);
}

std::string demangle(const std::string& mangled) {
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> p(
      abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status), std::free);
  return status == 0 && p ? std::string(p.get()) : mangled;
}

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> v;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    v.push_back(line);
  }
  return v;
}

std::string trim(std::string_view s) {
  const auto b = s.find_first_not_of(" \t");
  if (b == std::string_view::npos) return {};
  const auto e = s.find_last_not_of(" \t");
  return std::string(s.substr(b, e - b + 1));
}

// A temporary directory, removed with everything in it when this goes out of scope.
class TempDir {
 public:
  TempDir() {
    const char* base = std::getenv("TMPDIR");
    std::string pattern =
        std::string(base != nullptr && *base != '\0' ? base : "/tmp") + "/gpulab-inspect-XXXXXX";
    if (mkdtemp(pattern.data()) == nullptr) {
      throw RuntimeFailure(both("cannot create a temporary directory in {}: {}",
                                "无法在 {} 中创建临时目录：{}",
                                fs::path(pattern).parent_path().string(), std::strerror(errno)));
    }
    path_ = pattern;
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

// Source files by path, read once.
class Sources {
 public:
  const std::vector<std::string>& lines(const std::string& path) {
    auto it = files_.find(path);
    if (it == files_.end()) {
      std::error_code ec;
      std::vector<std::string> v;
      if (fs::is_regular_file(path, ec)) v = split_lines(read_file(path));
      it = files_.emplace(path, std::move(v)).first;
    }
    return it->second;
  }
  ListingLine line(const std::string& path, int number) {
    const auto& v = lines(path);
    std::string text = number >= 1 && static_cast<std::size_t>(number) <= v.size()
                           ? trim(v[static_cast<std::size_t>(number) - 1])
                           : std::string();
    return {number, path, text};
  }

 private:
  std::map<std::string, std::vector<std::string>> files_;
};

// ---- PTX ---------------------------------------------------------------------------------------

// Kernel (mangled) -> its PTX body with the source lines of its .loc directives in between.
std::map<std::string, std::vector<ListingLine>> ptx_listings(const std::string& ptx,
                                                             Sources& sources) {
  const std::vector<std::string> lines = split_lines(ptx);
  std::map<int, std::string> files;  // .file 1 "/path/x.cu"
  static const std::regex file_re(R"(^\s*\.file\s+(\d+)\s+\"([^\"]+)\")");
  for (const auto& l : lines) {
    std::smatch m;
    if (std::regex_search(l, m, file_re)) files[std::stoi(m[1])] = m[2];
  }
  static const std::regex loc_re(R"(^\s*\.loc\s+(\d+)\s+(\d+)\s+\d+)");
  std::map<std::string, std::vector<ListingLine>> out;
  std::vector<ListingLine>* current = nullptr;
  std::pair<int, int> last{-1, -1};
  for (const auto& l : lines) {
    const auto entry = l.find(".entry ");
    if (current == nullptr && entry != std::string::npos) {
      std::string name = l.substr(entry + 7);
      name = trim(name.substr(0, name.find('(')));
      current = &out[name];
      current->push_back({0, {}, trim(l)});
      last = {-1, -1};
      continue;
    }
    if (current == nullptr) continue;
    if (l == "}") {
      current->push_back({0, {}, "}"});
      current = nullptr;
      continue;
    }
    std::smatch m;
    if (std::regex_search(l, m, loc_re)) {
      const std::pair<int, int> at{std::stoi(m[1]), std::stoi(m[2])};
      if (at.second > 0 && at != last && files.count(at.first) != 0) {
        current->push_back(sources.line(files[at.first], at.second));
      }
      last = at;
      continue;
    }
    std::string t = trim(l);
    if (t.empty() || t.starts_with("//") || t.starts_with("$L__tmp")) continue;
    std::replace(t.begin(), t.end(), '\t', ' ');  // PTX separates operands with tabs
    current->push_back({0, {}, t});
  }
  return out;
}

// ---- SASS --------------------------------------------------------------------------------------

// nvdisasm -g -c: "//## File "x.cu", line 12" before the instructions of that line.
std::map<std::string, std::vector<ListingLine>> sass_listings_nvdisasm(const std::string& text,
                                                                       Sources& sources) {
  static const std::regex func_re(R"(^//-+ \.text\.(\S+) -+)");
  static const std::regex line_re(R"(//## File \"([^\"]+)\", line (\d+))");
  static const std::regex insn_re(R"(/\*[0-9a-f]{4,}\*/\s+(.*?)\s*;?\s*$)");
  std::map<std::string, std::vector<ListingLine>> out;
  std::vector<ListingLine>* current = nullptr;
  std::pair<std::string, int> last{"", -1};
  for (const auto& l : split_lines(text)) {
    std::smatch m;
    if (std::regex_search(l, m, func_re)) {
      current = &out[m[1]];
      last = {"", -1};
    } else if (current != nullptr && std::regex_search(l, m, line_re)) {
      const std::pair<std::string, int> at{m[1], std::stoi(m[2])};
      if (at != last) current->push_back(sources.line(at.first, at.second));
      last = at;
    } else if (current != nullptr && std::regex_search(l, m, insn_re)) {
      current->push_back({0, {}, m[1]});
    }
  }
  return out;
}

// cuobjdump -sass: "Function : NAME", then "/*0000*/  INSN ;  /* encoding */", no line numbers.
std::map<std::string, std::vector<ListingLine>> sass_listings_cuobjdump(const std::string& text) {
  static const std::regex func_re(R"(Function\s*:\s*(\S+))");
  static const std::regex insn_re(R"(/\*[0-9a-f]{4,}\*/\s+(.*?)\s*;)");
  std::map<std::string, std::vector<ListingLine>> out;
  std::vector<ListingLine>* current = nullptr;
  for (const auto& l : split_lines(text)) {
    std::smatch m;
    if (std::regex_search(l, m, func_re)) {
      current = &out[m[1]];
    } else if (current != nullptr && std::regex_search(l, m, insn_re)) {
      current->push_back({0, {}, m[1]});
    }
  }
  return out;
}

// ---- instruction notes -------------------------------------------------------------------------

struct Note {
  const char* opcode;  // a listing line's opcode starts with this
  const char* en;
  const char* zh;
};

constexpr Note kPtxNotes[] = {
    {"ld.param", "reads a kernel argument (they live in constant memory)",
     "读取核函数参数（参数放在常量内存里）"},
    {"ld.global", "loads from global memory (DRAM, through L2 and L1): hundreds of cycles",
     "从全局内存加载（DRAM，经 L2 和 L1）：数百个周期"},
    {"st.global", "stores to global memory", "写入全局内存"},
    {"ld.shared", "loads from the block's shared memory: on-chip, tens of cycles",
     "从线程块的共享内存加载：片上，几十个周期"},
    {"st.shared", "stores to shared memory", "写入共享内存"},
    {"ld.local",
     "loads from local memory: the thread's private stack or spilled registers, in DRAM",
     "从局部内存加载：线程私有的栈或溢出的寄存器，位于 DRAM"},
    {"st.local", "stores to local memory (a spill or a local array)",
     "写入局部内存（溢出或局部数组）"},
    {"bar.sync", "__syncthreads(): every thread of the block waits here for the others",
     "__syncthreads()：块内所有线程在此等待彼此"},
    {"shfl.sync", "a warp shuffle: reads a register of another lane of the same warp",
     "线程束洗牌：读取同一线程束中另一通道的寄存器"},
    {"fma.rn.f32", "fused multiply-add a*b+c in one instruction, rounded once",
     "融合乘加 a*b+c，一条指令，只舍入一次"},
    {"atom", "an atomic read-modify-write", "原子读-改-写"},
    {"red", "an atomic reduction whose old value is not needed", "不需要旧值的原子归约"},
    {"setp", "sets a predicate (a 1-bit register) from a comparison",
     "根据比较设置谓词（1 位寄存器）"},
    {"bra", "a branch; with @%p only the lanes whose predicate is true take it",
     "跳转；带 @%p 时只有谓词为真的通道跳转"},
};

constexpr Note kSassNotes[] = {
    {"S2R", "reads a special register: threadIdx (SR_TID), blockIdx (SR_CTAID)",
     "读特殊寄存器：threadIdx（SR_TID）、blockIdx（SR_CTAID）"},
    {"LDC", "loads from constant memory (kernel arguments, c[0x0][...])",
     "从常量内存加载（核函数参数，c[0x0][...]）"},
    {"LDG", "loads from global memory", "从全局内存加载"},
    {"STG", "stores to global memory", "写入全局内存"},
    {"LDS", "loads from shared memory", "从共享内存加载"},
    {"STS", "stores to shared memory", "写入共享内存"},
    {"LDL", "loads from local memory (a spill or a local array)",
     "从局部内存加载（溢出或局部数组）"},
    {"STL", "stores to local memory (a spill or a local array)", "写入局部内存（溢出或局部数组）"},
    {"BAR", "a barrier: __syncthreads()", "屏障：__syncthreads()"},
    {"SHFL", "a warp shuffle", "线程束洗牌"},
    {"FFMA", "fused multiply-add on 32-bit floats", "32 位浮点融合乘加"},
    {"IMAD", "integer multiply-add (index arithmetic: blockIdx.x * blockDim.x + threadIdx.x)",
     "整数乘加（下标计算：blockIdx.x * blockDim.x + threadIdx.x）"},
    {"ISETP", "integer compare, sets a predicate", "整数比较，设置谓词"},
    {"BRA", "a branch", "跳转"},
    {"EXIT", "the thread ends", "线程结束"},
};

std::string opcode_of(const std::string& insn) {
  std::string t = trim(insn);
  if (t.starts_with("@"))
    t = trim(
        t.substr(t.find_first_of(" \t") == std::string::npos ? t.size() : t.find_first_of(" \t")));
  return t.substr(0, t.find_first_of(" \t"));
}

template <std::size_t N>
std::vector<InstructionNote> notes_for(const std::vector<ListingLine>& listing,
                                       const Note (&table)[N]) {
  std::vector<InstructionNote> v;
  for (const Note& n : table) {
    const std::string_view op = n.opcode;
    const bool found = std::any_of(listing.begin(), listing.end(), [&](const ListingLine& l) {
      if (l.source_line > 0) return false;
      const std::string code = opcode_of(l.text);
      return code.starts_with(op) &&
             (code.size() == op.size() || code[op.size()] == '.' || code[op.size()] == ' ');
    });
    if (found) v.push_back({std::string(n.opcode), n.en, n.zh});
  }
  return v;
}

// Functions are padded with NOPs to an alignment after their last branch: not the kernel's code.
void drop_padding(std::map<std::string, std::vector<ListingLine>>& listings) {
  for (auto& [name, v] : listings) {
    while (!v.empty() && v.back().source_line == 0 && v.back().text == "NOP") v.pop_back();
  }
}

ProcessResult run_tool(const std::vector<std::string>& argv) {
  ProcessResult r = run_capture(argv, std::chrono::seconds(120));
  if (!r.ok()) {
    throw RuntimeFailure(both("{0} failed ({1}):\n{3}", "{0} 失败（{2}）：\n{3}",
                              fs::path(argv[0]).filename().string(), r.describe().en,
                              r.describe().zh, trim(r.err + r.out)));
  }
  return r;
}

}  // namespace

std::string kernel_short_name(const std::string& demangled) {
  // The name ends at the '(' of the parameter list that is not inside template brackets.
  int depth = 0;
  for (std::size_t i = 0; i < demangled.size(); ++i) {
    const char c = demangled[i];
    if (c == '<') ++depth;
    if (c == '>') --depth;
    if (c == '(' && depth == 0) return demangled.substr(0, i);
  }
  return demangled;
}

std::vector<KernelResources> parse_resource_usage(std::string_view text) {
  static const std::regex entry_re(R"(Compiling entry function '([^']+)')");
  static const std::regex props_re(R"(Function properties for (\S+))");
  static const std::regex stack_re(
      R"((\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads)");
  static const std::regex used_re(R"(Used (\d+) registers)");
  static const std::regex barriers_re(R"(used (\d+) barriers)");
  static const std::regex smem_re(R"((\d+) bytes smem)");
  static const std::regex cmem_re(R"((\d+) bytes cmem\[0\])");
  static const std::regex cumulative_re(R"((\d+) bytes cumulative stack size)");
  std::vector<KernelResources> v;
  std::string props_for;
  for (const std::string& l : split_lines(std::string(text))) {
    std::smatch m;
    if (std::regex_search(l, m, entry_re)) {
      KernelResources k;
      k.mangled = m[1];
      k.name = demangle(k.mangled);
      k.short_name = kernel_short_name(k.name);
      v.push_back(std::move(k));
      props_for.clear();
    } else if (std::regex_search(l, m, props_re)) {
      props_for = m[1];
    } else if (std::regex_search(l, m, stack_re)) {
      if (!v.empty() && props_for == v.back().mangled) {
        v.back().stack_frame = std::stoll(m[1]);
        v.back().spill_stores = std::stoll(m[2]);
        v.back().spill_loads = std::stoll(m[3]);
      }
    } else if (!v.empty() && std::regex_search(l, m, used_re)) {
      KernelResources& k = v.back();
      k.registers = std::stoi(m[1]);
      if (std::regex_search(l, m, barriers_re)) k.barriers = std::stoi(m[1]);
      if (std::regex_search(l, m, smem_re)) k.static_shared = std::stoll(m[1]);
      if (std::regex_search(l, m, cmem_re)) k.constant_bank0 = std::stoll(m[1]);
      if (std::regex_search(l, m, cumulative_re)) k.cumulative_stack = std::stoll(m[1]);
    }
  }
  return v;
}

std::map<std::string, std::uint64_t> elf_section_sizes(std::string_view elf) {
  std::map<std::string, std::uint64_t> sizes;
  auto u16 = [&](std::size_t at) -> std::uint64_t {
    return at < elf.size() && elf.size() - at >= 2  // no overflow, whatever the file says
               ? static_cast<std::uint64_t>(static_cast<unsigned char>(elf[at])) |
                     static_cast<std::uint64_t>(static_cast<unsigned char>(elf[at + 1])) << 8
               : 0;
  };
  auto u32 = [&](std::size_t at) { return u16(at) | u16(at + 2) << 16; };
  auto u64 = [&](std::size_t at) { return u32(at) | u32(at + 4) << 32; };
  // A 64-bit (class 2), little-endian (data 1) ELF file.
  if (elf.size() < 64 ||
      elf.substr(0, 4) !=
          "\x7f"
          "ELF" ||
      elf[4] != 2 || elf[5] != 1) {
    return sizes;
  }
  const std::uint64_t shoff = u64(0x28), shentsize = u16(0x3A), shnum = u16(0x3C),
                      shstrndx = u16(0x3E);
  if (shentsize < 64 || shstrndx >= shnum || shoff > elf.size() ||
      shnum * shentsize > elf.size() - shoff) {
    return sizes;
  }
  const std::uint64_t strtab = u64(shoff + shstrndx * shentsize + 0x18);
  for (std::uint64_t i = 0; i < shnum; ++i) {
    const std::uint64_t h = shoff + i * shentsize;
    const std::uint64_t name_at = strtab + u32(h);
    if (name_at >= elf.size()) continue;
    const std::size_t end = elf.find('\0', name_at);
    if (end == std::string_view::npos) continue;
    sizes[std::string(elf.substr(name_at, end - name_at))] = u64(h + 0x20);
  }
  return sizes;
}

InspectResult run_inspect(const InspectOptions& o, Lang lang) {
  const auto nvcc = toolchain::find_nvcc();
  if (!nvcc) throw RuntimeFailure(chosen(toolchain::missing_message("nvcc", lang)));
  std::optional<toolchain::Tool> sass_tool;
  if (o.sass) {
    sass_tool = toolchain::find_cuda_tool("nvdisasm");
    if (!sass_tool) sass_tool = toolchain::find_cuda_tool("cuobjdump");
  }
  InspectResult r;
  // No SASS tool: said, and the PTX shown instead (the nearest listing nvcc alone can make).
  if (o.sass && !sass_tool) {
    r.sass_missing = F(lang, "--sass needs nvdisasm or cuobjdump: {}; the PTX is shown instead",
                       "--sass 需要 nvdisasm 或 cuobjdump：{}；改为显示 PTX",
                       toolchain::missing_message("cuobjdump", lang));
  }
  const bool want_ptx = o.ptx || !r.sass_missing.empty();
  r.file = o.file;
  r.arch = fmt::format("sm_{}", o.arch);
  r.nvcc = nvcc->path;
  r.nvcc_version = nvcc->version;
  const auto arch = calc::arch_info(o.arch / 10, o.arch % 10);

  TempDir tmp;
  const std::string cubin = (tmp.path() / "kernels.cubin").string();
  // -cubin compiles the device code alone, for one real architecture; -lineinfo keeps the source
  // lines for the listings; --resource-usage makes ptxas report each kernel's resources.
  r.nvcc_command = {
      nvcc->path, "-arch=" + r.arch, "-cubin", "-lineinfo", "--resource-usage", "-o", cubin,
      o.file};
  const ProcessResult compiled = run_capture(r.nvcc_command, std::chrono::seconds(300));
  if (!compiled.ok()) {
    throw RuntimeFailure(both("nvcc could not compile {0} ({1}):\n{3}",
                              "nvcc 无法编译 {0}（{2}）：\n{3}", o.file, compiled.describe().en,
                              compiled.describe().zh, trim(compiled.err + compiled.out)));
  }
  std::vector<KernelResources> kernels = parse_resource_usage(compiled.out + compiled.err);
  const auto sections = elf_section_sizes(read_file(cubin));
  for (KernelResources& k : kernels) {
    if (auto it = sections.find(".nv.shared." + k.mangled); it != sections.end()) {
      k.cubin_shared = static_cast<std::int64_t>(it->second);
    }
    if (!k.constant_bank0) {
      if (auto it = sections.find(".nv.constant0." + k.mangled); it != sections.end()) {
        k.constant_bank0 = static_cast<std::int64_t>(it->second);
      }
    }
  }
  if (!o.kernel.empty()) {
    std::vector<KernelResources> picked;
    std::vector<std::string> names;
    for (auto& k : kernels) {
      names.push_back(k.short_name);
      if (k.short_name == o.kernel || k.mangled == o.kernel || k.name == o.kernel) {
        picked.push_back(k);
      }
    }
    if (picked.empty()) {
      const std::string list = fmt::format("{}", fmt::join(names, ", "));
      bad_value("--kernel", o.kernel,
                names.empty() ? both("{} defines no kernel", "{} 没有定义内核", o.file)
                              : both("not a kernel of {}; its kernels: {}",
                                     "不是 {} 中的内核；它的内核有：{}", o.file, list));
    }
    kernels = std::move(picked);
  }

  Sources sources;
  std::map<std::string, std::vector<ListingLine>> ptx, sass;
  if (want_ptx) {
    const std::string ptx_file = (tmp.path() / "kernels.ptx").string();
    run_tool({nvcc->path, "-arch=" + r.arch, "-ptx", "-lineinfo", "-o", ptx_file, o.file});
    ptx = ptx_listings(read_file(ptx_file), sources);
  }
  if (o.sass && sass_tool) {
    r.sass_tool = sass_tool->name;
    if (sass_tool->name == "nvdisasm") {
      sass = sass_listings_nvdisasm(run_tool({sass_tool->path, "-g", "-c", cubin}).out, sources);
    } else {
      sass = sass_listings_cuobjdump(run_tool({sass_tool->path, "-sass", cubin}).out);
    }
    drop_padding(sass);
  }

  for (KernelResources& k : kernels) {
    InspectedKernel ik;
    ik.res = k;
    if (arch) {
      ik.occ = calc::occupancy(
          *arch, {o.threads, k.registers, k.static_shared, o.dynamic_shared, std::nullopt});
    }
    if (auto it = ptx.find(k.mangled); it != ptx.end()) ik.ptx = it->second;
    if (auto it = sass.find(k.mangled); it != sass.end()) ik.sass = it->second;
    ik.ptx_notes = notes_for(ik.ptx, kPtxNotes);
    ik.sass_notes = notes_for(ik.sass, kSassNotes);
    r.kernels.push_back(std::move(ik));
  }
  return r;
}

namespace {

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
    s += F(l, "{} defines no __global__ kernel.\n", "{} 没有定义 __global__ 核函数。\n", r.file);
    return s;
  }
  for (const InspectedKernel& k : r.kernels) {
    const KernelResources& x = k.res;
    s += "\n" + st.heading(F(l, "Kernel {} ({})", "核函数 {}（{}）", x.name, r.arch)) + "\n";
    Table t({std::string(tr(l, "resource", "资源")), std::string(tr(l, "per", "单位")),
             std::string(tr(l, "amount", "数量")), std::string(tr(l, "what it is", "含义"))});
    t.add_row({std::string(tr(l, "registers", "寄存器")), std::string(tr(l, "thread", "线程")),
               std::to_string(x.registers),
               std::string(tr(l, "the fastest storage; fewer per thread, more warps per SM",
                              "最快的存储；每线程越少，每个 SM 的线程束越多"))});
    t.add_row({std::string(tr(l, "static shared memory", "静态共享内存")),
               std::string(tr(l, "block", "线程块")), bytes(x.static_shared),
               std::string(tr(l, "__shared__ arrays; dynamic shared memory comes on top",
                              "__shared__ 数组；动态共享内存另算"))});
    t.add_row({std::string(tr(l, "local: stack frame", "局部：栈帧")),
               std::string(tr(l, "thread", "线程")), bytes(x.stack_frame),
               std::string(tr(l, "local arrays and calls, in DRAM (cached)",
                              "局部数组和函数调用，位于 DRAM（有缓存）"))});
    t.add_row({std::string(tr(l, "local: spill stores/loads", "局部：溢出存/取")),
               std::string(tr(l, "thread", "线程")),
               fmt::format("{} / {}", bytes(x.spill_stores), bytes(x.spill_loads)),
               std::string(tr(l, "registers that did not fit, moved to local memory",
                              "放不下的寄存器，被移到局部内存"))});
    t.add_row({std::string(tr(l, "constant memory (bank 0)", "常量内存（bank 0）")),
               std::string(tr(l, "kernel", "核函数")),
               x.constant_bank0 ? bytes(*x.constant_bank0) : std::string("?"),
               std::string(tr(l, "the kernel's arguments and what the driver passes",
                              "核函数参数和驱动传入的内容"))});
    t.add_row(
        {std::string(tr(l, "barriers", "屏障")), std::string(tr(l, "block", "线程块")),
         std::to_string(x.barriers),
         std::string(tr(l, "named barriers __syncthreads() uses", "__syncthreads() 使用的屏障"))});
    s += t.render(st);
    if (x.cubin_shared && *x.cubin_shared != x.static_shared) {
      s += F(l,
             "  (The cubin's shared-memory section holds {}: on sm_90 and later it includes the "
             "1 KiB the driver\n  reserves per block, which the occupancy below counts "
             "separately.)\n",
             "  （cubin 的共享内存段为 {}：sm_90 起它包含驱动为每个线程块保留的 1 KiB，"
             "下面的占用率单独计算这部分。）\n",
             bytes(*x.cubin_shared));
    }
    if (x.spill_stores > 0) {
      s += "  " +
           st.warn(std::string(tr(l,
                                  "Spills: the compiler ran out of registers (a cap, or too many "
                                  "live values); each spill is a memory access.",
                                  "有溢出：编译器的寄存器不够用（有上限，或同时活跃的值太多）；"
                                  "每次溢出都是一次访存。"))) +
           "\n";
    }
    if (k.occ.max_warps > 0) {
      s += "\n" + F(l, "  Occupancy with blocks of {} threads on compute capability {}.{}:\n",
                    "  每块 {} 个线程、计算能力 {}.{} 时的占用率：\n", k.occ.in.threads,
                    k.occ.arch.major, k.occ.arch.minor);
      s += render_occupancy_steps(k.occ, st, l);
    }
    if (!k.ptx.empty()) {
      s += "\n" +
           st.heading(F(l, "PTX of {} (source lines interleaved)", "{} 的 PTX（穿插源代码行）",
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
           st.heading(F(l, "SASS of {} ({}, the machine code the SM runs)",
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
    nlohmann::json j = {
        {"name", x.short_name},
        {"signature", x.name},
        {"mangled", x.mangled},
        {"registers", x.registers},
        {"barriers", x.barriers},
        {"static_shared_bytes", x.static_shared},
        {"stack_frame_bytes", x.stack_frame},
        {"spill_store_bytes", x.spill_stores},
        {"spill_load_bytes", x.spill_loads},
        {"cumulative_stack_bytes", x.cumulative_stack},
        {"constant_bank0_bytes",
         x.constant_bank0 ? nlohmann::json(*x.constant_bank0) : nlohmann::json(nullptr)},
        {"cubin_shared_bytes",
         x.cubin_shared ? nlohmann::json(*x.cubin_shared) : nlohmann::json(nullptr)},
    };
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
  auto raw = std::make_shared<Raw>();
  CLI::App* sub = add_command(
      app, g, "inspect",
      help_tr(g,
              "Compile FILE.cu with nvcc: each kernel's registers, shared, local and constant "
              "memory, the occupancy that follows, and its PTX or SASS beside the source",
              "用 nvcc 编译 FILE.cu：每个内核的寄存器、共享内存、局部内存和常量内存，由此得出的"
              "占用率，以及与源码对照的 PTX 或 SASS"),
      [raw, &g] {
        InspectOptions o;
        if (raw->file.empty()) {
          throw UsageError("inspect needs a file: gpulab inspect FILE.cu",
                           "inspect 需要一个文件：gpulab inspect FILE.cu");
        }
        require_readable_file(raw->file);
        o.file = raw->file;
        o.kernel = raw->kernel;
        if (!raw->arch.empty()) {
          static const std::regex arch_re(R"(sm_(\d{2,3}))");
          std::smatch m;
          if (!std::regex_match(raw->arch, m, arch_re)) {
            bad_value("--arch", raw->arch,
                      {"write it as sm_XY, e.g. sm_90 for compute capability 9.0",
                       "请写成 sm_XY，例如计算能力 9.0 写作 sm_90"});
          }
          o.arch = std::stoi(m[1]);
          if (!calc::arch_info(o.arch / 10, o.arch % 10)) {
            bad_value("--arch", raw->arch,
                      {"not a compute capability gpulab knows", "不是 gpulab 认识的计算能力"});
          }
        }
        const calc::ArchInfo a = *calc::arch_info(o.arch / 10, o.arch % 10);
        const auto [block_name, block] =
            renamed_option("--block", raw->block, "--threads", raw->threads);
        if (!block.empty()) {
          o.threads = static_cast<int>(parse_int(block_name, block, 1, a.max_threads_per_block,
                                                 both("the most threads a block may have on sm_{}",
                                                      "sm_{} 上一个线程块最多的线程数", o.arch)));
        }
        if (!raw->dynamic.empty()) {
          o.dynamic_shared = parse_bytes("--dynamic-shared", raw->dynamic,
                                         std::int64_t{a.max_shared_per_block_kib} * 1024,
                                         both("the most shared memory a block may have on sm_{}",
                                              "sm_{} 上一个线程块最多的共享内存", o.arch));
        }
        o.ptx = raw->ptx;
        o.sass = raw->sass;
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
