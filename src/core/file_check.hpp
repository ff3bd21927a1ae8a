// A file the user names (gpulab run FILE.cu, inspect FILE, exercise check FILE): one clear line
// for an empty path, a missing file, a folder, something that is not a file, or a file that cannot
// be read, instead of a filesystem exception or an "empty program".
#pragma once

#include <string_view>

namespace gpulab {

// Throws UsageError naming `path` (its control characters escaped) and what is wrong with it.
void require_readable_file(std::string_view path);

}  // namespace gpulab
