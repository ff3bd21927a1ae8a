// Strict parsing of option values, with one-line errors that name the option, the value and the
// limit (and why the limit exists, where that teaches something).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/i18n_format.hpp"

namespace gpulab {

struct Dim3 {
  std::uint64_t x = 1, y = 1, z = 1;
  int rank = 1;  // how many components were written: "8" -> 1, "2x3" -> 2, "2x3x4" -> 3
  std::uint64_t volume() const { return x * y * z; }
  friend bool operator==(const Dim3& a, const Dim3& b) {
    return a.x == b.x && a.y == b.y && a.z == b.z;
  }
};

// Whole numbers in [min, max]; `why` (optional) is appended to the range error.
std::int64_t parse_int(std::string_view option, std::string_view text, std::int64_t min,
                       std::int64_t max, const Text& why = {});
// Finite real numbers in [min, max].
double parse_real(std::string_view option, std::string_view text, double min, double max,
                  const Text& why = {});
// "X", "XxY" or "XxYxZ" (or "X,Y,Z", as dim3(X, Y, Z) is written), each component >= 1.
Dim3 parse_dim3(std::string_view option, std::string_view text);
// Comma-separated whole numbers, each in [min, max].
std::vector<std::int64_t> parse_int_list(std::string_view option, std::string_view text,
                                         std::int64_t min, std::int64_t max, const Text& why = {});
// One of `choices`, exactly.
std::string parse_choice(std::string_view option, std::string_view text,
                         const std::vector<std::string>& choices);

// Throws UsageError "<option> <value>: <problem>[ (<why>)]", in both languages.
[[noreturn]] void bad_value(std::string_view option, std::string_view value, const Text& problem,
                            const Text& why = {});

}  // namespace gpulab
