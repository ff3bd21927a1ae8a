// Whether the OS thread runs a kernel's own code now, not the emulator's: what decides where a
// `new` made in a kernel comes from (gpulab run's device heap, src/run/runtime/heap.cpp). Set while
// a fiber runs its threads (scheduler.cpp), cleared while the emulator works on the kernel's behalf
// (a barrier, a warp collective, a check hook, printf, malloc), whose own allocations are the
// host's.
#pragma once

namespace gpulab::simt::detail {

inline thread_local bool tl_kernel_code = false;

// A fiber runs the kernel's threads.
struct KernelCode {
  KernelCode() { tl_kernel_code = true; }
  ~KernelCode() { tl_kernel_code = false; }
  KernelCode(const KernelCode&) = delete;
  KernelCode& operator=(const KernelCode&) = delete;
};

// The emulator works on the kernel's behalf; the kernel's code goes on when it returns.
struct EmulatorCode {
  const bool outer = tl_kernel_code;
  EmulatorCode() { tl_kernel_code = false; }
  ~EmulatorCode() { tl_kernel_code = outer; }
  EmulatorCode(const EmulatorCode&) = delete;
  EmulatorCode& operator=(const EmulatorCode&) = delete;
};

}  // namespace gpulab::simt::detail
