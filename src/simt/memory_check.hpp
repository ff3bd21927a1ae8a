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
// One global access of a CUDA thread, logged for the in-order check (the block's own fields are
// the log's).
struct LoggedAccess {
  std::uintptr_t address = 0;
  std::uintptr_t pc = 0;
  std::uint32_t thread = 0;
  std::uint32_t epoch = 0;
  std::uint32_t size = 0;
  std::uint32_t lock = 0;  // the spin lock the thread held (lock_token), 0: none
  bool write = false, atomic = false;
};
// What the race checker's inline hook needs to log an access itself (memory_check.cpp keeps it
// up to date): the worker's log, or null while it keeps none.
struct FastLog {
  std::vector<LoggedAccess>* accesses = nullptr;
  std::uintptr_t arguments_begin = 0, arguments_end = 0;  // the launch's argument block
};
inline thread_local FastLog tl_fast_log;
// Beyond this many logged accesses (40 bytes each) a block waits for its turn and its log so far
// joins the in-order check (log_global() does it).
inline constexpr std::size_t kLogLimit = std::size_t{1} << 20;
// How many blocks of memory kernels allocated themselves (malloc in a kernel) exist: while there
// are any, log_global() looks every access up among them.
inline std::atomic<std::size_t> g_device_heap_blocks{0};
// log_global()'s common case, inline: true when the access is logged (or is one of the launch's
// argument block, never checked); false: log_global() decides.
inline bool log_global_fast(std::uintptr_t address, std::size_t size, bool write, bool atomic,
                            std::uintptr_t pc, std::uint32_t thread, std::uint32_t epoch,
                            std::uint32_t lock) {
  FastLog& log = tl_fast_log;
  if (log.accesses == nullptr) return false;
  if (address >= log.arguments_begin && address < log.arguments_end) return true;
  if (log.accesses->size() + 1 >= kLogLimit ||
      g_device_heap_blocks.load(std::memory_order_relaxed) != 0)
    return false;
  log.accesses->push_back(
      {address, pc, thread, epoch, static_cast<std::uint32_t>(size), lock, write, atomic});
  return true;
}
// The blocks of a cooperative launch met at grid.sync(): what they did before it is ordered before
// what they do after, as between two launches (no race across it).
void grid_synchronized();
// The findings of the launch, one per (kind, code address), with hit counts.
std::vector<MemoryFinding> end_checked_launch();

}  // namespace detail
}  // namespace gpulab::simt
