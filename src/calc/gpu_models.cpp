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

// The record's fields by name (GpuModel in gpu_specs.hpp); a field left out is 0 or empty. Each
// key is its member's name.
template <class T>
struct Field {
  const char* key;
  T GpuModel::*member;
};
#define GPULAB_FIELD(member) \
  { #member, &GpuModel::member }
constexpr Field<std::string_view> kTexts[] = {GPULAB_FIELD(name),
                                              GPULAB_FIELD(chip),
                                              GPULAB_FIELD(architecture),
                                              GPULAB_FIELD(tensor_core_generation),
                                              GPULAB_FIELD(rt_core_generation),
                                              GPULAB_FIELD(memory_type),
                                              GPULAB_FIELD(note),
                                              GPULAB_FIELD(note_zh)};
constexpr Field<std::vector<std::string_view>> kLists[] = {GPULAB_FIELD(aliases),
                                                           GPULAB_FIELD(sources)};
constexpr Field<int> kInts[] = {GPULAB_FIELD(cc_major),
                                GPULAB_FIELD(cc_minor),
                                GPULAB_FIELD(year),
                                GPULAB_FIELD(sms),
                                GPULAB_FIELD(cores_per_sm),
                                GPULAB_FIELD(cores),
                                GPULAB_FIELD(tensor_cores),
                                GPULAB_FIELD(rt_cores),
                                GPULAB_FIELD(memory_bus_bits),
                                GPULAB_FIELD(max_threads_per_sm),
                                GPULAB_FIELD(max_warps_per_sm),
                                GPULAB_FIELD(max_blocks_per_sm)};
constexpr Field<double> kReals[] = {GPULAB_FIELD(memory_gib),
                                    GPULAB_FIELD(memory_data_rate_gbps),
                                    GPULAB_FIELD(memory_bandwidth_gbs),
                                    GPULAB_FIELD(l2_kib),
                                    GPULAB_FIELD(l1_shared_per_sm_kib),
                                    GPULAB_FIELD(register_file_per_sm_kib),
                                    GPULAB_FIELD(boost_clock_mhz),
                                    GPULAB_FIELD(fp32_tflops),
                                    GPULAB_FIELD(power_w),
                                    GPULAB_FIELD(transistors_billion)};
#undef GPULAB_FIELD

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
