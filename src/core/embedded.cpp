// Lookup in the files compiled into the binary (see embedded.hpp).
#include "core/embedded.hpp"

namespace gpulab::embedded {

std::optional<std::string_view> find(std::span<const EmbeddedFile> files, std::string_view path) {
  for (const auto& f : files) {
    if (f.path == path) return f.data;
  }
  return std::nullopt;
}

}  // namespace gpulab::embedded
