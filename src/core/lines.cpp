// Lines of text (see lines.hpp).
#include "core/lines.hpp"

namespace gpulab {

std::string_view trim(std::string_view s, std::string_view chars) {
  const std::size_t b = s.find_first_not_of(chars);
  if (b == std::string_view::npos) return {};
  return s.substr(b, s.find_last_not_of(chars) - b + 1);
}

std::vector<std::string> split_lines(std::string_view text) {
  std::vector<std::string> lines;
  while (!text.empty()) {
    const std::size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    lines.emplace_back(line);
    text = nl == std::string_view::npos ? std::string_view{} : text.substr(nl + 1);
  }
  return lines;
}

}  // namespace gpulab
