// Option parsing: every kind of bad value gives one line naming the option, the value and the
// limit.
#include <catch2/catch.hpp>

#include "core/error.hpp"
#include "core/parse.hpp"

using namespace gpulab;

namespace {

std::string usage_message(auto&& fn) {
  try {
    fn();
  } catch (const UsageError& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace

TEST_CASE("parse_int accepts the range edges and refuses one past them", "[core][parse]") {
  CHECK(parse_int("--block", "1", 1, 1024) == 1);
  CHECK(parse_int("--block", "1024", 1, 1024) == 1024);
  CHECK(parse_int("--block", "+5", 1, 1024) == 5);
  std::string m = usage_message([] {
    parse_int("--block", "1025", 1, 1024, {"the reason", "原因"});
  });
  CHECK(m == "--block 1025: must be between 1 and 1024 (the reason)");
  CHECK(usage_message([] { parse_int("--block", "0", 1, 1024); }) ==
        "--block 0: must be between 1 and 1024");
}

TEST_CASE("parse_int refuses what is not a whole number", "[core][parse]") {
  for (const char* bad : {"", "abc", "1.5", "12abc", "0x10", " 3", "1e3", "--"}) {
    CAPTURE(bad);
    std::string m = usage_message([&] { parse_int("--n", bad, 1, 100); });
    CHECK_THAT(m, Catch::StartsWith("--n "));
    CHECK_THAT(m, Catch::Contains("not a whole number"));
  }
  CHECK_THAT(usage_message([] { parse_int("--n", "99999999999999999999", 1, 100); }),
             Catch::Contains("between 1 and 100"));
  CHECK_THAT(usage_message([] { parse_int("--n", "-3", 1, 100); }),
             Catch::Contains("between 1 and 100"));
}

TEST_CASE("parse_real accepts finite numbers in range", "[core][parse]") {
  CHECK(parse_real("--p", "0.95", 0, 1) == Approx(0.95));
  CHECK(parse_real("--p", "1e-2", 0, 1) == Approx(0.01));
  CHECK(parse_real("--p", "1", 0, 1) == 1.0);
  CHECK_THAT(usage_message([] { parse_real("--p", "1.0001", 0, 1); }),
             Catch::Contains("--p 1.0001: must be between 0 and 1"));
  for (const char* bad : {"nan", "inf", "-inf", "abc", ""}) {
    CAPTURE(bad);
    CHECK_THAT(usage_message([&] { parse_real("--p", bad, 0, 1); }), Catch::StartsWith("--p "));
  }
}

TEST_CASE("parse_dim3 reads X, XxY and XxYxZ", "[core][parse]") {
  Dim3 a = parse_dim3("--grid", "8");
  CHECK(a.rank == 1);
  CHECK(a.x == 8);
  CHECK(a.y == 1);
  Dim3 b = parse_dim3("--grid", "2x3");
  CHECK(b.rank == 2);
  CHECK(b.x == 2);
  CHECK(b.y == 3);
  Dim3 c = parse_dim3("--grid", "2X3x4");
  CHECK(c.rank == 3);
  CHECK(c.z == 4);
  for (const char* bad : {"0x3", "2x", "x2", "1x2x3x4", "-1", "", "2x3.5", "axb"}) {
    CAPTURE(bad);
    CHECK_THAT(usage_message([&] { parse_dim3("--grid", bad); }), Catch::StartsWith("--grid "));
  }
}

TEST_CASE("parse_int_list names the bad item", "[core][parse]") {
  auto v = parse_int_list("--n", "10,100,1000", 1, 1000000);
  REQUIRE(v.size() == 3);
  CHECK(v[2] == 1000);
  CHECK_THAT(usage_message([] { parse_int_list("--n", "10,,100", 1, 1000); }),
             Catch::Contains("empty item"));
  CHECK_THAT(usage_message([] { parse_int_list("--n", "10,abc", 1, 1000); }),
             Catch::Contains("'abc'"));
  CHECK_THAT(usage_message([] { parse_int_list("--n", "10,0", 1, 1000); }),
             Catch::Contains("item 0 must be between 1 and 1000"));
}

TEST_CASE("parse_choice lists the choices", "[core][parse]") {
  CHECK(parse_choice("--show", "all", {"auto", "all", "none"}) == "all");
  CHECK(usage_message([] {
          parse_choice("--show", "some", {"auto", "all", "none"});
        }) == "--show some: must be one of: auto, all, none");
}
