// The device heap of gpulab run's checked programs: a kernel's malloc and new return device
// memory on a GPU, so --check must not call it host memory. The checked program is linked with
// --wrap for malloc, calloc, free, new and delete (run/program.cpp); these wrappers pass every call
// on and tell simt/memory_check about the blocks a kernel allocates and the ones freed.
#include <cstddef>
#include <cstdlib>
#include <new>

#include "simt/memory_check.hpp"
#include "simt/scheduler.hpp"

// Weak: a program linked without --wrap (no --check) leaves them unresolved, and then nothing calls
// the wrappers either.
extern "C" {
[[gnu::weak]] void* __real_malloc(std::size_t);
[[gnu::weak]] void* __real_calloc(std::size_t, std::size_t);
[[gnu::weak]] void __real_free(void*);
[[gnu::weak]] void* __real__Znwm(std::size_t);
[[gnu::weak]] void* __real__Znam(std::size_t);
[[gnu::weak]] void __real__ZdlPv(void*);
[[gnu::weak]] void __real__ZdaPv(void*);
[[gnu::weak]] void __real__ZdlPvm(void*, std::size_t);
[[gnu::weak]] void __real__ZdaPvm(void*, std::size_t);
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
  if (p != nullptr && !t_recording && gpulab::simt::detail::tl_runner != nullptr) {
    const Recording r;
    gpulab::simt::note_device_heap(p, bytes);
  }
  return p;
}

void released(void* p) {
  if (p != nullptr && !t_recording) {
    const Recording r;
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
void* __wrap__Znwm(std::size_t n) {
  return allocated(__real__Znwm(n), n);
}
void* __wrap__Znam(std::size_t n) {
  return allocated(__real__Znam(n), n);
}
void __wrap__ZdlPv(void* p) {
  released(p);
  __real__ZdlPv(p);
}
void __wrap__ZdaPv(void* p) {
  released(p);
  __real__ZdaPv(p);
}
void __wrap__ZdlPvm(void* p, std::size_t n) {
  released(p);
  __real__ZdlPvm(p, n);
}
void __wrap__ZdaPvm(void* p, std::size_t n) {
  released(p);
  __real__ZdaPvm(p, n);
}
}
