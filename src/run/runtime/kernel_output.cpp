// Kernel output: printf in a kernel (the device's buffer, 1 MiB unless the program sets
// cudaLimitPrintfFifoSize, printed when the host waits or the next kernel starts) and the
// device-side assert (the GPU's message on stderr when the host synchronises; the launch fails
// with cudaErrorAssert).
#include <cctype>
#include <cstdarg>
#include <cstdio>
#include <mutex>
#include <string>

#include "run/runtime/state.hpp"
#include "simt/kernel_code.hpp"
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
    const gpulab::simt::detail::EmulatorCode emulator;  // the buffer is the host's memory
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

namespace {
// A function's name as nvcc's __PRETTY_FUNCTION__ spells it: g++ writes `const int*` and `int&`,
// nvcc (the EDG front end) `const int *` and `int &` (measured on an H100: `void
// check_positive(const int *, int)`).
std::string nvcc_function_name(const char* gcc) {
  std::string out;
  for (const char* p = gcc; *p != '\0'; ++p) {
    const char c = *p;
    if ((c == '*' || c == '&') && !out.empty()) {
      const char before = out.back();
      if (std::isalnum(static_cast<unsigned char>(before)) || before == '_' || before == '>' ||
          before == ']' || before == ')') {
        out += ' ';
      }
    }
    out += c;
  }
  return out;
}
}  // namespace

void gpulab_rt_assert_fail(const char* expression, const char* file, unsigned line,
                           const char* function) {
  if (gpulab::simt::detail::tl_runner == nullptr) __assert_fail(expression, file, line, function);
  const gpulab::simt::detail::EmulatorCode emulator;  // the message is the emulator's memory
  // The GPU's own message, printed to stderr when the host synchronises.
  char text[1024];
  std::snprintf(text, sizeof text,
                "%s:%u: %s: block: [%u,%u,%u], thread: [%u,%u,%u] Assertion `%s` failed.\n", file,
                line, nvcc_function_name(function).c_str(), blockIdx.x, blockIdx.y, blockIdx.z,
                threadIdx.x, threadIdx.y, threadIdx.z, expression);
  {
    auto& s = state();
    std::lock_guard lock(s.mutex);
    s.pending_stderr += text;
  }
  // Ends this CUDA thread; the rest of its warp runs (each lane that fails the assert too prints
  // its line, as on a GPU), then the launch fails with cudaErrorAssert.
  const std::string thread = "(" + std::to_string(threadIdx.x) + "," + std::to_string(threadIdx.y) +
                             "," + std::to_string(threadIdx.z) + ")";
  const std::string at = std::string(file) + ":" + std::to_string(line);
  gpulab::simt::detail::tl_runner->end_thread_in_warp(
      gpulab::simt::KernelFault::Kind::assertion,
      {"thread " + thread + ": assert(" + expression + ") failed at " + at + " in " + function,
       "线程 " + thread + "：" + at + "（" + function + " 中）的 assert(" + expression +
           ") 不成立"});
}
