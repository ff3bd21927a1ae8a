// Laying text out for the terminal: width detection, wrapping, paragraphs, cut lines, tables.
#include <catch2/catch.hpp>

#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "core/layout.hpp"
#include "core/lesson.hpp"
#include "core/plot.hpp"
#include "core/text.hpp"

using namespace gpulab;

namespace {

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

std::size_t widest(const std::string& text) {
  std::size_t w = 0;
  for (const auto& l : lines(text)) w = std::max(w, display_width(l));
  return w;
}

// The words of a text, whatever its line breaks: a word split across lines shows up as two
// words that were not there.
std::multiset<std::string> words(const std::string& text) {
  std::multiset<std::string> out;
  std::istringstream in(text);
  for (std::string w; in >> w;) out.insert(w);
  return out;
}

}  // namespace

TEST_CASE("The width comes from COLUMNS, else the terminal, else 80", "[core][layout]") {
  CHECK(choose_width("60", 132) == 60);
  CHECK(choose_width(nullptr, 132) == 132);
  CHECK(choose_width(nullptr, 0) == kDefaultWidth);
  CHECK(kDefaultWidth == 80);
  // A COLUMNS that says nothing (empty, 0, not a number) is passed over.
  CHECK(choose_width("", 100) == 100);
  CHECK(choose_width("0", 100) == 100);
  CHECK(choose_width("wide", 0) == 80);
  CHECK(choose_width("60x", 0) == 80);
  CHECK(choose_width("-5", 0) == 80);
  // Kept to a width a sentence fits in, and to one a terminal can have.
  CHECK(choose_width("5", 0) == kMinWidth);
  CHECK(choose_width("99999999999999999999", 0) == 80);
  CHECK(choose_width("5000", 0) == kMaxWidth);
}

TEST_CASE("Chinese breaks between characters, never before its punctuation", "[core][layout]") {
  // No spaces at all: every character is a break, the marks stay with what they follow.
  const std::string text = "线程块减半，第一轮没有线程空闲；完成。";
  for (std::size_t width : {6, 10, 12, 20}) {
    const std::string s = wrap_text(text, width, 0, 0);
    CAPTURE(width, s);
    CHECK(widest(s) <= width);
    std::string joined;
    for (const auto& l : lines(s)) {
      CHECK_FALSE(l.starts_with("，"));
      CHECK_FALSE(l.starts_with("；"));
      CHECK_FALSE(l.starts_with("。"));
      joined += l;
    }
    CHECK(joined == text);
  }
  CHECK(wrap_text("（共享内存）", 6, 0, 0) == "（共享\n内存）");
  // An English word inside Chinese stays whole.
  CHECK(wrap_text("调用cudaMalloc分配显存", 12, 0, 0) == "调用\ncudaMalloc分\n配显存");
  CHECK(may_break_between(U'线', U'程'));
  CHECK_FALSE(may_break_between(U'程', U'，'));
  CHECK_FALSE(may_break_between(U'（', U'共'));
  CHECK_FALSE(may_break_between(U'a', U'b'));
}

TEST_CASE("Lines that fit are left as the renderer made them", "[core][layout]") {
  const std::string text =
      "Title\n  Grid: 4 blocks\n\n  index  block\n      0      0\n  a line that ends\n  here\n";
  CHECK(lay_out(text, 80, Lang::en) == text);
  CHECK(lay_out("no newline at the end", 80, Lang::en) == "no newline at the end");
  CHECK(lay_out("", 80, Lang::en).empty());
}

TEST_CASE("A paragraph broken for a wide terminal is joined and wrapped again", "[core][layout]") {
  const std::string text =
      "  Limit: 1 / (1 - P) = 1 / 0.1 = 10x. However many processors, the serial 10% is never\n"
      "  faster, so the speedup stays below 10x.\n"
      "  Reaching 90% of the limit takes N >= 81 processors.\n";
  const std::string out = lay_out(text, 40, Lang::en);
  CAPTURE(out);
  CHECK(widest(out) <= 40);
  CHECK(words(out) == words(text));
  for (const auto& l : lines(out)) CHECK(l.starts_with("  "));
  // "Reaching" starts a sentence of its own: it stays at the start of a line.
  bool own_line = false;
  for (const auto& l : lines(out)) own_line = own_line || l.starts_with("  Reaching 90%");
  CHECK(own_line);
  // "faster," continues the sentence: not left alone at the start of a ragged line.
  CHECK(out.find("never\n  faster,") == std::string::npos);
}

TEST_CASE("The steps of a derivation stay on lines of their own", "[core][layout]") {
  const std::string text =
      "    32 registers x 32 threads = 1,024 per warp, in units of 256: 1,024\n"
      "    the register file (65,536) is split into 4 sub-partitions of 16,384, one per warp\n"
      "    scheduler: 16,384 / 1,024 = 16 warps each\n";
  const std::string out = lay_out(text, 60, Lang::en);
  CAPTURE(out);
  CHECK(widest(out) <= 60);
  CHECK(words(out) == words(text));
  bool own_line = false;
  for (const auto& l : lines(out)) own_line = own_line || l.starts_with("    the register file");
  CHECK(own_line);
  // "scheduler:" ends the sentence "the register file ... one per warp" started.
  CHECK(out.find("warp\n    scheduler:") == std::string::npos);
}

TEST_CASE("Prose never runs past 100 columns, however wide the terminal", "[core][layout]") {
  std::string text = "  ";
  for (int i = 0; i < 40; ++i) text += "word ";
  text += "end\n";
  const std::string out = lay_out(text, 200, Lang::en);
  CHECK(widest(out) <= kProseWidth);
  CHECK(words(out) == words(text));
}

TEST_CASE("Bullets and numbers get a hanging indent", "[core][layout]") {
  const std::string out =
      lay_out("  - one two three four five six seven eight nine ten\n", 24, Lang::en);
  CHECK(out == "  - one two three four\n    five six seven eight\n    nine ten\n");
  const std::string numbered = lay_out("  12. alpha beta gamma delta epsilon\n", 20, Lang::en);
  CHECK(numbered == "  12. alpha beta\n      gamma delta\n      epsilon\n");
}

TEST_CASE("Chinese prose is re-flowed without spaces after its punctuation", "[core][layout]") {
  const std::string text =
      "  极限：1 / (1 - P) = 1 / 0.1 = 10 倍。无论有多少处理器，串行的 10% 都不会变快，\n"
      "  所以加速比始终低于 10 倍。\n";
  const std::string out = lay_out(text, 30, Lang::zh);
  CAPTURE(out);
  CHECK(widest(out) <= 30);
  CHECK(out.find("， ") == std::string::npos);
  CHECK(out.find("变快，所以") != std::string::npos);  // joined without a space, on one line
}

TEST_CASE("Table rows too wide wrap their columns; only a word too long is cut, with one note",
          "[core][layout]") {
  const std::string text =
      "  name        value  another_column  and_one_more\n"
      "  alpha       1      2               3\n";
  const std::string out = lay_out(text, 30, Lang::en);
  CAPTURE(out);
  CHECK(widest(out) <= 30);
  CHECK(words(out) == words(text));  // nothing left out
  CHECK(out.find("…") == std::string::npos);
  CHECK(out.find("cut") == std::string::npos);
  // A value that is one word longer than any line: cut, and one note (wrapped too) says so.
  const std::string long_word =
      "  name    " + std::string(40, 'x') + "\n  other   " + std::string(40, 'y') + "\n";
  const std::string cut = lay_out(long_word, 30, Lang::en);
  CAPTURE(cut);
  CHECK(widest(cut) <= 30);
  CHECK(lines(cut)[0].ends_with("…"));
  CHECK(lines(cut)[1].ends_with("…"));
  CHECK(lines(cut)[2] == "  (lines ending in … were cut");  // the note, once, wrapped too
  CHECK(cut.find("30 columns)") != std::string::npos);
  CHECK(lay_out(long_word, 30, Lang::zh).find("30 列宽") != std::string::npos);
}

TEST_CASE("A label and value row wraps its value under itself", "[core][layout]") {
  const std::string text = "    Memory bandwidth    the playground gate lets 3,352 GB/s through\n";
  const std::string out = lay_out(text, 50, Lang::en);
  CAPTURE(out);
  CHECK(widest(out) <= 50);
  CHECK(words(out) == words(text));
  CHECK(lines(out)[1].starts_with(std::string(24, ' ') + "3,352"));
}

TEST_CASE("A value with no room beside its label goes under it, never cut", "[core][layout]") {
  // device-info at 56 columns: the label column ends at 38, leaving 18 for the value.
  const std::string row = "    CUDA cores                        64 per SM, 2,560 in total\n";
  const std::string out = lay_out(row, 56, Lang::en);
  CAPTURE(out);
  CHECK(out == "    CUDA cores\n      64 per SM, 2,560 in total\n");
  CHECK(out.find("…") == std::string::npos);
  // A Chinese value is prose too (it has no spaces): it wraps under itself.
  const std::string zh =
      "  答案：sisd  (一条指令流每次处理一个数据元素：单指令单数据，一个核心一次做一件事。)\n";
  const std::string zh_out = lay_out(zh, 60, Lang::zh);
  CAPTURE(zh_out);
  CHECK(widest(zh_out) <= 60);
  CHECK(zh_out.find("…") == std::string::npos);
  CHECK(lines(zh_out)[1].starts_with(std::string(14, ' ')));  // under the value's column
  // A row of columns too wide even without its last: each column wraps in turn.
  const std::string table =
      "   6  blocks       Blocks: more elements than one block holds  not started\n";
  const std::string t_out = lay_out(table, 60, Lang::en);
  CAPTURE(t_out);
  CHECK(widest(t_out) <= 60);
  CHECK(words(t_out) == words(table));
  CHECK(t_out.find("…") == std::string::npos);
  // One word too long for any line is still cut (and said).
  const std::string word = "  name  " + std::string(70, 'x') + "\n";
  CHECK(lay_out(word, 60, Lang::en).find("…") != std::string::npos);
}

// A wrapped code line with its continuation rows joined back: the marker and the indent before
// it go, nothing else.
static std::string unwrap_code(const std::string& text) {
  std::string out;
  const std::vector<std::string> ls = lines(text);
  for (std::size_t i = 0; i < ls.size(); ++i) {
    const std::string& l = ls[i];
    const std::size_t at = l.find(kContinuation);
    if (i > 0 && at != std::string::npos && l.find_first_not_of(' ') == at) {
      out += l.substr(at + kContinuation.size());
    } else {
      out += (i > 0 ? "\n" : "") + l;
    }
  }
  return out;
}

TEST_CASE("Verbatim lines are wrapped as code, never cut", "[core][layout]") {
  const std::string code = "  // 5  int i = blockIdx.x * blockDim.x + threadIdx.x;\n";
  const std::string marked = verbatim(code) + "  prose that fits\n";
  CHECK(marked.front() == kVerbatim);
  CHECK(lay_out(marked, 80, Lang::en) == code + "  prose that fits\n");
  const std::string narrow = lay_out(marked, 30, Lang::en);
  CAPTURE(narrow);
  CHECK(widest(narrow) <= 30);
  CHECK(lines(narrow)[0] == "  // 5  int i = blockIdx.x *");
  CHECK(lines(narrow)[1].starts_with("  " + std::string(kContinuation) + " blockDim.x"));
  CHECK(narrow.find("…") == std::string::npos);
  CHECK(narrow.find("cut") == std::string::npos);
  CHECK(unwrap_code(narrow) == code + "  prose that fits");
  CHECK(narrow.find(kVerbatim) == std::string::npos);
}

TEST_CASE("wrap_code breaks anywhere when a row has no space", "[core][layout]") {
  const std::string line = "    x=aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa;";
  const std::string out = wrap_code(line, 20);
  CAPTURE(out);
  CHECK(widest(out) <= 20);
  CHECK(unwrap_code(out) == line);
  CHECK(wrap_code("short", 20) == "short");
}

TEST_CASE("cut_to_width keeps colour codes whole and resets them", "[core][layout]") {
  CHECK(cut_to_width("abcdef", 6) == "abcdef");
  CHECK(cut_to_width("abcdefgh", 6) == "abcde…");
  CHECK(cut_to_width("线程块线程块", 5) == "线程…");
  const std::string red = cut_to_width("\x1b[31mabcdefgh\x1b[0m", 4);
  CHECK(red == "\x1b[31mabc…\x1b[0m");
  CHECK(display_width(red) == 4);
}

TEST_CASE("A table leaves out the columns that do not fit, and says which", "[core][layout]") {
  Table t({"N", "speedup", "worked", "efficiency"});
  t.add_row({"10", "5.26", "1 / (0.9/10 + 0.1)", "52.6%"});
  const std::string wide = t.render(Style(false, 80, Lang::en));
  CHECK(wide.find("efficiency") != std::string::npos);
  const std::string narrow = t.render(Style(false, 30, Lang::en));
  CAPTURE(narrow);
  CHECK(widest(narrow) <= 30);
  CHECK(narrow.find("speedup") != std::string::npos);
  CHECK(narrow.find("(left out to fit 30 columns:\n  worked, efficiency)") != std::string::npos);
  CHECK(t.render(Style(false, 30, Lang::zh)).find("worked、efficiency") != std::string::npos);
}

TEST_CASE("A table's last column of words wraps under itself", "[core][layout]") {
  Table t({"resource", "amount", "what it is"});
  t.add_row(
      {"registers", "12", "the fastest memory, private to each thread; the compiler assigns them"});
  t.add_row({"barriers", "0", "named barriers the kernel uses"});
  const std::string out = t.render(Style(false, 50, Lang::en), 2);
  CAPTURE(out);
  CHECK(widest(out) <= 50);
  CHECK(words(out) ==
        words("resource amount what it is registers 12 the fastest memory, private to "
              "each thread; the compiler assigns them barriers 0 named barriers "
              "the kernel uses"));
  CHECK(out.find("left out") == std::string::npos);
  // Under "what it is": 2 + "registers" + 2 + "amount" + 2 columns in.
  CHECK(out.find("\n" + std::string(21, ' ') + "to each thread;") != std::string::npos);
  // Narrower still: the words go on the lines below their row.
  const std::string narrow = t.render(Style(false, 30, Lang::en), 2);
  CAPTURE(narrow);
  CHECK(widest(narrow) <= 30);
  CHECK(narrow.find("  registers      12\n      the fastest memory,") != std::string::npos);
  CHECK(narrow.find("left out") == std::string::npos);
}

TEST_CASE("A plot narrows to the terminal", "[core][layout]") {
  PlotSpec spec;
  spec.series = {{{1, 10, 100, 1000}, {1, 5, 9, 10}, 'o'}};
  spec.log_x = true;
  spec.x_label = "N processors (log scale)";
  spec.width = 60;
  CHECK(widest(render_plot(spec, Style(false, 100, Lang::en))) > 60);
  const std::string narrow = render_plot(spec, Style(false, 40, Lang::en));
  CAPTURE(narrow);
  CHECK(widest(narrow) <= 40);
  CHECK(narrow.find('o') != std::string::npos);
}

TEST_CASE("A lesson's paragraphs re-flow; its code stays whole", "[core][layout]") {
  const std::string step =
      "On the GPU, each thread adds one element. Every thread runs the same kernel and finds out\n"
      "which element is its own from its block number and thread number:\n"
      "\n"
      "    __global__ void vectorAdd(const int *a, const int *b, int *c, int N) {\n"
      "        int tid = blockIdx.x * blockDim.x + threadIdx.x;\n"
      "    }\n"
      "\n"
      "1. `cudaMalloc(&d_a, N * sizeof(int))` reserves device memory, and this item is long\n"
      "   enough to wrap,\n"
      "2. short.\n";
  const std::string wide = lay_out_lesson(step, Style(false, 100, Lang::en), 2);
  CAPTURE(wide);
  CHECK(widest(wide) <= 100);
  CHECK(
      wide.find("      __global__ void vectorAdd(const int *a, const int *b, int *c, int N) {\n") !=
      std::string::npos);
  CHECK(wide.find("…") == std::string::npos);

  const std::string narrow = lay_out_lesson(step, Style(false, 60, Lang::en), 2);
  CAPTURE(narrow);
  CHECK(widest(narrow) <= 60);
  // The code line is wrapped as code: a continuation marker, no character lost.
  CHECK(narrow.find("…") == std::string::npos);
  CHECK(unwrap_code(narrow).find(
            "      __global__ void vectorAdd(const int *a, const int *b, int *c, int N) {\n") !=
        std::string::npos);
  CHECK(narrow.find("\n      " + std::string(kContinuation)) != std::string::npos);
  CHECK(narrow.find("        int tid = blockIdx.x * blockDim.x + threadIdx.x;\n") !=
        std::string::npos);
  // The numbered item wraps under its text, and the next item starts a line of its own.
  CHECK(narrow.find("\n     ") != std::string::npos);
  CHECK(narrow.find("\n  2. short.\n") != std::string::npos);
  // Prose words are all there, none split.
  std::multiset<std::string> prose = words(step), shown = words(narrow);
  CHECK(shown.count("thread") == prose.count("thread"));
  CHECK(shown.count("number:") == 1);
  // Paragraphs stay separated by one blank line.
  CHECK(narrow.find("number:\n\n") != std::string::npos);
}

TEST_CASE("A lesson's Chinese paragraph re-flows without stray spaces", "[core][layout]") {
  const std::string step =
      "在 GPU 上，每个线程加一个元素。每个线程运行同一个核函数，并根据线程块编号和线程编号\n"
      "找到属于自己的元素。\n";
  const std::string out = lay_out_lesson(step, Style(false, 40, Lang::zh), 2);
  CAPTURE(out);
  CHECK(widest(out) <= 40);
  CHECK((out.find("线程编号找到") != std::string::npos ||
         out.find("线程编号\n  找到") != std::string::npos));
  CHECK(out.find("编号 找到") == std::string::npos);
}

TEST_CASE("A lesson's markdown table becomes a table that fits", "[core][layout]") {
  const std::string step =
      "| memory | who sees it | where it lives | speed |\n"
      "|---|---|---|---|\n"
      "| registers | one thread | on the SM | fastest |\n"
      "| global | all threads, all kernels, host via copies | device memory | slow |\n";
  const std::string wide = lay_out_lesson(step, Style(false, 100, Lang::en), 2);
  CAPTURE(wide);
  CHECK(wide.find("|") == std::string::npos);
  CHECK(wide.find("fastest") != std::string::npos);
  // Too wide for 60 columns: every row as a list item, nothing left out.
  const std::string narrow = lay_out_lesson(step, Style(false, 60, Lang::en), 2);
  CAPTURE(narrow);
  CHECK(widest(narrow) <= 60);
  CHECK(narrow.find("  - registers: who sees it: one thread; where it lives: on\n"
                    "    the SM; speed: fastest\n") != std::string::npos);
  CHECK(narrow.find("device memory; speed: slow") != std::string::npos);
}

TEST_CASE("Every code line of every lesson shows whole at 60 and 100 columns", "[core][layout]") {
  for (const char* lang : {"en", "zh"}) {
    const Lang l = std::string_view(lang) == "zh" ? Lang::zh : Lang::en;
    const std::vector<Lesson> lessons = load_lessons(lang);
    REQUIRE(lessons.size() >= 16);
    std::size_t code_lines = 0;
    for (const Lesson& lesson : lessons) {
      for (const LessonStep& step : lesson.steps) {
        for (std::size_t width : {60, 100}) {
          const std::string out = lay_out_lesson(step.text, Style(false, width, l), 2);
          const std::string joined = unwrap_code(out) + "\n";
          CAPTURE(lang, lesson.id, width, out);
          CHECK(widest(out) <= width);
          CHECK(out.find("…") == std::string::npos);
          for (const std::string& line : lines(step.text)) {
            if (line.find_first_not_of(' ') < 4 || line.find_first_not_of(' ') == std::string::npos)
              continue;
            ++code_lines;
            CAPTURE(line);
            CHECK(joined.find("  " + line + "\n") != std::string::npos);
          }
        }
      }
    }
    CHECK(code_lines >= 120);  // 66 code lines a language today, each at two widths
  }
}
