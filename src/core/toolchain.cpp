// Finding nvcc, the C++ compiler and the CUDA tools (see toolchain.hpp).
#include "core/toolchain.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <regex>
#include <vector>

#include <fmt/format.h>

#include "core/i18n_format.hpp"
#include "core/process.hpp"

namespace gpulab::toolchain {

namespace {

bool is_executable(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(path.c_str(), X_OK) == 0;
}

bool is_cuda_tool(std::string_view name) {
  return name == "nvcc" || name == "cuobjdump" || name == "nvdisasm" ||
         name == "compute-sanitizer" || name == "ncu";
}

std::vector<std::string> search_dirs(std::string_view name) {
  std::vector<std::string> dirs;
  if (const char* path = std::getenv("PATH")) {
    std::string_view rest(path);
    while (true) {
      const auto colon = rest.find(':');
      std::string dir(rest.substr(0, colon));
      dirs.push_back(dir.empty() ? "." : dir);
      if (colon == std::string_view::npos) break;
      rest.remove_prefix(colon + 1);
    }
  }
  if (is_cuda_tool(name)) {
    for (const char* var : {"CUDA_HOME", "CUDA_PATH"}) {
      if (const char* home = std::getenv(var); home != nullptr && *home != '\0') {
        dirs.push_back(std::string(home) + "/bin");
      }
    }
    dirs.push_back("/usr/local/cuda/bin");
    // compute-sanitizer lives in its own folder of the toolkit.
    if (name == "compute-sanitizer") dirs.push_back("/usr/local/cuda/compute-sanitizer");
  }
  return dirs;
}

std::string first_match(const std::string& text, const char* pattern) {
  std::smatch m;
  if (std::regex_search(text, m, std::regex(pattern))) return m[1].str();
  return {};
}

}  // namespace

std::optional<std::string> find_program(std::string_view name) {
  if (name.find('/') != std::string_view::npos) {
    const std::string path(name);
    if (is_executable(path)) return path;
    return std::nullopt;
  }
  for (const std::string& dir : search_dirs(name)) {
    std::string path = dir + "/" + std::string(name);
    if (is_executable(path)) return path;
  }
  return std::nullopt;
}

std::optional<Tool> find_nvcc() {
  const auto path = find_program("nvcc");
  if (!path) return std::nullopt;
  Tool tool{"nvcc", *path, ""};
  const ProcessResult r = run_capture({*path, "--version"}, std::chrono::seconds(20));
  // "Cuda compilation tools, release 13.0, V13.0.88"
  if (r.ok()) tool.version = first_match(r.out, R"(, V([0-9][0-9.]*))");
  return tool;
}

std::optional<Tool> find_cxx() {
  std::vector<std::string> candidates;
  if (const char* cxx = std::getenv("CXX"); cxx != nullptr && *cxx != '\0') {
    candidates.emplace_back(cxx);
  }
  candidates.emplace_back("g++");
  candidates.emplace_back("c++");
  for (const std::string& name : candidates) {
    const auto path = find_program(name);
    if (!path) continue;
    // $CXX may be a path (/opt/gcc/bin/g++): the tool's name is its last part.
    Tool tool{std::filesystem::path(name).filename().string(), *path, ""};
    const ProcessResult r =
        run_capture({*path, "-dumpfullversion", "-dumpversion"}, std::chrono::seconds(20));
    if (r.ok()) tool.version = first_match(r.out, R"(([0-9][0-9.]*))");
    return tool;
  }
  return std::nullopt;
}

std::optional<Tool> find_cuda_tool(std::string_view name) {
  const auto path = find_program(name);
  if (!path) return std::nullopt;
  return Tool{std::string(name), *path, ""};
}

std::string missing_message(std::string_view tool, Lang lang) {
  if (tool == "nvcc" || is_cuda_tool(tool)) {
    return say(
        lang,
        "{} is not installed (or not on PATH): install the CUDA toolkit (NVIDIA's cuda-toolkit "
        "package, or Debian's nvidia-cuda-toolkit from non-free) and put its bin/ folder on "
        "PATH",
        "未安装 {}（或不在 PATH 中）：请安装 CUDA 工具包（NVIDIA 的 cuda-toolkit，或 Debian "
        "non-free "
        "中的 nvidia-cuda-toolkit），并把它的 bin/ 目录加入 PATH",
        tool);
  }
  if (tool == "addr2line") {
    return std::string(tr(lang,
                          "addr2line is not installed: install it with 'sudo apt install binutils'",
                          "未安装 addr2line：请用 'sudo apt install binutils' 安装"));
  }
  return say(lang, "{} (a C++ compiler) is not installed: install it with 'sudo apt install g++'",
             "未安装 {}（C++ 编译器）：请用 'sudo apt install g++' 安装", tool);
}

}  // namespace gpulab::toolchain
