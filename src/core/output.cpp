// Global output options and styling (see output.hpp).
#include "core/output.hpp"

#include <fcntl.h>      // open, fcntl
#include <sys/ioctl.h>  // ioctl, TIOCGWINSZ
#include <unistd.h>     // isatty

#include <algorithm>  // std::clamp
#include <cerrno>
#include <cstdio>
#include <cstdlib>  // std::getenv
#include <cstring>  // std::strerror

#include "core/error.hpp"

namespace gpulab {

Lang lang_from_environment() {
  for (const char* var : {"LC_ALL", "LC_MESSAGES", "LANG"}) {
    const char* v = std::getenv(var);
    if (v != nullptr && *v != '\0') {
      return std::string_view(v).starts_with("zh") ? Lang::zh : Lang::en;
    }
  }
  return Lang::en;
}

std::size_t choose_width(const char* columns, std::size_t terminal_columns) {
  if (columns != nullptr && *columns != '\0') {
    char* end = nullptr;
    errno = 0;
    const long long n = std::strtoll(columns, &end, 10);
    // A COLUMNS that is no number (or 0, as some shells export before they know) says nothing.
    if (errno == 0 && *end == '\0' && n > 0) {
      return std::clamp<std::size_t>(static_cast<std::size_t>(n), kMinWidth, kMaxWidth);
    }
  }
  if (terminal_columns > 0) return std::clamp(terminal_columns, kMinWidth, kMaxWidth);
  return kDefaultWidth;
}

bool projector_mode() {
  const char* v = std::getenv(kProjectorVariable);
  return v != nullptr && *v != '\0' && std::string_view(v) != "0";
}

std::size_t output_width(int fd) {
  const int saved = errno;  // a width asked for between two writes must not hide their failure
  std::size_t terminal = 0;
  winsize ws{};
  if (isatty(fd) == 1 && ioctl(fd, TIOCGWINSZ, &ws) == 0) terminal = ws.ws_col;
  std::size_t width = choose_width(std::getenv("COLUMNS"), terminal);
  if (projector_mode()) width = std::min(width, kProjectorWidth);
  errno = saved;
  return width;
}

std::size_t terminal_rows(int fd) {
  const int saved = errno;
  std::size_t rows = 0;
  winsize ws{};
  if (isatty(fd) == 1 && ioctl(fd, TIOCGWINSZ, &ws) == 0) rows = ws.ws_row;
  const char* lines = std::getenv("LINES");
  if (lines != nullptr && *lines != '\0') {
    char* end = nullptr;
    const long long n = std::strtoll(lines, &end, 10);
    if (*end == '\0' && n > 0 && n < 10000) rows = static_cast<std::size_t>(n);
  }
  errno = saved;
  return rows;
}

bool color_enabled(ColorMode mode) {
  if (mode == ColorMode::always) return true;
  if (mode == ColorMode::never) return false;
  const char* no_color = std::getenv("NO_COLOR");
  if (no_color != nullptr && *no_color != '\0') return false;
  const char* term = std::getenv("TERM");
  if (term != nullptr && std::string_view(term) == "dumb") return false;
  return isatty(STDOUT_FILENO) == 1;
}

void protect_standard_streams() noexcept {
  for (int fd = 0; fd <= 2; ++fd) {
    if (fcntl(fd, F_GETFD) != -1 || errno != EBADF) continue;
    // stdin opened write-only, stdout and stderr read-only: any use of them fails, as it would
    // have on the closed descriptor.
    int opened = ::open("/dev/null", fd == 0 ? O_WRONLY : O_RDONLY);
    if (opened >= 0 && opened != fd) {
      dup2(opened, fd);
      ::close(opened);
    }
  }
}

void write_stderr(std::string_view text) noexcept {
  std::fwrite(text.data(), 1, text.size(), stderr);
  std::fflush(stderr);
  std::clearerr(stderr);
}

namespace {

int stdout_errno = 0;  // the first failure's reason: stdio forgets it once the buffer is dropped

// `write_errno`: errno as a write just before left it (0 when unknown).
std::string check_stdout(int write_errno) {
  errno = 0;
  const bool flush_failed = std::fflush(stdout) != 0;
  if (!flush_failed && std::ferror(stdout) == 0) return {};
  if (stdout_errno == 0) stdout_errno = flush_failed ? errno : write_errno;
  if (stdout_errno == 0) {
    // The write failed inside fmt or iostream; a closed or read-only descriptor explains itself.
    const int flags = fcntl(STDOUT_FILENO, F_GETFL);
    if (flags == -1 || (flags & O_ACCMODE) == O_RDONLY) stdout_errno = EBADF;
  }
  std::string message = "cannot write to standard output";
  if (stdout_errno != 0) message += std::string(": ") + std::strerror(stdout_errno);
  return message;
}

}  // namespace

std::string stdout_failure(int write_errno) {
  return check_stdout(write_errno);
}

void flush_stdout() {
  std::string failure = check_stdout(errno);
  if (!failure.empty()) {
    std::string zh = "无法写入标准输出";
    if (stdout_errno != 0) zh += std::string("：") + std::strerror(stdout_errno);
    throw RuntimeFailure(failure, zh);
  }
}

std::string Style::wrap(std::string_view codes, std::string_view s) const {
  if (!enabled_ || s.empty()) return std::string(s);
  if (projector_mode()) {
    // Colours wash out on a projector: what stands out is bold, and inverse video for headings
    // and the highlighted item (readable on a light or a dark background).
    codes = codes == "1;36" || codes == "1;33" ? "1;7" : codes == "1;31" ? "1;4" : "1";
  }
  std::string out = "\x1b[";
  out += codes;
  out += 'm';
  out += s;
  out += "\x1b[0m";
  return out;
}

Style style_for(const OutputOptions& out, int fd) {
  return Style(color_enabled(out.color), output_width(fd), out.lang);
}

}  // namespace gpulab
