// Text layout for the terminal: display width (CJK is two columns, ANSI codes zero), padding,
// aligned tables.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "core/output.hpp"

namespace gpulab {

// Columns the text takes on a terminal.
std::size_t display_width(std::string_view s);

// Decodes the UTF-8 code point at s[i] and moves i past it.
char32_t next_code_point(std::string_view s, std::size_t& i);
// Bytes of the ANSI escape sequence (ESC [ ... letter) that starts at s[i].
std::size_t escape_length(std::string_view s, std::size_t i);
// A character that takes two columns (CJK ideographs, kana, hangul, full-width forms).
bool is_wide(char32_t cp);
// Whether a line may break between these two characters when no space separates them: beside a
// wide character (Chinese has no spaces), but never before closing punctuation (，。）…) nor
// after an opening bracket (（「…).
bool may_break_between(char32_t before, char32_t after);

std::string pad_right(std::string_view s, std::size_t width);
std::string pad_left(std::string_view s, std::size_t width);

// Breaks `text` (one paragraph) into lines of at most `width` display columns: at spaces, and
// where may_break_between() allows (between Chinese characters, after ，。；：). The text starts at
// column `first_column` (after what the caller printed); every further line starts with `indent`
// spaces. A word longer than a line stays whole. No trailing newline.
std::string wrap_text(std::string_view text, std::size_t width, std::size_t indent,
                      std::size_t first_column);

// A table of text cells, columns aligned; numeric-looking columns are right-aligned.
class Table {
 public:
  explicit Table(std::vector<std::string> header) : header_(std::move(header)) {}
  void add_row(std::vector<std::string> row) { rows_.push_back(std::move(row)); }
  // A row of "..." in every column, to mark elided rows.
  void add_ellipsis();
  std::size_t rows() const { return rows_.size(); }
  // Renders with `indent` spaces before each line, the header in bold; rows for which
  // `highlight_row` is true are drawn in the accent style.
  std::string render(const Style& style, std::size_t indent = 2, long highlight_row = -1) const;

 private:
  std::vector<std::string> header_;
  std::vector<std::vector<std::string>> rows_;
};

// Formats a real number with up to `digits` significant decimals, without trailing zeros.
std::string format_real(double v, int decimals);

// Groups thousands: 4194304 -> "4,194,304".
std::string group_thousands(unsigned long long v);

// Human-readable bytes: 1536 -> "1.5 KiB".
std::string format_bytes(double bytes);

}  // namespace gpulab
