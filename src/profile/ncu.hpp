// Nsight Compute on the GPU, for gpulab profile --backend gpu: the command line that measures the
// same metrics, and its CSV (--csv --page details --print-units base) read back. No I/O.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace gpulab::profile {

// The metrics gpulab profile reports, as ncu names them (and ncu --metrics takes them).
const std::vector<std::string>& ncu_metric_names();

// ncu's arguments before the program: --metrics <all> --csv --page details --print-units base.
std::vector<std::string> ncu_arguments();

// One kernel launch as ncu measured it.
struct NcuLaunch {
  std::string id;      // ncu's launch ID
  std::string kernel;  // "transpose_naive(const float *, float *)"
  std::string grid, block;
  std::map<std::string, double> metrics;
};

// The launches of ncu's CSV output (lines that are not CSV, like the program's own output and
// ncu's ==PROF== lines, are skipped), in launch order.
std::vector<NcuLaunch> parse_ncu_csv(const std::string& text);

// The kernel's name without its parameter list: "transpose_naive".
std::string ncu_short_name(const std::string& kernel);

}  // namespace gpulab::profile
