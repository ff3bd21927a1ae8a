// Checks shared by the CLI tests: a successful run's JSON, and the shape of a usage error.
#pragma once

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "support/run.hpp"

namespace gpulab::test {

// Runs gpulab, requires exit code 0, and parses its stdout as one JSON document.
inline nlohmann::json run_json(const std::vector<std::string>& args, const std::string& in = {}) {
  auto r = run_gpulab(args, in);
  CAPTURE(args, r.err);
  REQUIRE(r.exit_code == 0);
  return nlohmann::json::parse(r.out);
}

// A usage error: exit 2, nothing on stdout, exactly one line on stderr, naming what it must.
inline void check_usage_error(const std::vector<std::string>& args,
                              const std::string& must_contain) {
  CAPTURE(args);
  auto r = run_gpulab(args);
  CAPTURE(r.out, r.err);
  CHECK(r.exit_code == 2);
  CHECK(r.out.empty());
  CHECK(lines_of(r.err).size() == 1);
  CHECK_THAT(r.err, Catch::StartsWith("gpulab: error: "));
  CHECK_THAT(r.err, Catch::Contains(must_contain));
}

}  // namespace gpulab::test
