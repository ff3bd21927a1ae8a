// Files compiled into the binary (lessons, kernel sources), found by their path in the source tree.
#pragma once

#include <optional>
#include <span>
#include <string_view>

namespace gpulab::embedded {

struct EmbeddedFile {
  std::string_view path;  // relative to the folder it was embedded from, e.g. "en/04-amdahl.md"
  std::string_view data;
};

std::span<const EmbeddedFile> kernel_sources();  // src/kernels/*.cuh
std::span<const EmbeddedFile> lessons();         // lessons/**
std::span<const EmbeddedFile> exercises();       // exercises/* (gpulab exercise)

std::optional<std::string_view> find(std::span<const EmbeddedFile> files, std::string_view path);

}  // namespace gpulab::embedded
