// What CUDA 13 removed, found in a build's diagnostics and explained (see removed_api.hpp).
#include "run/removed_api.hpp"

#include <fmt/format.h>

#include <cctype>
#include <map>

#include "core/i18n_format.hpp"

namespace gpulab::run {

namespace {

bool ident(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

// "FILE:LINE" from the start of a g++ diagnostic line "FILE:LINE:COL: warning: ...".
std::string gxx_where(std::string_view line) {
  const std::size_t warning = line.find(": warning: ");
  if (warning == std::string_view::npos) return {};
  std::string_view place = line.substr(0, warning);  // FILE:LINE:COL
  const std::size_t col = place.rfind(':');
  if (col == std::string_view::npos) return std::string(place);
  return std::string(place.substr(0, col));
}

std::vector<std::string_view> lines_of(std::string_view text) {
  std::vector<std::string_view> out;
  for (std::size_t at = 0; at < text.size();) {
    std::size_t nl = text.find('\n', at);
    if (nl == std::string_view::npos) nl = text.size();
    out.push_back(text.substr(at, nl - at));
    at = nl + 1;
  }
  return out;
}

}  // namespace

// The note of every warp function without a mask.
constexpr std::string_view kLegacyWarpEn =
    "CUDA 9 removed the warp functions without a mask for compute capability 7.0 and newer, whose "
    "lanes are scheduled independently: mask names the lanes that take part, 0xffffffff a whole "
    "warp";
constexpr std::string_view kLegacyWarpZh =
    "CUDA 9 起，计算能力 7.0 及以上的 GPU 不再提供不带掩码的 warp 函数（其各 lane 独立调度）：mask "
    "指明参与的 lane，整个 warp 为 0xffffffff";

const std::vector<RemovedApi>& removed_api() {
  static const std::vector<RemovedApi> kRemoved = {
      {"clockRate", "cudaDeviceProp::clockRate",
       "cudaDeviceGetAttribute(&value, cudaDevAttrClockRate, device)", "", ""},
      {"memoryClockRate", "cudaDeviceProp::memoryClockRate",
       "cudaDeviceGetAttribute(&value, cudaDevAttrMemoryClockRate, device)", "", ""},
      {"deviceOverlap", "cudaDeviceProp::deviceOverlap", "prop.asyncEngineCount > 0",
       "copies overlap kernels when the device has a copy engine",
       "设备有复制引擎时，复制与核函数可以重叠"},
      {"kernelExecTimeoutEnabled", "cudaDeviceProp::kernelExecTimeoutEnabled",
       "cudaDeviceGetAttribute(&value, cudaDevAttrKernelExecTimeout, device)", "", ""},
      {"computeMode", "cudaDeviceProp::computeMode",
       "cudaDeviceGetAttribute(&value, cudaDevAttrComputeMode, device)", "", ""},
      {"maxTexture1DLinear", "cudaDeviceProp::maxTexture1DLinear",
       "cudaDeviceGetAttribute(&value, cudaDevAttrMaxTexture1DLinearWidth, device)", "", ""},
      {"singleToDoublePrecisionPerfRatio", "cudaDeviceProp::singleToDoublePrecisionPerfRatio",
       "cudaDeviceGetAttribute(&value, cudaDevAttrSingleToDoublePrecisionPerfRatio, device)", "",
       ""},
      {"cooperativeMultiDeviceLaunch", "cudaDeviceProp::cooperativeMultiDeviceLaunch", "",
       "cooperative launches over several GPUs were removed with it: launch on each GPU",
       "跨多个 GPU 的协作启动也随之移除：请在每个 GPU 上分别启动"},
      {"cudaThreadSynchronize", "cudaThreadSynchronize()", "cudaDeviceSynchronize()", "", ""},
      {"cudaThreadExit", "cudaThreadExit()", "cudaDeviceReset()", "", ""},
      {"cudaThreadSetLimit", "cudaThreadSetLimit()", "cudaDeviceSetLimit(limit, value)", "", ""},
      {"cudaThreadGetLimit", "cudaThreadGetLimit()", "cudaDeviceGetLimit(&value, limit)", "", ""},
      {"cudaThreadSetCacheConfig", "cudaThreadSetCacheConfig()", "cudaDeviceSetCacheConfig(config)",
       "", ""},
      {"cudaThreadGetCacheConfig", "cudaThreadGetCacheConfig()",
       "cudaDeviceGetCacheConfig(&config)", "", ""},
      {"cudaMemAdviseDevice", "cudaMemAdvise(ptr, bytes, advice, int device)",
       "cudaMemAdvise(ptr, bytes, advice, cudaMemLocation{cudaMemLocationTypeDevice, device})",
       "for cudaCpuDeviceId the location is {cudaMemLocationTypeHost, 0}",
       "cudaCpuDeviceId 对应的位置是 {cudaMemLocationTypeHost, 0}"},
      {"cudaMemPrefetchAsyncDevice", "cudaMemPrefetchAsync(ptr, bytes, int device, stream)",
       "cudaMemPrefetchAsync(ptr, bytes, cudaMemLocation{cudaMemLocationTypeDevice, device}, 0, "
       "stream)",
       "the new form takes flags (0) before the stream; for cudaCpuDeviceId the location is "
       "{cudaMemLocationTypeHost, 0}",
       "新形式在 stream 之前多一个 flags（0）；cudaCpuDeviceId 对应的位置是 "
       "{cudaMemLocationTypeHost, 0}"},
      {"__shfl", "__shfl(var, srcLane, width)", "__shfl_sync(mask, var, srcLane, width)",
       kLegacyWarpEn, kLegacyWarpZh},
      {"__shfl_up", "__shfl_up(var, delta, width)", "__shfl_up_sync(mask, var, delta, width)",
       kLegacyWarpEn, kLegacyWarpZh},
      {"__shfl_down", "__shfl_down(var, delta, width)", "__shfl_down_sync(mask, var, delta, width)",
       kLegacyWarpEn, kLegacyWarpZh},
      {"__shfl_xor", "__shfl_xor(var, laneMask, width)",
       "__shfl_xor_sync(mask, var, laneMask, width)", kLegacyWarpEn, kLegacyWarpZh},
      {"__any", "__any(predicate)", "__any_sync(mask, predicate)", kLegacyWarpEn, kLegacyWarpZh},
      {"__all", "__all(predicate)", "__all_sync(mask, predicate)", kLegacyWarpEn, kLegacyWarpZh},
      {"__ballot", "__ballot(predicate)", "__ballot_sync(mask, predicate)", kLegacyWarpEn,
       kLegacyWarpZh},
  };
  return kRemoved;
}

const RemovedApi* find_removed_api(std::string_view key) {
  for (const RemovedApi& a : removed_api()) {
    if (a.key == key) return &a;
  }
  return nullptr;
}

std::vector<RemovedUse> removed_uses_in(std::string_view diagnostics) {
  constexpr std::string_view kMarker = "gpulab-removed:";
  std::map<std::size_t, RemovedUse> found;  // by the entry's place in the table
  for (std::string_view line : lines_of(diagnostics)) {
    const std::size_t m = line.find(kMarker);
    if (m == std::string_view::npos) continue;
    std::size_t e = m + kMarker.size();
    while (e < line.size() && ident(line[e])) ++e;
    const std::string_view key = line.substr(m + kMarker.size(), e - m - kMarker.size());
    const RemovedApi* api = find_removed_api(key);
    const std::string where = gxx_where(line);
    if (api == nullptr || where.empty()) continue;
    const auto index = static_cast<std::size_t>(api - removed_api().data());
    found.try_emplace(index, RemovedUse{std::string(key), where});
  }
  std::vector<RemovedUse> out;
  for (auto& [index, use] : found) out.push_back(std::move(use));
  return out;
}

std::string removed_sentence(const RemovedApi& api, std::string_view where, Lang lang) {
  std::string s = say(lang, "CUDA 13 removed {} (used at {}); nvcc 13 refuses it",
                      "CUDA 13 移除了 {}（用于 {}）；nvcc 13 不再接受它", api.what, where);
  if (!api.replacement.empty()) {
    s += say(lang, ": use {}", "：请改用 {}", api.replacement);
  }
  const std::string_view note = lang == Lang::zh ? api.note_zh : api.note_en;
  if (!note.empty()) s += say(lang, " ({})", "（{}）", note);
  s += tr(lang, ".", "。");
  return s;
}

std::string removed_item(const RemovedApi& api, std::string_view where, Lang lang, bool with_note) {
  std::string s = fmt::format("{} ({})", api.what, where);
  if (!api.replacement.empty()) {
    s += say(lang, ": use {}", "：请改用 {}", api.replacement);
  }
  const std::string_view note = lang == Lang::zh ? api.note_zh : api.note_en;
  if (with_note && !note.empty()) s += say(lang, " ({})", "（{}）", note);
  return s;
}

std::string explain_nvcc_refusal(std::string_view diagnostics, Lang lang) {
  const std::vector<std::string_view> lines = lines_of(diagnostics);
  std::map<std::size_t, std::string> found;  // entry -> where
  const auto note = [&](std::string_view key, std::string_view line) {
    const RemovedApi* api = find_removed_api(key);
    if (api == nullptr) return;
    // nvcc: "FILE(LINE): error: ..."
    std::string where;
    const std::size_t open = line.find('(');
    const std::size_t close = line.find("): error");
    if (open != std::string_view::npos && close != std::string_view::npos && open < close) {
      where = fmt::format("{}:{}", line.substr(0, open), line.substr(open + 1, close - open - 1));
    }
    found.try_emplace(static_cast<std::size_t>(api - removed_api().data()), where);
  };
  const auto quoted_after = [](std::string_view line, std::string_view before) {
    const std::size_t at = line.find(before);
    if (at == std::string_view::npos) return std::string_view();
    const std::size_t begin = at + before.size();
    const std::size_t end = line.find('"', begin);
    return end == std::string_view::npos ? std::string_view() : line.substr(begin, end - begin);
  };
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const std::string_view line = lines[i];
    if (line.find(": error: ") == std::string_view::npos) continue;
    if (line.find("class \"cudaDeviceProp\" has no member \"") != std::string_view::npos) {
      note(quoted_after(line, "has no member \""), line);
    } else if (const std::string_view name = quoted_after(line, "identifier \"");
               !name.empty() && line.find("\" is undefined") != std::string_view::npos) {
      note(name, line);
    } else if (line.find("to \"cudaMemLocation\"") != std::string_view::npos) {
      // The call is on the source line nvcc shows under the error.
      const std::string_view shown = i + 1 < lines.size() ? lines[i + 1] : std::string_view();
      const bool prefetch = shown.find("cudaMemPrefetchAsync") != std::string_view::npos;
      const bool advise = shown.find("cudaMemAdvise") != std::string_view::npos;
      if (prefetch || !advise) note("cudaMemPrefetchAsyncDevice", line);
      if (advise || !prefetch) note("cudaMemAdviseDevice", line);
    }
  }
  std::string out;
  for (const auto& [index, where] : found) {
    out += removed_sentence(removed_api()[index], where, lang) + "\n";
  }
  return out;
}

}  // namespace gpulab::run
