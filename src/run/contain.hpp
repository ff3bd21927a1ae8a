// Untrusted code run contained (gpulab exercise grade runs every student's program so): limits on
// CPU time, memory, file size and processes, a private empty working folder, a cleared
// environment, and, where bubblewrap is installed and works, namespaces of its own (no network,
// its own processes) over a read-only view of the system. docs/exercise.md says exactly what
// each mode isolates and what it does not.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "core/i18n.hpp"
#include "core/process.hpp"

namespace gpulab::run {

struct ContainLimits {
  enum class Sandbox {
    automatic,   // bubblewrap where it works, else the limits alone
    bubblewrap,  // bubblewrap or nothing runs (RuntimeFailure naming why it does not work)
    limits,      // the limits alone
  };
  Sandbox sandbox = Sandbox::automatic;
  std::chrono::seconds cpu{0};              // CPU time of each process (RLIMIT_CPU); 0: none
  std::uint64_t memory_bytes = 0;           // address space of each process (RLIMIT_AS); 0: none
  std::uint64_t file_bytes = 0;             // the largest file it may write (RLIMIT_FSIZE); 0: none
  std::uint64_t scratch_bytes = 64u << 20;  // its working folder and /tmp (bubblewrap: tmpfs)
  unsigned processes = 64;                  // processes at once (0: none)
  std::vector<std::filesystem::path> readable;  // files it reads: bound read-only (bubblewrap)
  std::vector<std::filesystem::path> writable;  // files it writes: bound read-write (bubblewrap)
  std::vector<std::filesystem::path> hidden;    // folders it must not see (the submissions)
  bool gpu = false;  // it needs the NVIDIA devices (and the CUDA driver's address space)
};

// What a contained run used: "bubblewrap" or "limits", and (limits) why not bubblewrap.
struct Containment {
  std::string mode;
  Text why_not;
};

// Whether bubblewrap works here, tried once per process (a sandbox that runs /bin/true): empty
// when it does, else why not ("bwrap is not installed", its own first line of error).
const Text& bubblewrap_problem();

// The containment a run with these limits gets. Throws RuntimeFailure when bubblewrap is
// required and does not work.
Containment containment_for(const ContainLimits& limits);

// A ProcessSpec made into a contained one. Holds the private working folder (removed with it).
class Contained {
 public:
  // Throws RuntimeFailure when bubblewrap is required and does not work, or no working folder
  // can be made.
  Contained(const ProcessSpec& spec, const ContainLimits& limits);
  ~Contained();
  Contained(const Contained&) = delete;
  Contained& operator=(const Contained&) = delete;

  const ProcessSpec& spec() const { return spec_; }
  const Containment& used() const { return used_; }
  const std::filesystem::path& workdir() const { return workdir_; }
  // After the run: bubblewrap reports a program killed by signal N as exit code 128 + N.
  void read_back(ProcessResult& r) const;

 private:
  ProcessSpec spec_;
  Containment used_;
  std::filesystem::path workdir_;
};

// The resource a signal says was exhausted: SIGXCPU "cpu", SIGXFSZ "file_size"; else "".
std::string limit_of_signal(int signal);

}  // namespace gpulab::run
