// Index mapping in 1-D, 2-D and 3-D against brute force: count threads in CUDA's own order.
#include <catch2/catch.hpp>

#include <random>

#include "calc/index_map.hpp"
#include "calc/launch_facts.hpp"

using namespace gpulab::calc;

namespace {

// Walks every thread the way CUDA numbers them (x fastest, blocks outermost) and checks that
// place_of() gives the same running count, and that place_of_index() inverts it.
void check_against_brute_force(const Shape& g, const Shape& b) {
  CAPTURE(g.x, g.y, g.z, b.x, b.y, b.z);
  std::uint64_t expected = 0;
  for (std::uint64_t bz = 0; bz < g.z; ++bz)
    for (std::uint64_t by = 0; by < g.y; ++by)
      for (std::uint64_t bx = 0; bx < g.x; ++bx) {
        std::uint64_t in_block = 0;
        for (std::uint64_t tz = 0; tz < b.z; ++tz)
          for (std::uint64_t ty = 0; ty < b.y; ++ty)
            for (std::uint64_t tx = 0; tx < b.x; ++tx) {
              ThreadPlace p = place_of(g, b, {bx, by, bz}, {tx, ty, tz});
              REQUIRE(p.global == expected);
              REQUIRE(p.thread_linear == in_block);
              REQUIRE(p.warp == in_block / 32);
              REQUIRE(p.lane == in_block % 32);
              ThreadPlace back = place_of_index(g, b, expected);
              REQUIRE(back.block == Coord{bx, by, bz});
              REQUIRE(back.thread == Coord{tx, ty, tz});
              ++expected;
              ++in_block;
            }
      }
  CHECK(expected == g.volume() * b.volume());
}

}  // namespace

TEST_CASE("1-D: global = blockIdx.x * blockDim.x + threadIdx.x", "[calc][index]") {
  check_against_brute_force({4, 1, 1}, {8, 1, 1});
  check_against_brute_force({3, 1, 1}, {33, 1, 1});
  // The notes' example: 4 blocks of 8 threads, element 21 is block 2, thread 5.
  ThreadPlace p = place_of_index({4, 1, 1}, {8, 1, 1}, 21);
  CHECK(p.block.x == 2);
  CHECK(p.thread.x == 5);
  CHECK(place_of({4, 1, 1}, {8, 1, 1}, {2, 0, 0}, {5, 0, 0}).global == 2 * 8 + 5);
}

TEST_CASE("2-D: the notes' 2x3 grid of 3x4 blocks", "[calc][index]") {
  check_against_brute_force({2, 3, 1}, {3, 4, 1});
  // Last thread: block (1,2) is block 1 + 2*2 = 5; thread (2,3) is 2 + 3*3 = 11; 5*12 + 11 = 71.
  ThreadPlace p = place_of({2, 3, 1}, {3, 4, 1}, {1, 2, 0}, {2, 3, 0});
  CHECK(p.block_linear == 5);
  CHECK(p.thread_linear == 11);
  CHECK(p.global == 71);
  Coord pos = grid_position({3, 4, 1}, {1, 2, 0}, {2, 3, 0});
  CHECK(pos.x == 1 * 3 + 2);
  CHECK(pos.y == 2 * 4 + 3);
}

TEST_CASE("3-D shapes", "[calc][index]") {
  check_against_brute_force({2, 2, 2}, {4, 2, 3});
  check_against_brute_force({1, 1, 3}, {2, 2, 2});
  check_against_brute_force({3, 1, 2}, {1, 5, 1});
}

TEST_CASE("Random shapes", "[calc][index]") {
  std::random_device rd;
  const unsigned seed = rd();
  CAPTURE(seed);
  std::mt19937 gen(seed);
  std::uniform_int_distribution<std::uint64_t> small(1, 5);
  for (int i = 0; i < 20; ++i) {
    check_against_brute_force({small(gen), small(gen), small(gen)},
                              {small(gen), small(gen), small(gen)});
  }
}

TEST_CASE("Warps are cut from consecutive linear thread ids", "[calc][index]") {
  // A 16x4 block: threads (0..15, 0..1) are warp 0, (0..15, 2..3) warp 1.
  CHECK(place_of({1, 1, 1}, {16, 4, 1}, {0, 0, 0}, {15, 1, 0}).warp == 0);
  CHECK(place_of({1, 1, 1}, {16, 4, 1}, {0, 0, 0}, {0, 2, 0}).warp == 1);
  auto f = launch_facts({1, 1, 1}, {40, 1, 1});
  CHECK(f.warps_per_block == 2);
  CHECK(f.idle_lanes_per_block == 24);
}
