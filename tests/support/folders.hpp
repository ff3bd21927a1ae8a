// A folder of a test program's own under the temporary folder, so that tests touch nothing of the
// user's (cache, progress, files): made fresh once per process.
#pragma once

#include <unistd.h>

#include <filesystem>
#include <string>

namespace gpulab::test {

// temp/PREFIX-PID, emptied and made on the first call; the same path after.
inline std::filesystem::path fresh_folder(const std::string& prefix) {
  namespace fs = std::filesystem;
  const fs::path d = fs::temp_directory_path() / (prefix + "-" + std::to_string(::getpid()));
  static std::string made;
  if (made.find("|" + d.string() + "|") == std::string::npos) {
    fs::remove_all(d);
    fs::create_directories(d);
    made += "|" + d.string() + "|";
  }
  return d;
}

}  // namespace gpulab::test
