// PTX and SASS listings with the source lines interleaved (see listing.hpp).
#include "inspect/listing.hpp"

#include <algorithm>
#include <filesystem>
#include <regex>
#include <string_view>
#include <utility>

#include "core/lines.hpp"
#include "core/text.hpp"
#include "run/program.hpp"  // read_file

namespace gpulab {

namespace fs = std::filesystem;

const std::vector<std::string>& Sources::lines(const std::string& path) {
  auto it = files_.find(path);
  if (it == files_.end()) {
    std::error_code ec;
    std::vector<std::string> v;
    if (fs::is_regular_file(path, ec)) v = split_lines(run::read_file(path));
    it = files_.emplace(path, std::move(v)).first;
  }
  return it->second;
}

ListingLine Sources::line(const std::string& path, int number) {
  const auto& v = lines(path);
  std::string text = number >= 1 && static_cast<std::size_t>(number) <= v.size()
                         ? std::string(trim(v[static_cast<std::size_t>(number) - 1]))
                         : std::string();
  return {number, path, text};
}

// ---- PTX ---------------------------------------------------------------------------------------

// Kernel (mangled) -> its PTX body with the source lines of its .loc directives in between.
Listings ptx_listings(const std::string& ptx, Sources& sources) {
  const std::vector<std::string> lines = split_lines(ptx);
  std::map<int, std::string> files;  // .file 1 "/path/x.cu"
  static const std::regex file_re(R"(^\s*\.file\s+(\d+)\s+\"([^\"]+)\")");
  for (const auto& l : lines) {
    std::smatch m;
    if (std::regex_search(l, m, file_re)) files[std::stoi(m[1])] = m[2];
  }
  static const std::regex loc_re(R"(^\s*\.loc\s+(\d+)\s+(\d+)\s+\d+)");
  Listings out;
  std::vector<ListingLine>* current = nullptr;
  std::pair<int, int> last{-1, -1};
  for (const auto& l : lines) {
    const auto entry = l.find(".entry ");
    if (current == nullptr && entry != std::string::npos) {
      std::string name = l.substr(entry + 7);
      name = std::string(trim(name.substr(0, name.find('('))));
      current = &out[name];
      current->push_back({0, {}, std::string(trim(l))});
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
    std::string t(trim(l));
    if (t.empty() || t.starts_with("//") || t.starts_with("$L__tmp")) continue;
    std::replace(t.begin(), t.end(), '\t', ' ');  // PTX separates operands with tabs
    current->push_back({0, {}, t});
  }
  return out;
}

// ---- SASS --------------------------------------------------------------------------------------

// nvdisasm -g -c: "//## File "x.cu", line 12" before the instructions of that line.
Listings sass_listings_nvdisasm(const std::string& text, Sources& sources) {
  static const std::regex func_re(R"(^//-+ \.text\.(\S+) -+)");
  static const std::regex line_re(R"(//## File \"([^\"]+)\", line (\d+))");
  static const std::regex insn_re(R"(/\*[0-9a-f]{4,}\*/\s+(.*?)\s*;?\s*$)");
  Listings out;
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
Listings sass_listings_cuobjdump(const std::string& text) {
  static const std::regex func_re(R"(Function\s*:\s*(\S+))");
  static const std::regex insn_re(R"(/\*[0-9a-f]{4,}\*/\s+(.*?)\s*;)");
  Listings out;
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

namespace {

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
  std::string t(trim(insn));
  if (t.starts_with("@"))
    t = std::string(trim(
        t.substr(t.find_first_of(" \t") == std::string::npos ? t.size() : t.find_first_of(" \t"))));
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

}  // namespace

// Functions are padded with NOPs to an alignment after their last branch: not the kernel's code.
void drop_padding(Listings& listings) {
  for (auto& [name, v] : listings) {
    while (!v.empty() && v.back().source_line == 0 && v.back().text == "NOP") v.pop_back();
  }
}

std::vector<InstructionNote> ptx_notes(const std::vector<ListingLine>& listing) {
  return notes_for(listing, kPtxNotes);
}
std::vector<InstructionNote> sass_notes(const std::vector<ListingLine>& listing) {
  return notes_for(listing, kSassNotes);
}

}  // namespace gpulab
