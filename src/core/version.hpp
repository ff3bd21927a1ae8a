// gpulab's version line: the release and what this build can run on.
#pragma once

#include <string_view>

namespace gpulab {
std::string_view version_text();
}
