// Lines of text: a line without its surrounding blanks, a text cut into its lines. The one copy of
// these helpers (the lesson parser, the layout and inspect's listings use them).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace gpulab {

// `s` without the leading and trailing characters in `chars` (spaces, tabs and '\r' unless told).
std::string_view trim(std::string_view s, std::string_view chars = " \t\r");
// The lines of `text`, without their '\n' (nor a '\r' before it); a final newline ends the last
// line (no empty line after it).
std::vector<std::string> split_lines(std::string_view text);

}  // namespace gpulab
