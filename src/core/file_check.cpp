// Checking a file the user names (see file_check.hpp).
#include "core/file_check.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "core/error.hpp"
#include "core/i18n_format.hpp"
#include "core/input.hpp"

namespace gpulab {

void require_readable_file(std::string_view path) {
  if (path.empty()) {
    throw UsageError("FILE '': an empty path names no file", "FILE ''：空路径不指向任何文件");
  }
  const std::string p(path);
  const std::string shown = printable(path, 200);
  struct stat st {};
  if (::stat(p.c_str(), &st) != 0) {
    const int error = errno;
    if (error == ENOENT) throw UsageError(both("{}: no such file", "{}：文件不存在", shown));
    throw UsageError(both("{}: cannot open it: {}", "{}：无法打开：{}", shown,
                          std::string(std::strerror(error))));
  }
  if (S_ISDIR(st.st_mode)) {
    throw UsageError(both("{}: is a folder, not a file", "{}：是一个目录，不是文件", shown));
  }
  if (!S_ISREG(st.st_mode)) {
    throw UsageError(both("{}: not a regular file", "{}：不是普通文件", shown));
  }
  const int fd = ::open(p.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    const int error = errno;
    throw UsageError(both("{}: cannot read it: {}", "{}：无法读取：{}", shown,
                          std::string(std::strerror(error))));
  }
  ::close(fd);
}

}  // namespace gpulab
