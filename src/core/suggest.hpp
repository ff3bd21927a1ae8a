// "Did you mean": the closest of a list of names to what the user typed.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpulab {

// Edits (insert, delete, replace, swap two neighbours) that turn `a` into `b`, case-insensitively;
// '_' and '-' count as the same letter (index_map -> index-map).
std::size_t edit_distance(std::string_view a, std::string_view b);

// The one name in `names` closest to `typed`, when it is close enough to be a likely typo (at most
// one edit in a name of up to 4 letters, two in longer ones) or starts with `typed`
// (`gpulab vec` -> vecadd) and no other name does; else nothing.
std::optional<std::string> closest_name(std::string_view typed,
                                        const std::vector<std::string>& names);

}  // namespace gpulab
