// gpulab index-map: how every thread of a 1-D, 2-D or 3-D launch finds its global index.
#pragma once

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "calc/index_map.hpp"
#include "calc/launch_facts.hpp"
#include "commands/common.hpp"

namespace gpulab {

struct IndexMapOptions {
  calc::Shape grid, block;
  int rank = 1;                       // the most dimensions written in --grid or --block
  std::optional<std::uint64_t> find;  // --find I
  bool run = false;                   // --run: a real kernel writes its indices
  ShowMode show = ShowMode::automatic;
};

struct IndexMapRun {
  std::uint64_t checked = 0;
  std::uint64_t mismatches = 0;
  std::string first_mismatch;  // empty when all match
  std::string backend, device;
  KernelRun run;
};

struct IndexMapResult {
  calc::Shape grid, block;
  int rank;
  calc::LaunchFacts launch;
  std::uint64_t total_threads = 0;
  bool total_overflows = false;  // more than 2^64 threads (the hardware allows ~2^73)
  double total_approx = 0;
  std::vector<calc::ThreadPlace> threads;  // every thread when listed (JSON), else the table rows
  bool all_threads = false;                // `threads` holds every thread
  std::vector<calc::ThreadPlace> table;    // rows the text shows
  bool elided = false;
  calc::ThreadPlace example;               // the thread whose formulas are worked out
  std::optional<calc::ThreadPlace> found;  // --find
  std::optional<IndexMapRun> run;
};

IndexMapResult run_index_map(const IndexMapOptions& o, Backend* backend);
std::string render_index_map(const IndexMapResult& r, const OutputOptions& out);
// The same text in pieces, in order, to `write`: --show all's table a chunk of rows at a time, so
// that its million rows are never held whole.
void render_index_map_to(const IndexMapResult& r, const OutputOptions& out,
                         const std::function<void(std::string_view)>& write);
nlohmann::json index_map_json(const IndexMapResult& r);
void setup_index_map(CLI::App& app, GlobalOptions& g);

}  // namespace gpulab
