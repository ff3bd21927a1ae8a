// Captures what is written to the process's stdout (file descriptor 1) while it lives: kernel
// printf output, from the GPU's buffer or the emulator, lands in a result instead of the terminal.
#pragma once

#include <string>

namespace gpulab {

class StdoutCapture {
 public:
  StdoutCapture();   // flushes stdout, then points fd 1 at a temporary file
  ~StdoutCapture();  // restores fd 1 if finish() was not called
  StdoutCapture(const StdoutCapture&) = delete;
  StdoutCapture& operator=(const StdoutCapture&) = delete;
  // Flushes, restores fd 1 and returns everything written meanwhile.
  std::string finish();

 private:
  int saved_fd_ = -1;
  int file_fd_ = -1;
};

}  // namespace gpulab
