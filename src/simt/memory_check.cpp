// Device allocations and the global-memory checks of check mode (see memory_check.hpp).
#include "simt/memory_check.hpp"

#include <link.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <span>
#include <tuple>
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
// The shadow pages live in kShadowMaps maps by page number; a launch's check is split among
// kMaxParts parts or fewer (a power of two): part p holds the pages whose number is p modulo the
// parts, and so whole maps. A round of the check runs as tasks side by side (a power of two, at
// most the parts): task t checks the parts p = t modulo the tasks, and alone touches their maps.
constexpr std::size_t kShadowMaps = 64;
constexpr unsigned kMaxParts = 64;
static_assert(kShadowMaps % kMaxParts == 0);

// A place in the order of one worker running block 0, 1, 2 ...: (block, access of the block), or
// (0, access) when accesses are checked as they come.
using Position = std::pair<std::uint64_t, std::uint64_t>;

// What one task of a launch's check keeps: the allocations the last in-bounds accesses fell in and
// the last shadow pages (a kernel's accesses go to a few arrays, each near its previous access
// there: a map lookup saved per access), and the findings. A cache line of its own: the tasks run
// side by side.
struct alignas(64) Part {
  struct Hit {
    std::uintptr_t begin = 0, end = 0;
    const Entry* entry = nullptr;
  };
  std::array<Hit, 4> hits{};
  unsigned next_hit = 0;
  std::uint64_t hits_generation = 0;  // State::generation when `hits` were found
  std::array<std::pair<std::uintptr_t, Cell*>, 4> pages{};
  unsigned next_page = 0;
  // One finding per (kind, code address), the first in this part's order, with its hits here.
  struct Found {
    MemoryFinding finding;
    Position first;
  };
  std::vector<Found> findings;
  std::map<std::pair<int, std::uintptr_t>, std::size_t> finding_index;  // (kind, pc) -> index
  Position at{0, 0};                                                    // the access being checked

  void forget_pages() {
    pages.fill({UINTPTR_MAX, nullptr});
    next_page = 0;
  }
  void clear() {
    hits = {};
    forget_pages();
    findings.clear();
    finding_index.clear();
    at = {0, 0};
  }
};

// A run of accesses of one block kept for the launch (LoggedAccess), with its block.
struct KeptRun {
  detail::LoggedAccess run;
  std::uint64_t block = 0;
};
// The ranges of one part's pages that the launch's accesses touched, disjoint and by first byte.
// A range with runs is one whose accesses were none of them a finding, and whose every 4-byte
// granule only reads touched (`reads`), or only one CUDA thread: its shadow is not written, its
// runs are kept instead (what they did to each granule can be written there later, exactly). A
// range without runs (`shadow`) has its history in the race shadow, access by access.
struct Span {
  std::uintptr_t end = 0;
  bool shadow = false;
  bool reads = false;
  std::vector<KeptRun> runs;
};
using SpanIndex = std::map<std::uintptr_t, Span>;
// At most this many runs are kept in a launch's spans (72 bytes each): beyond, the shadow takes
// every access.
constexpr std::size_t kKeptRuns = std::size_t{1} << 22;

struct State {
  std::shared_mutex mutex;  // shared: the parts of a launch's check, which only read allocations
  std::map<std::uintptr_t, Entry> allocations;  // by begin
  std::uint64_t generation = 1;                 // counts changes of `allocations`
  // begin -> bytes: malloc/new in kernels. A mutex of its own: the wrappers of free and delete
  // (run/runtime/device_heap.cpp) reach forget_device_heap from any free, also one made while
  // `mutex` is held. Order: `mutex`, then `heap_mutex`.
  std::mutex heap_mutex;
  std::map<std::uintptr_t, std::size_t> device_heap;  // its size: detail::g_device_heap_blocks
  bool checks = false;

  // Check mode.
  std::uint32_t launch = 0;
  std::uintptr_t arguments_begin = 0, arguments_end = 0;
  std::array<std::unordered_map<std::uintptr_t, std::unique_ptr<Cell[]>>, kShadowMaps>
      shadow;                                                          // by page
  std::vector<std::pair<std::uintptr_t, std::uintptr_t>> static_data;  // the program's data
  std::uintptr_t load_bias = 0;
  bool program_scanned = false;
  std::array<Part, kMaxParts> parts;  // the parts of a launch whose blocks are checked in order
  Part direct;                        // accesses checked as they come, under the lock
  // What the launch's in-order check knows of each part's pages (part p: the pages whose number
  // is p modulo the parts), by the tasks that check that part.
  std::array<SpanIndex, kMaxParts> spans;
  std::atomic<std::size_t> kept_runs{0};  // runs kept in `spans` this launch (kKeptRuns at most)
};

// The allocations changed: the parts' cached hits are stale (lock held).
void forget_hits(State& s) {
  ++s.generation;
}

// Granules of one shadow page belong to one part (see kShadowMaps).
Cell& shadow_cell(State& s, Part& part, std::uintptr_t granule) {
  const std::uintptr_t page = granule / kShadowPage;
  Cell* cells = nullptr;
  for (const auto& [p, c] : part.pages) {
    if (p == page) cells = c;
  }
  if (cells == nullptr) {
    auto& owned = s.shadow[page % kShadowMaps][page];
    if (!owned) owned = std::make_unique<Cell[]>(kShadowPage / 4);
    cells = owned.get();
    part.pages[part.next_page++ % part.pages.size()] = {page, cells};
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

// A finding of `kind` at `pc`: counted as another hit when the task has one already, else made by
// `make` (a MemoryFinding with its strings is built only when something is wrong). A task keeps
// every code address's earliest finding in the order of one worker (at most kPartFindings), so
// that the launch's first 1000 are the same whatever the tasks (end_checked_launch()). A task
// checks a block's accesses part by part, not in that order: an earlier access found later takes
// the finding's place.
constexpr std::size_t kPartFindings = std::size_t{1} << 16;
template <class Make>
void add_finding(Part& part, MemoryFinding::Kind kind, std::uintptr_t pc, Make make) {
  const auto key = std::make_pair(static_cast<int>(kind), pc);
  if (const auto it = part.finding_index.find(key); it != part.finding_index.end()) {
    Part::Found& found = part.findings[it->second];
    const std::uint64_t hits = found.finding.hits + 1;
    if (part.at < found.first) {
      found.finding = make();
      found.finding.kind = kind;
      found.first = part.at;
    }
    found.finding.hits = hits;
    return;
  }
  if (part.findings.size() >= kPartFindings) return;
  MemoryFinding f = make();
  f.kind = kind;
  part.finding_index.emplace(key, part.findings.size());
  part.findings.push_back({std::move(f), part.at});
}

ThreadId thread_id(std::uint32_t t, dim3 block_dim) {
  return ThreadId{
      t, uint3{t % block_dim.x, (t / block_dim.x) % block_dim.y, t / (block_dim.x * block_dim.y)}};
}

template <class Base>
void check_race(State& s, Part& part, std::uintptr_t address, std::size_t size, bool write,
                bool atomic, std::uintptr_t pc, const detail::GlobalAccessContext& c, Base base) {
  const std::uintptr_t end = address + size;
  for (std::uintptr_t g = address & ~std::uintptr_t{3}; g < end; g += 4) {
    std::uint8_t mask = 0;
    for (std::uintptr_t b = std::max(g, address); b < std::min(g + 4, end); ++b) {
      mask = static_cast<std::uint8_t>(mask | (1u << (b - g)));
    }
    Cell& cell = shadow_cell(s, part, g);
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
      add_finding(part, MemoryFinding::Kind::global_race, pc, [&] {
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
//
// Each guarded allocation costs the process two of its memory mappings (the kernel's
// vm.max_map_count, 65530 by default): a program that makes a million small allocations (a
// course's matrix as a million managed rows) would use them all up, and then even malloc's
// mappings of large blocks fail. So at most a quarter of that limit is spent on guards; later
// allocations come from malloc, without guard pages, while so many are alive.
std::atomic<std::size_t> g_guarded_alive{0};

std::size_t guarded_budget() {
  static const std::size_t budget = [] {
    std::size_t limit = 65530;
    if (std::FILE* f = std::fopen("/proc/sys/vm/max_map_count", "r")) {
      unsigned long v = 0;
      if (std::fscanf(f, "%lu", &v) == 1 && v > 0) limit = v;
      std::fclose(f);
    }
    return limit / 4;
  }();
  return budget;
}

void* map_guarded(std::size_t rounded, std::size_t* mapped, std::uintptr_t* begin) {
  static const std::size_t page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  if (g_guarded_alive.fetch_add(1, std::memory_order_relaxed) >= guarded_budget()) {
    g_guarded_alive.fetch_sub(1, std::memory_order_relaxed);
    return nullptr;
  }
  const auto refuse = [] {
    g_guarded_alive.fetch_sub(1, std::memory_order_relaxed);
    return nullptr;
  };
  const std::size_t data = (rounded + page - 1) / page * page;
  const std::size_t total = data + 2 * page;
  void* m = ::mmap(nullptr, total, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (m == MAP_FAILED) return refuse();
  if (::mprotect(static_cast<char*>(m) + page, data, PROT_READ | PROT_WRITE) != 0) {
    ::munmap(m, total);
    return refuse();
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
    g_guarded_alive.fetch_sub(1, std::memory_order_relaxed);
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

// Global accesses of one block, as runs (LoggedAccess): the whole block's, or (a long block) the
// next part of them.
struct Batch {
  std::uint64_t block = 0;  // linear index
  GlobalAccessContext context;
  bool aborted = false;  // the block did not finish (a fault): no later block is checked
  // An access spans two shadow pages (of two parts): the batch is checked whole by one part
  // while no other part runs.
  bool serial = false;
  std::vector<LoggedAccess> accesses;
  // order[begin[p], begin[p + 1]) are the indices of part p's runs (each within one page).
  std::vector<std::uint32_t> order;
  std::vector<std::uint32_t> begin;
};

// Blocks checked in order while they run on several workers. Each worker logs its block's
// accesses without a lock; a finished block's log waits until every block before it is ready, and
// the ready logs are checked in rounds: each part checks, in block order, the accesses to its
// shadow pages, and the parts of a round run side by side on whichever workers end a block (or
// wait for their turn) meanwhile. Every byte's written bit and every granule's shadow thus see
// their accesses in the order of one worker running block 0, 1, 2 ..., and the parts' findings,
// merged by the first access of each (end_checked_launch()), are the same findings in the same
// order from run to run and with any number of workers.
struct InOrder {
  std::atomic<bool> active{false};
  unsigned parts = 1;  // a power of two, at most kMaxParts; set before the workers start
  std::mutex mutex;
  std::condition_variable changed;
  std::uint64_t next = 0;                     // the next block to be ready
  bool stopped = false;                       // a block was aborted: later blocks are not checked
  std::map<std::uint64_t, Batch> waiting;     // finished, blocks before them not
  std::deque<Batch> ready;                    // in order, for the next rounds
  std::vector<Batch> round;                   // being checked
  unsigned tasks = 0, claimed = 0, done = 0;  // the round's tasks
  std::size_t outstanding = 0;                // runs waiting, ready and in the round
  // Batches already checked, kept for the next blocks (no allocation, no fresh pages per block).
  std::vector<Batch> spare;
};

// Finished blocks wait for their turn beyond this many logged runs in all.
constexpr std::size_t kWaitingLimit = std::size_t{1} << 22;
// A round is split in tasks of at least this many runs.
constexpr std::size_t kTaskRuns = std::size_t{1} << 12;

InOrder& in_order() {
  static auto* o = new InOrder;
  return *o;
}

thread_local Batch tl_log;  // tl_fast_log.accesses points at its accesses while logging
thread_local std::vector<LoggedAccess> tl_split;

void check_locked(State& s, Part& part, std::uintptr_t address, std::size_t size, bool write,
                  bool atomic, std::uintptr_t pc, const GlobalAccessContext& c);

// Cuts a batch's runs at shadow pages and sorts them by part (its worker does it, before it takes
// the lock); an access across two pages makes the batch serial, its runs left as they are.
void split_by_part(Batch& b, unsigned parts) {
  b.serial = false;
  std::vector<LoggedAccess>& out = tl_split;
  out.clear();
  for (const LoggedAccess& r : b.accesses) {
    const std::uint64_t step = static_cast<std::uint64_t>(r.address_step);
    const std::uint64_t size = std::max<std::uint32_t>(r.size, 1);
    for (std::uint64_t k = 0; k < r.count;) {
      const std::uintptr_t a = r.address_at(k);
      const std::uintptr_t page = a / kShadowPage;
      // The accesses from the k-th on that start in this page: n of them.
      std::uint64_t n = r.count - k;
      if (r.address_step > 0) {
        n = std::min<std::uint64_t>(n, ((page + 1) * kShadowPage - 1 - a) / step + 1);
      } else if (r.address_step < 0) {
        n = std::min<std::uint64_t>(n, (a - page * kShadowPage) / (0 - step) + 1);
      }
      if ((a + size - 1) / kShadowPage != page ||
          (r.address_at(k + n - 1) + size - 1) / kShadowPage != page) {
        b.serial = true;
        return;
      }
      LoggedAccess& part = out.emplace_back(r);
      part.address = a;
      part.thread = r.thread_at(k);
      part.index = r.index_at(k);
      part.count = static_cast<std::uint32_t>(n);
      k += n;
    }
  }
  b.accesses.swap(out);
  b.begin.assign(parts + 1, 0);
  for (const LoggedAccess& r : b.accesses) ++b.begin[((r.address / kShadowPage) & (parts - 1)) + 1];
  for (unsigned p = 0; p < parts; ++p) b.begin[p + 1] += b.begin[p];
  b.order.resize(b.accesses.size());
  std::array<std::uint32_t, kMaxParts> at{};
  std::copy(b.begin.begin(), b.begin.end() - 1, at.begin());
  for (std::uint32_t i = 0; i < b.accesses.size(); ++i)
    b.order[at[(b.accesses[i].address / kShadowPage) & (parts - 1)]++] = i;
}

// The bytes a run's accesses lie in, first to last.
std::pair<std::uintptr_t, std::uintptr_t> run_bytes(const LoggedAccess& r) {
  const std::uintptr_t first = r.address, last = r.address_at(r.count - 1);
  return {std::min(first, last), std::max(first, last) + std::max<std::uint32_t>(r.size, 1)};
}

}  // namespace

void expand_run(const LoggedAccess& r, ExpandedAccesses& out) {
  for (std::uint64_t k = 0; k < r.count; ++k) {
    LoggedAccess a = r;
    a.address = r.address_at(k);
    a.thread = r.thread_at(k);
    a.count = 1;
    out.emplace_back(r.index_at(k), a);
  }
}

void sort_in_order(ExpandedAccesses& accesses) {
  const auto earlier = [](const auto& x, const auto& y) { return x.first < y.first; };
  if (!std::is_sorted(accesses.begin(), accesses.end(), earlier))
    std::sort(accesses.begin(), accesses.end(), earlier);
}

bool runs_apart(std::vector<const LoggedAccess*>& runs, std::vector<RunGroup>& groups) {
  groups.clear();
  const auto key = [](const LoggedAccess& r) {
    return std::make_tuple(r.address, r.address_step, r.count, r.size, r.thread, r.thread_step);
  };
  std::sort(runs.begin(), runs.end(),
            [&](const LoggedAccess* x, const LoggedAccess* y) { return key(*x) < key(*y); });
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const auto [begin, end] = run_bytes(*runs[i]);
    if (i == 0 || key(*runs[i]) != key(*runs[i - 1])) groups.push_back({begin, end, false, i, i});
    groups.back().write = groups.back().write || runs[i]->write;
    groups.back().last = i + 1;
  }
  std::sort(groups.begin(), groups.end(),
            [](const RunGroup& x, const RunGroup& y) { return x.begin < y.begin; });
  std::uintptr_t reach = 0, write_reach = 0;
  for (const RunGroup& g : groups) {
    if (g.begin < write_reach || (g.write && g.begin < reach)) return false;
    reach = std::max(reach, g.end);
    if (g.write) write_reach = std::max(write_reach, g.end);
  }
  return true;
}

namespace {

// The allocation that holds [begin, end) whole, from the part's cache or the map (lock held).
const Entry* allocation_holding(State& s, Part& part, std::uintptr_t begin, std::uintptr_t end,
                                std::uintptr_t* start) {
  for (const Part::Hit& h : part.hits) {
    if (begin >= h.begin && end <= h.end) {
      *start = h.begin;
      return h.entry;
    }
  }
  const auto it = entry_near(s, begin);
  if (it == s.allocations.end() || begin < it->first || end > it->first + it->second.bytes)
    return nullptr;
  part.hits[part.next_hit++ % part.hits.size()] = {it->first, it->first + it->second.bytes,
                                                   &it->second};
  *start = it->first;
  return &it->second;
}

// Writes into the race shadow what a kept range's runs did to each granule they touched: the
// records that the check of their accesses one by one, in order, would have left there (4-byte
// aligned and whole granules; the last read and the last write of each).
void write_shadow(State& s, Part& part, const Span& span) {
  struct Touch {
    std::uint64_t block, index;
    std::uintptr_t address;
    const KeptRun* kept;
    std::uint32_t thread;
  };
  thread_local std::vector<Touch> touches;
  touches.clear();
  for (const KeptRun& kept : span.runs) {
    const LoggedAccess& r = kept.run;
    for (std::uint64_t k = 0; k < r.count; ++k)
      touches.push_back({kept.block, r.index_at(k), r.address_at(k), &kept, r.thread_at(k)});
  }
  if (span.runs.size() > 1 || span.reads)
    std::sort(touches.begin(), touches.end(), [](const Touch& x, const Touch& y) {
      return std::tie(x.block, x.index) < std::tie(y.block, y.index);
    });
  for (const Touch& t : touches) {
    const LoggedAccess& r = t.kept->run;
    const Record now{s.launch,
                     r.epoch,
                     t.block,
                     static_cast<std::uint32_t>(r.pc - s.load_bias),
                     static_cast<std::uint16_t>(t.thread),
                     0xf,
                     r.atomic,
                     r.lock};
    for (std::uintptr_t g = t.address; g < t.address + r.size; g += 4) {
      Cell& cell = shadow_cell(s, part, g);
      (r.write ? cell.write : cell.read) = now;
    }
  }
}

// From now on the shadow pages of [begin, end) are shadow in the index (whole pages, so that the
// index holds no more ranges than pages, however scattered the accesses): the runs kept in ranges
// that meet them are written into the shadow first.
void make_shadow(State& s, Part& part, SpanIndex& index, std::uintptr_t begin, std::uintptr_t end) {
  begin -= begin % kShadowPage;
  end += (kShadowPage - end % kShadowPage) % kShadowPage;
  auto it = index.upper_bound(begin);
  // Shadow already (the common case once a page is).
  if (it != index.begin() && std::prev(it)->second.shadow && std::prev(it)->second.end >= end)
    return;
  // The range before, when it meets or touches this one.
  if (it != index.begin() && std::prev(it)->second.end >= begin &&
      (std::prev(it)->second.end > begin || std::prev(it)->second.shadow))
    --it;
  while (it != index.end() && (it->first < end || (it->first == end && it->second.shadow))) {
    write_shadow(s, part, it->second);
    s.kept_runs -= it->second.runs.size();
    begin = std::min(begin, it->first);
    end = std::max(end, it->second.end);
    it = index.erase(it);
  }
  index.emplace(begin, Span{end, true, false, {}});
}

// Keeps [begin, end) with its runs, merged with the kept ranges of its kind (reads only, or not)
// that it meets or touches (it meets none of the other kind).
void keep_range(SpanIndex& index, std::uintptr_t begin, std::uintptr_t end, bool reads,
                std::vector<KeptRun>& runs) {
  const auto joins = [&](const Span& span) { return !span.shadow && span.reads == reads; };
  auto it = index.upper_bound(begin);
  if (it != index.begin() && std::prev(it)->second.end >= begin && joins(std::prev(it)->second))
    --it;
  Span merged{end, false, reads, {}};
  bool first = true;
  while (it != index.end() && it->first <= end && joins(it->second)) {
    begin = std::min(begin, it->first);
    merged.end = std::max(merged.end, it->second.end);
    if (first) {
      merged.runs = std::move(it->second.runs);
    } else {
      merged.runs.insert(merged.runs.end(), it->second.runs.begin(), it->second.runs.end());
    }
    first = false;
    it = index.erase(it);
  }
  merged.runs.insert(merged.runs.end(), runs.begin(), runs.end());
  index.emplace(begin, std::move(merged));
}

// Checks part p's runs of a batch, runs [first, last) of `order`, when they can be checked as
// ranges: each run in an allocation, 4-byte aligned and whole granules, reading written bytes
// only, no atomic or spin lock among them; a run that writes touches each granule once, and meets
// only runs of the same threads on the same elements (y[i] = a * x[i] + y[i]); no run meets a
// range that an earlier block touched, unless both only read. Then no access of theirs can be a
// finding, and their ranges are kept with their runs. False: nothing was done, they are to be
// checked one by one.
bool check_ranges(State& s, Part& part, SpanIndex& index, const Batch& b,
                  const std::uint32_t* first, const std::uint32_t* last) {
  const std::size_t n = static_cast<std::size_t>(last - first);
  if (s.kept_runs.load(std::memory_order_relaxed) + n > kKeptRuns) return false;
  // Accesses that hardly form runs (a gather, a scatter) are checked one by one at once: ranges
  // would cost more than they save.
  std::uint64_t accesses = 0;
  for (const std::uint32_t* i = first; i != last; ++i) accesses += b.accesses[*i].count;
  if (n > 4 && accesses < 4 * n) return false;
  thread_local std::vector<const LoggedAccess*> runs;
  thread_local std::vector<RunGroup> groups;
  runs.clear();
  for (const std::uint32_t* i = first; i != last; ++i) {
    const LoggedAccess& r = b.accesses[*i];
    const std::uint64_t step =
        r.address_step < 0 ? 0 - static_cast<std::uint64_t>(r.address_step) : r.address_step;
    if (r.atomic || r.lock != 0 || r.size == 0 || r.size % 4 != 0 || r.address % 4 != 0 ||
        (r.count > 1 && (step % 4 != 0 || (r.write && step < r.size))))
      return false;
    const auto [begin, end] = run_bytes(r);
    std::uintptr_t start = 0;
    const Entry* e = allocation_holding(s, part, begin, end, &start);
    if (e == nullptr) return false;
    if (e->written && !r.write) {
      const std::uint8_t* written = e->written.get() + (r.address - start);
      if (r.count > 1 && step == r.size) {
        if (std::memchr(e->written.get() + (begin - start), 0, end - begin) != nullptr)
          return false;
      } else {
        for (std::uint64_t k = 0; k < r.count; ++k) {
          if (std::memchr(written + static_cast<std::ptrdiff_t>(k) * r.address_step, 0, r.size) !=
              nullptr)
            return false;
        }
      }
    }
    // What earlier blocks touched: reads may meet ranges only read.
    auto it = index.upper_bound(begin);
    if (it != index.begin() && std::prev(it)->second.end > begin) --it;
    for (; it != index.end() && it->first < end; ++it) {
      if (r.write || !it->second.reads) return false;
    }
    runs.push_back(&r);
  }
  if (!runs_apart(runs, groups)) return false;
  // None is a finding: the written bits and the kept ranges.
  s.kept_runs += n;
  thread_local std::vector<KeptRun> kept;
  for (const RunGroup& g : groups) {
    kept.clear();
    for (std::size_t i = g.first; i < g.last; ++i) {
      const LoggedAccess& r = *runs[i];
      kept.push_back({r, b.block});
      std::uintptr_t start = 0;
      const Entry* e = allocation_holding(s, part, g.begin, g.end, &start);
      if (!e->written || !r.write) continue;
      std::uint8_t* written = e->written.get() + (r.address - start);
      if (r.count > 1 && (r.address_step == r.size || -r.address_step == r.size)) {
        std::memset(e->written.get() + (g.begin - start), 1, g.end - g.begin);
      } else {
        for (std::uint64_t k = 0; k < r.count; ++k)
          std::memset(written + static_cast<std::ptrdiff_t>(k) * r.address_step, 1, r.size);
      }
    }
    keep_range(index, g.begin, g.end, !g.write, kept);
  }
  return true;
}

// Checks runs [first, last) of `order` (or of the batch) one access at a time, in the block's
// order: the ranges they touch become shadow in `indexes` (the parts whose pages they may be in).
void check_accesses(State& s, Part& part, std::span<SpanIndex> indexes, const Batch& b,
                    const std::uint32_t* first, const std::uint32_t* last) {
  thread_local ExpandedAccesses accesses;
  thread_local std::vector<std::pair<std::uintptr_t, std::uintptr_t>> pages;
  accesses.clear();
  pages.clear();
  for (const std::uint32_t* i = first; i != last; ++i) {
    const auto [begin, end] = run_bytes(b.accesses[*i]);
    pages.emplace_back(begin - begin % kShadowPage,
                       end + (kShadowPage - end % kShadowPage) % kShadowPage);
  }
  // The shadow pages they touch, each range once.
  std::sort(pages.begin(), pages.end());
  std::size_t merged = 0;
  for (const auto& [begin, end] : pages) {
    if (merged != 0 && begin <= pages[merged - 1].second) {
      pages[merged - 1].second = std::max(pages[merged - 1].second, end);
    } else {
      pages[merged++] = {begin, end};
    }
  }
  pages.resize(merged);
  for (const auto& [begin, end] : pages) {
    for (SpanIndex& index : indexes) make_shadow(s, part, index, begin, end);
  }
  for (const std::uint32_t* i = first; i != last; ++i) expand_run(b.accesses[*i], accesses);
  sort_in_order(accesses);
  GlobalAccessContext c = b.context;
  for (const auto& [index, a] : accesses) {
    c.thread = a.thread;
    c.epoch = a.epoch;
    c.lock = a.lock;
    part.at = {b.block, index};
    check_locked(s, part, a.address, a.size, a.write, a.atomic, a.pc, c);
  }
}

// Task `t` of `tasks` of the round: the runs in the pages of its parts, in block order (a round of
// one task: all of them).
void check_task(const std::vector<Batch>& round, unsigned t, unsigned tasks, unsigned parts) {
  State& s = state();
  std::shared_lock lock(s.mutex);  // allocations are only read
  Part& part = s.parts[t];
  if (part.hits_generation != s.generation) {
    part.hits = {};
    part.hits_generation = s.generation;
  }
  for (const Batch& b : round) {
    if (b.serial) {
      thread_local std::vector<std::uint32_t> all;
      all.resize(b.accesses.size());
      for (std::uint32_t i = 0; i < all.size(); ++i) all[i] = i;
      check_accesses(s, part, std::span(s.spans.data(), parts), b, all.data(),
                     all.data() + all.size());
      continue;
    }
    for (unsigned p = t; p < parts; p += tasks) {
      const std::uint32_t* first = b.order.data() + b.begin[p];
      const std::uint32_t* last = b.order.data() + b.begin[p + 1];
      if (first == last || check_ranges(s, part, s.spans[p], b, first, last)) continue;
      check_accesses(s, part, std::span(&s.spans[p], 1), b, first, last);
    }
  }
}

// Starts the next round when the last one is done (o.mutex held).
void start_round(InOrder& o) {
  if (o.done < o.tasks) return;
  for (Batch& b : o.round) {
    o.outstanding -= b.accesses.size();
    if (o.spare.size() < 64 && b.accesses.capacity() <= (std::size_t{1} << 16)) {
      b.accesses.clear();
      o.spare.push_back(std::move(b));
    }
  }
  o.round.clear();
  o.tasks = o.claimed = o.done = 0;
  if (o.ready.empty()) return;
  const bool serial = o.ready.front().serial;
  std::size_t runs = 0;
  do {
    runs += o.ready.front().accesses.size();
    o.round.push_back(std::move(o.ready.front()));
    o.ready.pop_front();
  } while (!serial && !o.ready.empty() && !o.ready.front().serial);
  // A task for at least kTaskRuns runs: a small round costs no more than one task.
  o.tasks = serial ? 1
                   : std::bit_floor(static_cast<unsigned>(
                         std::clamp<std::size_t>(runs / kTaskRuns, 1, o.parts)));
}

// Checks parts of rounds while there are any to take (the caller holds o.mutex in `lock`).
void help(InOrder& o, std::unique_lock<std::mutex>& lock) {
  for (;;) {
    start_round(o);
    if (o.claimed == o.tasks) return;
    const unsigned t = o.claimed++, tasks = o.tasks;
    lock.unlock();
    check_task(o.round, t, tasks, o.parts);  // the round stays as it is until its tasks are done
    lock.lock();
    if (++o.done == o.tasks) o.changed.notify_all();
  }
}

// Waits, checking parts of rounds meanwhile, until `ready()` holds (o.mutex held in `lock`).
template <class Ready>
void wait_helping(InOrder& o, std::unique_lock<std::mutex>& lock, Ready ready) {
  for (;;) {
    start_round(o);
    if (ready()) return;
    if (o.claimed < o.tasks) {
      help(o, lock);
    } else {
      o.changed.wait(lock);
    }
  }
}

// Ready in order: the waiting blocks that are next (o.mutex held).
void advance(InOrder& o) {
  for (auto it = o.waiting.find(o.next); !o.stopped && it != o.waiting.end();
       it = o.waiting.find(o.next)) {
    const bool aborted = it->second.aborted;
    o.ready.push_back(std::move(it->second));
    o.waiting.erase(it);
    ++o.next;
    if (aborted) {
      o.stopped = true;
      for (const auto& [block, b] : o.waiting) o.outstanding -= b.accesses.size();
      o.waiting.clear();
    }
  }
  o.changed.notify_all();
}

// The worker's log so far leaves as a batch (o.mutex held): `tl_log` keeps the block's fields.
Batch take_log(InOrder& o) {
  Batch b;
  if (!o.spare.empty()) {
    b = std::move(o.spare.back());
    o.spare.pop_back();
  }
  b.block = tl_log.block;
  b.context = tl_log.context;
  b.aborted = tl_log.aborted;
  b.serial = tl_log.serial;
  b.accesses.swap(tl_log.accesses);
  b.order.swap(tl_log.order);
  b.begin.swap(tl_log.begin);
  tl_fast_log.close_runs();  // the runs left with the batch
  o.outstanding += b.accesses.size();
  return b;
}

// The worker's block ended (or was aborted): its log joins the sequence.
void end_block_log(bool aborted) {
  if (tl_fast_log.accesses == nullptr) return;
  tl_fast_log.accesses = nullptr;
  InOrder& o = in_order();
  tl_log.aborted = aborted;
  split_by_part(tl_log, o.parts);
  std::unique_lock lock(o.mutex);
  const std::uint64_t block = tl_log.block;
  wait_helping(o, lock,
               [&] { return o.stopped || block == o.next || o.outstanding < kWaitingLimit; });
  if (!o.stopped) {
    o.waiting.emplace(block, take_log(o));
    advance(o);
  }
  tl_log.accesses.clear();
  help(o, lock);
}

// A block's log grew long: it waits for its turn and the log so far joins the sequence.
void check_log_so_far() {
  InOrder& o = in_order();
  tl_log.aborted = false;
  split_by_part(tl_log, o.parts);
  std::unique_lock lock(o.mutex);
  wait_helping(o, lock, [&] { return o.stopped || o.next == tl_log.block; });
  if (!o.stopped) {
    o.ready.push_back(take_log(o));
    o.changed.notify_all();
  }
  tl_log.accesses.clear();
  tl_fast_log.close_runs();
  help(o, lock);
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
  for (Part& part : s.parts) part.clear();
  s.direct.clear();
  for (SpanIndex& index : s.spans) index.clear();
  s.kept_runs = 0;
  InOrder& o = in_order();
  std::lock_guard order_lock(o.mutex);
  o.parts = 1;
  o.next = 0;
  o.stopped = false;
  o.waiting.clear();
  o.ready.clear();
  o.round.clear();
  o.tasks = o.claimed = o.done = 0;
  o.outstanding = 0;
  o.active = blocks_in_order && s.checks;
}

void checked_launch_workers(unsigned workers) {
  InOrder& o = in_order();
  std::lock_guard order_lock(o.mutex);
  o.parts = std::bit_floor(std::clamp(workers, 1u, kMaxParts));
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
      advance(o);
    }
    wait_helping(o, order_lock, [&] { return o.ready.empty() && o.done == o.tasks; });
    start_round(o);  // the last round's batches back to the spares
    o.waiting.clear();
    o.outstanding = 0;
  }
  State& s = state();
  std::lock_guard lock(s.mutex);
  s.arguments_begin = s.arguments_end = 0;
  // Each code address's first finding in the order of one worker, with the hits of all parts;
  // the first 1000 of them.
  std::map<std::pair<int, std::uintptr_t>, Part::Found> merged;
  for (Part* part : [&] {
         std::vector<Part*> all{&s.direct};
         for (Part& p : s.parts) all.push_back(&p);
         return all;
       }()) {
    for (Part::Found& f : part->findings) {
      const auto key = std::make_pair(static_cast<int>(f.finding.kind), f.finding.pc);
      const auto [it, fresh] = merged.try_emplace(key, f);
      if (fresh) continue;
      const std::uint64_t hits = it->second.finding.hits + f.finding.hits;
      if (f.first < it->second.first) it->second = std::move(f);
      it->second.finding.hits = hits;
    }
    part->findings.clear();
    part->finding_index.clear();
  }
  std::vector<Part::Found> found;
  found.reserve(merged.size());
  for (auto& [key, f] : merged) found.push_back(std::move(f));
  std::sort(found.begin(), found.end(),
            [](const Part::Found& a, const Part::Found& b) { return a.first < b.first; });
  if (found.size() > 1000) found.resize(1000);
  std::vector<MemoryFinding> findings;
  findings.reserve(found.size());
  for (Part::Found& f : found) findings.push_back(std::move(f.finding));
  return findings;
}

void checked_block_begun(const GlobalAccessContext& block) {
  if (!in_order().active.load(std::memory_order_relaxed)) return;
  end_block_log(false);
  tl_log.block = block.block_linear;
  tl_fast_log.next_index = 0;
  tl_fast_log.close_runs();
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
  if (!log_run(tl_fast_log, address, size, write, atomic, pc, thread, epoch, lock)) {
    check_log_so_far();
    log_run(tl_fast_log, address, size, write, atomic, pc, thread, epoch, lock);
  }
  return true;
}

void check_global(std::uintptr_t address, std::size_t size, bool write, bool atomic,
                  std::uintptr_t pc, const GlobalAccessContext& c) {
  if (address >= c.stack_begin && address < c.stack_end) return;  // the thread's local memory
  if (log_global(address, size, write, atomic, pc, c.thread, c.epoch, c.lock)) return;
  State& s = state();
  std::lock_guard lock(s.mutex);
  if (s.direct.hits_generation != s.generation) {
    s.direct.hits = {};
    s.direct.hits_generation = s.generation;
  }
  ++s.direct.at.second;
  check_locked(s, s.direct, address, size, write, atomic, pc, c);
}

namespace {

// One access, by the part that owns its shadow pages (`s.mutex` held, shared by the parts).
void check_locked(State& s, Part& part, std::uintptr_t address, std::size_t size, bool write,
                  bool atomic, std::uintptr_t pc, const GlobalAccessContext& c) {
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
  const Entry* hit = allocation_holding(s, part, address, address + size, &begin);
  if (hit == nullptr) {
    // Not whole in an allocation: out of the bounds of the one it is in or near.
    if (const auto it = entry_near(s, address); it != s.allocations.end()) {
      begin = it->first;
      add_finding(part, MemoryFinding::Kind::out_of_bounds, pc, [&] {
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
        add_finding(part, MemoryFinding::Kind::uninitialized_read, pc, in_allocation);
        if (atomic) std::memset(bits, 1, size);
      }
    }
    check_race(s, part, address, size, write, atomic, pc, c, in_allocation);
    return;
  }

  const bool in_static =
      std::any_of(s.static_data.begin(), s.static_data.end(),
                  [&](const auto& r) { return address >= r.first && address < r.second; });
  if (in_static) {
    const auto below = ProgramSymbols::get().object_at_or_below(address);
    // Just past the variable below (or across its end) is out of its bounds; between variables
    // otherwise (padding, data the compiler made) nothing is checked.
    if (!below || address >= below->address + below->size + 256) return;
    const auto in_variable = [&] {
      MemoryFinding f = finding();
      f.region = below->name;
      f.region_bytes = below->size;
      f.offset = static_cast<std::int64_t>(address - below->address);
      return f;
    };
    if (address >= below->address + below->size || address + size > below->address + below->size) {
      add_finding(part, MemoryFinding::Kind::out_of_bounds, pc, in_variable);
    } else {
      check_race(s, part, address, size, write, atomic, pc, c, in_variable);
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
  add_finding(part, MemoryFinding::Kind::host_memory, pc, finding);
}

}  // namespace
}  // namespace detail
}  // namespace gpulab::simt
