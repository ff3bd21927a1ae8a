// The one content hash: 64-bit FNV-1a (offset basis 14695981039346656037, prime 1099511628211).
// A key for caches and seeds, not a security boundary.
#pragma once

#include <cstdint>
#include <string_view>

namespace gpulab {

struct Fnv1a {
  std::uint64_t h = 14695981039346656037ull;
  // The bytes of `s`, as they are.
  void bytes(std::string_view s) {
    for (unsigned char c : s) {
      h ^= c;
      h *= 1099511628211ull;
    }
  }
  // `s` as one field of several: a separator after it, so that ("ab","c") and ("a","bc") differ.
  void field(std::string_view s) {
    bytes(s);
    h ^= 0xff;
    h *= 1099511628211ull;
  }
};

inline std::uint64_t fnv1a(std::string_view s) {
  Fnv1a f;
  f.bytes(s);
  return f.h;
}

}  // namespace gpulab
