// Faults in kernel code, caught where a GPU faults: guard pages after each block's window of
// dynamic shared memory and after each device allocation, a recovery point on every fiber, and a
// description of what the faulting access missed (docs/simt.md, "Faults").
//
// A kernel that touches memory outside everything it may touch (past its dynamic shared memory, a
// cudaMalloc allocation or its stack; a null or wild pointer) makes the CPU raise SIGSEGV. The
// program's signal handler (gpulab run's runtime) calls recover(): when the faulting OS thread
// runs kernel code under run_guarded(), it jumps back there and the block ends with a
// KernelFault (illegal_address), as the GPU ends the launch with cudaErrorIllegalAddress. The
// emulator's own state is untouched: the jump lands on the fiber's own loop, below the kernel's
// frames.
#pragma once

#include <setjmp.h>
#include <signal.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "core/i18n.hpp"
#include "simt/stack_pool.hpp"
#include "simt/vector_types.hpp"

// The window of dynamic shared memory of the block the OS thread runs: where `extern __shared__ T
// name[]` points in a program built by gpulab run (its rewrite declares such arrays as this
// pointer, src/run/rewrite.cpp). The window ends where a PROT_NONE page begins, so an access past
// the bytes given at launch faults.
extern thread_local unsigned char* gpulab_simt_dynamic_shared_window __asm__(
    "gpulab_simt_dynamic_shared_ptr");

namespace gpulab::simt::detail {

// The running block's window of dynamic shared memory (the per-thread buffer before any launch).
unsigned char* dynamic_shared_window() noexcept;

struct GuardPoint {
  sigjmp_buf env;
};
// The recovery point of the fiber that runs now (saved and restored by every fiber switch).
inline thread_local GuardPoint* tl_guard_point = nullptr;

// What the signal handler saw.
struct CaughtSignal {
  int signal = 0;
  int code = 0;  // si_code
  std::uintptr_t address = 0;
  std::uintptr_t pc = 0;  // the faulting instruction
  int write = -1;         // 1: a write, 0: a read, -1: not known
};

// Runs fn(arg) with a recovery point. A fault that recover() catches in it comes back here:
// returns false, with *caught filled. Exceptions pass through as usual.
bool run_guarded(void (*fn)(void*), void* arg, CaughtSignal* caught);

// From a signal handler (SIGSEGV, SIGBUS, SIGFPE, SIGILL): when this OS thread runs kernel code
// under run_guarded(), records the fault and jumps back there (it does not return). Returns
// otherwise, for the caller's crash report.
void recover(int sig, const siginfo_t* info, const void* ucontext) noexcept;

// Before a worker OS thread runs blocks of a launch: an alternate signal stack (so that a fiber's
// stack overflow can be caught too) and the window of dynamic shared memory for `bytes`. A checked
// launch keeps the window at the start of the per-thread buffer the race checker watches (its
// accesses are checked before they happen).
void prepare_worker(std::size_t dynamic_shared_bytes, bool checked);

// A fault in words: the access, the address, and what it missed (the dynamic shared memory, a
// device allocation, the thread's stack, a null pointer), with a note where a GPU may hide it.
// `stack`: the CUDA thread's stack; `dynamic_shared_bytes`: given at launch.
Text describe_caught(const CaughtSignal& caught, StackBounds stack,
                     std::size_t dynamic_shared_bytes);

// Whether the process may start one more worker thread and still have room to work: 48 MiB of
// address space beyond it can be mapped. A thread started at the very edge of `ulimit -v` leaves
// nothing for the allocations that follow (the launch would fail with "out of host memory").
bool room_for_another_thread();

// The kind of fault a signal is: illegal address (SIGSEGV, SIGBUS) or not.
bool is_memory_fault(const CaughtSignal& caught);

}  // namespace gpulab::simt::detail
