// An enum's names as data: one table per enum, in the order of its enumerators, read by
// enum_name() instead of a switch written out for every enum.
#pragma once

#include <array>
#include <cstddef>
#include <string_view>

namespace gpulab {

// names[e] for an enum whose enumerators count 0, 1, ... in the table's order; `fallback` for a
// value the table does not reach. Pair each table with a static_assert on its size, so that an
// enumerator added later cannot go without a name.
template <class Enum, std::size_t N>
constexpr std::string_view enum_name(Enum e, const std::array<std::string_view, N>& names,
                                     std::string_view fallback = "?") {
  const auto i = static_cast<std::size_t>(e);
  return i < N ? names[i] : fallback;
}

}  // namespace gpulab
