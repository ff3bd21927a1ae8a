// Device memory of the emulator: the allocations (what cudaMalloc & co. returned, with the call
// site) and, in check mode, what kernels do with global memory: out-of-bounds accesses, host memory
// used from a kernel, reads of bytes never written, and races between threads on global memory.
//
// The accesses come from the same instrumented loads and stores as the shared-memory race check
// (tsan_hooks.cpp -> RaceChecker), which hands every access outside shared memory to
// check_global().
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "simt/simt.hpp"

namespace gpulab::simt {

// device_heap: malloc/new in a kernel (gpulab run's device heap, cudaLimitMallocHeapSize);
// host_registered: the program's own host memory, registered with cudaHostRegister.
enum class AllocationKind : std::uint8_t {
  device,
  managed,
  host_pinned,
  device_heap,
  host_registered
};

struct Allocation {
  std::uintptr_t begin = 0;
  std::size_t bytes = 0;
  AllocationKind kind = AllocationKind::device;
  std::string site;  // "vecadd.cu:23" (where it was allocated), or ""
};

// Allocates like cudaMalloc (256-byte aligned, uninitialized); throws CudaError
// (cudaErrorMemoryAllocation) when the host is out of memory. 0 bytes gives nullptr.
void* allocate(std::size_t bytes, AllocationKind kind, std::string site);
// Memory the program owns, known from now on as an allocation of `kind` (cudaHostRegister): its
// bytes count as written; release() forgets it without freeing it.
void adopt(void* p, std::size_t bytes, AllocationKind kind, std::string site);
// Records memory its owner manages (the device heap's blocks in its arena) as an allocation; its
// release() forgets it without freeing anything.
void register_allocation(void* begin, std::size_t bytes, AllocationKind kind, std::string site);
// Frees an allocation of this kind; false when `p` is not the start of one (nothing is freed).
bool release(void* p, AllocationKind kind);
// The allocation that holds `p`, if any.
std::optional<Allocation> find_allocation(const void* p);
std::vector<Allocation> live_allocations();
// The allocation that `p` is in or near (within a page before or after it), if any: what a stray
// access missed.
std::optional<Allocation> allocation_near(const void* p);
// What made an allocation of this kind, in CUDA's words: "cudaMalloc", "malloc in a kernel", ...
const char* allocator_name(AllocationKind kind);

// The device heap: memory a kernel allocated itself (malloc, new in device code). It is device
// memory, not host memory, for the checks; gpulab run's runtime reports each such allocation and
// its release (it wraps the program's malloc, free, new and delete).
void note_device_heap(const void* p, std::size_t bytes);
void forget_device_heap(const void* p);

// Check mode for global memory. Turned on before the program allocates anything: from then on every
// allocation keeps one "written" bit per byte.
void enable_memory_checks();
bool memory_checks_enabled();
// Host-side writes (copies, memset) and copies between allocations keep the bits up to date.
void mark_initialized(const void* p, std::size_t bytes);
void copy_initialized(void* dst, const void* src, std::size_t bytes);
// Bytes of [p, p + bytes) in allocations never written; *first: offset of the first one from p.
std::size_t count_uninitialized(const void* p, std::size_t bytes, std::size_t* first);

struct MemoryFinding {
  enum class Kind : std::uint8_t {
    out_of_bounds,       // past (or before) a cudaMalloc allocation or a __device__ variable
    host_memory,         // memory that is no device memory: malloc, new, a host variable
    uninitialized_read,  // device memory no one wrote
    global_race,         // two threads, one writing, no ordering, same bytes of global memory
  };
  Kind kind = Kind::out_of_bounds;
  uint3 block{0, 0, 0};
  ThreadId thread;
  bool write = false;
  bool atomic = false;
  unsigned bytes = 0;
  std::uintptr_t pc = 0;  // code address of the access (FILE:LINE once symbolized)
  std::uintptr_t address = 0;
  // The memory it hit or missed: an allocation, or a __device__ variable.
  std::string region;  // "allocation" or the variable's name
  std::string region_site;
  std::uint64_t region_bytes = 0;
  std::int64_t offset = 0;  // from the region's start (negative: before it)
  // global_race: the other access.
  uint3 other_block{0, 0, 0};
  ThreadId other_thread;
  bool other_write = false;
  std::uintptr_t other_pc = 0;
  std::uint64_t hits = 1;  // accesses of this kind at this pc
};

namespace detail {

struct GlobalAccessContext {
  std::uint64_t block_linear = 0;
  uint3 block{0, 0, 0};
  dim3 block_dim, grid;
  std::uint32_t thread = 0;
  std::uint32_t epoch = 0;  // barrier interval of the block (the race checker's)
  std::uintptr_t stack_begin = 0, stack_end = 0;  // the CUDA thread's own stack
  std::uint32_t lock = 0;  // the spin lock the thread holds (lock_token), 0: none
};

// A lock's address as the race shadow keeps it: never 0.
inline std::uint32_t lock_token(std::uintptr_t address) {
  return static_cast<std::uint32_t>(address >> 2) | 0x80000000u;
}

// Called for every access outside shared memory while a checked launch runs.
void check_global(std::uintptr_t address, std::size_t size, bool write, bool atomic,
                  std::uintptr_t pc, const GlobalAccessContext& context);

// A launch begins: the kernel's argument block (read by the emulator's own launch code, not by
// the kernel) is not global memory; accesses of earlier launches are ordered before this one.
// blocks_in_order: the workers take the blocks in linear order (no shuffled order, no cooperative
// launch): each worker logs its block's accesses without a lock and the logs are checked in block
// order, split by address among the workers, so that any number of workers gives the findings of
// one. Otherwise every access is checked at once, under a lock, in the order the workers make them.
void begin_checked_launch(std::uintptr_t arguments_begin, std::uintptr_t arguments_end,
                          bool blocks_in_order = false);
// The launch's workers (before they start): the in-order check is split in as many parts.
void checked_launch_workers(unsigned workers);
// From the race checker of a worker: it starts a block (`block`: the block's fields of the
// context, the same for all its threads); it is done with its blocks (aborted: its last block did
// not finish, so no later block is checked).
void checked_block_begun(const GlobalAccessContext& block);
void checked_worker_done(bool aborted);
// The hot path of check mode: while the worker logs its block's accesses (blocks in order), an
// access outside the CUDA thread's stack is logged here with no lock, no lookup and no context
// built, and true is returned; false: not logging, check_global() checks it.
bool log_global(std::uintptr_t address, std::size_t size, bool write, bool atomic,
                std::uintptr_t pc, std::uint32_t thread, std::uint32_t epoch, std::uint32_t lock);
// Global accesses of a CUDA block, logged for the in-order check (the block's own fields are the
// log's) as runs: `count` accesses made with the same code, the k-th at address + k *
// address_step by thread + k * thread_step, and the block's (index + k * index_step)-th logged
// access. A block's loop makes most of its accesses so (a[i] for i = threadIdx.x of each thread in
// turn), and the log stays short; expanded, the runs give back every access in its order.
struct LoggedAccess {
  std::uintptr_t address = 0;
  std::uintptr_t pc = 0;
  std::uint32_t thread = 0;
  std::uint32_t epoch = 0;
  std::uint32_t size = 0;
  std::uint32_t lock = 0;  // the spin lock the thread held (lock_token), 0: none
  bool write = false, atomic = false;
  std::uint32_t count = 1;
  std::int32_t thread_step = 0;
  std::int64_t address_step = 0;
  std::uint64_t index = 0;
  std::uint64_t index_step = 0;
  // The k-th access's address, thread and place in the block's order (wrapping arithmetic: steps
  // may be negative).
  std::uintptr_t address_at(std::uint64_t k) const {
    return address + static_cast<std::uintptr_t>(k * static_cast<std::uint64_t>(address_step));
  }
  std::uint32_t thread_at(std::uint64_t k) const {
    return thread + static_cast<std::uint32_t>(k) * static_cast<std::uint32_t>(thread_step);
  }
  std::uint64_t index_at(std::uint64_t k) const { return index + k * index_step; }
};
// What the race checker's inline hook needs to log an access itself (memory_check.cpp keeps it
// up to date): the worker's log, or null while it keeps none; the number of the block's next
// logged access; and the run each code address may extend, with what the run's next access must
// be: a code address has two slots of kOpenRuns (open_slot()), so that the few addresses of a
// kernel's accesses seldom take each other's.
inline constexpr std::size_t kOpenRuns = 64;
inline std::size_t open_slot(std::uintptr_t pc) {
  return static_cast<std::size_t>((pc * 0x9e3779b97f4a7c15ull) >> 58);
}
struct OpenRun {
  std::uintptr_t pc = 0;  // 0: no run open
  std::uintptr_t next_address = 0;
  std::uint64_t next_index = 0;
  std::int64_t address_step = 0;
  std::uint64_t index_step = 0;
  std::uint32_t next_thread = 0;
  std::int32_t thread_step = 0;
  std::uint32_t epoch = 0;
  std::uint32_t kind = 0;  // size << 2 | write << 1 | atomic
  std::uint32_t lock = 0;
  std::uint32_t count = 0;
  std::uint32_t run = 0;  // its place in the log
};
// `open` points at kOpenRuns slots kept by the race checker, not here: tl_fast_log is
// thread-local, and the static TLS block, where the kernels' __shared__ arrays live, keeps its
// size.
struct FastLog {
  std::vector<LoggedAccess>* accesses = nullptr;
  std::uintptr_t arguments_begin = 0, arguments_end = 0;  // the launch's argument block
  std::uint64_t next_index = 0;
  OpenRun* open = nullptr;
  // The log's runs left (the log was taken or emptied): none is open.
  void close_runs() {
    if (open != nullptr)
      for (std::size_t i = 0; i < kOpenRuns; ++i) open[i].pc = 0;
  }
};
inline thread_local FastLog tl_fast_log;
// Beyond this many logged runs (72 bytes each) a block waits for its turn and its log so far
// joins the in-order check (log_global() does it).
inline constexpr std::size_t kLogLimit = std::size_t{1} << 20;
// How many blocks of memory kernels allocated themselves (malloc in a kernel) exist: while there
// are any, log_global() looks every access up among them.
inline std::atomic<std::size_t> g_device_heap_blocks{0};
// Logs an access as the next of the run its code address has open when it continues it. False
// where it does not: log_new_run() logs it.
inline bool log_in_run(FastLog& log, std::uintptr_t address, std::size_t size, bool write,
                       bool atomic, std::uintptr_t pc, std::uint32_t thread, std::uint32_t epoch,
                       std::uint32_t lock) {
  const std::size_t slot = open_slot(pc);
  OpenRun& o = log.open[log.open[slot].pc == pc ? slot : slot ^ 1];
  const std::uint32_t kind =
      static_cast<std::uint32_t>(size) << 2 | std::uint32_t{write} << 1 | std::uint32_t{atomic};
  if (o.pc != pc || o.epoch != epoch || o.kind != kind || o.lock != lock) return false;
  const std::uint64_t index = log.next_index;
  LoggedAccess& r = (*log.accesses)[o.run];
  if (o.count == 1) {
    o.address_step = static_cast<std::int64_t>(address - r.address);
    o.thread_step = static_cast<std::int32_t>(thread - r.thread);
    o.index_step = index - r.index;
    r.address_step = o.address_step;
    r.thread_step = o.thread_step;
    r.index_step = o.index_step;
  } else if (address != o.next_address || thread != o.next_thread || index != o.next_index ||
             o.count == UINT32_MAX) {
    return false;
  }
  o.next_address = address + static_cast<std::uintptr_t>(o.address_step);
  o.next_thread = thread + static_cast<std::uint32_t>(o.thread_step);
  o.next_index = index + o.index_step;
  r.count = ++o.count;
  log.next_index = index + 1;
  return true;
}
// Logs an access as a new run, open for its code address (false: the log is full).
inline bool log_new_run(FastLog& log, std::uintptr_t address, std::size_t size, bool write,
                        bool atomic, std::uintptr_t pc, std::uint32_t thread, std::uint32_t epoch,
                        std::uint32_t lock) {
  std::vector<LoggedAccess>& v = *log.accesses;
  if (v.size() + 1 >= kLogLimit) return false;
  LoggedAccess& r = v.emplace_back();
  r.address = address;
  r.pc = pc;
  r.thread = thread;
  r.epoch = epoch;
  r.size = static_cast<std::uint32_t>(size);
  r.lock = lock;
  r.write = write;
  r.atomic = atomic;
  r.index = log.next_index++;
  // The slot of the two that holds the code address's run, else a free one, else the first.
  std::size_t slot = open_slot(pc);
  if (log.open[slot].pc != pc &&
      (log.open[slot ^ 1].pc == pc || (log.open[slot].pc != 0 && log.open[slot ^ 1].pc == 0)))
    slot ^= 1;
  OpenRun& o = log.open[slot];
  o.pc = pc;
  o.epoch = epoch;
  o.kind =
      static_cast<std::uint32_t>(size) << 2 | std::uint32_t{write} << 1 | std::uint32_t{atomic};
  o.lock = lock;
  o.count = 1;
  o.run = static_cast<std::uint32_t>(v.size() - 1);
  return true;
}
inline bool log_run(FastLog& log, std::uintptr_t address, std::size_t size, bool write, bool atomic,
                    std::uintptr_t pc, std::uint32_t thread, std::uint32_t epoch,
                    std::uint32_t lock) {
  return log_in_run(log, address, size, write, atomic, pc, thread, epoch, lock) ||
         log_new_run(log, address, size, write, atomic, pc, thread, epoch, lock);
}
// log_global()'s common case, inline: true when the access is logged (or is one of the launch's
// argument block, never checked); false: log_global() decides.
inline bool log_global_fast(std::uintptr_t address, std::size_t size, bool write, bool atomic,
                            std::uintptr_t pc, std::uint32_t thread, std::uint32_t epoch,
                            std::uint32_t lock) {
  FastLog& log = tl_fast_log;
  if (log.accesses == nullptr) return false;
  if (address >= log.arguments_begin && address < log.arguments_end) return true;
  if (g_device_heap_blocks.load(std::memory_order_relaxed) != 0) return false;
  return log_run(log, address, size, write, atomic, pc, thread, epoch, lock);
}
// Runs that touch the same elements by the same threads (the same first address, steps, count,
// size, first thread), taken together: a group is the bytes its runs lie in, whether one of them
// writes, and its runs, [first, last) of the runs as sorted by runs_apart().
struct RunGroup {
  std::uintptr_t begin = 0, end = 0;
  bool write = false;
  std::size_t first = 0, last = 0;
};
// Sorts `runs` into groups (`groups`, by first byte) and tells whether the groups meet only where
// all of them only read: then no two CUDA threads of these runs touch one byte with one writing,
// as long as each run that writes touches each byte by one thread.
bool runs_apart(std::vector<const LoggedAccess*>& runs, std::vector<RunGroup>& groups);
// Runs expanded into their accesses, each with its place in the block's order.
using ExpandedAccesses = std::vector<std::pair<std::uint64_t, LoggedAccess>>;
// Appends each access of run `r` to `out`.
void expand_run(const LoggedAccess& r, ExpandedAccesses& out);
// Sorts expanded accesses into the order they were made (in order already when every run holds
// one access).
void sort_in_order(ExpandedAccesses& accesses);
// The blocks of a cooperative launch met at grid.sync(): what they did before it is ordered before
// what they do after, as between two launches (no race across it).
void grid_synchronized();
// The findings of the launch, one per (kind, code address), with hit counts.
std::vector<MemoryFinding> end_checked_launch();

}  // namespace detail
}  // namespace gpulab::simt
