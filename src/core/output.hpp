// Global output options (--json, --color, --lang) and the styling that follows them.
#pragma once

#include <string>
#include <string_view>

namespace gpulab {

enum class Lang { en, zh };
enum class ColorMode { automatic, always, never };

struct OutputOptions {
  bool json = false;
  ColorMode color = ColorMode::automatic;
  Lang lang = Lang::en;
};

// The language the environment asks for: LC_ALL, then LC_MESSAGES, then LANG; zh_* -> Chinese.
Lang lang_from_environment();

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

// ANSI styling that collapses to plain text when colour is off.
class Style {
 public:
  explicit Style(bool enabled) : enabled_(enabled) {}
  bool enabled() const { return enabled_; }
  std::string bold(std::string_view s) const { return wrap("1", s); }
  std::string dim(std::string_view s) const { return wrap("2", s); }
  std::string heading(std::string_view s) const { return wrap("1;36", s); }
  std::string good(std::string_view s) const { return wrap("32", s); }
  std::string bad(std::string_view s) const { return wrap("1;31", s); }
  std::string warn(std::string_view s) const { return wrap("33", s); }
  std::string accent(std::string_view s) const { return wrap("1;33", s); }  // the highlighted item
  std::string code(std::string_view s) const { return wrap("36", s); }

 private:
  std::string wrap(std::string_view codes, std::string_view s) const;
  bool enabled_;
};

}  // namespace gpulab
