// Untrusted code run contained (see contain.hpp).
#include "run/contain.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <mutex>
#include <sstream>
#include <thread>

#include "core/error.hpp"
#include "core/i18n_format.hpp"
#include "core/toolchain.hpp"

namespace gpulab::run {

namespace fs = std::filesystem;

namespace {

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
// A sanitizer's shadow memory reserves terabytes of address space: no RLIMIT_AS under it.
constexpr bool kSanitizerBuild = true;
#else
constexpr bool kSanitizerBuild = false;
#endif

// What of our environment the contained program gets: settings of gpulab's own build and of the
// GPU driver, never the user's secrets.
constexpr const char* kPassedOn[] = {
    "LD_LIBRARY_PATH", "CUDA_VISIBLE_DEVICES", "NVIDIA_VISIBLE_DEVICES",
    "ASAN_OPTIONS",    "UBSAN_OPTIONS",        "LSAN_OPTIONS",
    "TSAN_OPTIONS"};

// The tasks (processes and threads) of our real user now: RLIMIT_NPROC counts them all, for the
// whole user, so the limit is this many plus what the program may add.
std::uint64_t user_tasks() {
  std::uint64_t n = 0;
  const std::string uid = std::to_string(::getuid());
  DIR* proc = opendir("/proc");
  if (proc == nullptr) return 0;
  while (const dirent* e = readdir(proc)) {
    if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
    std::ifstream in(std::string("/proc/") + e->d_name + "/status");
    std::string line;
    bool mine = false;
    while (std::getline(in, line)) {
      if (line.rfind("Uid:", 0) == 0) {
        std::istringstream f(line.substr(4));
        std::string real;
        f >> real;
        mine = real == uid;
      } else if (line.rfind("Threads:", 0) == 0 && mine) {
        n += std::strtoull(line.c_str() + 8, nullptr, 10);
      }
    }
  }
  closedir(proc);
  return n;
}

std::vector<std::string> bubblewrap_base(const std::string& bwrap) {
  // Every namespace of its own (user where it can be made, PID, network, IPC, UTS, cgroup); it
  // ends when gpulab does; a session of its own (no terminal to push input into); no
  // capabilities (root in it cannot write what it does not own); the system read-only, with a
  // fresh /dev and /proc.
  return {bwrap,
          "--unshare-all",
          "--die-with-parent",
          "--new-session",
          "--cap-drop",
          "ALL",
          "--ro-bind",
          "/",
          "/",
          "--dev",
          "/dev",
          "--proc",
          "/proc"};
}

}  // namespace

std::string limit_of_signal(int signal) {
  if (signal == SIGXCPU) return "cpu";
  if (signal == SIGXFSZ) return "file_size";
  return "";
}

const Text& bubblewrap_problem() {
  static const Text problem = [] {
    const auto bwrap = toolchain::find_program("bwrap");
    if (!bwrap) {
      return Text{"bubblewrap (bwrap) is not installed (Debian: apt-get install bubblewrap)",
                  "未安装 bubblewrap（bwrap）（Debian：apt-get install bubblewrap）"};
    }
    std::vector<std::string> argv = bubblewrap_base(*bwrap);
    argv.insert(argv.end(), {"--", "/bin/true"});
    const ProcessResult p = run_capture(argv, std::chrono::seconds(20));
    if (p.ok()) return Text{};
    const Text said = p.err.empty() ? p.describe() : chosen(p.err.substr(0, p.err.find('\n')));
    return Text{
        "bubblewrap does not work here (" + said.en + "): a container without user namespaces?",
        "bubblewrap 在这里无法使用（" + said.zh + "）：是否在没有用户命名空间的容器中？"};
  }();
  return problem;
}

Containment containment_for(const ContainLimits& limits) {
  Containment c;
  if (limits.sandbox == ContainLimits::Sandbox::limits) {
    c.mode = "limits";
    c.why_not = {"asked for the limits alone", "按要求只用资源限制"};
    return c;
  }
  const Text& problem = bubblewrap_problem();
  if (problem.empty()) {
    c.mode = "bubblewrap";
    return c;
  }
  if (limits.sandbox == ContainLimits::Sandbox::bubblewrap) {
    throw RuntimeFailure(
        both("the sandbox was required, but {}", "要求使用沙箱，但{}", problem.en, problem.zh));
  }
  c.mode = "limits";
  c.why_not = problem;
  return c;
}

Contained::Contained(const ProcessSpec& spec, const ContainLimits& limits) : spec_(spec) {
  used_ = containment_for(limits);
  std::error_code ec;
  std::string dir = (fs::temp_directory_path(ec) / "gpulab-contain-XXXXXX").string();
  if (::mkdtemp(dir.data()) == nullptr) {
    const int error = errno;
    throw RuntimeFailure(both("cannot create a working folder {}: {}", "无法创建工作目录 {}：{}",
                              dir, std::string(std::strerror(error))));
  }
  workdir_ = dir;

  // The environment: ours is not passed on, but for the few settings above.
  spec_.inherit_env = false;
  std::vector<std::pair<std::string, std::string>> env = {{"PATH", "/usr/local/bin:/usr/bin:/bin"},
                                                          {"HOME", workdir_.string()},
                                                          {"TMPDIR", workdir_.string()},
                                                          {"LANG", "C.UTF-8"}};
  for (const char* name : kPassedOn) {
    if (const char* v = std::getenv(name); v != nullptr) env.emplace_back(name, v);
  }
  env.insert(env.end(), spec.env.begin(), spec.env.end());
  spec_.env = env;
  spec_.cwd = workdir_;

  // The limits, set in the child before its program starts; RLIMIT_NPROC counts the user's
  // every task (threads too: the emulator's workers) and the kernel exempts root from it, so
  // gpulab also counts the program's processes itself (ProcessSpec::max_processes).
  spec_.limits.clear();
  spec_.limits.emplace_back(RLIMIT_CORE, 0);  // no core files filling the disk
  if (limits.cpu.count() > 0) {
    spec_.limits.emplace_back(RLIMIT_CPU, static_cast<std::uint64_t>(limits.cpu.count()));
  }
  if (limits.memory_bytes > 0 && !limits.gpu && !kSanitizerBuild) {
    spec_.limits.emplace_back(RLIMIT_AS, limits.memory_bytes);
  }
  if (limits.file_bytes > 0) spec_.limits.emplace_back(RLIMIT_FSIZE, limits.file_bytes);
  spec_.limits.emplace_back(RLIMIT_NOFILE, 256);
  const bool bwrap = used_.mode == "bubblewrap";
  if (limits.processes > 0) {
    if (::geteuid() != 0) {
      const std::uint64_t threads = std::max(4u, std::thread::hardware_concurrency());
      spec_.limits.emplace_back(RLIMIT_NPROC, user_tasks() + limits.processes + 2 * threads + 16);
    }
    // bubblewrap's own two processes (its monitor and the sandbox's init) count too.
    spec_.max_processes = limits.processes + (bwrap ? 2 : 0);
  }
  if (!bwrap) return;

  const std::string size = std::to_string(limits.scratch_bytes);
  std::vector<std::string> argv = bubblewrap_base(*toolchain::find_program("bwrap"));
  const auto tmpfs = [&](const fs::path& where, const std::string& bytes) {
    argv.insert(argv.end(), {"--size", bytes, "--tmpfs", where.string()});
  };
  tmpfs("/tmp", size);
  if (fs::is_directory("/var/tmp", ec)) tmpfs("/var/tmp", size);
  // The user's home (their files, keys, other work) and the folders the caller hides (the
  // class's submissions) are empty folders in the sandbox.
  if (const char* home = std::getenv("HOME");
      home != nullptr && *home == '/' && fs::path(home) != "/" && fs::is_directory(home, ec)) {
    tmpfs(home, "65536");
  }
  for (const fs::path& h : limits.hidden) {
    const fs::path p = fs::absolute(h).lexically_normal();
    // Never the system's own folders (a class kept under /usr would hide the C++ library).
    bool system = p == "/";
    for (const char* top : {"/usr", "/lib", "/lib32", "/lib64", "/bin", "/sbin", "/etc", "/opt"}) {
      const std::string t = top;
      system = system || p.string() == t || p.string().rfind(t + "/", 0) == 0 ||
               t.rfind(p.string() + "/", 0) == 0;
    }
    if (fs::is_directory(p, ec) && !system) tmpfs(p, "65536");
  }
  // What it must read and write, at the same paths (their folders are made in the sandbox).
  if (!spec.argv.empty() && spec.argv[0].find('/') != std::string::npos) {
    argv.insert(argv.end(), {"--ro-bind", spec.argv[0], spec.argv[0]});
  }
  for (const fs::path& f : limits.readable) {
    argv.insert(argv.end(), {"--ro-bind", f.string(), f.string()});
  }
  for (const fs::path& f : limits.writable) {
    argv.insert(argv.end(), {"--bind", f.string(), f.string()});
  }
  if (limits.gpu) {
    for (const auto& e : fs::directory_iterator("/dev", ec)) {
      const std::string name = e.path().filename().string();
      if (name.rfind("nvidia", 0) == 0 || name == "dxg") {
        argv.insert(argv.end(), {"--dev-bind", e.path().string(), e.path().string()});
      }
    }
  }
  // The working folder: a private tmpfs of scratch_bytes over the (empty) host folder.
  tmpfs(workdir_, size);
  argv.insert(argv.end(), {"--chdir", workdir_.string(), "--"});
  argv.insert(argv.end(), spec.argv.begin(), spec.argv.end());
  spec_.argv = argv;
  spec_.cwd.clear();
}

Contained::~Contained() {
  std::error_code ec;
  if (!workdir_.empty()) fs::remove_all(workdir_, ec);
}

void Contained::read_back(ProcessResult& r) const {
  if (used_.mode != "bubblewrap" || !r.main_returned || r.signal != 0) return;
  if (r.exit_code > 128 && r.exit_code < 128 + 65) {
    r.signal = r.exit_code - 128;
    r.exit_code = -1;
  }
}

}  // namespace gpulab::run
