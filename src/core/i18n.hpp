// Messages in both languages, side by side: Text. Free of fmt, because gpulab run's kit ships
// it (through core/error.hpp) to the student programs it compiles; both() is in i18n_format.hpp.
#pragma once

#include <string>
#include <utility>

#include "core/lang.hpp"

namespace gpulab {

// One message in English and in Chinese. Errors carry a Text, because they are thrown far from
// the Lang the user chose and main() picks the language when it prints them.
struct Text {
  std::string en;
  std::string zh;
  const std::string& in(Lang lang) const { return lang == Lang::zh ? zh : en; }
  bool empty() const { return en.empty() && zh.empty(); }
  bool operator==(const Text& o) const { return en == o.en && zh == o.zh; }
  // Each language's text gets its own continuation.
  Text& operator+=(const Text& more) {
    en += more.en;
    zh += more.zh;
    return *this;
  }
};

// A message made where the user's Lang was at hand, with tr(lang, en, zh): it already is in the
// language main() will pick, so both fields hold it.
inline Text chosen(std::string message) {
  return {message, std::move(message)};
}

}  // namespace gpulab
