// Global output options (--json, --color, --lang) and the styling that follows them.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "core/lang.hpp"

namespace gpulab {

enum class ColorMode { automatic, always, never };

struct OutputOptions {
  bool json = false;
  ColorMode color = ColorMode::automatic;
  Lang lang = Lang::en;
};

// The language the environment asks for: LC_ALL, then LC_MESSAGES, then LANG; zh_* -> Chinese.
Lang lang_from_environment();

// The columns text output is laid out for (core/layout.hpp): COLUMNS when it holds a whole
// number (kept between kMinWidth and kMaxWidth), else the width of the terminal on `fd` when it is
// one, else kDefaultWidth. A pipe or a file gets 80 columns, the width of a printed page and of
// the classic terminal, so that a handout (`gpulab learn 04 --no-pause > notes.txt`) reads well
// without knowing where it will be shown; COLUMNS=200 keeps longer lines.
inline constexpr std::size_t kDefaultWidth = 80;
inline constexpr std::size_t kMinWidth = 20;    // below, no word of a sentence has room
inline constexpr std::size_t kMaxWidth = 1000;  // above, a typo, not a terminal
std::size_t output_width(int fd = 1);

// --projector (high contrast, large layout): set in the environment by the global option, so
// that the gpulab a lesson runs for its demos shows the same style. The width is at most
// kProjectorWidth and Style uses bold and inverse video, no colour and no faint text.
inline constexpr const char* kProjectorVariable = "GPULAB_PROJECTOR";
inline constexpr std::size_t kProjectorWidth = 64;
bool projector_mode();
// The same rule on given facts: COLUMNS as set (nullptr when unset) and the terminal's width
// (0 when `fd` is no terminal).
std::size_t choose_width(const char* columns, std::size_t terminal_columns);

// Rows of the terminal on `fd`: LINES when it holds a whole number, else the terminal's, else 0
// (not a terminal: no screen to keep things on).
std::size_t terminal_rows(int fd = 1);

// Colour only when asked for, or (auto) when stdout is a terminal and NO_COLOR is unset or empty.
bool color_enabled(ColorMode mode);

// Standard streams that were closed at start-up (`>&-`) are reopened on /dev/null in the direction
// that fails, so that a file gpulab opens later can never take their number and receive its output,
// and a write to a closed stdout still fails (and is reported) instead of vanishing.
void protect_standard_streams() noexcept;

// Writes to stderr and never throws: a notice or an error must not abort gpulab when stderr is
// full or closed (`2>/dev/full`, `2>&-`); there is nowhere left to say so anyway.
void write_stderr(std::string_view text) noexcept;

// Flushes stdout; throws RuntimeFailure "cannot write to standard output: <reason>" when that or
// any earlier write to it failed. Set errno to 0 before the writes it checks, to get their reason.
void flush_stdout();
// Flushes stdout; "cannot write to standard output[: <reason>]" when that or any earlier write to
// it failed, else empty. `write_errno`: errno as the last write left it, when it is known.
std::string stdout_failure(int write_errno = 0);

// Picks the text of the current language.
inline std::string_view tr(Lang lang, std::string_view en, std::string_view zh) {
  return lang == Lang::zh ? zh : en;
}

// ANSI styling that collapses to plain text when colour is off, and the width and language that
// tables, plots and the layout (core/layout.hpp) follow.
class Style {
 public:
  explicit Style(bool enabled, std::size_t width = kMaxWidth, Lang lang = Lang::en)
      : enabled_(enabled), width_(width), lang_(lang) {}
  bool enabled() const { return enabled_; }
  std::size_t width() const { return width_; }
  Lang lang() const { return lang_; }
  std::string bold(std::string_view s) const { return wrap("1", s); }
  // Secondary text (hints, notes). Never faint (SGR 2): a projector or a pale terminal loses it.
  std::string dim(std::string_view s) const { return std::string(s); }
  std::string heading(std::string_view s) const { return wrap("1;36", s); }
  std::string good(std::string_view s) const { return wrap("32", s); }
  std::string bad(std::string_view s) const { return wrap("1;31", s); }
  std::string warn(std::string_view s) const { return wrap("33", s); }
  std::string accent(std::string_view s) const { return wrap("1;33", s); }  // the highlighted item
  std::string code(std::string_view s) const { return wrap("36", s); }

 private:
  std::string wrap(std::string_view codes, std::string_view s) const;
  bool enabled_;
  std::size_t width_;
  Lang lang_;
};

// The style of output to `fd`: colour as --color and the terminal say, its width, --lang.
Style style_for(const OutputOptions& out, int fd = 1);

}  // namespace gpulab
