// ptxas's resource report and the cubin's sections (see resources.hpp).
#include "inspect/resources.hpp"

#include <cxxabi.h>  // abi::__cxa_demangle

#include <cstdlib>
#include <memory>
#include <regex>

#include "core/lines.hpp"
#include "core/text.hpp"

namespace gpulab {
namespace {

std::string demangle(const std::string& mangled) {
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> p(
      abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status), std::free);
  return status == 0 && p ? std::string(p.get()) : mangled;
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
        v.back().stack_frame_bytes = std::stoll(m[1]);
        v.back().spill_store_bytes = std::stoll(m[2]);
        v.back().spill_load_bytes = std::stoll(m[3]);
      }
    } else if (!v.empty() && std::regex_search(l, m, used_re)) {
      KernelResources& k = v.back();
      k.registers = std::stoi(m[1]);
      if (std::regex_search(l, m, barriers_re)) k.barriers = std::stoi(m[1]);
      if (std::regex_search(l, m, smem_re)) k.static_shared_bytes = std::stoll(m[1]);
      if (std::regex_search(l, m, cmem_re)) k.constant_bank0_bytes = std::stoll(m[1]);
      if (std::regex_search(l, m, cumulative_re)) k.cumulative_stack_bytes = std::stoll(m[1]);
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

}  // namespace gpulab
