// The program's own ELF symbol table: names and sizes of __shared__ arrays, and the TLS block.
//
// Sizes serve the launch limits, names the race reports.
#pragma once

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace gpulab::simt::detail {

class ProgramSymbols {
 public:
  struct TlsSymbol {
    std::uint64_t offset = 0;  // from the start of the executable's TLS block
    std::uint64_t size = 0;
    std::string name;          // short form: "reduce::sdata"
    bool user_shared = false;  // a kernel's __shared__ array, not one of the emulator's own
  };

  // Loaded once, on first use; an unreadable or stripped program gives an empty table.
  static const ProgramSymbols& get();

  bool loaded() const { return loaded_; }
  // Total bytes of the function-local thread_local (= __shared__) variables of the kernel at
  // `code`.
  std::size_t static_shared_bytes(const void* code) const;
  // Every TLS symbol of the executable, sorted by offset.
  const std::vector<TlsSymbol>& tls_symbols() const { return tls_; }
  // The TLS symbol that holds `offset`, or nullptr.
  const TlsSymbol* tls_symbol_at(std::uint64_t offset) const;
  // The kernel's __shared__ array that ends last at or before `offset` (nullptr: none): the one an
  // access at `offset` ran past.
  const TlsSymbol* user_shared_before(std::uint64_t offset) const;

  // A global or static variable of the program (a __device__ or __constant__ variable, for a
  // kernel): its run-time address, size and demangled name.
  struct ObjectSymbol {
    std::uintptr_t address = 0;
    std::uint64_t size = 0;
    std::string name;
  };
  // The variable at or nearest below `address` (nullopt when there is none).
  std::optional<ObjectSymbol> object_at_or_below(std::uintptr_t address) const;
  // The variable nearest above `address`.
  std::optional<ObjectSymbol> object_above(std::uintptr_t address) const;

 private:
  ProgramSymbols();
  std::string mangled_function_at(const void* code) const;

  bool loaded_ = false;
  std::uintptr_t load_bias_ = 0;
  std::vector<TlsSymbol> tls_;                                      // sorted by offset
  std::vector<std::pair<std::string, std::uint64_t>> tls_mangled_;  // mangled name, size
  std::vector<std::pair<std::uint64_t, std::uint32_t>> functions_;  // address, name offset (sorted)
  struct Object {
    std::uint64_t value, size;
    std::uint32_t name;
  };
  std::vector<Object> objects_;  // sorted by value
  ObjectSymbol object(const Object& o) const;
  // The first object that starts past `address` (objects_.end() when none does).
  std::vector<Object>::const_iterator first_object_above(std::uintptr_t address) const;
  std::string strtab_;
  mutable std::mutex cache_mutex_;
  mutable std::unordered_map<const void*, std::size_t> shared_cache_;
};

// This OS thread's instance of the executable's TLS block: [begin, end).
std::pair<std::uintptr_t, std::uintptr_t> executable_tls_block();

// "ns::reduce<256u>(float*)::sdata" -> "reduce<256u>::sdata".
std::string short_symbol_name(const std::string& demangled);

}  // namespace gpulab::simt::detail
