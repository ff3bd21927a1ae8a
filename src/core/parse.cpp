// Strict parsing of option values (see parse.hpp).
#include "core/parse.hpp"

#include <fmt/format.h>

#include <charconv>  // std::from_chars
#include <cmath>     // std::isfinite
#include <utility>

#include "core/error.hpp"

namespace gpulab {

void bad_value(std::string_view option, std::string_view value, const Text& problem,
               const Text& why) {
  const std::string_view shown = value.empty() ? "''" : value;
  Text msg{fmt::format("{} {}: {}", option, shown, problem.en),
           fmt::format("{} {}：{}", option, shown, problem.zh)};
  if (!why.empty()) {
    msg.en += fmt::format(" ({})", why.en);
    msg.zh += fmt::format("（{}）", why.zh);
  }
  throw UsageError(msg);
}

namespace {

// All of `text` read as a T by std::from_chars, a leading '+' allowed: the value and from_chars'
// error (out of range is left to the caller); text that is no number of T at all is the usage
// error `not_one`.
template <class T>
std::pair<T, std::errc> read_number(std::string_view option, std::string_view text,
                                    const Text& not_one) {
  T value{};
  const char* first = text.data();
  const char* last = text.data() + text.size();
  if (!text.empty() && text.front() == '+') ++first;
  auto [ptr, ec] = std::from_chars(first, last, value);
  if (text.empty() || first == last || ec == std::errc::invalid_argument || ptr != last) {
    bad_value(option, text, not_one);
  }
  return {value, ec};
}

}  // namespace

std::int64_t parse_int(std::string_view option, std::string_view text, std::int64_t min,
                       std::int64_t max, const Text& why) {
  const auto [value, ec] =
      read_number<std::int64_t>(option, text, {"not a whole number", "不是整数"});
  if (ec == std::errc::result_out_of_range && max == INT64_MAX && text.front() != '-') {
    bad_value(option, text,
              both("must be at most {} (2^63 - 1, the largest 64-bit signed integer)",
                   "不能大于 {}（2^63 - 1，最大的 64 位有符号整数）", max),
              why);
  }
  if (ec == std::errc::result_out_of_range || value < min || value > max) {
    if (max == INT64_MAX) {
      bad_value(option, text, both("must be at least {}", "不能小于 {}", min), why);
    }
    bad_value(option, text, both("must be between {} and {}", "必须在 {} 到 {} 之间", min, max),
              why);
  }
  return value;
}

double parse_real(std::string_view option, std::string_view text, double min, double max,
                  const Text& why) {
  const auto [value, ec] = read_number<double>(option, text, {"not a number", "不是数字"});
  if (ec == std::errc::result_out_of_range || !std::isfinite(value)) {
    bad_value(option, text, {"not a finite number", "不是有限的数"});
  }
  if (value < min || value > max) {
    bad_value(option, text, both("must be between {} and {}", "必须在 {} 到 {} 之间", min, max),
              why);
  }
  return value;
}

Dim3 parse_dim3(std::string_view option, std::string_view text) {
  Dim3 d;
  std::uint64_t* parts[3] = {&d.x, &d.y, &d.z};
  std::size_t start = 0;
  int n = 0;
  while (true) {
    // 2x3 as in the notes, or 2,3 as in dim3(2, 3).
    std::size_t x = text.find_first_of("xX,", start);
    std::string_view part = text.substr(start, x == std::string_view::npos ? x : x - start);
    if (n == 3) {
      bad_value(option, text,
                {"has more than 3 dimensions; write X, XxY or XxYxZ",
                 "超过 3 个维度；请写成 X、XxY 或 XxYxZ"});
    }
    std::uint64_t v = 0;
    auto [ptr, ec] = std::from_chars(part.data(), part.data() + part.size(), v);
    if (part.empty() || ec == std::errc::invalid_argument || ptr != part.data() + part.size()) {
      bad_value(option, text,
                {"not a size; write X, XxY or XxYxZ with whole numbers, e.g. 2x3",
                 "不是尺寸；请用整数写成 X、XxY 或 XxYxZ，例如 2x3"});
    }
    if (ec == std::errc::result_out_of_range || v > (std::uint64_t{1} << 40)) {
      bad_value(option, text, {"a dimension is far too large", "某一维大得离谱"});
    }
    if (v == 0) bad_value(option, text, {"every dimension must be at least 1", "每一维都至少为 1"});
    *parts[n++] = v;
    if (x == std::string_view::npos) break;
    start = x + 1;
  }
  d.rank = n;
  return d;
}

std::vector<std::int64_t> parse_int_list(std::string_view option, std::string_view text,
                                         std::int64_t min, std::int64_t max, const Text& why) {
  std::vector<std::int64_t> out;
  std::size_t start = 0;
  while (true) {
    std::size_t comma = text.find(',', start);
    std::string_view part =
        text.substr(start, comma == std::string_view::npos ? comma : comma - start);
    if (part.empty()) {
      bad_value(
          option, text,
          {"has an empty item; write e.g. 10,100,1000", "有一项为空；请写成例如 10,100,1000"});
    }
    try {
      out.push_back(parse_int(option, part, min, max, why));
    } catch (const UsageError&) {
      // Re-parse for the message, naming the item inside the list.
      std::int64_t v = 0;
      auto [ptr, ec] = std::from_chars(part.data(), part.data() + part.size(), v);
      const bool digits = ec == std::errc::result_out_of_range && !part.empty() &&
                          part.find_first_not_of("+-0123456789") == std::string_view::npos;
      if (!digits && (ec != std::errc{} || ptr != part.data() + part.size())) {
        bad_value(option, text,
                  both("item '{}' is not a whole number", "其中的“{}”不是整数", part));
      }
      bad_value(option, text,
                both("item {} must be between {} and {}", "其中的 {} 必须在 {} 到 {} 之间", part,
                     min, max),
                why);
    }
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return out;
}

std::string parse_choice(std::string_view option, std::string_view text,
                         const std::vector<std::string>& choices) {
  const std::string list = fmt::format("{}", fmt::join(choices, ", "));
  for (const auto& c : choices) {
    if (c == text) return c;
  }
  bad_value(option, text, both("must be one of: {}", "必须是以下之一：{}", list));
}

}  // namespace gpulab
