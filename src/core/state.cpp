// The student's progress file (see state.hpp).
#include "core/state.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

namespace gpulab {

std::optional<std::filesystem::path> progress_path() {
  const char* xdg = std::getenv("XDG_STATE_HOME");
  if (xdg != nullptr && *xdg == '/') return std::filesystem::path(xdg) / "gpulab" / "progress.json";
  const char* home = std::getenv("HOME");
  if (home != nullptr && *home != '\0') {
    return std::filesystem::path(home) / ".local" / "state" / "gpulab" / "progress.json";
  }
  return std::nullopt;
}

nlohmann::json load_progress() {
  auto path = progress_path();
  if (!path) return nlohmann::json::object();
  std::ifstream in(*path);
  if (!in) return nlohmann::json::object();
  std::stringstream ss;
  ss << in.rdbuf();
  auto j = nlohmann::json::parse(ss.str(), nullptr, false);
  return j.is_object() ? j : nlohmann::json::object();
}

bool save_progress(const nlohmann::json& progress) {
  auto path = progress_path();
  if (!path) return false;
  std::error_code ec;
  std::filesystem::create_directories(path->parent_path(), ec);
  if (ec) return false;
  const std::string tmp = path->string() + ".tmp." + std::to_string(getpid());
  const std::string text = progress.dump(2) + "\n";
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return false;
  bool ok = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  ok = ::fsync(fd) == 0 && ok;
  ok = ::close(fd) == 0 && ok;
  if (!ok || std::rename(tmp.c_str(), path->c_str()) != 0) {
    ::unlink(tmp.c_str());
    return false;
  }
  return true;
}

}  // namespace gpulab
