// Global output options and styling (see output.hpp).
#include "core/output.hpp"

#include <unistd.h>  // isatty

#include <cstdlib>  // std::getenv

namespace gpulab {

Lang lang_from_environment() {
  for (const char* var : {"LC_ALL", "LC_MESSAGES", "LANG"}) {
    const char* v = std::getenv(var);
    if (v != nullptr && *v != '\0') {
      return std::string_view(v).starts_with("zh") ? Lang::zh : Lang::en;
    }
  }
  return Lang::en;
}

bool color_enabled(ColorMode mode) {
  if (mode == ColorMode::always) return true;
  if (mode == ColorMode::never) return false;
  const char* no_color = std::getenv("NO_COLOR");
  if (no_color != nullptr && *no_color != '\0') return false;
  const char* term = std::getenv("TERM");
  if (term != nullptr && std::string_view(term) == "dumb") return false;
  return isatty(STDOUT_FILENO) == 1;
}

std::string Style::wrap(std::string_view codes, std::string_view s) const {
  if (!enabled_ || s.empty()) return std::string(s);
  std::string out = "\x1b[";
  out += codes;
  out += 'm';
  out += s;
  out += "\x1b[0m";
  return out;
}

}  // namespace gpulab
