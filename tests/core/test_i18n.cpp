// Messages in both languages: errors carry en and zh, and the number and plural helpers.
#include <catch2/catch.hpp>

#include <cmath>
#include <random>
#include <string>

#include "core/error.hpp"
#include "core/parse.hpp"
#include "core/text.hpp"
#include "core/version.hpp"

using namespace gpulab;

namespace {

bool has_cjk(const std::string& s) {
  // Every CJK ideograph in UTF-8 starts with a byte 0xE4..0xE9.
  for (unsigned char c : s) {
    if (c >= 0xE4 && c <= 0xE9) return true;
  }
  return false;
}

}  // namespace

TEST_CASE("an error carries its message in both languages", "[i18n]") {
  const UsageError e("--n 0: must be between 1 and 10", "--n 0：必须在 1 到 10 之间");
  CHECK(std::string(e.what()) == "--n 0: must be between 1 and 10");
  CHECK(e.message(Lang::en) == "--n 0: must be between 1 and 10");
  CHECK(e.message(Lang::zh) == "--n 0：必须在 1 到 10 之间");
}

TEST_CASE("parse errors name the option and value in Chinese too", "[i18n]") {
  try {
    parse_int("--block", "2048", 1, 1024, {"a block lives on one SM", "一个线程块在一个 SM 上"});
    FAIL("no error");
  } catch (const UsageError& e) {
    CHECK(e.message(Lang::en) ==
          "--block 2048: must be between 1 and 1024 (a block lives on one SM)");
    CHECK(e.message(Lang::zh) == "--block 2048：必须在 1 到 1024 之间（一个线程块在一个 SM 上）");
  }
  // Every kind of parse error has a Chinese text that is not the English one.
  const auto zh_of = [](auto&& f) {
    try {
      f();
    } catch (const UsageError& e) {
      return e.message(Lang::zh);
    }
    return std::string();
  };
  for (const std::string& zh : {
           zh_of([] { parse_int("--n", "x", 0, 9); }),
           zh_of([] { parse_int("--n", "99999999999999999999", 0, INT64_MAX); }),
           zh_of([] { parse_int("--n", "-1", 0, INT64_MAX); }),
           zh_of([] { parse_real("--p", "nan", 0, 1); }),
           zh_of([] { parse_real("--p", "abc", 0, 1); }),
           zh_of([] { parse_real("--p", "2", 0, 1); }),
           zh_of([] { parse_dim3("--grid", "0x2"); }),
           zh_of([] { parse_dim3("--grid", "1x2x3x4"); }),
           zh_of([] { parse_dim3("--grid", "ax2"); }),
           zh_of([] { parse_int_list("--n", "1,,2", 0, 9); }),
           zh_of([] { parse_int_list("--n", "1,z", 0, 9); }),
           zh_of([] { parse_int_list("--n", "1,20", 0, 9); }),
           zh_of([] {
             parse_choice("--lang", "fr", {"en", "zh"});
           }),
       }) {
    CAPTURE(zh);
    CHECK(has_cjk(zh));
  }
}

TEST_CASE("plural agrees with the count", "[i18n][text]") {
  CHECK(count_noun(1, "thread", "threads") == "1 thread");
  CHECK(count_noun(0, "thread", "threads") == "0 threads");
  CHECK(count_noun(2, "block", "blocks") == "2 blocks");
  CHECK(count_noun(1024, "thread", "threads") == "1,024 threads");
  CHECK(count_noun(Lang::zh, 1, "block", "blocks", "个线程块") == "1 个线程块");
  CHECK(count_noun(Lang::en, 1, "block", "blocks", "个线程块") == "1 block");
  CHECK(plural(1, "lane", "lanes") == "lane");
  CHECK(plural(31, "lane", "lanes") == "lanes");
}

TEST_CASE("percentages of one column share one precision and never show a false 0",
          "[i18n][text]") {
  CHECK(format_percent(68.96551724) == "68.97%");
  CHECK(format_percent(0.2) == "0.20%");
  CHECK(format_percent(0.02) == "0.02%");
  CHECK(format_percent(100) == "100.00%");
  CHECK(format_percent(0) == "0.00%");
  CHECK(format_percent(0.0001) == "<0.01%");
}

TEST_CASE("format_number groups the whole part and keeps the decimals", "[i18n][text]") {
  CHECK(format_number(1234567.891, 2) == "1,234,567.89");
  CHECK(format_number(999.5, 0) == "1,000");
  CHECK(format_number(12.5, 1) == "12.5");
  CHECK(format_number(-1234.25, 2) == "-1,234.25");
  CHECK(format_number(0, 2) == "0");
  // Against a float64 reference: removing the commas gives back format_real's digits.
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> d(0, 1e12);
  for (int i = 0; i < 200; ++i) {
    const double v = d(rng);
    std::string grouped = format_number(v, 2);
    std::erase(grouped, ',');
    CAPTURE(v);
    CHECK(grouped == format_real(v, 2));
  }
}

TEST_CASE("format_small never prints a non-zero fraction as 0", "[i18n][text]") {
  CHECK(format_small(1 - 0.999999999999) == "1e-12");
  CHECK(format_small(0.05) == "0.05");
  CHECK(format_small(0) == "0");
  std::mt19937_64 rng(12);
  std::uniform_real_distribution<double> e(-15, 0);
  for (int i = 0; i < 200; ++i) {
    const double v = std::pow(10.0, e(rng));
    CAPTURE(v);
    const std::string s = format_small(v);
    CHECK(s != "0");
    CHECK(std::abs(std::stod(s) - v) <= 0.006 * v + 5e-7);
  }
}

TEST_CASE("--version lists CUDA as a backend only when a GPU is usable", "[i18n][version]") {
  const std::string off = version_text(false, "no CUDA device was found");
  CHECK(off.find("backends: cpu-emulator") != std::string::npos);
  CHECK(off.find("backends: cuda") == std::string::npos);
#if GPULAB_HAVE_CUDA
  CHECK(off.find("no GPU is usable here: no CUDA device was found") != std::string::npos);
  CHECK(version_text(true, "").find("backends: cuda ") != std::string::npos);
#endif
}
