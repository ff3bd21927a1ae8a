// Reads the executable's .symtab (from /proc/self/exe) for __shared__ array names and sizes.
#include "simt/program_symbols.hpp"

#include <cxxabi.h>
#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <memory>

namespace gpulab::simt::detail {

namespace {

struct MainProgram {
  std::uintptr_t bias = 0;
  std::uintptr_t tls_data = 0;
  std::uint64_t tls_size = 0;
  bool found = false;
};

// The first object dl_iterate_phdr reports is the main program.
MainProgram main_program() {
  MainProgram out;
  dl_iterate_phdr(
      [](dl_phdr_info* info, std::size_t, void* data) -> int {
        auto* p = static_cast<MainProgram*>(data);
        p->bias = info->dlpi_addr;
        p->tls_data = reinterpret_cast<std::uintptr_t>(info->dlpi_tls_data);
        for (int i = 0; i < info->dlpi_phnum; ++i) {
          if (info->dlpi_phdr[i].p_type == PT_TLS) p->tls_size = info->dlpi_phdr[i].p_memsz;
        }
        p->found = true;
        return 1;  // stop after the first
      },
      &out);
  return out;
}

bool read_at(int fd, void* buf, std::size_t size, std::uint64_t offset) {
  auto* p = static_cast<char*>(buf);
  while (size > 0) {
    const ssize_t n = ::pread(fd, p, size, static_cast<off_t>(offset));
    if (n <= 0) return false;
    p += n;
    size -= static_cast<std::size_t>(n);
    offset += static_cast<std::uint64_t>(n);
  }
  return true;
}

std::string demangle(const char* name) {
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> out(abi::__cxa_demangle(name, nullptr, nullptr, &status),
                                             std::free);
  return status == 0 && out ? std::string(out.get()) : std::string(name);
}

// A __shared__ array of the program's kernels: a function-local thread_local (_ZZ...) or one at
// global scope (unmangled), but none of the emulator's own (threadIdx & co., gpulab::...).
bool is_user_shared(const std::string& mangled) {
  if (mangled.find("gpulab") != std::string::npos) return false;
  if (mangled.compare(0, 3, "_ZZ") == 0) return true;
  if (mangled.compare(0, 2, "_Z") == 0 || mangled.compare(0, 2, "__") == 0) return false;
  static const char* const builtins[] = {"threadIdx", "blockIdx", "blockDim", "gridDim",
                                         "warpSize"};
  for (const char* b : builtins) {
    if (mangled == b) return false;
  }
  return true;
}

}  // namespace

std::string short_symbol_name(const std::string& demangled) {
  // Split "<function>::<entity>" at the last "::" outside brackets.
  int depth = 0;
  std::size_t split = std::string::npos;
  for (std::size_t i = 0; i + 1 < demangled.size(); ++i) {
    const char c = demangled[i];
    if (c == '(' || c == '<' || c == '[') ++depth;
    if (c == ')' || c == '>' || c == ']') --depth;
    if (depth == 0 && c == ':' && demangled[i + 1] == ':') split = i;
  }
  if (split == std::string::npos) return demangled;
  const std::string entity = demangled.substr(split + 2);
  std::string owner = demangled.substr(0, split);
  // A kernel that gpulab run turned into a coroutine (src/run/split.cpp) declares its __shared__
  // arrays in a lambda: "k(float*)::{lambda(float*)#1}::operator()(float*) const" is k's.
  if (const std::size_t lambda = owner.find("::{lambda("); lambda != std::string::npos) {
    owner.resize(lambda);
  }
  // Drop the parameter list (and any cv-qualifiers after it) of a function.
  const std::size_t close = owner.rfind(')');
  if (close != std::string::npos) {
    depth = 0;
    std::size_t open = std::string::npos;
    for (std::size_t i = close + 1; i-- > 0;) {
      if (owner[i] == ')') ++depth;
      if (owner[i] == '(' && --depth == 0) {
        open = i;
        break;
      }
    }
    if (open != std::string::npos) owner.resize(open);
  }
  // Drop a return type (templates) and the namespaces: keep the last name at bracket depth 0.
  depth = 0;
  std::size_t start = 0;
  for (std::size_t i = 0; i < owner.size(); ++i) {
    const char c = owner[i];
    if (c == '<' || c == '(') ++depth;
    if (c == '>' || c == ')') --depth;
    if (depth == 0 && c == ' ') start = i + 1;
    if (depth == 0 && c == ':' && i + 1 < owner.size() && owner[i + 1] == ':') start = i + 2;
  }
  owner = owner.substr(start);
  return owner.empty() ? entity : owner + "::" + entity;
}

std::pair<std::uintptr_t, std::uintptr_t> executable_tls_block() {
  const MainProgram p = main_program();
  if (!p.found || p.tls_data == 0) return {0, 0};
  return {p.tls_data, p.tls_data + p.tls_size};
}

const ProgramSymbols& ProgramSymbols::get() {
  static const ProgramSymbols symbols;
  return symbols;
}

ProgramSymbols::ProgramSymbols() {
  load_bias_ = main_program().bias;
  const int fd = ::open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return;
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};

  Elf64_Ehdr eh{};
  if (!read_at(fd, &eh, sizeof eh, 0) || std::memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 ||
      eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_shentsize != sizeof(Elf64_Shdr)) {
    return;
  }
  std::vector<Elf64_Shdr> sections(eh.e_shnum);
  if (!read_at(fd, sections.data(), sections.size() * sizeof(Elf64_Shdr), eh.e_shoff)) return;
  const auto symtab = std::find_if(sections.begin(), sections.end(),
                                   [](const Elf64_Shdr& s) { return s.sh_type == SHT_SYMTAB; });
  if (symtab == sections.end() || symtab->sh_link >= sections.size()) return;
  const Elf64_Shdr& strsec = sections[symtab->sh_link];

  std::vector<Elf64_Sym> syms(symtab->sh_size / sizeof(Elf64_Sym));
  strtab_.resize(strsec.sh_size);
  if (!read_at(fd, syms.data(), syms.size() * sizeof(Elf64_Sym), symtab->sh_offset) ||
      !read_at(fd, strtab_.data(), strtab_.size(), strsec.sh_offset)) {
    strtab_.clear();
    return;
  }
  for (const Elf64_Sym& s : syms) {
    if (s.st_name >= strtab_.size()) continue;
    const int type = ELF64_ST_TYPE(s.st_info);
    if (type == STT_TLS && s.st_size > 0) {
      const char* name = strtab_.c_str() + s.st_name;
      // In an executable, a TLS symbol's value is its offset in the TLS block.
      tls_mangled_.emplace_back(name, s.st_size);
      tls_.push_back(
          {s.st_value, s.st_size, short_symbol_name(demangle(name)), is_user_shared(name)});
    } else if (type == STT_FUNC && s.st_value != 0) {
      functions_.emplace_back(s.st_value, s.st_name);
    } else if (type == STT_OBJECT && s.st_value != 0 && s.st_size > 0 && s.st_shndx != SHN_UNDEF) {
      objects_.push_back({s.st_value, s.st_size, s.st_name});
    }
  }
  std::sort(tls_.begin(), tls_.end(),
            [](const TlsSymbol& a, const TlsSymbol& b) { return a.offset < b.offset; });
  std::sort(functions_.begin(), functions_.end());
  std::sort(objects_.begin(), objects_.end(),
            [](const Object& a, const Object& b) { return a.value < b.value; });
  loaded_ = true;
}

std::string ProgramSymbols::mangled_function_at(const void* code) const {
  const auto address = reinterpret_cast<std::uintptr_t>(code) - load_bias_;
  const auto it = std::lower_bound(functions_.begin(), functions_.end(),
                                   std::make_pair(static_cast<std::uint64_t>(address), 0u));
  if (it == functions_.end() || it->first != address) return {};
  return strtab_.c_str() + it->second;
}

std::size_t ProgramSymbols::static_shared_bytes(const void* code) const {
  {
    std::lock_guard lock(cache_mutex_);
    if (const auto it = shared_cache_.find(code); it != shared_cache_.end()) return it->second;
  }
  std::size_t total = 0;
  const std::string mangled = mangled_function_at(code);
  if (mangled.size() > 2 && mangled.compare(0, 2, "_Z") == 0) {
    // A function-local static of f is mangled _ZZ<f's encoding>E<name>; one of a lambda in f
    // (a kernel turned into a coroutine, src/run/split.cpp) _ZZZ<f's encoding>E<lambda>E<name>.
    const std::string prefix = "_ZZ" + mangled.substr(2) + "E";
    const std::string in_lambda = "_ZZZ" + mangled.substr(2) + "E";
    for (const auto& [name, size] : tls_mangled_) {
      if (name.compare(0, prefix.size(), prefix) == 0 ||
          name.compare(0, in_lambda.size(), in_lambda) == 0) {
        total += size;
      }
    }
  }
  std::lock_guard lock(cache_mutex_);
  shared_cache_[code] = total;
  return total;
}

const ProgramSymbols::TlsSymbol* ProgramSymbols::tls_symbol_at(std::uint64_t offset) const {
  auto it = std::upper_bound(tls_.begin(), tls_.end(), offset,
                             [](std::uint64_t o, const TlsSymbol& s) { return o < s.offset; });
  if (it == tls_.begin()) return nullptr;
  --it;
  return offset < it->offset + it->size ? &*it : nullptr;
}

const ProgramSymbols::TlsSymbol* ProgramSymbols::user_shared_before(std::uint64_t offset) const {
  const TlsSymbol* best = nullptr;
  for (const TlsSymbol& t : tls_) {
    if (t.user_shared && t.offset + t.size <= offset) best = &t;
  }
  return best;
}

ProgramSymbols::ObjectSymbol ProgramSymbols::object(const Object& o) const {
  return {static_cast<std::uintptr_t>(o.value + load_bias_), o.size,
          short_symbol_name(demangle(strtab_.c_str() + o.name))};
}

std::vector<ProgramSymbols::Object>::const_iterator ProgramSymbols::first_object_above(
    std::uintptr_t address) const {
  const std::uint64_t value = address - load_bias_;
  return std::upper_bound(objects_.begin(), objects_.end(), value,
                          [](std::uint64_t v, const Object& o) { return v < o.value; });
}

std::optional<ProgramSymbols::ObjectSymbol> ProgramSymbols::object_at_or_below(
    std::uintptr_t address) const {
  auto it = first_object_above(address);
  if (it == objects_.begin()) return std::nullopt;
  return object(*--it);
}

std::optional<ProgramSymbols::ObjectSymbol> ProgramSymbols::object_above(
    std::uintptr_t address) const {
  auto it = first_object_above(address);
  if (it == objects_.end()) return std::nullopt;
  return object(*it);
}

}  // namespace gpulab::simt::detail
