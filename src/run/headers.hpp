// The program's own headers: every file its sources include that is not a system, toolkit or
// gpulab kit header, found as the compiler finds it (the including file's folder, -iquote, -I), so
// that gpulab run gives them the same treatment as the program's files (launches, extern
// __shared__, kernel registration) and its cache key covers them.
#pragma once

#include <filesystem>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace gpulab::run {

struct HeaderSearch {
  std::filesystem::path kit_include;              // gpulab's cuda_runtime.h & co.: never the user's
  std::vector<std::filesystem::path> quote_dirs;  // -iquote, in order (the file's own folder)
  std::vector<std::filesystem::path> include_dirs;  // -I, in order
};

// The user's headers that `file` (whose text is `text`) reaches through #include, transitively, in
// the order first found; absolute and normal. A directive in a branch the preprocessor skips counts
// too (treating a header that is never compiled does no harm); a header that cannot be found is
// left to the compiler. At most `limit` headers.
// `read` gives a header's text.
std::vector<std::filesystem::path> user_headers(
    const std::filesystem::path& file, std::string_view text, const HeaderSearch& search,
    const std::function<std::string(const std::filesystem::path&)>& read,
    std::size_t limit = 1000);

// True for a header of the system or of a toolkit (/usr/..., /opt/...): not rewritten.
bool system_header(const std::filesystem::path& p);

// Where the rewritten copy of `original` goes under `root` (root + the original's absolute path),
// and back: the original a path under `root` stands for ("" when it is none).
std::filesystem::path shadow_path(const std::filesystem::path& root,
                                  const std::filesystem::path& original);
std::filesystem::path original_of(const std::filesystem::path& root,
                                  const std::filesystem::path& shadowed);

}  // namespace gpulab::run
