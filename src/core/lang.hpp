// The user's language: English or Chinese. Its own header so that core/i18n.hpp (which gpulab
// run's kit ships to student programs) needs nothing else of core/output.hpp.
#pragma once

namespace gpulab {

enum class Lang { en, zh };

}  // namespace gpulab
