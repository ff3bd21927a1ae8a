// Amdahl's and Gustafson's laws against values worked by hand (and the notes' table, corrected).
#include <catch2/catch.hpp>

#include <cmath>

#include "calc/amdahl.hpp"

using gpulab::calc::amdahl_limit;
using gpulab::calc::amdahl_speedup;
using gpulab::calc::gustafson_speedup;
using gpulab::calc::processors_for_fraction_of_limit;

TEST_CASE("Amdahl speedup matches hand-worked values", "[calc][amdahl]") {
  // 1 / (0.95/10 + 0.05) = 1 / 0.145
  CHECK(amdahl_speedup(0.95, 10) == Approx(6.896552).epsilon(1e-6));
  CHECK(amdahl_speedup(0.95, 100) == Approx(16.806723).epsilon(1e-6));
  CHECK(amdahl_speedup(0.95, 1000) == Approx(19.627085).epsilon(1e-6));
  CHECK(amdahl_speedup(0.99, 100) == Approx(50.251256).epsilon(1e-6));
  CHECK(amdahl_speedup(0.5, 10) == Approx(1.818182).epsilon(1e-6));
  // The notes print 9.91 here; 1 / (0.9/10000 + 0.1) = 9.991.
  CHECK(amdahl_speedup(0.9, 10000) == Approx(9.991008).epsilon(1e-6));
  CHECK(amdahl_speedup(0.0, 1000) == Approx(1.0));
  CHECK(amdahl_speedup(1.0, 64) == Approx(64.0));
  CHECK(amdahl_speedup(0.95, 1) == Approx(1.0));
}

TEST_CASE("Amdahl limit is 1 / (1 - P)", "[calc][amdahl]") {
  CHECK(amdahl_limit(0.95) == Approx(20.0));
  CHECK(amdahl_limit(0.5) == Approx(2.0));
  CHECK(amdahl_limit(0.0) == Approx(1.0));
  CHECK(std::isinf(amdahl_limit(1.0)));
}

TEST_CASE("Gustafson scaled speedup is (1 - P) + P N", "[calc][amdahl]") {
  CHECK(gustafson_speedup(0.95, 100) == Approx(95.05));
  CHECK(gustafson_speedup(0.5, 10) == Approx(5.5));
  CHECK(gustafson_speedup(0.0, 1000) == Approx(1.0));
}

TEST_CASE("Processors needed for 90% of the limit", "[calc][amdahl]") {
  // P = 0.95: 18x needs 0.95/N = 1/18 - 0.05, N = 171.
  CHECK(processors_for_fraction_of_limit(0.95, 0.9) == 171);
  CHECK(amdahl_speedup(0.95, 171) >= 0.9 * 20 - 1e-9);
  CHECK(amdahl_speedup(0.95, 170) < 0.9 * 20);
  CHECK(processors_for_fraction_of_limit(0.5, 0.9) == 9);
  CHECK(processors_for_fraction_of_limit(1.0, 0.9) == 0);
}
