// gpulab device-info: everything deviceQuery reports about each CUDA device, or a GPU's spec sheet
// from gpulab's table (--model), every figure explained in the course's school model.
#pragma once

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "calc/gpu_specs.hpp"
#include "commands/common.hpp"
#include "cuda/device_query.hpp"

namespace gpulab {

struct DeviceInfoOptions {
  std::optional<std::int64_t> device;  // --device K: only this device
  std::string model;                   // --model NAME: a spec sheet, no GPU asked
  bool gpu_asked = false;              // --backend gpu: a GPU must be there (exit 1 if not)
};

struct DeviceInfoResult {
  const calc::GpuModel* model = nullptr;  // set with --model; then nothing below is
  bool gpu_usable = false;
  int device_count = 0;
  Text reason;  // why no GPU is usable (empty when one is)
  cuda::Versions versions;
  std::vector<cuda::DeviceProperties> devices;
  std::vector<cuda::PeerAccess> peer_access;
};

// Throws UsageError for an unknown --model or a --device that is not there. With --model it
// never calls CUDA (the driver is not even loaded).
DeviceInfoResult run_device_info(const DeviceInfoOptions& o);
std::string render_device_info(const DeviceInfoResult& r, const OutputOptions& out);
nlohmann::json device_info_json(const DeviceInfoResult& r);
void setup_device_info(CLI::App& app, GlobalOptions& g);

// The pieces, for tests: one device's facts, one spec sheet.
nlohmann::json device_json(const cuda::DeviceProperties& d);
nlohmann::json model_json(const calc::GpuModel& m);
std::string render_device(const cuda::DeviceProperties& d, const OutputOptions& out);
std::string render_model(const calc::GpuModel& m, const OutputOptions& out);

}  // namespace gpulab
