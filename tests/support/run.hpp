// Runs the real gpulab binary for CLI tests: arguments in, exit code, stdout and stderr out.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace gpulab::test {

struct RunResult {
  int exit_code = -1;
  std::string out;  // stdout
  std::string err;  // stderr
};

// Runs GPULAB_BINARY with `args` (no shell), `stdin_text` on its standard input, and `env`
// ("NAME=value") added to the environment. Never a terminal: stdout and stderr are pipes.
RunResult run_gpulab(const std::vector<std::string>& args, const std::string& stdin_text = {},
                     const std::vector<std::string>& env = {});

// Lines of `text`, without their '\n'.
std::vector<std::string> lines_of(const std::string& text);

}  // namespace gpulab::test
