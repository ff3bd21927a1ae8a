// "Did you mean": edit distances and the closest name, as a student mistypes them.
#include <catch2/catch.hpp>

#include "core/suggest.hpp"

using gpulab::closest_name;
using gpulab::edit_distance;

TEST_CASE("edit_distance counts inserts, deletes, replacements and swaps", "[suggest]") {
  CHECK(edit_distance("vecadd", "vecadd") == 0);
  CHECK(edit_distance("vecad", "vecadd") == 1);
  CHECK(edit_distance("amdhal", "amdahl") == 1);  // two neighbours swapped: one edit
  CHECK(edit_distance("index_map", "index-map") == 0);
  CHECK(edit_distance("VECADD", "vecadd") == 0);
  CHECK(edit_distance("", "abc") == 3);
  CHECK(edit_distance("kitten", "sitting") == 3);
}

TEST_CASE("closest_name suggests a likely typo, never a guess", "[suggest]") {
  const std::vector<std::string> commands = {"learn",  "quiz",      "run",         "hello",
                                             "vecadd", "index-map", "twonorm",     "warp-hiding",
                                             "amdahl", "occupancy", "device-info", "help"};
  CHECK(closest_name("vecad", commands) == "vecadd");
  CHECK(closest_name("amdhal", commands) == "amdahl");
  CHECK(closest_name("index_map", commands) == "index-map");
  CHECK(closest_name("ocupancy", commands) == "occupancy");
  CHECK(closest_name("warp", commands) == "warp-hiding");  // a unique prefix
  CHECK_FALSE(closest_name("frobnicate", commands));
  CHECK_FALSE(closest_name("x", commands));
  CHECK_FALSE(closest_name("", commands));
  const std::vector<std::string> options = {"--json", "--backend", "--lang", "--p", "--n"};
  CHECK(closest_name("--jsn", options) == "--json");
  CHECK(closest_name("--lnag", options) == "--lang");
  CHECK_FALSE(closest_name("--q", options));  // one letter from both --p and --n: no guess
}
