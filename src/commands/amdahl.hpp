// gpulab amdahl: Amdahl's speedup for each processor count, its limit, and Gustafson's view.
#pragma once

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "commands/common.hpp"

namespace gpulab {

struct AmdahlOptions {
  double p = 0;                 // parallel fraction, 0..1
  std::vector<std::int64_t> n;  // processor counts
};

struct AmdahlRow {
  std::int64_t n;
  double speedup;     // 1 / (P/N + (1 - P))
  double efficiency;  // speedup / N
  double gustafson;   // (1 - P) + P * N
};

struct AmdahlResult {
  double p;
  std::vector<AmdahlRow> rows;
  double limit;             // 1 / (1 - P), infinite when P = 1
  double n_for_90_percent;  // processors needed to reach 90% of the limit (0 if none)
};

AmdahlResult run_amdahl(const AmdahlOptions& o);
std::string render_amdahl(const AmdahlResult& r, const OutputOptions& out);
nlohmann::json amdahl_json(const AmdahlResult& r);
void setup_amdahl(CLI::App& app, GlobalOptions& g);

}  // namespace gpulab
