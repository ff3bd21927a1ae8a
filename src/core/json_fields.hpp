// JSON of plain structs: where a struct's members carry the JSON keys' names, the mapping is
// written once, as the list of members to write.
#pragma once

#include <optional>

#include <nlohmann/json.hpp>

// std::optional in JSON: the value, or null when there is none.
template <class T>
struct nlohmann::adl_serializer<std::optional<T>> {
  static void to_json(nlohmann::json& j, const std::optional<T>& v) {
    if (v) {
      j = *v;
    } else {
      j = nullptr;
    }
  }
};

// Defines to_json(nlohmann::json&, const Type&) writing the members listed, each under its own
// name. nlohmann's NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE also defines a from_json, which members that
// are views or optionals cannot have; this writes only.
#define GPULAB_JSON_WRITER(Type, ...)                                                 \
  inline void to_json(nlohmann::json& nlohmann_json_j, const Type& nlohmann_json_t) { \
    NLOHMANN_JSON_EXPAND(NLOHMANN_JSON_PASTE(NLOHMANN_JSON_TO, __VA_ARGS__))          \
  }
