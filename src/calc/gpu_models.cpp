// The GPU spec sheets (see gpu_specs.hpp): src/calc/gpu_models.json, one record per GPU with its
// sources, compiled into the binary and read once. Kept apart from the per-architecture table
// (gpu_specs.cpp), which gpulab run's kit links into student programs without this data.
#include <nlohmann/json.hpp>

#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "calc/gpu_specs.hpp"
#include "core/embedded.hpp"

namespace gpulab::embedded {
std::span<const EmbeddedFile> gpu_model_sheets();  // generated from src/calc/gpu_models.json
}

namespace gpulab::calc {
namespace {

// The parsed file outlives every GpuModel: their string_views point into its strings.
const nlohmann::json& sheets() {
  static const nlohmann::json j = nlohmann::json::parse(embedded::gpu_model_sheets()[0].data,
                                                        /*cb=*/nullptr, /*allow_exceptions=*/true,
                                                        /*ignore_comments=*/true);
  return j;
}

std::string_view text(const nlohmann::json& j, const char* key) {
  const auto it = j.find(key);
  if (it == j.end()) return {};
  return it->get_ref<const std::string&>();
}

std::vector<std::string_view> texts(const nlohmann::json& j, const char* key) {
  std::vector<std::string_view> v;
  if (const auto it = j.find(key); it != j.end()) {
    for (const auto& s : *it) v.push_back(s.get_ref<const std::string&>());
  }
  return v;
}

// The record's fields by name (GpuModel in gpu_specs.hpp); a field left out is 0 or empty.
template <class T>
struct Field {
  const char* key;
  T GpuModel::*member;
};
constexpr Field<std::string_view> kTexts[] = {
    {"name", &GpuModel::name},
    {"chip", &GpuModel::chip},
    {"architecture", &GpuModel::architecture},
    {"tensor_core_generation", &GpuModel::tensor_core_generation},
    {"rt_core_generation", &GpuModel::rt_core_generation},
    {"memory_type", &GpuModel::memory_type},
    {"note", &GpuModel::note},
    {"note_zh", &GpuModel::note_zh}};
constexpr Field<std::vector<std::string_view>> kLists[] = {{"aliases", &GpuModel::aliases},
                                                           {"sources", &GpuModel::sources}};
constexpr Field<int> kInts[] = {{"cc_major", &GpuModel::cc_major},
                                {"cc_minor", &GpuModel::cc_minor},
                                {"year", &GpuModel::year},
                                {"sms", &GpuModel::sms},
                                {"cores_per_sm", &GpuModel::cores_per_sm},
                                {"cores", &GpuModel::cores},
                                {"tensor_cores", &GpuModel::tensor_cores},
                                {"rt_cores", &GpuModel::rt_cores},
                                {"memory_bus_bits", &GpuModel::memory_bus_bits},
                                {"max_threads_per_sm", &GpuModel::max_threads_per_sm},
                                {"max_warps_per_sm", &GpuModel::max_warps_per_sm},
                                {"max_blocks_per_sm", &GpuModel::max_blocks_per_sm}};
constexpr Field<double> kReals[] = {
    {"memory_gib", &GpuModel::memory_gib},
    {"memory_data_rate_gbps", &GpuModel::memory_data_rate_gbps},
    {"memory_bandwidth_gbs", &GpuModel::memory_bandwidth_gbs},
    {"l2_kib", &GpuModel::l2_kib},
    {"l1_shared_per_sm_kib", &GpuModel::l1_shared_per_sm_kib},
    {"register_file_per_sm_kib", &GpuModel::register_file_per_sm_kib},
    {"boost_clock_mhz", &GpuModel::boost_clock_mhz},
    {"fp32_tflops", &GpuModel::fp32_tflops},
    {"power_w", &GpuModel::power_w},
    {"transistors_billion", &GpuModel::transistors_billion}};

bool known_key(const std::string& key) {
  auto in = [&](const auto& fields) {
    for (const auto& f : fields) {
      if (key == f.key) return true;
    }
    return false;
  };
  return key == "notes_errata" || in(kTexts) || in(kLists) || in(kInts) || in(kReals);
}

GpuModel model_of(const nlohmann::json& j) {
  // A misspelt field would read as 0 (unknown): refused, so that the unit tests fail on it.
  for (const auto& [key, value] : j.items()) {
    if (!known_key(key)) throw std::logic_error("gpu_models.json: unknown field " + key);
  }
  GpuModel m;
  for (const auto& f : kTexts) m.*f.member = text(j, f.key);
  for (const auto& f : kLists) m.*f.member = texts(j, f.key);
  for (const auto& f : kInts) m.*f.member = j.value(f.key, 0);
  for (const auto& f : kReals) m.*f.member = j.value(f.key, 0.0);
  if (const auto it = j.find("notes_errata"); it != j.end()) {
    for (const auto& e : *it) {
      m.notes_errata.push_back({text(e, "field"), text(e, "notes_say"), text(e, "correct"),
                                text(e, "field_zh"), text(e, "correct_zh"),
                                text(e, "notes_say_zh")});
    }
  }
  return m;
}

}  // namespace

std::span<const GpuModel> gpu_models() {
  // The file is part of the source tree and read by the unit tests: a mistake in it (bad JSON,
  // an unknown field) is a defect of the build, thrown as such, not a user's error.
  static const std::vector<GpuModel> table = [] {
    std::vector<GpuModel> v;
    for (const auto& j : sheets()) v.push_back(model_of(j));
    return v;
  }();
  return table;
}

}  // namespace gpulab::calc
