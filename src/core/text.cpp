// Text layout for the terminal (see text.hpp).
#include "core/text.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "core/i18n_format.hpp"

namespace gpulab {

char32_t next_code_point(std::string_view s, std::size_t& i) {
  auto c = static_cast<unsigned char>(s[i]);
  int len = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 1;
  char32_t cp = len == 1 ? c : len == 2 ? (c & 0x1F) : len == 3 ? (c & 0x0F) : (c & 0x07);
  for (int k = 1; k < len && i + k < s.size(); ++k) {
    cp = (cp << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3F);
  }
  i += len;
  return cp;
}

bool is_wide(char32_t cp) {
  return (cp >= 0x1100 && cp <= 0x115F) || (cp >= 0x2E80 && cp <= 0x303E) ||
         (cp >= 0x3041 && cp <= 0x33FF) || (cp >= 0x3400 && cp <= 0x4DBF) ||
         (cp >= 0x4E00 && cp <= 0x9FFF) || (cp >= 0xA000 && cp <= 0xA4CF) ||
         (cp >= 0xAC00 && cp <= 0xD7A3) || (cp >= 0xF900 && cp <= 0xFAFF) ||
         (cp >= 0xFE30 && cp <= 0xFE4F) || (cp >= 0xFF00 && cp <= 0xFF60) ||
         (cp >= 0xFFE0 && cp <= 0xFFE6) || (cp >= 0x20000 && cp <= 0x3FFFD);
}

std::size_t escape_length(std::string_view s, std::size_t i) {
  std::size_t j = i + 1;
  if (j < s.size() && s[j] == '[') {
    ++j;
    while (j < s.size() && !((s[j] >= 'A' && s[j] <= 'Z') || (s[j] >= 'a' && s[j] <= 'z'))) ++j;
  }
  return std::min(j + 1, s.size()) - i;
}

namespace {

// Marks that never end a line (an opening bracket stays with what it opens).
bool opens(char32_t cp) {
  return cp == U'（' || cp == U'「' || cp == U'『' || cp == U'《' || cp == U'〈' || cp == U'【' ||
         cp == U'“' || cp == U'‘' || cp == U'(' || cp == U'[';
}

// Marks that never start a line: the punctuation stays with what it follows.
bool closes(char32_t cp) {
  return cp == U'，' || cp == U'。' || cp == U'；' || cp == U'：' || cp == U'、' || cp == U'！' ||
         cp == U'？' || cp == U'）' || cp == U'」' || cp == U'』' || cp == U'》' || cp == U'〉' ||
         cp == U'】' || cp == U'”' || cp == U'’' || cp == U',' || cp == U'.' || cp == U';' ||
         cp == U':' || cp == U'!' || cp == U'?' || cp == U')' || cp == U']' || cp == U'%';
}

}  // namespace

// Chinese has no spaces: a line may break beside any wide character, except before closing
// punctuation and after an opening bracket.
bool may_break_between(char32_t before, char32_t after) {
  return (is_wide(before) || is_wide(after)) && !opens(before) && !closes(after);
}

namespace {

bool looks_numeric(std::string_view s) {
  if (s.empty()) return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return (c >= '0' && c <= '9') || c == '.' || c == '-' || c == ',' || c == 'e' || c == '+';
  });
}

}  // namespace

std::size_t display_width(std::string_view s) {
  std::size_t w = 0;
  for (std::size_t i = 0; i < s.size();) {
    if (s[i] == '\x1b') {  // an ANSI escape sequence takes no column
      i += escape_length(s, i);
      continue;
    }
    char32_t cp = next_code_point(s, i);
    if (cp >= 0x300 && cp <= 0x36F) continue;  // combining marks
    w += is_wide(cp) ? 2 : 1;
  }
  return w;
}

std::string pad_right(std::string_view s, std::size_t width) {
  std::string out(s);
  std::size_t w = display_width(s);
  if (w < width) out.append(width - w, ' ');
  return out;
}

std::string pad_left(std::string_view s, std::size_t width) {
  std::size_t w = display_width(s);
  std::string out;
  if (w < width) out.append(width - w, ' ');
  out += s;
  return out;
}

std::string wrap_text(std::string_view text, std::size_t width, std::size_t indent,
                      std::size_t first_column) {
  // Pieces: each ends at a break opportunity; `space` says whether a space follows it.
  struct Piece {
    std::string_view text;
    bool space;
  };
  std::vector<Piece> pieces;
  std::size_t start = 0;
  char32_t prev = U' ';
  for (std::size_t i = 0; i < text.size();) {
    if (text[i] == ' ') {
      if (i > start) pieces.push_back({text.substr(start, i - start), true});
      start = ++i;
      prev = U' ';
      continue;
    }
    if (text[i] == '\x1b') {  // a colour code belongs to the piece it is in
      i += escape_length(text, i);
      continue;
    }
    const std::size_t here = i;
    const char32_t cp = next_code_point(text, i);
    if (prev != U' ' && here > start && may_break_between(prev, cp)) {
      pieces.push_back({text.substr(start, here - start), false});
      start = here;
    }
    prev = cp;
  }
  if (start < text.size()) pieces.push_back({text.substr(start), false});

  std::string out;
  std::size_t column = first_column;
  bool space_pending = false;
  bool line_empty = true;
  for (const Piece& p : pieces) {
    const std::size_t w = display_width(p.text);
    const std::size_t gap = space_pending ? 1 : 0;
    if (!line_empty && column + gap + w > width) {
      out += '\n';
      out.append(indent, ' ');
      column = indent;
      line_empty = true;
    } else if (gap) {
      out += ' ';
      column += 1;
    }
    out += p.text;
    column += w;
    space_pending = p.space;
    line_empty = false;
  }
  return out;
}

void Table::add_ellipsis() {
  rows_.emplace_back(header_.size(), "...");
}

std::string Table::render(const Style& style, std::size_t indent, long highlight_row) const {
  const std::size_t cols = header_.size();
  std::vector<std::size_t> width(cols, 0);
  std::vector<bool> numeric(cols, true);
  for (std::size_t c = 0; c < cols; ++c) width[c] = display_width(header_[c]);
  for (const auto& row : rows_) {
    for (std::size_t c = 0; c < cols && c < row.size(); ++c) {
      width[c] = std::max(width[c], display_width(row[c]));
      if (row[c] != "..." && !looks_numeric(row[c])) numeric[c] = false;
    }
  }
  // Too wide for the terminal: the columns on the right are left out, and a note names them.
  std::size_t shown = cols;
  auto total = [&](std::size_t n) {
    std::size_t w = indent;
    for (std::size_t c = 0; c < n; ++c) w += width[c] + (c > 0 ? 2 : 0);
    return w;
  };
  while (shown > 1 && total(shown) > style.width()) --shown;
  // Unless the one column too many is the last and holds words ("what it is"): it wraps in its
  // place when the others leave it 20 columns, else on the lines below its row.
  const bool below = total(cols - 1) + 2 + 20 > style.width();
  const std::size_t last_at = below ? indent + 4 : total(cols - 1) + 2;
  const bool wrap_last =
      shown + 1 == cols && cols > 1 && !numeric[cols - 1] && last_at + 20 <= style.width();
  if (wrap_last) shown = cols;
  auto line = [&](const std::vector<std::string>& cells) {
    std::string out(indent, ' ');
    for (std::size_t c = 0; c < shown; ++c) {
      const std::string& cell = c < cells.size() ? cells[c] : std::string();
      if (wrap_last && c + 1 == cols) {
        if (below) {
          while (!out.empty() && out.back() == ' ') out.pop_back();
          out += '\n';
          out.append(last_at, ' ');
        }
        out += wrap_text(cell, style.width(), last_at, last_at);
        break;
      }
      out += numeric[c] ? pad_left(cell, width[c]) : pad_right(cell, width[c]);
      if (c + 1 < shown) out += "  ";
    }
    while (!out.empty() && out.back() == ' ') out.pop_back();
    return out;
  };
  std::string out = style.bold(line(header_)) + "\n";
  for (std::size_t r = 0; r < rows_.size(); ++r) {
    std::string l = line(rows_[r]);
    out += (static_cast<long>(r) == highlight_row ? style.accent(l) : l) + "\n";
  }
  if (shown < cols) {
    std::string names;
    for (std::size_t c = shown; c < cols; ++c) {
      if (c > shown) names += tr(style.lang(), ", ", "、");
      names += header_[c];
    }
    const std::string note = say(style.lang(), "(left out to fit {} columns: {})",
                                 "（为适应 {} 列宽而省略：{}）", style.width(), names);
    out +=
        std::string(indent, ' ') + style.dim(wrap_text(note, style.width(), indent, indent)) + "\n";
  }
  return out;
}

std::string format_real(double v, int decimals) {
  std::string s = fmt::format("{:.{}f}", v, decimals);
  if (s.find('.') != std::string::npos) {
    while (s.back() == '0') s.pop_back();
    if (s.back() == '.') s.pop_back();
  }
  if (s == "-0") s = "0";
  return s;
}

std::string group_thousands(unsigned long long v) {
  std::string digits = std::to_string(v);
  std::string out;
  int n = 0;
  for (auto it = digits.rbegin(); it != digits.rend(); ++it) {
    if (n > 0 && n % 3 == 0) out.insert(out.begin(), ',');
    out.insert(out.begin(), *it);
    ++n;
  }
  return out;
}

std::string format_integer(long long v) {
  const auto magnitude = static_cast<unsigned long long>(v);
  return v < 0 ? "-" + group_thousands(0 - magnitude) : group_thousands(magnitude);
}

std::string format_bytes(double bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  while (bytes >= 1024.0 && u < 4) {
    bytes /= 1024.0;
    ++u;
  }
  return u == 0 ? fmt::format("{} B", static_cast<long long>(bytes))
                : fmt::format("{} {}", format_real(bytes, 2), units[u]);
}

std::string_view plural(unsigned long long n, std::string_view one, std::string_view many) {
  return n == 1 ? one : many;
}

std::string count_noun(unsigned long long n, std::string_view one, std::string_view many) {
  return fmt::format("{} {}", group_thousands(n), plural(n, one, many));
}

std::string count_noun(Lang lang, unsigned long long n, std::string_view one, std::string_view many,
                       std::string_view zh) {
  if (lang == Lang::zh) return fmt::format("{} {}", group_thousands(n), zh);
  return count_noun(n, one, many);
}

std::string format_percent(double percent, int decimals) {
  const double unit = std::pow(10.0, -decimals);
  if (percent > 0 && percent < unit / 2) return fmt::format("<{:.{}f}%", unit, decimals);
  return fmt::format("{:.{}f}%", percent, decimals);
}

std::string format_number(double v, int decimals) {
  std::string s = format_real(v, decimals);
  const bool negative = !s.empty() && s.front() == '-';
  const std::size_t start = negative ? 1 : 0;
  const std::size_t end = std::min(s.find('.'), s.size());
  if (s.find_first_not_of("0123456789", start) < end) return s;  // inf, nan
  std::string grouped;
  for (std::size_t i = start; i < end; ++i) {
    if (i > start && (end - i) % 3 == 0) grouped += ',';
    grouped += s[i];
  }
  return s.substr(0, start) + grouped + s.substr(end);
}

std::string format_small(double v) {
  if (v != 0 && std::fabs(v) < 1e-4) return fmt::format("{:.3g}", v);
  return format_real(v, 6);
}

bool times_hidden() {
  static const bool hidden = std::getenv("GPULAB_HIDE_TIMES") != nullptr;
  return hidden;
}

std::string measured(std::string text) {
  return times_hidden() ? std::string("?") : text;
}

std::string hidden_times_note(Lang lang) {
  if (!times_hidden()) return {};
  return std::string(tr(lang, "  (times vary from run to run: shown as ?)\n",
                        "  （时间每次运行都不同：显示为 ?）\n"));
}

}  // namespace gpulab
