// Terminal text layout: widths of CJK and ANSI text, tables, number formatting, plots.
#include <catch2/catch.hpp>

#include "core/plot.hpp"
#include "core/text.hpp"

using namespace gpulab;

TEST_CASE("display_width counts CJK as two columns and ANSI codes as none", "[core][text]") {
  CHECK(display_width("abc") == 3);
  CHECK(display_width("线程束") == 6);
  CHECK(display_width("\x1b[1;31mred\x1b[0m") == 3);
  CHECK(display_width("") == 0);
  CHECK(pad_right("线程", 6) == "线程  ");
  CHECK(pad_left("7", 3) == "  7");
}

TEST_CASE("Table aligns numbers right and text left", "[core][text]") {
  Table t({"n", "name"});
  t.add_row({"7", "ab"});
  t.add_row({"1024", "c"});
  std::string out = t.render(Style(false), 0);
  CHECK(out == "   n  name\n   7  ab\n1024  c\n");
}

TEST_CASE("Number formatting", "[core][text]") {
  CHECK(format_real(6.896552, 2) == "6.9");
  CHECK(format_real(20.0, 2) == "20");
  CHECK(format_real(-0.0001, 2) == "0");
  CHECK(group_thousands(4194304) == "4,194,304");
  CHECK(group_thousands(999) == "999");
  CHECK(format_bytes(1536) == "1.5 KiB");
  CHECK(format_bytes(100) == "100 B");
}

TEST_CASE("Style adds ANSI codes only when enabled", "[core][text]") {
  CHECK(Style(false).bold("x") == "x");
  CHECK(Style(true).bold("x") == "\x1b[1mx\x1b[0m");
}

TEST_CASE("A plot puts the highest point on the top row", "[core][plot]") {
  PlotSpec spec;
  spec.series = {{{1, 2, 3}, {0, 5, 10}, 'o'}};
  spec.width = 20;
  spec.height = 5;
  std::string out = render_plot(spec, Style(false));
  auto first_line = out.substr(0, out.find('\n'));
  CHECK(first_line.find('o') != std::string::npos);
  CHECK(first_line.back() == 'o');  // x = 3 is the right edge
}

TEST_CASE("wrap_text breaks at spaces and after Chinese punctuation", "[core][text]") {
  CHECK(wrap_text("one two three", 80, 2, 0) == "one two three");
  CHECK(wrap_text("one two three four", 9, 2, 0) == "one two\n  three\n  four");
  // The first line starts at column 5: "one two" (7) would end at 12 > 10.
  CHECK(wrap_text("one two three", 10, 5, 5) == "one\n     two\n     three");
  // A word longer than the width stays whole on its own line.
  CHECK(wrap_text("a abcdefghijkl b", 6, 0, 0) == "a\nabcdefghijkl\nb");
  // Chinese: two columns a character, breaks between characters, never before ，and ；.
  CHECK(wrap_text("线程块减半，第一轮没有线程空闲；完成", 12, 2, 0) ==
        "线程块减半，\n  第一轮没有\n  线程空闲；\n  完成");
}
