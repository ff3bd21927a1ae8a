// Reading what a user types (see input.hpp).
#include "core/input.hpp"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
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

std::string escape_controls(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7f) {
      out += fmt::format("\\x{:02x}", c);
    } else if (c == 0xC2 && i + 1 < text.size() &&
               (static_cast<unsigned char>(text[i + 1]) & 0xE0) == 0x80) {
      // U+0080..U+009F, the C1 controls (CSI is U+009B): as terminal-driving as ESC [.
      out += fmt::format("\\u{:04x}", static_cast<unsigned char>(text[i + 1]));
      ++i;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
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

std::string ascii_forms(std::string_view text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c == 0xEF && i + 2 < text.size()) {
      // U+FF01..U+FF5E are ASCII 0x21..0x7E moved up by 0xFEE0: EF BC 81 .. EF BD 9E.
      const auto b1 = static_cast<unsigned char>(text[i + 1]);
      const auto b2 = static_cast<unsigned char>(text[i + 2]);
      const unsigned cp = ((c & 0x0F) << 12) | ((b1 & 0x3F) << 6) | (b2 & 0x3F);
      if (cp >= 0xFF01 && cp <= 0xFF5E) {
        out += static_cast<char>(cp - 0xFEE0);
        i += 2;
        continue;
      }
    }
    if (text.substr(i, 3) == "\u3000") {
      out += ' ';
      i += 2;
      continue;
    }
    if (text.substr(i, 3) == "\u3001") {
      out += ',';
      i += 2;
      continue;
    }
    out += static_cast<char>(c);
  }
  return out;
}

namespace {

bool digit(char c) {
  return c >= '0' && c <= '9';
}

// "12,582,912" and "-1,234.5": every comma starts a group of exactly three digits, the first
// group has one to three.
bool valid_grouping(std::string_view s) {
  if (!s.empty() && (s.front() == '-' || s.front() == '+')) s.remove_prefix(1);
  const std::size_t dot = s.find('.');
  std::string_view whole = s.substr(0, dot);
  if (dot != std::string_view::npos && s.substr(dot).find(',') != std::string_view::npos)
    return false;
  std::size_t start = 0, group = 0;
  while (true) {
    std::size_t comma = whole.find(',', start);
    const std::size_t end = comma == std::string_view::npos ? whole.size() : comma;
    const std::size_t len = end - start;
    if (group == 0 ? (len < 1 || len > 3) : len != 3) return false;
    ++group;
    if (comma == std::string_view::npos) return true;
    start = comma + 1;
  }
}

}  // namespace

NumberRead read_answer_number(std::string_view text, double& out) {
  const std::string s = ascii_forms(text);
  std::size_t b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos) return NumberRead::empty;
  // The number: sign, digits, separators, a decimal point and an exponent.
  std::size_t e = b;
  if (s[e] == '+' || s[e] == '-') ++e;
  while (e < s.size()) {
    const char c = s[e];
    if (digit(c) || c == '.' || c == ',' || c == '_' || c == '\'') {
      ++e;
    } else if ((c == 'e' || c == 'E') && e > b &&
               ((e + 1 < s.size() && digit(s[e + 1])) ||
                (e + 2 < s.size() && (s[e + 1] == '-' || s[e + 1] == '+') && digit(s[e + 2])))) {
      e += 2;
    } else {
      break;
    }
  }
  std::string number = s.substr(b, e - b);
  while (!number.empty() && (number.back() == ',' || number.back() == '.')) {
    if (number.back() == ',') return NumberRead::bad_grouping;  // "24," is not a number
    break;
  }
  // What follows may only be a unit: no digits, and not starting with punctuation.
  const std::string_view rest = std::string_view(s).substr(e);
  const std::size_t r = rest.find_first_not_of(" \t\r");
  if (r != std::string_view::npos) {
    const char first = rest[r];
    if (first == '.' || first == ',' || first == '+' || first == '-' || first == '/')
      return NumberRead::not_a_number;
    for (char c : rest)
      if (digit(c)) return NumberRead::not_a_number;
  }
  if (number.find(',') != std::string::npos) {
    if (!valid_grouping(number)) return NumberRead::bad_grouping;
    std::erase(number, ',');
  }
  std::string clean;
  for (char c : number)
    if (c != '_' && c != '\'') clean += c;
  const char* first = clean.data();
  if (!clean.empty() && clean.front() == '+') ++first;
  auto [ptr, ec] = std::from_chars(first, clean.data() + clean.size(), out);
  if (clean.empty() || ec != std::errc{} || ptr != clean.data() + clean.size() ||
      !std::isfinite(out))
    return NumberRead::not_a_number;
  return NumberRead::ok;
}

}  // namespace gpulab
