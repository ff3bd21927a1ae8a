// The one way to write a message in two languages: say() formats it in the user's language,
// both() keeps both (a Text, for errors). Both check each format string against the arguments
// at compile time; a message is never formatted with fmt::runtime (the `words` ctest checks).
#pragma once

#include <fmt/format.h>

#include <string>

#include "core/i18n.hpp"
#include "core/lang.hpp"

namespace gpulab {

// Both formats filled with the same arguments: both("{} lines", "{} 行", n). Positional fields
// ({0}, {1}) let the two languages order the arguments differently or use different ones.
template <class... Args>
Text both(fmt::format_string<Args...> en, fmt::format_string<Args...> zh, Args&&... args) {
  return {fmt::vformat(en, fmt::make_format_args(args...)),
          fmt::vformat(zh, fmt::make_format_args(args...))};
}

// The message in `lang`: say(lang, "{} lines", "{} 行", n). Only the chosen format is filled in.
template <class... Args>
std::string say(Lang lang, fmt::format_string<Args...> en, fmt::format_string<Args...> zh,
                Args&&... args) {
  return fmt::vformat(lang == Lang::zh ? zh : en, fmt::make_format_args(args...));
}

}  // namespace gpulab
