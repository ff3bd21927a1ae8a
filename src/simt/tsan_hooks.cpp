// The __tsan_* hooks that -fsanitize=thread code calls: kernel accesses go to the race checker.
//
// No TSan runtime is linked; atomics are performed for real.
//
// Left out of builds that link the real ThreadSanitizer runtime (GPULAB_SANITIZE=thread).
#include <atomic>
#include <cstddef>
#include <cstdint>

#include "simt/kernel_code.hpp"
#include "simt/race_check.hpp"

namespace gpulab::simt::detail {

std::atomic<unsigned> g_instrumented_units{0};

namespace {

// The stack pointer: how deep the CUDA thread's stack is (RaceChecker::keep_profile_event). Read
// without asking for a frame, so that the common path writes nothing to the stack.
[[gnu::always_inline]] inline std::uintptr_t hook_sp() {
  std::uintptr_t sp = 0;
#if defined(__x86_64__)
  asm("mov %%rsp, %0" : "=r"(sp));
#elif defined(__aarch64__)
  asm("mov %0, sp" : "=r"(sp));
#else
  sp = reinterpret_cast<std::uintptr_t>(__builtin_frame_address(0));
#endif
  return sp;
}
#define GPULAB_SIMT_HOOK_SP gpulab::simt::detail::hook_sp()

// What a hook does with an access that is not kept in a profile batch (below): the race checker
// and the profile's counters see it now. Out of line, so that the hooks' common path saves no
// registers.
[[gnu::noinline]] void access_now(RaceChecker* c, const volatile void* p, std::size_t size,
                                  bool write, void* pc, bool atomic) {
  // The checker's own work (a report's std::string, say) may run an instrumented copy of an
  // inline function that the program also uses (the linker keeps one copy): not the kernel's.
  tl_recording = nullptr;
  const EmulatorCode emulator;  // nor are its allocations (kernel_code.hpp)
  c->access(reinterpret_cast<std::uintptr_t>(p), size, write, reinterpret_cast<std::uintptr_t>(pc),
            atomic);
  tl_recording = c;
}

// An event that the hook's inlined test did not keep in the profile batch: kept once the batch
// has room, else seen now.
[[gnu::noinline]] void access_slow(RaceChecker* c, const volatile void* p, std::size_t size,
                                   bool write, void* pc, std::uintptr_t sp, bool atomic) {
  if (c->make_room(sp) &&
      c->keep_profile_event(
          reinterpret_cast<std::uintptr_t>(pc), reinterpret_cast<std::uintptr_t>(p),
          std::uint64_t{size} << 2 | std::uint64_t{write} << 1 | std::uint64_t{atomic}, sp))
    return;
  access_now(c, p, size, write, pc, atomic);
}

// `pc` is the hook's return address: the instrumented access itself, for FILE:LINE reports.
// Inlined into each hook: while only gpulab profile's counters are on, an access is kept in the
// thread's batch here, and the hook returns.
[[gnu::always_inline]] inline void on_access(const volatile void* p, std::size_t size, bool write,
                                             void* pc, std::uintptr_t sp, bool atomic = false) {
  if (RaceChecker* c = tl_recording; c != nullptr) {
    if (c->keep_profile_event(
            reinterpret_cast<std::uintptr_t>(pc), reinterpret_cast<std::uintptr_t>(p),
            std::uint64_t{size} << 2 | std::uint64_t{write} << 1 | std::uint64_t{atomic}, sp))
      return;
    if (!atomic && c->access_inline(reinterpret_cast<std::uintptr_t>(p), size, write,
                                    reinterpret_cast<std::uintptr_t>(pc), sp))
      return;
    tl_hook_site = pc;
    access_slow(c, p, size, write, pc, sp, atomic);
    tl_hook_site = nullptr;
  }
}

// The same for a basic block (gpulab profile's builds).
[[gnu::noinline]] void basic_block_slow(RaceChecker* c, std::uintptr_t pc, std::uintptr_t sp) {
  if (c->make_room(sp) && c->keep_profile_event(pc, 0, ProfileEvent::kBasicBlock, sp)) return;
  tl_recording = nullptr;
  const EmulatorCode emulator;
  c->basic_block(pc);
  tl_recording = c;
}

// An atomic write of a word (an exchange, a store, a compare-and-swap that changed it) lets go of
// the spin lock there if this thread held it; otherwise a compare-and-swap that changed the word
// (`cas`) takes the lock.
inline void on_lock_write(const volatile void* p, bool cas) {
  if (RaceChecker* c = tl_recording; c != nullptr)
    c->lock_write(reinterpret_cast<std::uintptr_t>(p), cas);
}

// A compare-and-swap, done for real; one that changed the word takes (or lets go of) a spin lock.
template <class T>
int compare_exchange(volatile T* a, T* c, T v, bool weak, void* pc, std::uintptr_t sp) {
  on_access(a, sizeof(T), true, pc, sp, true);
  const T expected = *c;
  const bool ok = __atomic_compare_exchange_n(a, c, v, weak, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
  if (ok && v != expected) on_lock_write(a, true);
  return ok;
}

}  // namespace
}  // namespace gpulab::simt::detail

using gpulab::simt::detail::compare_exchange;
using gpulab::simt::detail::on_access;
using gpulab::simt::detail::on_lock_write;

// The hooks' names and signatures are fixed by the compiler's ThreadSanitizer instrumentation.
// NOLINTBEGIN
extern "C" {

void __tsan_init() {
  gpulab::simt::detail::g_instrumented_units.fetch_add(1);
}
void __tsan_func_entry(void*) {}
void __tsan_func_exit() {}
void __tsan_ignore_thread_begin() {}
void __tsan_ignore_thread_end() {}

#define GPULAB_SIMT_TSAN_ACCESS(n)                                            \
  void __tsan_read##n(void* p) {                                              \
    on_access(p, n, false, __builtin_return_address(0), GPULAB_SIMT_HOOK_SP); \
  }                                                                           \
  void __tsan_write##n(void* p) {                                             \
    on_access(p, n, true, __builtin_return_address(0), GPULAB_SIMT_HOOK_SP);  \
  }                                                                           \
  void __tsan_unaligned_read##n(const void* p) {                              \
    on_access(p, n, false, __builtin_return_address(0), GPULAB_SIMT_HOOK_SP); \
  }                                                                           \
  void __tsan_unaligned_write##n(void* p) {                                   \
    on_access(p, n, true, __builtin_return_address(0), GPULAB_SIMT_HOOK_SP);  \
  }                                                                           \
  void __tsan_volatile_read##n(void* p) {                                     \
    on_access(p, n, false, __builtin_return_address(0), GPULAB_SIMT_HOOK_SP); \
  }                                                                           \
  void __tsan_volatile_write##n(void* p) {                                    \
    on_access(p, n, true, __builtin_return_address(0), GPULAB_SIMT_HOOK_SP);  \
  }                                                                           \
  void __tsan_read##n##_pc(void* p, void*) {                                  \
    on_access(p, n, false, __builtin_return_address(0), GPULAB_SIMT_HOOK_SP); \
  }                                                                           \
  void __tsan_write##n##_pc(void* p, void*) {                                 \
    on_access(p, n, true, __builtin_return_address(0), GPULAB_SIMT_HOOK_SP);  \
  }

GPULAB_SIMT_TSAN_ACCESS(1)
GPULAB_SIMT_TSAN_ACCESS(2)
GPULAB_SIMT_TSAN_ACCESS(4)
GPULAB_SIMT_TSAN_ACCESS(8)
GPULAB_SIMT_TSAN_ACCESS(16)
#undef GPULAB_SIMT_TSAN_ACCESS

void __tsan_read_range(void* p, unsigned long size) {
  on_access(p, size, false, __builtin_return_address(0), GPULAB_SIMT_HOOK_SP);
}
void __tsan_write_range(void* p, unsigned long size) {
  on_access(p, size, true, __builtin_return_address(0), GPULAB_SIMT_HOOK_SP);
}
// gpulab profile's builds add -fsanitize-coverage=trace-pc: a call at the start of every basic
// block, from which the profile rebuilds each warp's branches.
void __sanitizer_cov_trace_pc() {
  if (gpulab::simt::detail::RaceChecker* c = gpulab::simt::detail::tl_recording; c != nullptr) {
    if (c->keep_profile_event(reinterpret_cast<std::uintptr_t>(__builtin_return_address(0)), 0,
                              gpulab::simt::detail::ProfileEvent::kBasicBlock, GPULAB_SIMT_HOOK_SP))
      return;
    gpulab::simt::detail::tl_hook_site = __builtin_return_address(0);
    gpulab::simt::detail::basic_block_slow(
        c, reinterpret_cast<std::uintptr_t>(__builtin_return_address(0)), GPULAB_SIMT_HOOK_SP);
    gpulab::simt::detail::tl_hook_site = nullptr;
  }
}
void __tsan_vptr_update(void**, void*) {}
void __tsan_vptr_read(void**) {}

void* __tsan_memcpy(void* d, const void* s, std::size_t n) {
  on_access(s, n, false, __builtin_return_address(0), GPULAB_SIMT_HOOK_SP);
  on_access(d, n, true, __builtin_return_address(0), GPULAB_SIMT_HOOK_SP);
  return __builtin_memcpy(d, s, n);
}
void* __tsan_memmove(void* d, const void* s, std::size_t n) {
  on_access(s, n, false, __builtin_return_address(0), GPULAB_SIMT_HOOK_SP);
  on_access(d, n, true, __builtin_return_address(0), GPULAB_SIMT_HOOK_SP);
  return __builtin_memmove(d, s, n);
}
void* __tsan_memset(void* d, int c, std::size_t n) {
  on_access(d, n, true, __builtin_return_address(0), GPULAB_SIMT_HOOK_SP);
  return __builtin_memset(d, c, n);
}

// Atomics: done for real, always sequentially consistent (at least as strong as what was asked).
// They are recorded as atomic: atomics do not race with each other, but do with plain accesses.
#define GPULAB_SIMT_TSAN_ATOMIC(bits, T)                                                       \
  T __tsan_atomic##bits##_load(const volatile T* a, int) {                                     \
    on_access(a, sizeof(T), false, __builtin_return_address(0), GPULAB_SIMT_HOOK_SP, true);    \
    return __atomic_load_n(a, __ATOMIC_SEQ_CST);                                               \
  }                                                                                            \
  void __tsan_atomic##bits##_store(volatile T* a, T v, int) {                                  \
    on_access(a, sizeof(T), true, __builtin_return_address(0), GPULAB_SIMT_HOOK_SP, true);     \
    __atomic_store_n(a, v, __ATOMIC_SEQ_CST);                                                  \
    on_lock_write(a, false);                                                                   \
  }                                                                                            \
  T __tsan_atomic##bits##_exchange(volatile T* a, T v, int) {                                  \
    on_access(a, sizeof(T), true, __builtin_return_address(0), GPULAB_SIMT_HOOK_SP, true);     \
    const T old = __atomic_exchange_n(a, v, __ATOMIC_SEQ_CST);                                 \
    on_lock_write(a, old != v);                                                                \
    return old;                                                                                \
  }                                                                                            \
  T __tsan_atomic##bits##_fetch_add(volatile T* a, T v, int) {                                 \
    on_access(a, sizeof(T), true, __builtin_return_address(0), GPULAB_SIMT_HOOK_SP, true);     \
    return __atomic_fetch_add(a, v, __ATOMIC_SEQ_CST);                                         \
  }                                                                                            \
  T __tsan_atomic##bits##_fetch_sub(volatile T* a, T v, int) {                                 \
    on_access(a, sizeof(T), true, __builtin_return_address(0), GPULAB_SIMT_HOOK_SP, true);     \
    return __atomic_fetch_sub(a, v, __ATOMIC_SEQ_CST);                                         \
  }                                                                                            \
  T __tsan_atomic##bits##_fetch_and(volatile T* a, T v, int) {                                 \
    on_access(a, sizeof(T), true, __builtin_return_address(0), GPULAB_SIMT_HOOK_SP, true);     \
    return __atomic_fetch_and(a, v, __ATOMIC_SEQ_CST);                                         \
  }                                                                                            \
  T __tsan_atomic##bits##_fetch_or(volatile T* a, T v, int) {                                  \
    on_access(a, sizeof(T), true, __builtin_return_address(0), GPULAB_SIMT_HOOK_SP, true);     \
    return __atomic_fetch_or(a, v, __ATOMIC_SEQ_CST);                                          \
  }                                                                                            \
  T __tsan_atomic##bits##_fetch_xor(volatile T* a, T v, int) {                                 \
    on_access(a, sizeof(T), true, __builtin_return_address(0), GPULAB_SIMT_HOOK_SP, true);     \
    return __atomic_fetch_xor(a, v, __ATOMIC_SEQ_CST);                                         \
  }                                                                                            \
  T __tsan_atomic##bits##_fetch_nand(volatile T* a, T v, int) {                                \
    on_access(a, sizeof(T), true, __builtin_return_address(0), GPULAB_SIMT_HOOK_SP, true);     \
    return __atomic_fetch_nand(a, v, __ATOMIC_SEQ_CST);                                        \
  }                                                                                            \
  int __tsan_atomic##bits##_compare_exchange_strong(volatile T* a, T* c, T v, int, int) {      \
    return compare_exchange(a, c, v, false, __builtin_return_address(0), GPULAB_SIMT_HOOK_SP); \
  }                                                                                            \
  int __tsan_atomic##bits##_compare_exchange_weak(volatile T* a, T* c, T v, int, int) {        \
    return compare_exchange(a, c, v, true, __builtin_return_address(0), GPULAB_SIMT_HOOK_SP);  \
  }                                                                                            \
  T __tsan_atomic##bits##_compare_exchange_val(volatile T* a, T c, T v, int, int) {            \
    on_access(a, sizeof(T), true, __builtin_return_address(0), GPULAB_SIMT_HOOK_SP, true);     \
    const T expected = c;                                                                      \
    if (__atomic_compare_exchange_n(a, &c, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST) &&    \
        v != expected)                                                                         \
      on_lock_write(a, true);                                                                  \
    return c;                                                                                  \
  }

GPULAB_SIMT_TSAN_ATOMIC(8, unsigned char)
GPULAB_SIMT_TSAN_ATOMIC(16, unsigned short)
GPULAB_SIMT_TSAN_ATOMIC(32, unsigned int)
GPULAB_SIMT_TSAN_ATOMIC(64, unsigned long long)
#undef GPULAB_SIMT_TSAN_ATOMIC

void __tsan_atomic_thread_fence(int) {
  __atomic_thread_fence(__ATOMIC_SEQ_CST);
}
void __tsan_atomic_signal_fence(int) {
  __atomic_signal_fence(__ATOMIC_SEQ_CST);
}

}  // extern "C"
// NOLINTEND
