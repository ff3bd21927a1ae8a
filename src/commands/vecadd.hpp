// gpulab vecadd: integer vector add, one thread per element, every index explained.
#pragma once

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "calc/launch_facts.hpp"
#include "commands/bench.hpp"
#include "commands/common.hpp"

namespace gpulab {

struct VecaddOptions {
  std::int64_t n = 0;
  std::int64_t block = 256;
  std::uint64_t seed = 0;
  std::optional<std::int64_t> find;  // the highlighted element (default: 21 when it exists)
  ShowMode show = ShowMode::automatic;
  std::optional<int> bench_reps;  // --bench [--reps R]
};

struct VecaddElement {
  std::int64_t index, block, thread;
  int a, b, c;
};

struct VecaddResult {
  std::int64_t n, block, grid;
  std::uint64_t seed;
  calc::LaunchFacts launch;
  std::int64_t idle_threads;  // threads - n: the guard keeps them from writing
  std::optional<std::int64_t> find;
  bool verified = false;
  std::int64_t mismatches = 0;
  std::optional<VecaddElement> first_mismatch;
  std::vector<VecaddElement> table;     // the rows the text shows, in index order
  bool elided = false;                  // the table leaves rows out
  std::vector<VecaddElement> elements;  // every element, when N <= 1024 or --show all
  double h2d_ms = 0, kernel_ms = 0, d2h_ms = 0;
  double kernel_gbs = 0;  // 3 * n * 4 bytes / kernel time
  std::string backend, device;
  KernelRun run;
  std::optional<BenchResult> bench;
};

VecaddResult run_vecadd(const VecaddOptions& o, Backend& backend);
std::string render_vecadd(const VecaddResult& r, const OutputOptions& out);
nlohmann::json vecadd_json(const VecaddResult& r);
void setup_vecadd(CLI::App& app, GlobalOptions& g);

}  // namespace gpulab
