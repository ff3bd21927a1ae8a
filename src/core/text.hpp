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

// A whole number with its thousands grouped, sign included: -1234567 -> "-1,234,567".
std::string format_integer(long long v);

// Human-readable bytes: 1536 -> "1.5 KiB".
std::string format_bytes(double bytes);

// The noun that agrees with a count: "thread" for 1, "threads" otherwise (0 threads, 2 threads).
std::string_view plural(unsigned long long n, std::string_view one, std::string_view many);
// The count, grouped, and its noun: "1 thread", "1,024 threads".
std::string count_noun(unsigned long long n, std::string_view one, std::string_view many);
// The same in the user's language; Chinese has no plural but a measure word: `zh` = "个线程"
// gives "1,024 个线程".
std::string count_noun(Lang lang, unsigned long long n, std::string_view one, std::string_view many,
                       std::string_view zh);

// A percentage with the same number of decimals for every value of a column, so that a column
// lines up and reads at one precision: 68.966 -> "68.97%", 0.2 -> "0.20%". A value that is not 0
// but rounds to 0 reads "<0.01%" rather than a false "0.00%".
std::string format_percent(double percent, int decimals = 2);

// format_real with the thousands of the whole part grouped: 1234567.891 -> "1,234,567.89".
std::string format_number(double v, int decimals);

// A fraction that must not print as 0 when it is not: "1 - P" for P = 0.999999999999 is "1e-12",
// not "0". Below 1e-4 in scientific notation with 3 significant digits, else format_real(v, 6).
std::string format_small(double v);

// Where times are hidden (the environment's GPULAB_HIDE_TIMES is set: `learn --handout` sets it
// for its demos, because a handout is the same sheet at every printing and a time never is), a
// measured time, and any rate worked out from one, prints as "?".
bool times_hidden();
// `text` (a measured time or rate as the command formats it), or "?" where times are hidden.
std::string measured(std::string text);
// The line that says so, for a command that printed a hidden time: "  (times vary from run to
// run: shown as ?)\n"; empty where times are shown.
std::string hidden_times_note(Lang lang);

}  // namespace gpulab
