// The GPU side of gpulab run's report: linked into a student's nvcc-built program with
// `-Wl,--wrap` on the CUDA runtime's launch entry point, it writes one JSON line per kernel launch
// (the calling frames, grid, block, shared memory, the launch's error) to the file named by
// GPULAB_RUN_REPORT. The kernel runs as nvcc built it; only its launch is noted. The events and
// the environment are declared in run/report.hpp.
//
// nvcc 13 compiles `kernel<<<grid, block, shared, stream>>>(args)` to a host stub that calls
// __cudaLaunchKernel (or its per-thread-stream twin) on every launch (crt/host_runtime.h); a
// program may also call cudaLaunchKernel, cudaLaunchCooperativeKernel or cudaLaunchKernelEx
// itself (the C++ templates call the C functions wrapped here). A kernel a CUDA graph runs makes
// no such call: only the launch captured into the graph is noted (docs/run.md). gpulab
// turns the frames into the kernel's name and the launch's FILE:LINE with addr2line afterwards
// (run::gpu_launch_sites): the program itself does as little as possible.
#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <execinfo.h>
#include <fcntl.h>
#include <link.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>

#include "run/report.hpp"

extern "C" {
cudaError_t __real___cudaLaunchKernel(cudaKernel_t kernel, dim3 grid, dim3 block, void** args,
                                      size_t shared, cudaStream_t stream);
cudaError_t __real___cudaLaunchKernel_ptsz(cudaKernel_t kernel, dim3 grid, dim3 block, void** args,
                                           size_t shared, cudaStream_t stream);
cudaError_t __real_cudaLaunchKernel(const void* kernel, dim3 grid, dim3 block, void** args,
                                    size_t shared, cudaStream_t stream);
cudaError_t __real_cudaLaunchKernel_ptsz(const void* kernel, dim3 grid, dim3 block, void** args,
                                         size_t shared, cudaStream_t stream);
cudaError_t __real_cudaLaunchCooperativeKernel(const void* kernel, dim3 grid, dim3 block,
                                               void** args, size_t shared, cudaStream_t stream);
cudaError_t __real_cudaLaunchCooperativeKernel_ptsz(const void* kernel, dim3 grid, dim3 block,
                                                    void** args, size_t shared,
                                                    cudaStream_t stream);
cudaError_t __real_cudaLaunchKernelExC(const cudaLaunchConfig_t* config, const void* kernel,
                                       void** args);
cudaError_t __real_cudaLaunchKernelExC_ptsz(const cudaLaunchConfig_t* config, const void* kernel,
                                            void** args);
}

namespace {

namespace report = gpulab::run::report;

// Builds `{"event":"NAME"` (the caller adds the other fields and the closing brace).
std::string event_line(const char* name) {
  return std::string("{\"") + report::kEventField + "\":\"" + name + "\"";
}

// Launches listed one by one; after that only counted (a loop of a million launches must not
// write a million lines).
constexpr std::uint64_t kMaxListed = 10000;

struct Log {
  std::mutex mutex;
  int fd = -1;
  std::uint64_t launches = 0;
  // The program's load bias and base: addresses are written as the ELF file's own (what addr2line
  // reads), whether or not the program is position-independent.
  std::uintptr_t bias = 0;
  const void* base = nullptr;

  Log() {
    if (const char* path = std::getenv(report::kEnvReport)) {
      fd = ::open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
    }
    // The first object dl_iterate_phdr names is the program itself; this file is linked into it.
    ::dl_iterate_phdr(
        [](dl_phdr_info* info, size_t, void* data) {
          *static_cast<std::uintptr_t*>(data) = info->dlpi_addr;
          return 1;
        },
        &bias);
    Dl_info self{};
    if (::dladdr(reinterpret_cast<const void*>(&log_base_marker), &self) != 0)
      base = self.dli_fbase;
  }
  static void log_base_marker() {}
  // The address as the program file has it, or 0 for an address in a shared library.
  std::uintptr_t own(const void* address) const {
    Dl_info where{};
    if (address == nullptr || ::dladdr(address, &where) == 0 || where.dli_fbase != base) return 0;
    return reinterpret_cast<std::uintptr_t>(address) - bias;
  }
  ~Log() {  // at exit: how many launches there were in all
    if (fd < 0) return;
    write_line(event_line(report::event::gpu_exit) + ",\"launches\":" + std::to_string(launches) +
               "}");
    ::close(fd);
  }
  void write_line(std::string line) {
    line += '\n';
    for (std::size_t done = 0; done < line.size();) {
      const ssize_t n = ::write(fd, line.data() + done, line.size() - done);
      if (n <= 0) return;  // the report is lost, the program goes on
      done += static_cast<std::size_t>(n);
    }
  }
};

Log& log() {
  static Log l;
  return l;
}

std::string dims(const dim3& d) {
  return "[" + std::to_string(d.x) + "," + std::to_string(d.y) + "," + std::to_string(d.z) + "]";
}

// `kernel`: the kernel's host function, for a launch the program called itself (no device stub
// among the frames names the kernel then): written first, after the marker 1 (docs: program.hpp,
// gpu_launch_sites).
void note(const dim3& grid, const dim3& block, size_t shared, cudaError_t error,
          const void* kernel = nullptr) {
  Log& l = log();
  if (l.fd < 0) return;
  void* frames[12];
  const int depth = ::backtrace(frames, 12);
  std::lock_guard lock(l.mutex);
  if (++l.launches > kMaxListed) {
    if (l.launches == kMaxListed + 1)
      l.write_line(event_line(report::event::launches_not_listed) + "}");
    return;
  }
  std::string line = event_line(report::event::launch) + ",\"frames\":[";
  bool first = true;
  if (const std::uintptr_t k = l.own(kernel); k != 0) {
    line += "1," + std::to_string(k + 1);  // +1: the reader takes each address as a return address
    first = false;
  }
  for (int i = 1; i < depth; ++i) {  // frame 0 is this function
    const std::uintptr_t a = l.own(frames[i]);
    if (a == 0) continue;
    line += first ? "" : ",";
    line += std::to_string(a);
    first = false;
  }
  line += "],\"grid\":" + dims(grid) + ",\"block\":" + dims(block) +
          ",\"shared_bytes\":" + std::to_string(shared);
  if (error != cudaSuccess) line += ",\"error\":\"" + std::string(cudaGetErrorName(error)) + "\"";
  l.write_line(line + "}");
}

}  // namespace

extern "C" {

cudaError_t __wrap___cudaLaunchKernel(cudaKernel_t kernel, dim3 grid, dim3 block, void** args,
                                      size_t shared, cudaStream_t stream) {
  const cudaError_t e = __real___cudaLaunchKernel(kernel, grid, block, args, shared, stream);
  note(grid, block, shared, e);
  return e;
}

cudaError_t __wrap___cudaLaunchKernel_ptsz(cudaKernel_t kernel, dim3 grid, dim3 block, void** args,
                                           size_t shared, cudaStream_t stream) {
  const cudaError_t e = __real___cudaLaunchKernel_ptsz(kernel, grid, block, args, shared, stream);
  note(grid, block, shared, e);
  return e;
}

// The launch calls a program makes itself.
#define GPULAB_LAUNCH_WRAP(name)                                                                   \
  cudaError_t __wrap_##name(const void* kernel, dim3 grid, dim3 block, void** args, size_t shared, \
                            cudaStream_t stream) {                                                 \
    const cudaError_t e = __real_##name(kernel, grid, block, args, shared, stream);                \
    note(grid, block, shared, e, kernel);                                                          \
    return e;                                                                                      \
  }
GPULAB_LAUNCH_WRAP(cudaLaunchKernel)
GPULAB_LAUNCH_WRAP(cudaLaunchKernel_ptsz)
GPULAB_LAUNCH_WRAP(cudaLaunchCooperativeKernel)
GPULAB_LAUNCH_WRAP(cudaLaunchCooperativeKernel_ptsz)
#undef GPULAB_LAUNCH_WRAP

// cudaLaunchKernelEx: the shape is in the launch's configuration.
#define GPULAB_LAUNCH_EX_WRAP(name)                                                              \
  cudaError_t __wrap_##name(const cudaLaunchConfig_t* config, const void* kernel, void** args) { \
    const cudaError_t e = __real_##name(config, kernel, args);                                   \
    if (config != nullptr)                                                                       \
      note(config->gridDim, config->blockDim, config->dynamicSmemBytes, e, kernel);              \
    return e;                                                                                    \
  }
GPULAB_LAUNCH_EX_WRAP(cudaLaunchKernelExC)
GPULAB_LAUNCH_EX_WRAP(cudaLaunchKernelExC_ptsz)
#undef GPULAB_LAUNCH_EX_WRAP

}  // extern "C"
