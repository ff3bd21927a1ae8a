// SHA-256 (FIPS 180-4) of bytes or of a file, as 64 lowercase hex digits: what a cached program
// is recorded with, and checked against before it runs.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace gpulab {

std::string sha256_hex(std::string_view data);
// The file's hash, or nullopt when it cannot be read.
std::optional<std::string> sha256_file(const std::filesystem::path& p);

}  // namespace gpulab
