// Capturing stdout (see capture.hpp).
#include "core/capture.hpp"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>

#include "core/error.hpp"

namespace gpulab {

StdoutCapture::StdoutCapture() {
  std::fflush(stdout);
  char path[] = "/tmp/gpulab-stdout-XXXXXX";
  file_fd_ = mkstemp(path);
  if (file_fd_ < 0) {
    throw RuntimeFailure("cannot create a temporary file to capture kernel output",
                         "无法创建临时文件来截取内核的输出");
  }
  unlink(path);
  saved_fd_ = dup(STDOUT_FILENO);
  if (saved_fd_ < 0 || dup2(file_fd_, STDOUT_FILENO) < 0) {
    close(file_fd_);
    throw RuntimeFailure("cannot redirect stdout to capture kernel output",
                         "无法重定向标准输出来截取内核的输出");
  }
}

StdoutCapture::~StdoutCapture() {
  if (saved_fd_ >= 0) {
    std::fflush(stdout);
    dup2(saved_fd_, STDOUT_FILENO);
    close(saved_fd_);
  }
  if (file_fd_ >= 0) close(file_fd_);
}

std::string StdoutCapture::finish() {
  std::fflush(stdout);
  dup2(saved_fd_, STDOUT_FILENO);
  close(saved_fd_);
  saved_fd_ = -1;
  std::string text;
  if (lseek(file_fd_, 0, SEEK_SET) == 0) {
    char buf[65536];
    ssize_t n;
    while ((n = read(file_fd_, buf, sizeof buf)) > 0) text.append(buf, static_cast<std::size_t>(n));
  }
  close(file_fd_);
  file_fd_ = -1;
  return text;
}

}  // namespace gpulab
