// Reading what a user types (see input.hpp).
#include "core/input.hpp"

#include <fmt/format.h>

#include <istream>
#include <limits>

namespace gpulab {

LineRead read_line_capped(std::istream& in, std::string& line, std::size_t max_bytes) {
  line.clear();
  bool any = false, too_long = false;
  std::istream::int_type c;
  while ((c = in.get()) != std::istream::traits_type::eof()) {
    any = true;
    if (c == '\n') break;
    if (line.size() == max_bytes) {
      too_long = true;
      in.ignore(std::numeric_limits<std::streamsize>::max(), '\n');
      break;
    }
    line += static_cast<char>(c);
  }
  if (!any) return LineRead::ended;
  if (too_long) {
    line.clear();
    return LineRead::too_long;
  }
  if (!line.empty() && line.back() == '\r') line.pop_back();
  return LineRead::ok;
}

std::string printable(std::string_view text, std::size_t max_bytes) {
  std::string out;
  std::size_t i = 0;
  for (; i < text.size() && out.size() < max_bytes; ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c < 0x20 || c == 0x7f) {
      out += fmt::format("\\x{:02x}", c);
    } else {
      out += static_cast<char>(c);
    }
  }
  if (i < text.size()) {
    // Never end inside a UTF-8 character: drop its lead and continuation bytes.
    while (!out.empty() && (static_cast<unsigned char>(out.back()) & 0xC0) == 0x80) out.pop_back();
    if (!out.empty() && static_cast<unsigned char>(out.back()) >= 0xC0) out.pop_back();
    out += "...";
  }
  return out;
}

}  // namespace gpulab
