// gpulab hello: every GPU thread says hello, naming its block and thread.
#pragma once

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "calc/launch_facts.hpp"
#include "commands/common.hpp"

namespace gpulab {

struct HelloOptions {
  std::int64_t blocks = 1;
  std::int64_t threads = 1;
};

struct HelloResult {
  std::int64_t blocks, threads;
  calc::LaunchFacts launch;
  std::vector<std::string> lines;  // in the order the device printed them
  bool complete = false;           // one line from every thread, each exactly once
  bool in_order = false;           // the lines came out sorted by block, then thread
  std::string backend, device;
  KernelRun run;
};

HelloResult run_hello(const HelloOptions& o, Backend& backend);
std::string render_hello(const HelloResult& r, const OutputOptions& out);
nlohmann::json hello_json(const HelloResult& r);
void setup_hello(CLI::App& app, GlobalOptions& g);

}  // namespace gpulab
