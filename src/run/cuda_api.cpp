// The CUDA runtime API by name (see cuda_api.hpp).
#include "run/cuda_api.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>

#include "core/i18n_format.hpp"

namespace gpulab::run {

namespace {

#include "run/cuda_api_names.inc"

constexpr std::string_view kFunctions[] = {GPULAB_CUDA_FUNCTIONS};
constexpr std::string_view kNames[] = {GPULAB_CUDA_NAMES};
constexpr std::string_view kHeaders[] = {GPULAB_CUDA_HEADERS};

// A header of the toolkit's, by the name a program includes: the name itself or a folder of it
// (<cuda/std/atomic> is in cuda/std).
bool toolkit_header(std::string_view name) {
  for (std::string_view n = name;;) {
    if (std::binary_search(std::begin(kHeaders), std::end(kHeaders), n)) return true;
    const std::size_t slash = n.rfind('/');
    if (slash == std::string_view::npos) return false;
    n = n.substr(0, slash);
  }
}

// FILE:LINE of a diagnostic's FILE:LINE:COL.
std::string_view file_line(std::string_view place) {
  const std::size_t col = place.rfind(':');
  return col == std::string_view::npos ? place : place.substr(0, col);
}

}  // namespace

std::span<const std::string_view> cuda_runtime_functions() {
  return kFunctions;
}

bool is_cuda_api_name(std::string_view name) {
  return std::binary_search(std::begin(kNames), std::end(kNames), name);
}

std::optional<std::string> missing_cuda_api(std::string_view diagnostics, Lang lang) {
  // "FILE:LINE:COL: error: 'NAME' was not declared in this scope" (or "does not name a type");
  // g++ quotes with ASCII quotes in the C locale and with U+2018/U+2019 in a UTF-8 one.
  constexpr std::string_view kOpen = "\xe2\x80\x98", kClose = "\xe2\x80\x99";
  for (std::size_t at = 0; at < diagnostics.size();) {
    std::size_t end = diagnostics.find('\n', at);
    if (end == std::string_view::npos) end = diagnostics.size();
    const std::string_view line = diagnostics.substr(at, end - at);
    at = end + 1;
    // "FILE:LINE:COL: fatal error: cuda/barrier: No such file or directory"
    if (const std::size_t fatal = line.find(": fatal error: "); fatal != std::string_view::npos) {
      const std::string_view rest = line.substr(fatal + 15);
      const std::size_t colon = rest.find(": No such file or directory");
      if (colon != std::string_view::npos && toolkit_header(rest.substr(0, colon))) {
        const std::string_view place = file_line(line.substr(0, fatal));
        return say(
            lang,
            "{}: <{}> is a CUDA toolkit header that gpulab's emulator does not provide "
            "(docs/run.md lists what it runs); run the program on an NVIDIA GPU (--backend "
            "gpu)",
            "{}：<{}> 是 gpulab 模拟器没有提供的 CUDA 工具包头文件（docs/run.md 列出了它能运行"
            "的内容）；请在 NVIDIA GPU 上运行这个程序（--backend gpu）",
            place, rest.substr(0, colon));
      }
      continue;
    }
    const std::size_t error = line.find(": error: ");
    if (error == std::string_view::npos) continue;
    std::string_view after = line.substr(error + 9);
    std::string_view close = "'";
    if (after.starts_with("'")) {
      after.remove_prefix(1);
    } else if (after.starts_with(kOpen)) {
      after.remove_prefix(kOpen.size());
      close = kClose;
    } else {
      continue;
    }
    const std::size_t name_end = after.find(close);
    if (name_end == std::string_view::npos) continue;
    const std::string_view rest = after.substr(name_end + close.size());
    if (!rest.starts_with(" was not declared") && !rest.starts_with(" does not name a type") &&
        !rest.starts_with(" has not been declared")) {
      continue;
    }
    const std::string_view name = after.substr(0, name_end);
    if (!is_cuda_api_name(name)) continue;
    const std::string_view place = file_line(line.substr(0, error));
    return say(lang,
               "{}: '{}' is CUDA runtime API that gpulab's emulator does not provide (docs/run.md "
               "lists what it runs); run the program on an NVIDIA GPU (--backend gpu)",
               "{}：'{}' 是 gpulab 模拟器尚未提供的 CUDA 运行时 API（docs/run.md 列出了它能运行的 "
               "API）；请在 NVIDIA GPU 上运行这个程序（--backend gpu）",
               place, name);
  }
  return std::nullopt;
}

}  // namespace gpulab::run
