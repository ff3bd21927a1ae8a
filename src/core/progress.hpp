// A progress line on stderr for long runs, shown only when stderr is a terminal and erased when
// done.
#pragma once

#include <chrono>
#include <string>

namespace gpulab {

class Progress {
 public:
  Progress(std::string label, int total);
  ~Progress();  // erases the line
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;
  void step(int done);  // redraws at most ten times a second

 private:
  std::string label_;
  int total_;
  bool enabled_;
  bool drawn_ = false;
  std::chrono::steady_clock::time_point last_{};
};

}  // namespace gpulab
