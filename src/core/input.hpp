// Reading what a user types (quiz and lesson answers): lines of bounded length, and text shown
// back without the control and escape bytes that would drive the terminal.
#pragma once

#include <cstddef>
#include <iosfwd>
#include <string>
#include <string_view>

namespace gpulab {

// Longer than any answer gpulab asks for, short enough that a pasted file costs nothing.
inline constexpr std::size_t kMaxAnswerBytes = 1024;

enum class LineRead { ok, too_long, ended };

// Reads one line without its '\n' (and '\r'). A line longer than `max_bytes` is read to its end
// and dropped (`line` empty, too_long): it is never held whole. `ended` at the end of the input
// with nothing read.
LineRead read_line_capped(std::istream& in, std::string& line,
                          std::size_t max_bytes = kMaxAnswerBytes);

// `text` safe to print: control bytes and DEL become \xNN (so ESC cannot recolour or move the
// terminal), and text longer than `max_bytes` is cut at a character boundary and ends in "...".
std::string printable(std::string_view text, std::size_t max_bytes = 80);

// `text` with every control character that could drive a terminal shown escaped: C0 controls but
// newline and tab, DEL (\xNN) and the C1 controls (\u0080-\u009f); nothing cut. The one helper for
// echoing what a user or a tool wrote (option values, file names, relayed compiler output).
std::string escape_controls(std::string_view text);

// Full-width forms as typed with a Chinese input method, made ASCII: the digits ０-９, ，．＋－
// ／（）, and the ideographic space (U+3000); the enumeration comma 、 becomes ','.
std::string ascii_forms(std::string_view text);

enum class NumberRead { ok, empty, not_a_number, bad_grouping };

// One number as a student types it: "24", "2.5e3", "12,582,912" (commas only between groups of
// three digits: "1,93" and "4,98" are not numbers), "1_000" or "1'000", full-width digits, and a
// trailing unit that holds no digit ("24 warps", "3.5x", "24 个"), dropped.
NumberRead read_answer_number(std::string_view text, double& out);

}  // namespace gpulab
