// The conditional jump that ends a basic block (see branch_site.hpp).
#include "profile/branch_site.hpp"

#include <algorithm>
#include <sstream>

namespace gpulab::profile {

namespace {

struct Instruction {
  std::uint64_t address = 0;
  bool conditional_jump = false;
  bool block_hook = false;  // call ... <__sanitizer_cov_trace_pc>
};

// "  401a40:\tjne    401a60 <f+0x40>" -> {0x401a40, jne}; other lines are not instructions.
bool parse(const std::string& line, Instruction& out) {
  std::size_t i = line.find_first_not_of(' ');
  if (i == std::string::npos) return false;
  const std::size_t colon = line.find(':', i);
  if (colon == std::string::npos || colon == i) return false;
  std::uint64_t address = 0;
  for (std::size_t k = i; k < colon; ++k) {
    const char c = line[k];
    const int digit = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
    if (digit < 0) return false;
    address = address * 16 + static_cast<std::uint64_t>(digit);
  }
  std::size_t m = line.find_first_not_of(" \t", colon + 1);
  if (m == std::string::npos) return false;
  std::string mnemonic;
  while (m < line.size() && line[m] != ' ' && line[m] != '\t') mnemonic += line[m++];
  // Prefixes objdump prints before the mnemonic (bnd jne, notrack jmp, ds jne).
  if (mnemonic == "bnd" || mnemonic == "notrack" || mnemonic == "ds" || mnemonic == "cs") {
    m = line.find_first_not_of(" \t", m);
    mnemonic.clear();
    while (m != std::string::npos && m < line.size() && line[m] != ' ' && line[m] != '\t')
      mnemonic += line[m++];
  }
  out.address = address;
  out.conditional_jump = mnemonic.size() >= 2 && mnemonic[0] == 'j' && mnemonic != "jmp" &&
                         mnemonic != "jmpq" && mnemonic.rfind("jmp", 0) != 0;
  out.block_hook = mnemonic.rfind("call", 0) == 0 &&
                   line.find("<__sanitizer_cov_trace_pc", m) != std::string::npos;
  return true;
}

}  // namespace

std::map<std::uint64_t, std::uint64_t> branch_instructions(
    const std::string& objdump_text, const std::vector<std::uint64_t>& blocks) {
  std::vector<Instruction> code;
  std::istringstream in(objdump_text);
  for (std::string line; std::getline(in, line);) {
    Instruction ins;
    if (parse(line, ins)) code.push_back(ins);
  }
  std::sort(code.begin(), code.end(),
            [](const Instruction& a, const Instruction& b) { return a.address < b.address; });
  std::map<std::uint64_t, std::uint64_t> out;
  for (const std::uint64_t block : blocks) {
    auto it = std::lower_bound(
        code.begin(), code.end(), block,
        [](const Instruction& a, std::uint64_t address) { return a.address < address; });
    if (it == code.end() || it->address != block) continue;  // not an instruction we saw
    std::uint64_t jump = 0;
    for (; it != code.end() && !it->block_hook; ++it)
      if (it->conditional_jump) jump = it->address;
    if (jump != 0) out[block] = jump;
  }
  return out;
}

}  // namespace gpulab::profile
