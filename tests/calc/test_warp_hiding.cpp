// Warps to hide latency and warps on an SM, against the notes' worked questions.
#include <catch2/catch.hpp>

#include "calc/warp_hiding.hpp"

using namespace gpulab::calc;

TEST_CASE("Warps needed to hide 200 cycles with 4 ops of 4 cycles is 13", "[calc][warp]") {
  auto r = warps_to_hide_latency(200, 4, 4);
  CHECK(r.work_cycles == 16);
  CHECK(r.ratio == Approx(12.5));
  CHECK(r.warps_needed == 13);
}

TEST_CASE("Warps needed rounds up only when there is a remainder", "[calc][warp]") {
  CHECK(warps_to_hide_latency(192, 4, 4).warps_needed == 12);
  CHECK(warps_to_hide_latency(193, 4, 4).warps_needed == 13);
  CHECK(warps_to_hide_latency(1, 1, 1).warps_needed == 1);
  CHECK(warps_to_hide_latency(400, 20, 4).warps_needed == 5);
}

TEST_CASE("3 blocks of 256 threads are 24 warps", "[calc][warp]") {
  auto r = warps_on_sm(3, 256);
  CHECK(r.warps_per_block == 8);
  CHECK(r.warps == 24);
  CHECK(r.threads == 768);
  CHECK(r.idle_lanes_per_block == 0);
}

TEST_CASE("A partial warp still takes a whole warp", "[calc][warp]") {
  auto r = warps_on_sm(2, 250);
  CHECK(r.warps_per_block == 8);
  CHECK(r.idle_lanes_per_block == 6);
  CHECK(r.warps == 16);
  auto one = warps_on_sm(1, 1);
  CHECK(one.warps_per_block == 1);
  CHECK(one.idle_lanes_per_block == 31);
  auto full = warps_on_sm(1, 1024);
  CHECK(full.warps_per_block == 32);
}
