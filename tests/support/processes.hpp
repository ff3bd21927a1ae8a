// Counting running processes in tests: whether something a test started is still there.
#pragma once

#include <dirent.h>

#include <fstream>
#include <iterator>
#include <string>

namespace gpulab::test {

// The processes whose command line (arguments joined by spaces) holds `text` and not `except`.
inline int processes_with(const std::string& text, const std::string& except = {}) {
  int n = 0;
  DIR* proc = opendir("/proc");
  if (proc == nullptr) return 0;
  while (const dirent* e = readdir(proc)) {
    if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
    std::ifstream in(std::string("/proc/") + e->d_name + "/cmdline");
    std::string cmd((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    for (char& c : cmd) c = c == '\0' ? ' ' : c;
    if (cmd.find(text) != std::string::npos &&
        (except.empty() || cmd.find(except) == std::string::npos))
      ++n;
  }
  closedir(proc);
  return n;
}

}  // namespace gpulab::test
