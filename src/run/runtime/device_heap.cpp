// The device heap of gpulab run's checked programs: a kernel's malloc returns device memory on a
// GPU, so --check must not call it host memory. The program's own malloc and free in kernels are
// the device heap's already (cuda_runtime.h maps them to heap.cpp, as it does new and delete); the
// checked program is also linked with --wrap for malloc, calloc and free (run/program.cpp), so that
// what a library function allocates for kernel code is device memory too. These wrappers pass
// every call on and tell simt/memory_check about the blocks allocated in a kernel's own code
// (simt/kernel_code.hpp) and the ones freed.
#include <cstddef>
#include <cstdlib>

#include "simt/kernel_code.hpp"
#include "simt/memory_check.hpp"

// Weak: a program linked without --wrap (no --check) leaves them unresolved, and then nothing calls
// the wrappers either.
extern "C" {
[[gnu::weak]] void* __real_malloc(std::size_t);
[[gnu::weak]] void* __real_calloc(std::size_t, std::size_t);
[[gnu::weak]] void __real_free(void*);
}

namespace {

// Set while a wrapper records: the bookkeeping's own allocations are not the kernel's.
thread_local bool t_recording = false;

struct Recording {
  bool outer = !t_recording;
  Recording() { t_recording = true; }
  ~Recording() { t_recording = !outer; }
};

void* allocated(void* p, std::size_t bytes) {
  if (p != nullptr && !t_recording && gpulab::simt::detail::tl_kernel_code) {
    const Recording r;
    const gpulab::simt::detail::EmulatorCode emulator;
    gpulab::simt::note_device_heap(p, bytes);
  }
  return p;
}

void released(void* p) {
  if (p != nullptr && !t_recording) {
    const Recording r;
    const gpulab::simt::detail::EmulatorCode emulator;
    gpulab::simt::forget_device_heap(p);
  }
}

}  // namespace

extern "C" {
void* __wrap_malloc(std::size_t n) {
  return allocated(__real_malloc(n), n);
}
void* __wrap_calloc(std::size_t n, std::size_t size) {
  return allocated(__real_calloc(n, size), n * size);
}
void __wrap_free(void* p) {
  released(p);
  __real_free(p);
}
}
