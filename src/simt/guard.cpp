// Faults in kernel code: the recovery point, the guarded window of dynamic shared memory, and the
// words for what a faulting access missed (see guard.hpp).
#include "simt/guard.hpp"

#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

#include <cinttypes>
#include <cstdio>
#include <cstring>

#include "simt/memory_check.hpp"
#include "simt/program_symbols.hpp"
#include "simt/race_check.hpp"
#include "simt/scheduler.hpp"

thread_local unsigned char* gpulab_simt_dynamic_shared_window = nullptr;

namespace gpulab::simt::detail {

namespace {

std::size_t page_size() {
  static const std::size_t page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  return page;
}

std::size_t round_up(std::size_t n, std::size_t unit) {
  return (n + unit - 1) / unit * unit;
}

// The fault the handler saw, on this OS thread (read once the jump has landed).
thread_local CaughtSignal tl_caught;

// A CUDA block's shared memory starts at least this aligned on a GPU: the window's start keeps it
// (so that a float4 view of it is aligned), and its end is rounded up to it.
constexpr std::size_t kWindowAlignment = 16;
// What a GPU allocates a block's shared memory in (sharedMemAllocationUnitSize on sm_90): an
// access past the window but inside this rounding may go unnoticed there.
constexpr std::size_t kGpuSharedUnit = 128;
// How far past the window a GPU may read without faulting: the rounding and the 1 KiB a GPU keeps
// per block since compute capability 8.0 (an H100 ran a PMPP merge that reads past its tile).
constexpr std::size_t kGpuSharedSlack = kGpuSharedUnit + 1024;

// One per OS thread that runs blocks: kDynamicSharedCapacity bytes (rounded up to pages), then a
// PROT_NONE page. A launch's window ends where that page begins; the whole pages below the window
// are made PROT_NONE too, so a negative index faults as well (within a page of slack).
struct Window {
  unsigned char* base = nullptr;
  std::size_t capacity = 0;         // bytes before the guard page
  std::size_t protected_below = 0;  // bytes at the start that are PROT_NONE now
  std::size_t laid_out = SIZE_MAX;  // the rounded window size the protections are set for
  bool failed = false;              // no mapping: the plain per-thread buffer is used
  std::size_t bytes = 0;            // given at launch

  ~Window() {
    if (base != nullptr) ::munmap(base, capacity + page_size());
  }

  unsigned char* end() const { return base + capacity; }
};
thread_local Window tl_window;

// An alternate signal stack for this OS thread, so that a fiber whose stack overflowed (the fault
// is on its guard page) can still be caught. Kept when the thread already has one.
struct AltStack {
  void* memory = nullptr;
  std::size_t bytes = 0;
  AltStack() {
    stack_t old{};
    if (::sigaltstack(nullptr, &old) == 0 && (old.ss_flags & SS_DISABLE) == 0) return;
    bytes = std::max<std::size_t>(64 * 1024, static_cast<std::size_t>(SIGSTKSZ));
    memory = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (memory == MAP_FAILED) {
      memory = nullptr;
      return;
    }
    stack_t s{};
    s.ss_sp = memory;
    s.ss_size = bytes;
    if (::sigaltstack(&s, nullptr) != 0) {
      ::munmap(memory, bytes);
      memory = nullptr;
    }
  }
  ~AltStack() {
    if (memory == nullptr) return;
    stack_t off{};
    off.ss_flags = SS_DISABLE;
    ::sigaltstack(&off, nullptr);
    ::munmap(memory, bytes);
  }
};

void lay_out(Window& w, std::size_t bytes) {
  w.bytes = bytes;
  if (w.base == nullptr && !w.failed) {
    const std::size_t page = page_size();
    w.capacity = round_up(kDynamicSharedCapacity, page);
    void* m = ::mmap(nullptr, w.capacity + page, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED || ::mprotect(m, w.capacity, PROT_READ | PROT_WRITE) != 0) {
      if (m != MAP_FAILED) ::munmap(m, w.capacity + page);
      w.failed = true;
    } else {
      w.base = static_cast<unsigned char*>(m);
    }
  }
  if (w.failed) {
    gpulab_simt_dynamic_shared_window = dynamic_shared_buffer();
    return;
  }
  const std::size_t rounded = round_up(bytes, kWindowAlignment);
  unsigned char* start = w.end() - rounded;
  if (rounded != w.laid_out) {
    const std::size_t page = page_size();
    const std::size_t below = (static_cast<std::size_t>(start - w.base)) / page * page;
    if (below > w.protected_below) {
      ::mprotect(w.base + w.protected_below, below - w.protected_below, PROT_NONE);
    } else if (below < w.protected_below) {
      ::mprotect(w.base + below, w.protected_below - below, PROT_READ | PROT_WRITE);
    }
    w.protected_below = below;
    w.laid_out = rounded;
  }
  gpulab_simt_dynamic_shared_window = start;
}

const char* access_words(int write) {
  return write == 1 ? "writes" : write == 0 ? "reads" : "touches";
}

std::string hex(std::uintptr_t a) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%#" PRIxPTR, a);
  return buf;
}

std::string base_name(const std::string& site) {
  const auto slash = site.rfind('/');
  return slash == std::string::npos ? site : site.substr(slash + 1);
}

std::string bytes_away(std::uintptr_t n, const char* where) {
  if (n == 0) return std::string("just ") + where;
  return std::to_string(n) + (n == 1 ? " byte " : " bytes ") + where;
}

}  // namespace

bool run_guarded(void (*fn)(void*), void* arg, CaughtSignal* caught) {
  GuardPoint point;
  GuardPoint* const outer = tl_guard_point;
  struct Restore {
    GuardPoint* outer;
    ~Restore() { tl_guard_point = outer; }
  } restore{outer};
  if (sigsetjmp(point.env, 0) != 0) {
    *caught = tl_caught;
    return false;
  }
  tl_guard_point = &point;
  fn(arg);
  return true;
}

void recover(int sig, const siginfo_t* info, const void* ucontext) noexcept {
  GuardPoint* const point = tl_guard_point;
  if (point == nullptr) return;
  if (sig != SIGSEGV && sig != SIGBUS && sig != SIGFPE && sig != SIGILL) return;
  CaughtSignal& c = tl_caught;
  c.signal = sig;
  c.code = info->si_code;
  c.address = reinterpret_cast<std::uintptr_t>(info->si_addr);
  c.write = -1;
  const auto* uc = static_cast<const ucontext_t*>(ucontext);
#if defined(__x86_64__)
  c.pc = static_cast<std::uintptr_t>(uc->uc_mcontext.gregs[REG_RIP]);
  // The page fault's error code: bit 1 is set for a write.
  if (sig == SIGSEGV && (info->si_code == SEGV_MAPERR || info->si_code == SEGV_ACCERR)) {
    c.write = (uc->uc_mcontext.gregs[REG_ERR] & 2) != 0 ? 1 : 0;
  }
#elif defined(__aarch64__)
  c.pc = static_cast<std::uintptr_t>(uc->uc_mcontext.pc);
#else
  c.pc = 0;
#endif
  // A second fault before the jump has landed is a crash, not a kernel's fault.
  tl_guard_point = nullptr;
  siglongjmp(point->env, 1);
}

void prepare_worker(std::size_t dynamic_shared_bytes, bool checked) {
  thread_local AltStack alt_stack;
  if (checked) {
    tl_window.bytes = dynamic_shared_bytes;
    gpulab_simt_dynamic_shared_window = dynamic_shared_buffer();
    return;
  }
  lay_out(tl_window, dynamic_shared_bytes);
}

bool is_memory_fault(const CaughtSignal& caught) {
  return caught.signal == SIGSEGV || caught.signal == SIGBUS;
}

std::string describe_caught(const CaughtSignal& c, StackBounds stack,
                            std::size_t dynamic_shared_bytes) {
  if (c.signal == SIGFPE) {
    return "an arithmetic fault (SIGFPE: an integer division by zero or overflow). A GPU gives an "
           "undefined result there and goes on; the emulator stops the launch";
  }
  if (c.signal == SIGILL) return "an illegal instruction (SIGILL)";
  const std::uintptr_t a = c.address;
  const std::string verb = access_words(c.write);
  const std::string head = "illegal address: it " + verb + " " + hex(a) + ", ";
  const std::size_t page = page_size();

  // The window of dynamic shared memory, and the protected pages around it.
  const Window& w = tl_window;
  if (w.base != nullptr && a >= reinterpret_cast<std::uintptr_t>(w.base) &&
      a < reinterpret_cast<std::uintptr_t>(w.end()) + page) {
    const auto start = reinterpret_cast<std::uintptr_t>(gpulab_simt_dynamic_shared_window);
    const std::uintptr_t end = start + dynamic_shared_bytes;
    std::string s = head;
    if (a >= end) {
      s += bytes_away(a - end, "past the end of") + " the dynamic shared memory (" +
           std::to_string(dynamic_shared_bytes) + " bytes given at launch, the third <<<>>> " +
           "argument)";
      if (a < end + kGpuSharedSlack) {
        s += ". A GPU may not stop at an access just past the end (an H100 rounds a block's "
             "shared memory up to " +
             std::to_string(kGpuSharedUnit) +
             " bytes and keeps 1 KiB more per block): it is out of bounds either way, the bug a "
             "GPU hides";
      }
    } else {
      s += bytes_away(start - a, "before the start of") + " the dynamic shared memory (" +
           std::to_string(dynamic_shared_bytes) + " bytes given at launch)";
    }
    return s;
  }
  // The CUDA thread's stack: its guard page lies just below it.
  const auto bottom = reinterpret_cast<std::uintptr_t>(stack.bottom);
  if (bottom != 0 && a < bottom && a + page >= bottom) {
    return "the CUDA thread's stack overflowed (it " + verb + " " + hex(a) +
           ", on the guard page below its stack): the emulator gives each CUDA thread " +
           std::to_string(StackPool::stack_bytes() / 1024) +
           " KiB of stack, a GPU 1 KiB by default (cudaLimitStackSize). Is a recursion too deep or "
           "without end, or a local array too large?";
  }
  if (const auto alloc = allocation_near(reinterpret_cast<const void*>(a))) {
    const std::uintptr_t end = alloc->begin + alloc->bytes;
    std::string s = head;
    s += a >= end ? bytes_away(a - end, "past the end of")
                  : bytes_away(alloc->begin - a, "before the start of");
    s += " the " + std::to_string(alloc->bytes) + "-byte allocation made by " +
         allocator_name(alloc->kind);
    if (!alloc->site.empty()) s += " at " + base_name(alloc->site);
    return s;
  }
  // The thread's static memory: the kernel's __shared__ arrays are thread-local variables (run
  // with --check to know which array).
  if (const auto [tls_begin, tls_end] = executable_tls_block();
      tls_begin != 0 && a >= tls_begin && a < tls_end + (std::uintptr_t{16} << 20)) {
    return head +
           (a >= tls_end ? bytes_away(a - tls_end, "past the end of") : std::string("inside")) +
           " the block's static __shared__ memory (with --check the emulator names the array)";
  }
  if (a < 65536) {
    return head + "through a null pointer (an address in the first 64 KiB, which nothing maps)";
  }
  return head +
         "which is in no device allocation, no shared memory and no local variable of the "
         "thread (a wild pointer, or a pointer freed before the launch)";
}

void BlockRunner::caught_signal(const CaughtSignal& c) {
  note_fault(is_memory_fault(c) ? KernelFault::Kind::illegal_address : KernelFault::Kind::trap,
             thread_name(loop_.current) + ": " +
                 describe_caught(c, current_stack_, shape_.dynamic_shared_bytes),
             c.pc != 0 ? c.pc + 1 : 0);
}

unsigned char* dynamic_shared_window() noexcept {
  return gpulab_simt_dynamic_shared_window != nullptr ? gpulab_simt_dynamic_shared_window
                                                      : dynamic_shared_buffer();
}

}  // namespace gpulab::simt::detail
