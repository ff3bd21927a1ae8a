// Kernel output: printf in a kernel (the device's buffer, 1 MiB unless the program sets
// cudaLimitPrintfFifoSize, printed when the host waits or the next kernel starts) and the
// device-side assert (the GPU's message on stderr when the host synchronises; the launch fails
// with cudaErrorAssert).
#include <cstdarg>
#include <cstdio>
#include <mutex>
#include <string>

#include "run/runtime/state.hpp"
#include "simt/scheduler.hpp"
#include "simt/simt.hpp"

#undef printf

namespace gpulab::rt {

void flush_printf_locked(State& s) {
  if (s.printf_buffer.empty()) return;
  std::fwrite(s.printf_buffer.data(), 1, s.printf_buffer.size(), stdout);
  std::fflush(stdout);
  s.printf_buffer.clear();
}

}  // namespace gpulab::rt

using gpulab::rt::state;

// ---- Kernel printf

extern "C" int gpulab_rt_printf(const char* format, ...) {
  va_list args;
  va_start(args, format);
  int n;
  if (gpulab::simt::detail::tl_runner == nullptr) {
    n = std::vprintf(format, args);  // host code: straight to stdout
  } else {
    char small[512];
    va_list copy;
    va_copy(copy, args);
    n = std::vsnprintf(small, sizeof small, format, copy);
    va_end(copy);
    std::string text;
    if (n >= 0 && static_cast<std::size_t>(n) < sizeof small) {
      text.assign(small, static_cast<std::size_t>(n));
    } else if (n > 0) {
      text.resize(static_cast<std::size_t>(n) + 1);
      std::vsnprintf(text.data(), text.size(), format, args);
      text.resize(static_cast<std::size_t>(n));
    }
    auto& s = state();
    std::lock_guard lock(s.mutex);
    if (s.printf_buffer.size() + text.size() <= s.printf_limit) {
      s.printf_buffer += text;
    } else {
      s.printf_dropped += text.size();
    }
  }
  va_end(args);
  return n;
}

// ---- Device-side assert (src/run/include/assert.h)

// The C library's (declared by <assert.h> only without NDEBUG).
extern "C" void __assert_fail(const char* expression, const char* file, unsigned line,
                              const char* function) noexcept __attribute__((__noreturn__));

void gpulab_rt_assert_fail(const char* expression, const char* file, unsigned line,
                           const char* function) {
  if (gpulab::simt::detail::tl_runner == nullptr) __assert_fail(expression, file, line, function);
  // The GPU's own message, printed to stderr when the host synchronises.
  char text[1024];
  std::snprintf(text, sizeof text,
                "%s:%u: %s: block: [%u,%u,%u], thread: [%u,%u,%u] Assertion `%s` failed.\n", file,
                line, function, blockIdx.x, blockIdx.y, blockIdx.z, threadIdx.x, threadIdx.y,
                threadIdx.z, expression);
  {
    auto& s = state();
    std::lock_guard lock(s.mutex);
    s.pending_stderr += text;
  }
  // Ends this CUDA thread and the launch, which fails with cudaErrorAssert.
  throw gpulab::simt::KernelFault(
      gpulab::simt::KernelFault::Kind::assertion,
      "block (" + std::to_string(blockIdx.x) + "," + std::to_string(blockIdx.y) + "," +
          std::to_string(blockIdx.z) + "), thread (" + std::to_string(threadIdx.x) + "," +
          std::to_string(threadIdx.y) + "," + std::to_string(threadIdx.z) + "): assert(" +
          expression + ") failed at " + file + ":" + std::to_string(line) + " in " + function);
}
