// Device allocations and the global-memory checks of check mode (see memory_check.hpp).
#include "simt/memory_check.hpp"

#include <link.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
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
  std::map<std::uintptr_t, std::size_t> device_heap;
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
};

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

ThreadId thread_id(std::uint32_t t, dim3 block_dim) {
  return ThreadId{
      t, uint3{t % block_dim.x, (t / block_dim.x) % block_dim.y, t / (block_dim.x * block_dim.y)}};
}

void check_race(State& s, std::uintptr_t address, std::size_t size, bool write, bool atomic,
                std::uintptr_t pc, const detail::GlobalAccessContext& c, MemoryFinding base) {
  const std::uintptr_t end = address + size;
  for (std::uintptr_t g = address & ~std::uintptr_t{3}; g < end; g += 4) {
    std::uint8_t mask = 0;
    for (std::uintptr_t b = std::max(g, address); b < std::min(g + 4, end); ++b) {
      mask = static_cast<std::uint8_t>(mask | (1u << (b - g)));
    }
    auto& page = s.shadow[g / kShadowPage];
    if (!page) page = std::make_unique<Cell[]>(kShadowPage / 4);
    Cell& cell = page[(g % kShadowPage) / 4];
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
      MemoryFinding f = base;
      f.kind = MemoryFinding::Kind::global_race;
      f.other_write = other_wrote;
      f.other_pc = other->pc + s.load_bias;
      f.other_thread = thread_id(other->thread, c.block_dim);
      const std::uint64_t gx = c.grid.x, gy = c.grid.y;
      f.other_block = uint3{static_cast<unsigned>(other->block % gx),
                            static_cast<unsigned>((other->block / gx) % gy),
                            static_cast<unsigned>(other->block / (gx * gy))};
      add_finding(s, std::move(f));
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
}

void forget_device_heap(const void* p) {
  State& s = state();
  std::lock_guard lock(s.heap_mutex);
  s.device_heap.erase(reinterpret_cast<std::uintptr_t>(p));
}

namespace detail {

void begin_checked_launch(std::uintptr_t arguments_begin, std::uintptr_t arguments_end) {
  State& s = state();
  std::lock_guard lock(s.mutex);
  scan_program(s);
  ++s.launch;
  s.arguments_begin = arguments_begin;
  s.arguments_end = arguments_end;
  s.findings.clear();
  s.finding_index.clear();
}

void grid_synchronized() {
  State& s = state();
  std::lock_guard lock(s.mutex);
  if (s.checks && s.launch != 0) ++s.launch;
}

std::vector<MemoryFinding> end_checked_launch() {
  State& s = state();
  std::lock_guard lock(s.mutex);
  s.arguments_begin = s.arguments_end = 0;
  s.finding_index.clear();
  return std::move(s.findings);
}

void check_global(std::uintptr_t address, std::size_t size, bool write, bool atomic,
                  std::uintptr_t pc, const GlobalAccessContext& c) {
  if (address >= c.stack_begin && address < c.stack_end) return;  // the thread's local memory
  State& s = state();
  std::lock_guard lock(s.mutex);
  if (!s.checks || s.launch == 0) return;
  if (address >= s.arguments_begin && address < s.arguments_end) return;

  MemoryFinding f;
  f.block = c.block;
  f.thread = thread_id(c.thread, c.block_dim);
  f.write = write;
  f.atomic = atomic;
  f.bytes = static_cast<unsigned>(size);
  f.pc = pc;
  f.address = address;

  if (const auto it = entry_near(s, address); it != s.allocations.end()) {
    const Entry& e = it->second;
    f.region = "allocation";
    f.region_site = e.site;
    f.region_bytes = e.bytes;
    f.offset = static_cast<std::int64_t>(address) - static_cast<std::int64_t>(it->first);
    if (address < it->first || address + size > it->first + e.bytes) {
      f.kind = MemoryFinding::Kind::out_of_bounds;
      add_finding(s, std::move(f));
      return;
    }
    if (e.written) {
      std::uint8_t* bits = e.written.get() + (address - it->first);
      if (write) {
        std::memset(bits, 1, size);
      } else if (std::find(bits, bits + size, std::uint8_t{0}) != bits + size) {
        MemoryFinding u = f;
        u.kind = MemoryFinding::Kind::uninitialized_read;
        add_finding(s, std::move(u));
        if (atomic) std::memset(bits, 1, size);
      }
    }
    check_race(s, address, size, write, atomic, pc, c, std::move(f));
    return;
  }

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
      check_race(s, address, size, write, atomic, pc, c, std::move(f));
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

}  // namespace detail
}  // namespace gpulab::simt
