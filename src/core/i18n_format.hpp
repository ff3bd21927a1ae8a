// both(): a Text made from an English and a Chinese format string and one set of arguments.
#pragma once

#include <fmt/format.h>

#include "core/i18n.hpp"

namespace gpulab {

// Both formats filled with the same arguments: both("{} lines", "{} 行", n). Positional fields
// ({0}, {1}) let the two languages order the arguments differently or use different ones.
template <class... Args>
Text both(fmt::format_string<Args...> en, fmt::format_string<Args...> zh, Args&&... args) {
  return {fmt::vformat(en, fmt::make_format_args(args...)),
          fmt::vformat(zh, fmt::make_format_args(args...))};
}

}  // namespace gpulab
