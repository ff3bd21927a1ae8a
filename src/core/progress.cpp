// A progress line on stderr (see progress.hpp).
#include "core/progress.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <cstdio>

namespace gpulab {

Progress::Progress(std::string label, int total)
    : label_(std::move(label)), total_(total), enabled_(isatty(STDERR_FILENO) == 1) {}

Progress::~Progress() {
  if (drawn_) fmt::print(stderr, "\r\x1b[K");
}

void Progress::step(int done) {
  if (!enabled_) return;
  const auto now = std::chrono::steady_clock::now();
  if (drawn_ && now - last_ < std::chrono::milliseconds(100) && done < total_) return;
  last_ = now;
  drawn_ = true;
  fmt::print(stderr, "\r\x1b[K{} {}/{}", label_, done, total_);
  std::fflush(stderr);
}

}  // namespace gpulab
