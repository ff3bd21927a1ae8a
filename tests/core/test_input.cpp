// Reading user input: lines capped in length, and text shown back without control bytes.
#include <catch2/catch.hpp>

#include <sstream>

#include "core/input.hpp"

using namespace gpulab;

TEST_CASE("read_line_capped: lines up to the cap, longer ones dropped whole", "[input]") {
  const std::string exact(kMaxAnswerBytes, '7');
  std::istringstream in("42\r\n" + exact + "\n" + exact + "8\nnext\nlast");
  std::string line;
  CHECK(read_line_capped(in, line) == LineRead::ok);
  CHECK(line == "42");
  CHECK(read_line_capped(in, line) == LineRead::ok);
  CHECK(line == exact);
  CHECK(read_line_capped(in, line) == LineRead::too_long);
  CHECK(line.empty());
  CHECK(read_line_capped(in, line) == LineRead::ok);  // the long line's rest was skipped
  CHECK(line == "next");
  CHECK(read_line_capped(in, line) == LineRead::ok);  // no final newline
  CHECK(line == "last");
  CHECK(read_line_capped(in, line) == LineRead::ended);
}

TEST_CASE("printable: control bytes escaped, long text cut at a character", "[input]") {
  CHECK(printable("\x1b[31mred\x1b[0m") == "\\x1b[31mred\\x1b[0m");
  CHECK(printable(std::string("a\0b\x7f", 4)) == "a\\x00b\\x7f");
  CHECK(printable("线程块") == "线程块");
  CHECK(printable("abcdef", 3) == "abc...");
  // "线" is 3 bytes: a cut after 4 bytes keeps only the first whole character.
  CHECK(printable("线程块", 4) == "线...");
}
