// API that CUDA 13 removed and books and samples still use (cudaDeviceProp::clockRate,
// cudaThreadSynchronize, cudaMemAdvise with a device number, ...): the emulator still runs it and
// the report says, once each, what was removed and which call replaces it; on --backend gpu,
// nvcc's refusal of it is explained the same way.
//
// The emulator's cuda_runtime.h marks each such declaration [[deprecated("gpulab-removed:KEY")]];
// g++'s warning at each use (file, line, key) is how a build finds them, in headers too.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/i18n.hpp"
#include "core/output.hpp"

namespace gpulab::run {

struct RemovedApi {
  std::string_view key;          // "clockRate": the marker's KEY
  std::string_view what;         // "cudaDeviceProp::clockRate"
  std::string_view replacement;  // code: "cudaDeviceGetAttribute(&value, cudaDevAttrClockRate, 0)"
  std::string_view note_en, note_zh;  // what else to know ("" when nothing)
};

// Every entry, in the order the report lists them.
const std::vector<RemovedApi>& removed_api();
const RemovedApi* find_removed_api(std::string_view key);

struct RemovedUse {
  std::string key;
  std::string where;  // FILE:LINE of the first use
};

// The uses g++ warned about while building (its diagnostics), each key once, in order of keys.
std::vector<RemovedUse> removed_uses_in(std::string_view gxx_diagnostics);

// One sentence for a use: "CUDA 13 removed X (used at FILE:LINE); nvcc 13 refuses it: use Y."
std::string removed_sentence(const RemovedApi& api, std::string_view where, Lang lang);
// The same as an item under a heading: "X (FILE:LINE): use Y." (the note left out when
// with_note is false: an item before it gave the same one).
std::string removed_item(const RemovedApi& api, std::string_view where, Lang lang,
                         bool with_note = true);

// nvcc's diagnostics of a failed build, explained: one sentence per removed API nvcc refused
// ("" when it refused none).
std::string explain_nvcc_refusal(std::string_view nvcc_diagnostics, Lang lang);

}  // namespace gpulab::run
