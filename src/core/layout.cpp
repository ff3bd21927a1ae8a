// Laying text out for the terminal's width (see layout.hpp).
#include "core/layout.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <optional>
#include <vector>

#include "core/i18n_format.hpp"
#include "core/lines.hpp"
#include "core/text.hpp"

namespace gpulab {
namespace {

// Every line, and an empty last one when the text ends with a newline.
std::vector<std::string_view> line_views(std::string_view text) {
  std::vector<std::string_view> lines;
  std::size_t start = 0;
  while (true) {
    const std::size_t nl = text.find('\n', start);
    if (nl == std::string_view::npos) {
      lines.push_back(text.substr(start));  // empty when the text ends with a newline
      return lines;
    }
    lines.push_back(text.substr(start, nl - start));
    start = nl + 1;
  }
}

std::size_t leading_spaces(std::string_view line) {
  const std::size_t n = line.find_first_not_of(' ');
  return n == std::string_view::npos ? line.size() : n;
}

std::string_view trim_spaces(std::string_view s) {
  return trim(s, " ");
}

bool blank(std::string_view line) {
  return display_width(trim_spaces(line)) == 0;
}

// The first and last characters that show (colour codes and spaces skipped).
char32_t first_char(std::string_view s) {
  for (std::size_t i = 0; i < s.size();) {
    if (s[i] == '\x1b') {
      i += escape_length(s, i);
      continue;
    }
    const char32_t cp = next_code_point(s, i);
    if (cp != U' ') return cp;
  }
  return U' ';
}

char32_t last_char(std::string_view s) {
  char32_t last = U' ';
  for (std::size_t i = 0; i < s.size();) {
    if (s[i] == '\x1b') {
      i += escape_length(s, i);
      continue;
    }
    const char32_t cp = next_code_point(s, i);
    if (cp != U' ') last = cp;
  }
  return last;
}

// Columns of a list marker at the start of `line` ("- ", "* ", "• ", "? ", "12. ", "3) "), 0 when
// none.
std::size_t marker_width(std::string_view line) {
  std::string plain;  // a bold "?" is a marker too
  for (std::size_t i = 0; i < line.size() && plain.size() < 8;) {
    if (line[i] == '\x1b') {
      i += escape_length(line, i);
    } else {
      plain += line[i++];
    }
  }
  const std::string_view s = plain;
  if (s.starts_with("? ")) return 2;
  if (s.starts_with("- ") || s.starts_with("* ")) return 2;
  if (s.starts_with("\u2022 ")) return 2;
  std::size_t d = 0;
  while (d < s.size() && d < 3 && s[d] >= '0' && s[d] <= '9') ++d;
  if (d > 0 && d + 1 < s.size() && (s[d] == '.' || s[d] == ')') && s[d + 1] == ' ') return d + 2;
  return 0;
}

// Table columns, a "label  value" row, a drawing or a plot: its spaces are part of its meaning.
bool is_preformatted(std::string_view line) {
  const std::string_view t = trim_spaces(line);
  if (t.find("  ") != std::string_view::npos) return true;
  if (t.starts_with("+-")) return true;
  for (std::size_t i = 0; i < t.size();) {
    const char32_t cp = next_code_point(t, i);
    if (cp >= 0x2500 && cp <= 0x259F) return true;  // box drawing, blocks
  }
  // A plot's y axis: "  10.5 |", "       |- - -": nothing but a number before the bar.
  // ("||a - b||" is a norm, not an axis.)
  const std::size_t bar = line.find('|');
  if (bar != std::string_view::npos && (bar == 0 || line[bar - 1] == ' ') &&
      (bar + 1 == line.size() || line[bar + 1] != '|')) {
    const std::string_view label = trim_spaces(line.substr(0, bar));
    if (label.find_first_not_of("0123456789.,-+e") == std::string_view::npos) return true;
  }
  return false;
}

// Whether `next` goes on the sentence `prev` started (the renderer broke it for a wide terminal):
// `prev` ends inside a sentence (in , ; ( ， 、 ；), or `next` starts in lower case after a word or
// after a line as long as a renderer's (a lower-case line after a short one that ends in a number
// is the next step of a derivation: "... in units of 256: 1,024" / "the register file ...").
bool continues(std::string_view prev, std::string_view next) {
  const char32_t p = last_char(prev), n = first_char(next);
  if (p == U',' || p == U';' || p == U'(' || p == U'，' || p == U'、' || p == U'；' || p == U'（') {
    return true;
  }
  const bool word = (p >= U'a' && p <= U'z') || (p >= U'A' && p <= U'Z');
  return n >= U'a' && n <= U'z' && (word || display_width(prev) >= 80);
}

bool fullwidth_punctuation(char32_t cp) {
  return (cp >= 0x3000 && cp <= 0x303F) || (cp >= 0xFF01 && cp <= 0xFF0F) ||
         (cp >= 0xFF1A && cp <= 0xFF20) || (cp >= 0xFF3B && cp <= 0xFF40) ||
         (cp >= 0xFF5B && cp <= 0xFF65);
}

// What goes between two lines joined into one paragraph: nothing between Chinese characters or
// after full-width punctuation (a space there is a typo in Chinese), else one space.
std::string_view joiner(std::string_view prev, std::string_view next) {
  const char32_t p = last_char(prev), n = first_char(next);
  if ((is_wide(p) && is_wide(n)) || fullwidth_punctuation(p) || fullwidth_punctuation(n)) return "";
  return " ";
}

// The indent continuation lines get: the marker's, unless that leaves less than 20 columns.
std::size_t hanging_indent(std::size_t wanted, std::size_t width) {
  return wanted + 20 <= width ? wanted : std::min(wanted, width / 2);
}

// Whether `s` holds a character two columns wide (Chinese).
bool has_wide(std::string_view s) {
  for (std::size_t i = 0; i < s.size();) {
    if (s[i] == '\x1b') {
      i += escape_length(s, i);
      continue;
    }
    if (is_wide(next_code_point(s, i))) return true;
  }
  return false;
}

// A "label  value" row too wide: the value, when it is prose, wraps under itself; with too
// little room beside the label (under 20 columns), the value goes on the lines under the label,
// indented 2 more; a label that is itself a row of columns too wide is wrapped the same way.
// Nothing is left out; a value that is one word too wide for its own line is not a value this
// can help (nullopt: the row is cut).
std::optional<std::string> wrap_value(std::string_view line, std::size_t width) {
  const std::string_view body = line.substr(0, line.find_last_not_of(' ') + 1);
  const std::size_t gap = body.rfind("  ");
  if (gap == std::string_view::npos || gap < leading_spaces(body)) return std::nullopt;
  const std::size_t tail_at = body.find_first_not_of(' ', gap);
  const std::string_view head = body.substr(0, tail_at), tail = body.substr(tail_at);
  const std::size_t column = display_width(head);
  const bool prose = tail.find(' ') != std::string_view::npos || has_wide(tail);
  if (column + 20 <= width && prose)
    return std::string(head) + wrap_text(tail, width, column, column);
  const std::string_view label = body.substr(0, body.find_last_not_of(' ', gap) + 1);
  const std::size_t under = hanging_indent(leading_spaces(body) + 2, width);
  if (!prose && under + display_width(tail) > width) return std::nullopt;
  // The label too may be a row of columns too wide ("6  blocks  Blocks: more ..."): its own last
  // column wraps the same way.
  std::string head_text(label);
  if (display_width(label) > width) {
    std::optional<std::string> inner = wrap_value(label, width);
    if (!inner) return std::nullopt;
    head_text = std::move(*inner);
  }
  return head_text + "\n" + std::string(under, ' ') + wrap_text(tail, width, under, under);
}

std::string cut_note(std::size_t width, Lang lang) {
  return "  " + wrap_text(say(lang, "(lines ending in … were cut to fit {} columns)",
                              "（以 … 结尾的行被截断，以适应 {} 列宽）", width),
                          width, 2, 2);
}

// A run of "| a | b |" lines as a Table: its header, the separator skipped, its rows.
std::string markdown_table(const std::vector<std::string_view>& rows, const Style& style,
                           std::size_t indent) {
  auto cells = [](std::string_view row) {
    std::vector<std::string> out;
    row = trim_spaces(row);
    if (row.starts_with("|")) row.remove_prefix(1);
    if (row.ends_with("|")) row.remove_suffix(1);
    std::size_t start = 0;
    while (true) {
      const std::size_t bar = row.find('|', start);
      out.emplace_back(
          trim_spaces(row.substr(start, bar == std::string_view::npos ? bar : bar - start)));
      if (bar == std::string_view::npos) return out;
      start = bar + 1;
    }
  };
  const std::vector<std::string> header = cells(rows.front());
  std::vector<std::vector<std::string>> body;
  for (std::size_t r = 1; r < rows.size(); ++r) {
    if (trim_spaces(rows[r]).find_first_not_of("|-: ") == std::string_view::npos)
      continue;  // |---|
    body.push_back(cells(rows[r]));
  }
  Table t(header);
  for (const auto& row : body) t.add_row(row);
  const std::string whole = t.render(Style(style.enabled(), kMaxWidth, style.lang()), indent);
  std::size_t widest = 0;
  for (std::string_view line : line_views(whole)) widest = std::max(widest, display_width(line));
  if (widest <= style.width()) return whole;
  // Too wide: a lesson's table loses nothing; each row becomes its first cell, then the others
  // named by their column ("registers: who sees it: one thread; where it lives: ...").
  std::string out;
  const std::string_view separator = tr(style.lang(), "; ", "；");
  for (const auto& row : body) {
    std::string text = style.bold(row.empty() ? std::string() : row[0]);
    for (std::size_t c = 1; c < row.size() && c < header.size(); ++c) {
      text += c == 1 ? std::string(tr(style.lang(), ": ", "——")) : std::string(separator);
      text += header[c] + std::string(tr(style.lang(), ": ", "：")) + row[c];
    }
    out += std::string(indent, ' ') + "- " +
           wrap_text(text, std::min(style.width(), kProseWidth), indent + 2, indent + 2) + "\n";
  }
  return out;
}

}  // namespace

std::string cut_to_width(std::string_view line, std::size_t width) {
  if (display_width(line) <= width) return std::string(line);
  std::string out;
  std::size_t column = 0;
  bool coloured = false;
  for (std::size_t i = 0; i < line.size();) {
    if (line[i] == '\x1b') {
      const std::size_t length = escape_length(line, i);
      out += line.substr(i, length);
      i += length;
      coloured = true;
      continue;
    }
    const std::size_t start = i;
    const char32_t cp = next_code_point(line, i);
    const std::size_t w = is_wide(cp) ? 2 : 1;
    if (column + w + 1 > width) break;  // room is left for the "…"
    out += line.substr(start, i - start);
    column += w;
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  out += "…";
  if (coloured) out += "\x1b[0m";
  return out;
}

std::string wrap_code(std::string_view line, std::size_t width) {
  if (display_width(line) <= width) return std::string(line);
  const std::size_t indent = leading_spaces(line);
  // Each row: the indent, the marker (1 column), then code; at least 8 columns of code a row.
  const std::size_t lead = indent + 1 + 8 <= width ? indent : 0;
  struct Piece {
    std::size_t begin, end;  // bytes of `line`
  };
  std::vector<Piece> rows;
  std::size_t i = 0, row_start = 0, column = 0, last_space = std::string_view::npos;
  std::size_t room = width;  // the first row has the whole width
  bool colour = false;
  while (i < line.size()) {
    if (line[i] == '\x1b') {
      i += escape_length(line, i);
      colour = true;
      continue;
    }
    const std::size_t start = i;
    const char32_t cp = next_code_point(line, i);
    const std::size_t w = is_wide(cp) ? 2 : 1;
    if (column + w > room && start > row_start) {
      // Break before the last space of the row when it leaves the row at least half full.
      std::size_t cut = start;
      if (last_space != std::string_view::npos && last_space > row_start &&
          display_width(line.substr(row_start, last_space - row_start)) * 2 >= room) {
        cut = last_space;
      }
      rows.push_back({row_start, cut});
      row_start = cut;
      room = width - lead - display_width(kContinuation);
      column = display_width(line.substr(row_start, start - row_start));
      last_space = std::string_view::npos;
    }
    if (cp == U' ' && start > row_start && start >= indent) last_space = start;
    column += w;
  }
  rows.push_back({row_start, line.size()});
  std::string out;
  for (std::size_t r = 0; r < rows.size(); ++r) {
    if (r > 0) {  // appended piece by piece: GCC 12 warns wrongly on "\n" + std::string
      out += '\n';
      out.append(lead, ' ');
      out += kContinuation;
    }
    out += line.substr(rows[r].begin, rows[r].end - rows[r].begin);
    if (colour && r + 1 < rows.size()) out += "\x1b[0m";  // each row ends its colour
  }
  return out;
}

std::string verbatim(std::string_view block) {
  std::string out;
  for (std::size_t start = 0; start < block.size();) {
    const std::size_t nl = std::min(block.find('\n', start), block.size());
    out += kVerbatim;
    out += block.substr(start, nl + 1 - start - (nl == block.size() ? 1 : 0));
    start = nl + 1;
  }
  return out;
}

std::string lay_out(std::string_view text, std::size_t width, Lang lang) {
  const std::vector<std::string_view> lines = line_views(text);
  const std::size_t measure = std::min(width, kProseWidth);
  std::string out;
  std::size_t cut = 0;
  for (std::size_t i = 0; i < lines.size();) {
    if (i > 0) out += '\n';
    const std::string_view line = lines[i];
    if (line.starts_with(kVerbatim)) {
      out += wrap_code(line.substr(1), width);
      ++i;
      continue;
    }
    if (blank(line)) {
      out += line;
      ++i;
      continue;
    }
    if (is_preformatted(line)) {
      if (display_width(line) <= width) {
        out += line;
      } else if (auto wrapped = wrap_value(line, width)) {
        out += *wrapped;
      } else {
        out += cut_to_width(line, width);
        ++cut;
      }
      ++i;
      continue;
    }
    // A paragraph: this line and the ones that continue it under its hanging indent.
    const std::size_t indent = leading_spaces(line);
    const std::size_t hang = indent + marker_width(line.substr(indent));
    std::size_t end = i + 1;
    while (end < lines.size() && !blank(lines[end]) && !is_preformatted(lines[end]) &&
           leading_spaces(lines[end]) == hang && marker_width(lines[end].substr(hang)) == 0 &&
           continues(lines[end - 1], lines[end])) {
      ++end;
    }
    bool fits = true;
    for (std::size_t k = i; k < end; ++k) fits = fits && display_width(lines[k]) <= measure;
    if (fits) {
      for (std::size_t k = i; k < end; ++k)
        out += std::string(lines[k]) + (k + 1 < end ? "\n" : "");
    } else {
      std::string joined(trim_spaces(lines[i]));
      for (std::size_t k = i + 1; k < end; ++k) {
        joined += joiner(lines[k - 1], lines[k]);
        joined += trim_spaces(lines[k]);
      }
      out += std::string(indent, ' ') +
             wrap_text(joined, measure, hanging_indent(hang, measure), indent);
    }
    i = end;
  }
  if (cut > 0) {
    const bool ends_with_newline = !out.empty() && out.back() == '\n';
    if (!ends_with_newline) out += '\n';
    out += cut_note(width, lang);
    if (ends_with_newline) out += '\n';
  }
  return out;
}

std::string lay_out_lesson(std::string_view text, const Style& style, std::size_t indent) {
  const std::vector<std::string_view> lines = line_views(text);
  const std::size_t width = style.width();
  const std::size_t measure = std::min(width, kProseWidth);
  const std::string pad(indent, ' ');
  std::string out;
  for (std::size_t i = 0; i < lines.size();) {
    const std::string_view line = lines[i];
    const std::size_t lead = leading_spaces(line);
    if (blank(line)) {
      if (i + 1 < lines.size()) out += '\n';  // the text's own last newline ends the last line
      ++i;
    } else if (lead >= 4) {  // code or a drawing: as written, wrapped as code when too wide
      out += wrap_code(pad + std::string(line), width) + "\n";
      ++i;
    } else if (trim_spaces(line).starts_with("|")) {
      std::vector<std::string_view> rows;
      for (; i < lines.size() && trim_spaces(lines[i]).starts_with("|"); ++i)
        rows.push_back(lines[i]);
      out += markdown_table(rows, style, indent + lead);
    } else {
      const std::size_t hang = lead + marker_width(line.substr(lead));
      std::string joined(trim_spaces(line));
      std::size_t end = i + 1;
      for (; end < lines.size(); ++end) {
        const std::string_view next = lines[end];
        const std::size_t next_lead = leading_spaces(next);
        if (blank(next) || next_lead >= 4 || trim_spaces(next).starts_with("|") ||
            marker_width(next.substr(next_lead)) > 0) {
          break;
        }
        joined += joiner(lines[end - 1], next);
        joined += trim_spaces(next);
      }
      out += pad + std::string(lead, ' ') +
             wrap_text(joined, measure, hanging_indent(indent + hang, measure), indent + lead) +
             "\n";
      i = end;
    }
  }
  return out;
}

void print_laid_out(std::string_view text, Lang lang) {
  const std::string laid_out = lay_out(text, output_width(), lang);
  errno = 0;  // so that a failed write's reason reaches flush_stdout()
  std::fwrite(laid_out.data(), 1, laid_out.size(), stdout);
}

}  // namespace gpulab
