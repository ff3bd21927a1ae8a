// Faults in kernel code: the recovery point, the guarded window of dynamic shared memory, and the
// words for what a faulting access missed (see guard.hpp).
#include "simt/guard.hpp"

#include <pthread.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

#include <cinttypes>
#include <cstdio>
#include <cstring>

#include "simt/kernel_code.hpp"
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

  void release() {
    if (base != nullptr) ::munmap(base, capacity + page_size());
    base = nullptr;
  }

  unsigned char* end() const { return base + capacity; }
};

// An alternate signal stack for this OS thread, so that a fiber whose stack overflowed (the fault
// is on its guard page) can still be caught. Kept when the thread already has one.
struct AltStack {
  void* memory = nullptr;
  std::size_t bytes = 0;
  bool made = false;
  void make() {
    made = true;
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
  void release() {
    if (memory == nullptr) return;
    stack_t off{};
    off.ss_flags = SS_DISABLE;
    ::sigaltstack(&off, nullptr);
    ::munmap(memory, bytes);
    memory = nullptr;
  }
};

// A worker OS thread's mappings. Trivially destructible on purpose: a thread_local with a
// destructor makes glibc allocate when the thread first touches it, and abort the whole process
// when that fails (a thread started just before the address space ran out). A pthread key's
// destructor, which needs no allocation for the first keys, unmaps them when the thread ends.
struct WorkerMemory {
  Window window;
  AltStack alt_stack;
  bool keyed = false;
};
thread_local WorkerMemory tl_worker;
pthread_key_t g_worker_key;
pthread_once_t g_worker_key_once = PTHREAD_ONCE_INIT;

void release_worker(void* memory) {
  auto* w = static_cast<WorkerMemory*>(memory);
  w->window.release();
  w->alt_stack.release();
}

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
    gpulab_simt_dynamic_shared_window = dynamic_shared_buffer();  // in the thread-local block
    tl_private.window_begin = tl_private.window_bytes = 0;
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
  // The block's atomics on its own window need no lock (device_api.hpp, PrivateMemory).
  tl_private.window_begin = reinterpret_cast<std::uintptr_t>(start);
  tl_private.window_bytes = rounded;
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
  // The jump back skips the destructors of what ran (KernelCode among them): whether kernel code
  // runs is set back by hand, or the host's next `new` would come from the device heap.
  const bool kernel_code = tl_kernel_code;
  if (sigsetjmp(point.env, 0) != 0) {
    tl_kernel_code = kernel_code;
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
  // In a check or profile hook's own code: the access it was called for (pc is read as one past
  // the faulting instruction, a return address as itself).
  if (tl_hook_site != nullptr) {
    c.pc = reinterpret_cast<std::uintptr_t>(tl_hook_site) - 1;
    tl_hook_site = nullptr;  // the hook will not return to clear it
  }
  // A second fault before the jump has landed is a crash, not a kernel's fault.
  tl_guard_point = nullptr;
  siglongjmp(point->env, 1);
}

void prepare_worker(std::size_t dynamic_shared_bytes, bool checked) {
  WorkerMemory& worker = tl_worker;
  if (!worker.keyed) {
    worker.keyed = true;
    ::pthread_once(&g_worker_key_once, [] { ::pthread_key_create(&g_worker_key, release_worker); });
    ::pthread_setspecific(g_worker_key, &worker);
  }
  if (!worker.alt_stack.made) worker.alt_stack.make();
  if (checked) {
    // Check and profile builds: their hooks must see each atomic as one (atomics do not race).
    tl_private = PrivateMemory{};
  } else if (tl_private.tls_bytes == 0) {
    // The executable's thread-local block of this OS thread: where __shared__ arrays live.
    const auto [begin, end] = executable_tls_block();
    tl_private.tls_begin = begin;
    tl_private.tls_bytes = end - begin;
  }
  if (checked) {
    tl_worker.window.bytes = dynamic_shared_bytes;
    gpulab_simt_dynamic_shared_window = dynamic_shared_buffer();
    return;
  }
  lay_out(tl_worker.window, dynamic_shared_bytes);
}

bool room_for_another_thread() {
  // The thread's own stack (8 MiB by default) and 40 MiB for everything else.
  constexpr std::size_t kHeadroom = std::size_t{48} << 20;
  void* probe =
      ::mmap(nullptr, kHeadroom, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (probe == MAP_FAILED) return false;
  ::munmap(probe, kHeadroom);
  return true;
}

bool is_memory_fault(const CaughtSignal& caught) {
  return caught.signal == SIGSEGV || caught.signal == SIGBUS;
}

Text describe_caught(const CaughtSignal& c, StackBounds stack, std::size_t dynamic_shared_bytes) {
  if (c.signal == SIGFPE) {
    return {
        "an arithmetic fault (SIGFPE: an integer division by zero or overflow). A GPU gives an "
        "undefined result there and goes on; the emulator stops the launch",
        "算术错误（SIGFPE：整数除以零或溢出）。GPU "
        "在这里给出未定义的结果并继续；模拟器停止这次启动"};
  }
  if (c.signal == SIGILL) return {"an illegal instruction (SIGILL)", "非法指令（SIGILL）"};
  const std::uintptr_t a = c.address;
  const std::string verb = access_words(c.write);
  const std::string verb_zh = c.write == 1 ? "写入" : c.write == 0 ? "读取" : "访问";
  const Text head{"illegal address: it " + verb + " " + hex(a) + ", ",
                  "非法地址：它" + verb_zh + "了 " + hex(a) + "，"};
  // "N bytes past the end of" / "超出 ... 末尾 N 字节", around `what`.
  const auto away = [](std::uintptr_t n, bool past, const Text& what) {
    std::string zh = n == 0 ? (past ? "刚好超出" : "紧挨在") : (past ? "超出" : "在");
    zh.append(what.zh).append(past ? "末尾" : "开头之前");
    if (n != 0) zh.append(" ").append(std::to_string(n)).append(" 字节");
    return Text{bytes_away(n, past ? "past the end of" : "before the start of") + " " + what.en,
                std::move(zh)};
  };
  const auto join = [](const Text& x, const Text& y) { return Text{x.en + y.en, x.zh + y.zh}; };
  const std::size_t page = page_size();

  // The window of dynamic shared memory, and the protected pages around it.
  const Window& w = tl_worker.window;
  if (w.base != nullptr && a >= reinterpret_cast<std::uintptr_t>(w.base) &&
      a < reinterpret_cast<std::uintptr_t>(w.end()) + page) {
    const auto start = reinterpret_cast<std::uintptr_t>(gpulab_simt_dynamic_shared_window);
    const std::uintptr_t end = start + dynamic_shared_bytes;
    const std::string n = std::to_string(dynamic_shared_bytes);
    if (a < end) {
      return join(head, away(start - a, false,
                             {"the dynamic shared memory (" + n + " bytes given at launch)",
                              "动态共享内存（启动时给了 " + n + " 字节）的"}));
    }
    Text s = join(head, away(a - end, true,
                             {"the dynamic shared memory (" + n +
                                  " bytes given at launch, the third <<<>>> argument)",
                              "动态共享内存（启动时给了 " + n + " 字节，<<<>>> 的第三个参数）的"}));
    if (a < end + kGpuSharedSlack) {
      const std::string unit = std::to_string(kGpuSharedUnit);
      s = join(s,
               {". A GPU may not stop at an access just past the end (an H100 rounds a block's "
                "shared memory up to " +
                    unit +
                    " bytes and keeps 1 KiB more per block): it is out of bounds either way, "
                    "the bug a GPU hides",
                "。刚刚越过末尾的访问，GPU 可能不会停下（H100 把每个线程块的共享内存向上取整到 " +
                    unit + " 字节，并多留 1 KiB）：无论如何都是越界，这正是 GPU 会掩盖的错误"});
    }
    return s;
  }
  // The CUDA thread's stack: its guard page lies just below it.
  const auto bottom = reinterpret_cast<std::uintptr_t>(stack.bottom);
  if (bottom != 0 && a < bottom && a + page >= bottom) {
    const std::string kib = std::to_string(StackPool::stack_bytes() / 1024);
    return {"the CUDA thread's stack overflowed (it " + verb + " " + hex(a) +
                ", on the guard page below its stack): the emulator gives each CUDA thread " + kib +
                " KiB of stack, a GPU 1 KiB by default (cudaLimitStackSize). Is a recursion too "
                "deep or without end, or a local array too large?",
            "CUDA 线程的栈溢出了（它" + verb_zh + "了 " + hex(a) +
                "，在栈下方的保护页上）：模拟器给每个 CUDA 线程 " + kib +
                " KiB 的栈，GPU 默认 1 "
                "KiB（cudaLimitStackSize）。是递归太深或没有终止，还是局部数组太大？"};
  }
  if (const auto alloc = allocation_near(reinterpret_cast<const void*>(a))) {
    const std::uintptr_t end = alloc->begin + alloc->bytes;
    const std::string bytes = std::to_string(alloc->bytes);
    const std::string by = allocator_name(alloc->kind);
    const std::string at = alloc->site.empty() ? std::string() : base_name(alloc->site);
    const Text what{
        "the " + bytes + "-byte allocation made by " + by + (at.empty() ? "" : " at " + at),
        (at.empty() ? "" : "在 " + at + " ") + "用 " + by + " 分配的 " + bytes + " 字节内存的"};
    return join(head, a >= end ? away(a - end, true, what) : away(alloc->begin - a, false, what));
  }
  // The thread's static memory: the kernel's __shared__ arrays are thread-local variables (run
  // with --check to know which array).
  if (const auto [tls_begin, tls_end] = executable_tls_block();
      tls_begin != 0 && a >= tls_begin && a < tls_end + (std::uintptr_t{16} << 20)) {
    const Text what{
        "the block's static __shared__ memory (with --check the emulator names the array)",
        "线程块的静态 __shared__ 内存（加 --check 时模拟器会指出是哪个数组）的"};
    if (a >= tls_end) return join(head, away(a - tls_end, true, what));
    return join(head, {"inside " + what.en, "在" + what.zh + "内部"});
  }
  if (a < 65536) {
    return join(head,
                {"through a null pointer (an address in the first 64 KiB, which nothing maps)",
                 "通过空指针（前 64 KiB 内的地址，那里什么都没有映射）"});
  }
  return join(head, {"which is in no device allocation, no shared memory and no local variable of "
                     "the thread (a wild pointer, or a pointer freed before the launch)",
                     "这个地址不属于任何设备内存分配、共享内存或线程的局部变量（野指针，或在启动前"
                     "已释放的指针）"});
}

void BlockRunner::caught_signal(const CaughtSignal& c) {
  const Text what = describe_caught(c, current_stack_, shape_.dynamic_shared_bytes);
  note_fault(is_memory_fault(c) ? KernelFault::Kind::illegal_address : KernelFault::Kind::trap,
             Text{thread_name(loop_.current) + ": " + what.en,
                  thread_name(loop_.current, Lang::zh) + "：" + what.zh},
             c.pc != 0 ? c.pc + 1 : 0);
}

unsigned char* dynamic_shared_window() noexcept {
  return gpulab_simt_dynamic_shared_window != nullptr ? gpulab_simt_dynamic_shared_window
                                                      : dynamic_shared_buffer();
}

}  // namespace gpulab::simt::detail
