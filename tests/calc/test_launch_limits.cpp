// The launch limits at and just past each edge.
#include <catch2/catch.hpp>

#include "calc/launch_limits.hpp"

using gpulab::limits::check_launch;
using gpulab::limits::Shape;

TEST_CASE("Threads per block: 1024 is legal, 1025 is not", "[calc][limits]") {
  CHECK_FALSE(check_launch({1, 1, 1}, {1024, 1, 1}));
  CHECK_FALSE(check_launch({1, 1, 1}, {32, 32, 1}));
  auto e = check_launch({1, 1, 1}, {1025, 1, 1});
  REQUIRE(e);
  CHECK_THAT(*e, Catch::Contains("1024"));
  auto e2 = check_launch({1, 1, 1}, {33, 32, 1});
  REQUIRE(e2);
  CHECK_THAT(*e2, Catch::Contains("1056 threads per block"));
}

TEST_CASE("Block dimensions: (1024, 1024, 64)", "[calc][limits]") {
  CHECK_FALSE(check_launch({1, 1, 1}, {1, 1024, 1}));
  CHECK_FALSE(check_launch({1, 1, 1}, {1, 1, 64}));
  auto z = check_launch({1, 1, 1}, {1, 1, 65});
  REQUIRE(z);
  CHECK_THAT(*z, Catch::Contains("block z = 65"));
  auto y = check_launch({1, 1, 1}, {1, 1025, 1});
  REQUIRE(y);
  CHECK_THAT(*y, Catch::Contains("1025 threads per block"));  // the total is the first limit met
}

TEST_CASE("Grid dimensions: (2^31-1, 65535, 65535)", "[calc][limits]") {
  CHECK_FALSE(check_launch({2147483647ULL, 1, 1}, {1, 1, 1}));
  CHECK_FALSE(check_launch({1, 65535, 65535}, {1, 1, 1}));
  auto x = check_launch({2147483648ULL, 1, 1}, {1, 1, 1});
  REQUIRE(x);
  CHECK_THAT(*x, Catch::Contains("grid x = 2147483648"));
  CHECK(check_launch({1, 65536, 1}, {1, 1, 1}));
  CHECK(check_launch({1, 1, 65536}, {1, 1, 1}));
}

TEST_CASE("Zero dimensions are illegal", "[calc][limits]") {
  CHECK(check_launch({0, 1, 1}, {1, 1, 1}));
  CHECK(check_launch({1, 1, 1}, {1, 0, 1}));
}
