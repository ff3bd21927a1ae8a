// Device allocations and the global-memory checks of check mode (see memory_check.hpp).
#include "simt/memory_check.hpp"

#include <link.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <unordered_map>

#include "core/i18n_format.hpp"
#include "simt/program_symbols.hpp"

namespace gpulab::simt {

namespace {

// Every allocation is surrounded by this much memory of its own, so that an access a little before
// or past it lands in memory that is known to belong to it (and is reported as out of bounds)
// rather than in some neighbouring host buffer.
constexpr std::size_t kPad = 4096;

struct Entry {
  std::size_t bytes = 0;
  AllocationKind kind = AllocationKind::device;
  std::string site;
  void* block = nullptr;   // what malloc returned (begin - kPad), or the mapping's start
  std::size_t mapped = 0;  // the mapping's bytes (0: from malloc)
  std::unique_ptr<std::uint8_t[]> written;  // check mode: 1 per byte written
};

// One record of the race shadow: the last write or read of a 4-byte granule in a launch.
struct Record {
  std::uint32_t launch = 0;  // 0: none
  std::uint32_t epoch = 0;
  std::uint64_t block = 0;
  std::uint32_t pc = 0;  // offset from the program's load address
  std::uint16_t thread = 0;
  std::uint8_t bytes = 0;  // which of the granule's 4 bytes
  bool atomic = false;
  std::uint32_t lock = 0;  // the spin lock held (lock_token), 0: none
};
struct Cell {
  Record write, read;
};
constexpr std::size_t kShadowPage = 4096;

struct State {
  std::mutex mutex;
  std::map<std::uintptr_t, Entry> allocations;  // by begin
  // begin -> bytes: malloc/new in kernels. A mutex of its own: the wrappers of free and delete
  // (run/runtime/device_heap.cpp) reach forget_device_heap from any free, also one made while
  // `mutex` is held. Order: `mutex`, then `heap_mutex`.
  std::mutex heap_mutex;
  std::map<std::uintptr_t, std::size_t> device_heap;  // its size: detail::g_device_heap_blocks
  bool checks = false;

  // Check mode.
  std::uint32_t launch = 0;
  std::uintptr_t arguments_begin = 0, arguments_end = 0;
  std::unordered_map<std::uintptr_t, std::unique_ptr<Cell[]>> shadow;  // by page
  std::vector<MemoryFinding> findings;
  std::map<std::pair<int, std::uintptr_t>, std::size_t> finding_index;  // (kind, pc) -> index
  std::vector<std::pair<std::uintptr_t, std::uintptr_t>> static_data;   // the program's data
  std::uintptr_t load_bias = 0;
  bool program_scanned = false;
  // The allocations the last in-bounds accesses fell in, and the last shadow pages: a kernel's
  // accesses go to a few arrays, each near its previous access there (a map lookup saved per
  // access). The allocations are forgotten whenever one is made or released.
  struct Hit {
    std::uintptr_t begin = 0, end = 0;
    const Entry* entry = nullptr;
  };
  std::array<Hit, 4> hits{};
  unsigned next_hit = 0;
  std::array<std::pair<std::uintptr_t, Cell*>, 4> pages{{{UINTPTR_MAX, nullptr},
                                                         {UINTPTR_MAX, nullptr},
                                                         {UINTPTR_MAX, nullptr},
                                                         {UINTPTR_MAX, nullptr}}};
  unsigned next_page = 0;
};

void forget_hits(State& s) {
  s.hits = {};
}

Cell& shadow_cell(State& s, std::uintptr_t granule) {
  const std::uintptr_t page = granule / kShadowPage;
  Cell* cells = nullptr;
  for (const auto& [p, c] : s.pages) {
    if (p == page) cells = c;
  }
  if (cells == nullptr) {
    auto& owned = s.shadow[page];
    if (!owned) owned = std::make_unique<Cell[]>(kShadowPage / 4);
    cells = owned.get();
    s.pages[s.next_page++ % s.pages.size()] = {page, cells};
  }
  return cells[(granule % kShadowPage) / 4];
}

// Never destroyed: allocations are still looked at by exit handlers (the leak report).
State& state() {
  static State* s = new State;
  return *s;
}

// The entry that holds `p`, else the nearest one within kPad of it (lock held). Allocations may lie
// closer together than kPad (the device heap's blocks): one that holds `p` comes first.
std::map<std::uintptr_t, Entry>::iterator entry_near(State& s, std::uintptr_t p) {
  const auto next = s.allocations.upper_bound(p);  // the first that starts after p
  auto before = s.allocations.end();
  if (next != s.allocations.begin()) {
    before = std::prev(next);
    if (p < before->first + before->second.bytes) return before;  // inside it
  }
  const std::uintptr_t past_before =
      before != s.allocations.end() && p < before->first + before->second.bytes + kPad
          ? p - (before->first + before->second.bytes)
          : UINTPTR_MAX;
  const std::uintptr_t to_next =
      next != s.allocations.end() && p + kPad >= next->first ? next->first - p : UINTPTR_MAX;
  if (past_before == UINTPTR_MAX && to_next == UINTPTR_MAX) return s.allocations.end();
  return past_before <= to_next ? before : next;
}

void scan_program(State& s) {
  if (s.program_scanned) return;
  s.program_scanned = true;
  dl_iterate_phdr(
      [](dl_phdr_info* info, std::size_t, void* data) -> int {
        auto* st = static_cast<State*>(data);
        st->load_bias = info->dlpi_addr;
        for (int i = 0; i < info->dlpi_phnum; ++i) {
          const auto& ph = info->dlpi_phdr[i];
          if (ph.p_type == PT_LOAD && (ph.p_flags & PF_X) == 0) {
            st->static_data.emplace_back(info->dlpi_addr + ph.p_vaddr,
                                         info->dlpi_addr + ph.p_vaddr + ph.p_memsz);
          }
        }
        return 1;  // the main program only
      },
      &s);
}

void add_finding(State& s, MemoryFinding f) {
  const auto key = std::make_pair(static_cast<int>(f.kind), f.pc);
  if (const auto it = s.finding_index.find(key); it != s.finding_index.end()) {
    ++s.findings[it->second].hits;
    return;
  }
  if (s.findings.size() >= 1000) return;
  s.finding_index.emplace(key, s.findings.size());
  s.findings.push_back(std::move(f));
}

// A finding of `kind` at `pc`: counted as another hit when one is already there, else made by
// `make` (a MemoryFinding with its strings is built only when something is wrong).
template <class Make>
void add_finding(State& s, MemoryFinding::Kind kind, std::uintptr_t pc, Make make) {
  const auto key = std::make_pair(static_cast<int>(kind), pc);
  if (const auto it = s.finding_index.find(key); it != s.finding_index.end()) {
    ++s.findings[it->second].hits;
    return;
  }
  if (s.findings.size() >= 1000) return;
  MemoryFinding f = make();
  f.kind = kind;
  s.finding_index.emplace(key, s.findings.size());
  s.findings.push_back(std::move(f));
}

ThreadId thread_id(std::uint32_t t, dim3 block_dim) {
  return ThreadId{
      t, uint3{t % block_dim.x, (t / block_dim.x) % block_dim.y, t / (block_dim.x * block_dim.y)}};
}

template <class Base>
void check_race(State& s, std::uintptr_t address, std::size_t size, bool write, bool atomic,
                std::uintptr_t pc, const detail::GlobalAccessContext& c, Base base) {
  const std::uintptr_t end = address + size;
  for (std::uintptr_t g = address & ~std::uintptr_t{3}; g < end; g += 4) {
    std::uint8_t mask = 0;
    for (std::uintptr_t b = std::max(g, address); b < std::min(g + 4, end); ++b) {
      mask = static_cast<std::uint8_t>(mask | (1u << (b - g)));
    }
    Cell& cell = shadow_cell(s, g);
    const Record now{s.launch,
                     c.epoch,
                     c.block_linear,
                     static_cast<std::uint32_t>(pc - s.load_bias),
                     static_cast<std::uint16_t>(c.thread),
                     mask,
                     atomic,
                     c.lock};
    const auto conflicts = [&](const Record& r, bool r_wrote) {
      if (r.launch != s.launch || (r.bytes & mask) == 0) return false;
      if (!r_wrote && !write) return false;
      if (r.atomic && atomic) return false;
      if (r.lock != 0 && r.lock == c.lock) return false;  // both under the same spin lock
      if (r.block != c.block_linear) return true;
      return r.thread != c.thread && r.epoch == c.epoch;
    };
    const Record* other = nullptr;
    bool other_wrote = false;
    if (conflicts(cell.write, true)) {
      other = &cell.write;
      other_wrote = true;
    } else if (write && conflicts(cell.read, false)) {
      other = &cell.read;
    }
    if (other != nullptr) {
      add_finding(s, MemoryFinding::Kind::global_race, pc, [&] {
        MemoryFinding f = base();
        f.other_write = other_wrote;
        f.other_pc = other->pc + s.load_bias;
        f.other_thread = thread_id(other->thread, c.block_dim);
        const std::uint64_t gx = c.grid.x, gy = c.grid.y;
        f.other_block = uint3{static_cast<unsigned>(other->block % gx),
                              static_cast<unsigned>((other->block / gx) % gy),
                              static_cast<unsigned>(other->block / (gx * gy))};
        return f;
      });
    }
    if (write) {
      cell.write = now;
    } else {
      cell.read = now;
    }
  }
}

}  // namespace

namespace {

// Records an allocation at `begin`; `block` (malloc's) or the mapping of `mapped` bytes is what
// release() gives back (nothing when both are empty); `written` whether its bytes count as
// written for the checks.
void record(std::uintptr_t begin, std::size_t bytes, AllocationKind kind, std::string site,
            void* block, std::size_t mapped, bool written) {
  State& s = state();
  std::lock_guard lock(s.mutex);
  Entry e;
  e.bytes = bytes;
  e.kind = kind;
  e.site = std::move(site);
  e.block = block;
  e.mapped = mapped;
  if (s.checks) {
    e.written = std::make_unique<std::uint8_t[]>(bytes);  // zeroed: nothing written
    if (written) std::memset(e.written.get(), 1, bytes);
  }
  s.allocations[begin] = std::move(e);
  forget_hits(s);
}

// Device memory (cudaMalloc, cudaMallocManaged) ends where a PROT_NONE page begins, so that a
// kernel that reads or writes past it faults, as on a GPU, whose allocations are mapped in whole
// pages: the size is rounded up to cudaMalloc's 256 bytes first, and an access inside that rounding
// is not caught (a GPU does not fault there either). A page before the allocation is PROT_NONE too.
// Returns the mapping's start and sets *begin, or nullptr when the system refuses it.
void* map_guarded(std::size_t rounded, std::size_t* mapped, std::uintptr_t* begin) {
  static const std::size_t page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  const std::size_t data = (rounded + page - 1) / page * page;
  const std::size_t total = data + 2 * page;
  void* m = ::mmap(nullptr, total, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (m == MAP_FAILED) return nullptr;
  if (::mprotect(static_cast<char*>(m) + page, data, PROT_READ | PROT_WRITE) != 0) {
    ::munmap(m, total);
    return nullptr;
  }
  *mapped = total;
  *begin = reinterpret_cast<std::uintptr_t>(m) + page + data - rounded;
  return m;
}

}  // namespace

void* allocate(std::size_t bytes, AllocationKind kind, std::string site) {
  if (bytes == 0) return nullptr;
  const std::size_t rounded = (bytes + 255) / 256 * 256;
  std::size_t mapped = 0;
  std::uintptr_t begin = 0;
  void* block = nullptr;
  if (kind == AllocationKind::device || kind == AllocationKind::managed) {
    block = map_guarded(rounded, &mapped, &begin);
  }
  if (block == nullptr) {
    // Host memory (cudaMallocHost), blocks of the device heap (many and small), or no mapping
    // left: from malloc, padded so that check mode can tell a near miss.
    mapped = 0;
    block = std::aligned_alloc(256, rounded + 2 * kPad);
    begin = reinterpret_cast<std::uintptr_t>(block) + kPad;
  }
  if (block == nullptr) {
    throw CudaError("cudaErrorMemoryAllocation",
                    both("out of memory: could not allocate {} bytes of (emulated) device memory",
                         "内存不足：无法分配 {} 字节（模拟的）设备内存", bytes));
  }
  record(begin, bytes, kind, std::move(site), block, mapped, false);
  return reinterpret_cast<void*>(begin);
}

void adopt(void* p, std::size_t bytes, AllocationKind kind, std::string site) {
  // The program's own memory: never freed here, already written.
  record(reinterpret_cast<std::uintptr_t>(p), bytes, kind, std::move(site), nullptr, 0, true);
}

void register_allocation(void* begin, std::size_t bytes, AllocationKind kind, std::string site) {
  record(reinterpret_cast<std::uintptr_t>(begin), bytes, kind, std::move(site), nullptr, 0, false);
}

bool release(void* p, AllocationKind kind) {
  State& s = state();
  void* block = nullptr;
  std::size_t mapped = 0;
  {
    std::lock_guard lock(s.mutex);
    const auto it = s.allocations.find(reinterpret_cast<std::uintptr_t>(p));
    if (it == s.allocations.end() || it->second.kind != kind) return false;
    block = it->second.block;
    mapped = it->second.mapped;
    s.allocations.erase(it);
    forget_hits(s);
  }
  if (mapped != 0) {
    ::munmap(block, mapped);
  } else {
    std::free(block);
  }
  return true;
}

const char* allocator_name(AllocationKind kind) {
  switch (kind) {
    case AllocationKind::device:
      return "cudaMalloc";
    case AllocationKind::managed:
      return "cudaMallocManaged";
    case AllocationKind::host_pinned:
      return "cudaMallocHost";
    case AllocationKind::device_heap:
      return "malloc in a kernel";
    case AllocationKind::host_registered:
      return "cudaHostRegister";
  }
  return "";
}

std::optional<Allocation> allocation_near(const void* p) {
  State& s = state();
  std::lock_guard lock(s.mutex);
  const auto it = entry_near(s, reinterpret_cast<std::uintptr_t>(p));
  if (it == s.allocations.end()) return std::nullopt;
  return Allocation{it->first, it->second.bytes, it->second.kind, it->second.site};
}

std::optional<Allocation> find_allocation(const void* p) {
  State& s = state();
  const auto a = reinterpret_cast<std::uintptr_t>(p);
  std::lock_guard lock(s.mutex);
  auto it = s.allocations.upper_bound(a);
  if (it == s.allocations.begin()) return std::nullopt;
  --it;
  if (a >= it->first + it->second.bytes) return std::nullopt;
  return Allocation{it->first, it->second.bytes, it->second.kind, it->second.site};
}

std::vector<Allocation> live_allocations() {
  State& s = state();
  std::lock_guard lock(s.mutex);
  std::vector<Allocation> out;
  for (const auto& [begin, e] : s.allocations) out.push_back({begin, e.bytes, e.kind, e.site});
  return out;
}

void enable_memory_checks() {
  State& s = state();
  std::lock_guard lock(s.mutex);
  s.checks = true;
}

bool memory_checks_enabled() {
  State& s = state();
  std::lock_guard lock(s.mutex);
  return s.checks;
}

void mark_initialized(const void* p, std::size_t bytes) {
  State& s = state();
  std::lock_guard lock(s.mutex);
  if (!s.checks) return;
  auto a = reinterpret_cast<std::uintptr_t>(p);
  const std::uintptr_t end = a + bytes;
  while (a < end) {
    auto it = s.allocations.upper_bound(a);
    if (it == s.allocations.begin()) return;
    --it;
    const std::uintptr_t alloc_end = it->first + it->second.bytes;
    if (a >= alloc_end || !it->second.written) return;
    const std::uintptr_t stop = std::min(end, alloc_end);
    std::memset(it->second.written.get() + (a - it->first), 1, stop - a);
    a = stop;
  }
}

void copy_initialized(void* dst, const void* src, std::size_t bytes) {
  State& s = state();
  std::lock_guard lock(s.mutex);
  if (!s.checks) return;
  const auto find = [&](std::uintptr_t a) -> Entry* {
    auto it = s.allocations.upper_bound(a);
    if (it == s.allocations.begin()) return nullptr;
    --it;
    if (a + bytes > it->first + it->second.bytes || !it->second.written) return nullptr;
    return &it->second;
  };
  const auto d = reinterpret_cast<std::uintptr_t>(dst);
  const auto sr = reinterpret_cast<std::uintptr_t>(src);
  Entry* de = find(d);
  if (de == nullptr) return;
  const auto d_begin = entry_near(s, d)->first;
  std::uint8_t* dbits = de->written.get() + (d - d_begin);
  if (Entry* se = find(sr); se != nullptr) {
    const auto s_begin = entry_near(s, sr)->first;
    std::memmove(dbits, se->written.get() + (sr - s_begin), bytes);
  } else {
    std::memset(dbits, 1, bytes);  // from host memory: written
  }
}

std::size_t count_uninitialized(const void* p, std::size_t bytes, std::size_t* first) {
  State& s = state();
  std::lock_guard lock(s.mutex);
  if (!s.checks) return 0;
  const auto a = reinterpret_cast<std::uintptr_t>(p);
  auto it = s.allocations.upper_bound(a);
  if (it == s.allocations.begin()) return 0;
  --it;
  if (!it->second.written || a + bytes > it->first + it->second.bytes) return 0;
  const std::uint8_t* bits = it->second.written.get() + (a - it->first);
  std::size_t count = 0;
  for (std::size_t i = 0; i < bytes; ++i) {
    if (bits[i] == 0) {
      if (count == 0 && first != nullptr) *first = i;
      ++count;
    }
  }
  return count;
}

void note_device_heap(const void* p, std::size_t bytes) {
  State& s = state();
  std::lock_guard lock(s.heap_mutex);
  s.device_heap[reinterpret_cast<std::uintptr_t>(p)] = std::max<std::size_t>(bytes, 1);
  detail::g_device_heap_blocks.store(s.device_heap.size(), std::memory_order_relaxed);
}

void forget_device_heap(const void* p) {
  State& s = state();
  std::lock_guard lock(s.heap_mutex);
  s.device_heap.erase(reinterpret_cast<std::uintptr_t>(p));
  detail::g_device_heap_blocks.store(s.device_heap.size(), std::memory_order_relaxed);
}

namespace detail {

namespace {

// The global accesses of one block, in the order its threads made them.
struct BlockLog {
  std::uint64_t block = 0;  // linear index
  GlobalAccessContext context;
  bool aborted = false;  // the block did not finish (a fault): no later block is checked
  std::vector<LoggedAccess> accesses;
};

// Blocks checked in order while they run on several workers. Each worker logs its block's
// accesses without a lock; a finished block's log waits until every block before it is checked,
// and the worker that completes the sequence checks the logs in block order. The shadow, the
// written bits and the findings thus see the accesses in the order of one worker running block 0,
// 1, 2 ...: the same findings, in the same order, from run to run and with any number of workers.
struct InOrder {
  std::atomic<bool> active{false};
  std::mutex mutex;
  std::condition_variable changed;
  std::uint64_t next = 0;  // the next block to check
  bool checking = false;   // a worker is checking logs
  bool stopped = false;    // a block was aborted: later blocks are not checked
  std::map<std::uint64_t, BlockLog> waiting;
  std::size_t waiting_accesses = 0;
  // Logs already checked, kept for the next blocks (no allocation, no fresh pages per block).
  std::vector<std::vector<LoggedAccess>> spare;
};

// Finished blocks wait for their turn beyond this many logged accesses in all.
constexpr std::size_t kWaitingLimit = std::size_t{1} << 22;

InOrder& in_order() {
  static auto* o = new InOrder;
  return *o;
}

thread_local BlockLog tl_log;  // tl_fast_log.accesses points at its accesses while logging

void check_locked(State& s, std::uintptr_t address, std::size_t size, bool write, bool atomic,
                  std::uintptr_t pc, const GlobalAccessContext& c);

void check_log(const BlockLog& log) {
  State& s = state();
  std::lock_guard lock(s.mutex);
  GlobalAccessContext c = log.context;
  for (const LoggedAccess& a : log.accesses) {
    c.thread = a.thread;
    c.epoch = a.epoch;
    c.lock = a.lock;
    check_locked(s, a.address, a.size, a.write, a.atomic, a.pc, c);
  }
}

// Checks the waiting logs that are next in order (the caller holds o.mutex in `lock`).
void check_waiting(InOrder& o, std::unique_lock<std::mutex>& lock) {
  if (o.checking) return;
  o.checking = true;
  while (!o.stopped) {
    const auto it = o.waiting.find(o.next);
    if (it == o.waiting.end()) break;
    BlockLog log = std::move(it->second);
    o.waiting.erase(it);
    o.waiting_accesses -= log.accesses.size();
    lock.unlock();
    check_log(log);
    lock.lock();
    ++o.next;
    if (o.spare.size() < 64 && log.accesses.capacity() <= (std::size_t{1} << 16)) {
      log.accesses.clear();
      o.spare.push_back(std::move(log.accesses));
    }
    if (log.aborted) {
      o.stopped = true;
      o.waiting.clear();
      o.waiting_accesses = 0;
    }
    o.changed.notify_all();
  }
  o.checking = false;
  o.changed.notify_all();
}

// The worker's block ended (or was aborted): its log joins the sequence.
void end_block_log(bool aborted) {
  if (tl_fast_log.accesses == nullptr) return;
  tl_fast_log.accesses = nullptr;
  InOrder& o = in_order();
  std::unique_lock lock(o.mutex);
  const std::uint64_t block = tl_log.block;
  o.changed.wait(
      lock, [&] { return o.stopped || block == o.next || o.waiting_accesses < kWaitingLimit; });
  if (o.stopped) {
    tl_log.accesses.clear();
    return;
  }
  BlockLog& log = o.waiting[block];
  log.block = block;
  log.context = tl_log.context;
  log.aborted = aborted;
  log.accesses.swap(tl_log.accesses);
  tl_log.accesses.clear();
  if (!o.spare.empty()) {
    tl_log.accesses = std::move(o.spare.back());
    o.spare.pop_back();
  }
  o.waiting_accesses += log.accesses.size();
  check_waiting(o, lock);
}

// A block's log grew long: wait for its turn and check it so far.
void check_log_so_far() {
  InOrder& o = in_order();
  std::unique_lock lock(o.mutex);
  o.changed.wait(lock, [&] { return o.stopped || (o.next == tl_log.block && !o.checking); });
  if (!o.stopped) {
    o.checking = true;
    lock.unlock();
    check_log(tl_log);
    lock.lock();
    o.checking = false;
    o.changed.notify_all();
  }
  tl_log.accesses.clear();
}

bool in_device_heap(State& s, std::uintptr_t address) {
  std::lock_guard heap_lock(s.heap_mutex);
  if (auto it = s.device_heap.upper_bound(address); it != s.device_heap.begin()) {
    --it;
    return address < it->first + it->second;
  }
  return false;
}

}  // namespace

void begin_checked_launch(std::uintptr_t arguments_begin, std::uintptr_t arguments_end,
                          bool blocks_in_order) {
  State& s = state();
  std::lock_guard lock(s.mutex);
  scan_program(s);
  ++s.launch;
  s.arguments_begin = arguments_begin;
  s.arguments_end = arguments_end;
  s.findings.clear();
  s.finding_index.clear();
  InOrder& o = in_order();
  std::lock_guard order_lock(o.mutex);
  o.next = 0;
  o.checking = o.stopped = false;
  o.waiting.clear();
  o.waiting_accesses = 0;
  o.active = blocks_in_order && s.checks;
}

void grid_synchronized() {
  State& s = state();
  std::lock_guard lock(s.mutex);
  if (s.checks && s.launch != 0) ++s.launch;
}

std::vector<MemoryFinding> end_checked_launch() {
  InOrder& o = in_order();
  {
    // Every worker has ended its blocks: what waits still (blocks after a gap that no worker
    // reached) is checked in order.
    std::unique_lock order_lock(o.mutex);
    o.active = false;
    while (!o.stopped && !o.waiting.empty()) {
      o.next = o.waiting.begin()->first;
      check_waiting(o, order_lock);
    }
    o.waiting.clear();
    o.waiting_accesses = 0;
  }
  State& s = state();
  std::lock_guard lock(s.mutex);
  s.arguments_begin = s.arguments_end = 0;
  s.finding_index.clear();
  return std::move(s.findings);
}

void checked_block_begun(const GlobalAccessContext& block) {
  if (!in_order().active.load(std::memory_order_relaxed)) return;
  end_block_log(false);
  tl_log.block = block.block_linear;
  tl_log.context = block;
  tl_log.accesses.clear();
  const State& s = state();  // the arguments' range is set before the launch's workers start
  tl_fast_log.arguments_begin = s.arguments_begin;
  tl_fast_log.arguments_end = s.arguments_end;
  tl_fast_log.accesses = &tl_log.accesses;
}

void checked_worker_done(bool aborted) {
  end_block_log(aborted);
}

bool log_global(std::uintptr_t address, std::size_t size, bool write, bool atomic,
                std::uintptr_t pc, std::uint32_t thread, std::uint32_t epoch, std::uint32_t lock) {
  if (tl_fast_log.accesses == nullptr) return false;
  State& s = state();
  // The arguments' range and the checks' switch are set before the launch's workers start.
  if (address >= s.arguments_begin && address < s.arguments_end) return true;
  // Memory a kernel allocated itself (malloc in a kernel) is not checked; a block of it may be
  // freed before the log is checked, so it is looked up now.
  if (g_device_heap_blocks.load(std::memory_order_relaxed) != 0 && in_device_heap(s, address))
    return true;
  tl_log.accesses.push_back(
      {address, pc, thread, epoch, static_cast<std::uint32_t>(size), lock, write, atomic});
  if (tl_log.accesses.size() >= kLogLimit) check_log_so_far();
  return true;
}

void check_global(std::uintptr_t address, std::size_t size, bool write, bool atomic,
                  std::uintptr_t pc, const GlobalAccessContext& c) {
  if (address >= c.stack_begin && address < c.stack_end) return;  // the thread's local memory
  if (log_global(address, size, write, atomic, pc, c.thread, c.epoch, c.lock)) return;
  State& s = state();
  std::lock_guard lock(s.mutex);
  check_locked(s, address, size, write, atomic, pc, c);
}

namespace {

void check_locked(State& s, std::uintptr_t address, std::size_t size, bool write, bool atomic,
                  std::uintptr_t pc, const GlobalAccessContext& c) {
  if (!s.checks || s.launch == 0) return;
  if (address >= s.arguments_begin && address < s.arguments_end) return;

  // The access, with what it hit or missed filled in by the caller.
  const auto finding = [&] {
    MemoryFinding f;
    f.block = c.block;
    f.thread = thread_id(c.thread, c.block_dim);
    f.write = write;
    f.atomic = atomic;
    f.bytes = static_cast<unsigned>(size);
    f.pc = pc;
    f.address = address;
    return f;
  };

  std::uintptr_t begin = 0;
  const Entry* hit = nullptr;
  for (const State::Hit& h : s.hits) {
    if (address >= h.begin && address + size <= h.end) {
      hit = h.entry;
      begin = h.begin;
    }
  }
  if (hit == nullptr) {
    if (const auto it = entry_near(s, address); it != s.allocations.end()) {
      begin = it->first;
      if (address >= begin && address + size <= begin + it->second.bytes) {
        hit = &it->second;
        s.hits[s.next_hit++ % s.hits.size()] = {begin, begin + hit->bytes, hit};
      } else {
        add_finding(s, MemoryFinding::Kind::out_of_bounds, pc, [&] {
          MemoryFinding f = finding();
          f.region = "allocation";
          f.region_site = it->second.site;
          f.region_bytes = it->second.bytes;
          f.offset = static_cast<std::int64_t>(address) - static_cast<std::int64_t>(begin);
          return f;
        });
        return;
      }
    }
  }
  if (hit != nullptr) {
    const auto in_allocation = [&] {
      MemoryFinding f = finding();
      f.region = "allocation";
      f.region_site = hit->site;
      f.region_bytes = hit->bytes;
      f.offset = static_cast<std::int64_t>(address) - static_cast<std::int64_t>(begin);
      return f;
    };
    if (hit->written) {
      std::uint8_t* bits = hit->written.get() + (address - begin);
      if (write) {
        std::memset(bits, 1, size);
      } else if (std::find(bits, bits + size, std::uint8_t{0}) != bits + size) {
        add_finding(s, MemoryFinding::Kind::uninitialized_read, pc, in_allocation);
        if (atomic) std::memset(bits, 1, size);
      }
    }
    check_race(s, address, size, write, atomic, pc, c, in_allocation);
    return;
  }

  MemoryFinding f = finding();
  const bool in_static =
      std::any_of(s.static_data.begin(), s.static_data.end(),
                  [&](const auto& r) { return address >= r.first && address < r.second; });
  if (in_static) {
    const auto& symbols = ProgramSymbols::get();
    const auto below = symbols.object_at_or_below(address);
    if (below && address < below->address + below->size) {
      if (address + size > below->address + below->size) {
        f.kind = MemoryFinding::Kind::out_of_bounds;
        f.region = below->name;
        f.region_bytes = below->size;
        f.offset = static_cast<std::int64_t>(address - below->address);
        add_finding(s, std::move(f));
        return;
      }
      f.region = below->name;
      f.region_bytes = below->size;
      f.offset = static_cast<std::int64_t>(address - below->address);
      check_race(s, address, size, write, atomic, pc, c, [&] { return f; });
      return;
    }
    // Between variables: just past the one below is out of its bounds; anything else (padding,
    // data the compiler made) is left alone.
    if (below && address < below->address + below->size + 256) {
      f.kind = MemoryFinding::Kind::out_of_bounds;
      f.region = below->name;
      f.region_bytes = below->size;
      f.offset = static_cast<std::int64_t>(address - below->address);
      add_finding(s, std::move(f));
    }
    return;
  }
  // Memory a kernel allocated (malloc, new): device memory, as on a GPU.
  std::optional<std::pair<std::uintptr_t, std::size_t>> heap_block;
  {
    std::lock_guard heap_lock(s.heap_mutex);
    if (auto it = s.device_heap.upper_bound(address); it != s.device_heap.begin()) {
      --it;
      if (address < it->first + it->second) heap_block = *it;
    }
  }
  // Not race-checked: a block freed and allocated again by another thread is new memory, which
  // the shadow of the old one cannot tell.
  if (heap_block) return;
  f.kind = MemoryFinding::Kind::host_memory;
  add_finding(s, std::move(f));
}

}  // namespace
}  // namespace detail
}  // namespace gpulab::simt
