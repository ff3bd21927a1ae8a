// gpulab profile's counters, gathered from the instrumented accesses (see profile_gather.hpp).
#include "simt/profile_gather.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <map>
#include <mutex>
#include <span>
#include <unordered_map>

#include "simt/memory_check.hpp"
#include "simt/program_symbols.hpp"
#include "simt/scheduler.hpp"

namespace gpulab::simt {
namespace {

std::atomic<bool> g_enabled{false};
std::atomic<bool> g_only{false};

std::uint64_t mix(std::uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ULL;
  return x ^ (x >> 33);
}

// Open addressing from a 64-bit key (never 0) to a value, cleared in one sweep per block.
template <class V>
class FlatMap {
 public:
  FlatMap() { resize(1024); }
  V& operator[](std::uint64_t key) {
    if ((used_ + 1) * 2 > keys_.size()) grow();
    std::size_t i = mix(key) & mask_;
    while (keys_[i] != 0 && keys_[i] != key) i = (i + 1) & mask_;
    if (keys_[i] == 0) {
      keys_[i] = key;
      values_[i] = V{};
      ++used_;
    }
    return values_[i];
  }
  void clear() {
    if (used_ == 0) return;
    std::fill(keys_.begin(), keys_.end(), 0);
    used_ = 0;
  }
  template <class F>
  void each(F f) {
    for (std::size_t i = 0; i < keys_.size(); ++i)
      if (keys_[i] != 0) f(keys_[i], values_[i]);
  }

 private:
  void resize(std::size_t n) {
    keys_.assign(n, 0);
    values_.assign(n, V{});
    mask_ = n - 1;
    used_ = 0;
  }
  void grow() {
    std::vector<std::uint64_t> keys = std::move(keys_);
    std::vector<V> values = std::move(values_);
    resize(keys.size() * 2);
    for (std::size_t i = 0; i < keys.size(); ++i)
      if (keys[i] != 0) (*this)[keys[i]] = std::move(values[i]);
  }
  std::vector<std::uint64_t> keys_;
  std::vector<V> values_;
  std::size_t mask_ = 0, used_ = 0;
};

// Per-lane occurrence counts key on (code address, thread); warp groups on (code address, warp,
// occurrence, barrier epoch). Code addresses fit in 47 bits; the rest is hashed together.
std::uint64_t lane_key(std::uintptr_t pc, std::uint32_t thread) {
  return (static_cast<std::uint64_t>(pc) << 11 | thread) + 1;
}
std::uint64_t group_key(std::uintptr_t pc, std::uint32_t warp, std::uint32_t occurrence,
                        std::uint32_t epoch = 0) {
  return mix(static_cast<std::uint64_t>(pc) * 0x9e3779b97f4a7c15ULL ^
             (static_cast<std::uint64_t>(epoch) << 40 |
              static_cast<std::uint64_t>(occurrence) << 6 | warp)) |
         1;
}

struct PendingAccess {
  profile::WarpAccess access;
  std::uintptr_t pc = 0;
  std::uint32_t warp = 0;
  const char* array = nullptr;
  bool shared = false, store = false;
};

struct PendingStep {
  std::uintptr_t pc = 0;
  std::uint32_t warp = 0;
  std::uint32_t active = 0;
  // The blocks the lanes went to next, with their lanes (a conditional branch has two).
  std::array<std::uintptr_t, 4> target{};
  std::array<std::uint32_t, 4> lanes{};
  std::uint8_t targets = 0;
};

// A branch as the launch counts it: ProfiledBranch's fields (pc is filled in when it is handed
// out) and whether an example divergent execution is kept yet.
struct BranchTotals : ProfiledBranch {
  bool has_example = false;
};

// Keeps the costlier of the site's example and this warp-level execution of it.
void offer_example(ProfiledAccess& site, const profile::WarpAccess& access, std::uint64_t cost,
                   uint3 block, std::uint32_t warp) {
  if (cost <= site.example_cost) return;
  site.example = access;
  site.example_cost = cost;
  site.example_block = block;
  site.example_warp = warp;
}

// A branch's first divergent execution is its example.
void offer_example(BranchTotals& branch, std::uint32_t active, std::span<const std::uint32_t> masks,
                   uint3 block, std::uint32_t warp) {
  if (branch.has_example) return;
  branch.has_example = true;
  branch.example_active = active;
  branch.example_masks.assign(masks.begin(), masks.end());
  branch.example_block = block;
  branch.example_warp = warp;
}

struct SiteKey {
  std::uintptr_t pc;
  bool shared, store;
  bool operator<(const SiteKey& o) const {
    return pc != o.pc ? pc < o.pc : shared != o.shared ? shared < o.shared : store < o.store;
  }
};

// What a worker (or the whole launch) has counted.
struct Totals {
  std::map<SiteKey, ProfiledAccess> accesses;
  std::map<std::uintptr_t, BranchTotals> branches;
  std::map<std::uintptr_t, ProfiledBlock> blocks;
  bool saw_blocks = false;

  void merge(Totals& o) {
    for (auto& [k, a] : o.accesses) {
      auto [it, fresh] = accesses.try_emplace(k, a);
      if (fresh) continue;
      ProfiledAccess& m = it->second;
      m.width = std::max(m.width, a.width);
      profile::add_to(m.global, a.global);
      profile::add_to(m.smem, a.smem);
      offer_example(m, a.example, a.example_cost, a.example_block, a.example_warp);
    }
    for (auto& [pc, b] : o.branches) {
      BranchTotals& m = branches[pc];
      for (std::uintptr_t t : b.targets)
        if (std::find(m.targets.begin(), m.targets.end(), t) == m.targets.end())
          m.targets.push_back(t);
      m.uniform += b.uniform;
      m.divergent += b.divergent;
      if (b.has_example)
        offer_example(m, b.example_active, b.example_masks, b.example_block, b.example_warp);
    }
    for (auto& [pc, b] : o.blocks) {
      ProfiledBlock& m = blocks[pc];
      m.pc = pc;
      m.inst += b.inst;
      m.thread_inst += b.thread_inst;
    }
    saw_blocks = saw_blocks || o.saw_blocks;
    o = Totals{};
  }
};

struct LaunchState {
  std::mutex mutex;
  Totals totals;
};

LaunchState& launch_state() {
  static auto* s = new LaunchState;
  return *s;
}

}  // namespace

void enable_profiling(bool only_profile) {
  g_only = only_profile;
  g_enabled = true;
}
bool profiling_enabled() {
  return g_enabled;
}
bool profiling_only() {
  return g_only;
}

namespace detail {

// One event of a warp's trace: an access (piece) or a basic block at `pc`, and its group (index
// in accesses or steps + 1).
struct TraceEvent {
  std::uintptr_t pc = 0;
  std::uint32_t group = 0;
};

// Lanes that have so far executed the same sequence of sites as the warp's trace (the converged
// case, nearly always) find the group of their next event at their position in the trace: one
// comparison, no lookup. A lane that leaves it (a divergent branch) counts its own occurrences
// from then on. The trace is bounded: past it, every lane counts its own.
constexpr std::size_t kTraceCap = 1u << 16;
// Occurrence counts of a warp's trace share the lanes' map under a thread number no lane has.
constexpr std::uint32_t kTraceThread = 1024;

struct ProfileCollector::Impl {
  Impl(const LaunchShape& s, const ProfileSpaces& sp)
      : shape(s),
        spaces(sp),
        last(s.threads),
        cursor(s.threads),
        diverged(s.threads),
        traces(s.warps) {}

  const LaunchShape& shape;
  const ProfileSpaces spaces;
  // The shared arrays found last (a kernel's accesses go to a few: a lookup saved per access).
  std::array<const ProgramSymbols::TlsSymbol*, 4> tls_symbols{};
  std::size_t next_tls_symbol = 0;
  uint3 block{0, 0, 0};
  // Block barriers passed in this block: every lane is in the same epoch, so the k-th execution
  // counts from the last barrier (a lane that skipped a site in an earlier loop iteration, as in
  // a scan's `if (tid >= offset) ... else ...`, is not shifted by one iteration).
  std::uint32_t epoch = 0;
  FlatMap<std::uint32_t> occurrences;   // lane_key -> times executed since the last barrier
  FlatMap<std::uint32_t> access_index;  // group_key -> index in accesses + 1
  std::vector<PendingAccess> accesses;
  FlatMap<std::uint32_t> step_index;  // group_key -> index in steps + 1
  std::vector<PendingStep> steps;
  // Per thread: the step of the basic block it is in (index in steps + 1), 0 before the first.
  std::vector<std::uint32_t> last;
  // Per thread: its position in its warp's trace, and whether it has left the trace.
  std::vector<std::uint32_t> cursor;
  std::vector<std::uint8_t> diverged;
  std::vector<std::vector<TraceEvent>> traces;  // per warp, since the last barrier
  Totals totals;
  // Device memory regions already looked up: [begin, end).
  std::array<std::pair<std::uintptr_t, std::uintptr_t>, 8> regions{};
  std::size_t next_region = 0;
  // 64-byte granules found to be no device memory (the kernel's argument block, read by the
  // launch's own code for every thread): a miss costs a symbol lookup, so it is remembered.
  std::array<std::uintptr_t, 8> not_global{};
  std::size_t next_not_global = 0;

  // The group (index + 1 in accesses or steps, made by `make` when new) of this lane's next event
  // at `pc`: the k-th time the lane reaches `pc` since the last barrier, k counted by the trace
  // while the lane follows it, by the lane itself once it has left it.
  template <class Make>
  std::uint32_t group_of(std::uintptr_t pc, std::uint32_t thread, FlatMap<std::uint32_t>& index,
                         Make make) {
    const std::uint32_t warp = thread / profile::kWarpLanes;
    std::vector<TraceEvent>& trace = traces[warp];
    std::uint32_t& at = cursor[thread];
    if (diverged[thread] == 0) {
      if (at < trace.size()) {
        if (trace[at].pc == pc) return trace[at++].group;
      } else if (trace.size() < kTraceCap) {
        const std::uint32_t k = occurrences[lane_key(pc, kTraceThread + warp)]++;
        std::uint32_t& g = index[group_key(pc, warp, k, epoch)];
        if (g == 0) g = make();
        trace.push_back({pc, g});
        ++at;
        return g;
      }
      // The lane leaves the trace: its counts so far are those of the trace up to here.
      diverged[thread] = 1;
      for (std::uint32_t i = 0; i < at; ++i) ++occurrences[lane_key(trace[i].pc, thread)];
    }
    const std::uint32_t k = occurrences[lane_key(pc, thread)]++;
    std::uint32_t& g = index[group_key(pc, warp, k, epoch)];
    if (g == 0) g = make();
    return g;
  }

  // A barrier (or a new block): every lane starts again at the start of an empty trace.
  void new_epoch() {
    occurrences.clear();
    for (auto& t : traces) t.clear();
    std::fill(cursor.begin(), cursor.end(), 0);
    std::fill(diverged.begin(), diverged.end(), 0);
  }

  void flush_accesses() {
    for (const PendingAccess& p : accesses) {
      ProfiledAccess& site = totals.accesses[SiteKey{p.pc, p.shared, p.store}];
      site.pc = p.pc;
      site.shared = p.shared;
      site.store = p.store;
      site.width = std::max(site.width, p.access.width);
      site.array = p.array;
      std::uint64_t cost = 0;
      if (p.shared) {
        const profile::SharedCost s = profile::shared_cost(p.access);
        profile::add_to(site.smem, s);
        cost = s.wavefronts * 64 + s.worst_way;
      } else {
        const profile::GlobalCost g = profile::global_cost(p.access);
        profile::add_to(site.global, g);
        cost = g.sectors;
      }
      offer_example(site, p.access, cost, block, p.warp);
    }
    accesses.clear();
    access_index.clear();
  }

  void flush_steps() {
    for (const PendingStep& s : steps) {
      ProfiledBlock& b = totals.blocks[s.pc];
      b.pc = s.pc;
      b.inst += 1;
      b.thread_inst += static_cast<std::uint64_t>(std::popcount(s.active));
      if (s.targets == 0) continue;  // the lanes' last block (they returned)
      BranchTotals& br = totals.branches[s.pc];
      for (std::uint8_t i = 0; i < s.targets; ++i)
        if (std::find(br.targets.begin(), br.targets.end(), s.target[i]) == br.targets.end())
          br.targets.push_back(s.target[i]);
      // Lanes that returned from here are not counted as a side of the branch.
      if (s.targets == 1) {
        ++br.uniform;
      } else {
        ++br.divergent;
        offer_example(br, s.active, std::span(s.lanes).first(s.targets), block, s.warp);
      }
    }
    steps.clear();
    step_index.clear();
    std::fill(last.begin(), last.end(), 0);
  }

  void flush() {
    flush_accesses();
    flush_steps();
  }

  // `address`: for global memory the address; for shared memory the byte offset in `array`.
  void access(std::uintptr_t address, std::size_t size, bool write, const char* array,
              std::uintptr_t pc, std::uint32_t thread);
  // A global access not in shared memory: counted if it lands in device memory.
  bool is_global(std::uintptr_t address);
  void memory_access(std::uintptr_t address, std::size_t size, bool write, std::uintptr_t pc,
                     std::uint32_t thread, ProfileStack stack);
  void basic_block(std::uintptr_t pc, std::uint32_t thread);
  // What access() and basic_block() do for a lane that is not where its warp's trace says.
  [[gnu::noinline]] void access_off_trace(std::uintptr_t address, std::size_t size, bool write,
                                          const char* array, std::uintptr_t pc,
                                          std::uint32_t thread);
  [[gnu::noinline]] void basic_block_off_trace(std::uintptr_t pc, std::uint32_t thread);

  void publish() {
    flush();
    LaunchState& s = launch_state();
    std::lock_guard lock(s.mutex);
    s.totals.merge(totals);
  }
};

ProfileCollector::ProfileCollector(const LaunchShape& shape, const ProfileSpaces& spaces)
    : impl_(std::make_unique<Impl>(shape, spaces)) {}

ProfileCollector::~ProfileCollector() {
  impl_->publish();
}

void ProfileCollector::begin_block(uint3 block_index) {
  impl_->publish();
  impl_->new_epoch();
  impl_->epoch = 0;
  impl_->block = block_index;
}

void ProfileCollector::on_barrier() {
  // Steps are not flushed: a lane's step continues past the barrier into its next block, which
  // is where the branch (if any) is decided; the epoch keeps their groups apart. Accesses before
  // the barrier are complete.
  impl_->flush_accesses();
  impl_->new_epoch();
  ++impl_->epoch;
}

bool ProfileCollector::Impl::is_global(std::uintptr_t address) {
  Impl& m = *this;
  for (const auto& [b, e] : m.regions)
    if (address >= b && address < e) return true;
  const std::uintptr_t granule = (address >> 6) + 1;
  for (std::uintptr_t g : m.not_global)
    if (g == granule) return false;
  std::pair<std::uintptr_t, std::uintptr_t> found{0, 0};
  if (const auto a = find_allocation(reinterpret_cast<const void*>(address))) {
    found = {a->begin, a->begin + a->bytes};
  } else if (const auto o = ProgramSymbols::get().object_at_or_below(address);
             o && address < o->address + o->size) {
    found = {o->address, o->address + o->size};
  } else {
    m.not_global[m.next_not_global++ % m.not_global.size()] = granule;
    return false;
  }
  m.regions[m.next_region++ % m.regions.size()] = found;
  return true;
}

inline void ProfileCollector::Impl::access(std::uintptr_t address, std::size_t size, bool write,
                                           const char* array, std::uintptr_t pc,
                                           std::uint32_t thread) {
  Impl& m = *this;
  // Nearly every access: one piece, by a lane that follows its warp's trace to a group made by an
  // earlier lane. Its address joins the group; nothing else to find. (The rest is a function of
  // its own, so that this path saves no registers.)
  if (size <= 16 && m.diverged[thread] == 0) {
    const std::vector<TraceEvent>& trace = m.traces[thread / profile::kWarpLanes];
    std::uint32_t& at = m.cursor[thread];
    if (at < trace.size() && trace[at].pc == pc) {
      const std::uint32_t lane = thread % profile::kWarpLanes;
      profile::WarpAccess& w = m.accesses[trace[at++].group - 1].access;
      w.address[lane] = address;
      w.active |= 1u << lane;
      if (size > w.width) w.width = static_cast<std::uint32_t>(size);
      return;
    }
  }
  m.access_off_trace(address, size, write, array, pc, thread);
}

void ProfileCollector::Impl::access_off_trace(std::uintptr_t address, std::size_t size, bool write,
                                              const char* array, std::uintptr_t pc,
                                              std::uint32_t thread) {
  Impl& m = *this;
  const std::uint32_t warp = thread / profile::kWarpLanes;
  const std::uint32_t lane = thread % profile::kWarpLanes;
  const bool shared = array != nullptr;
  // Wider copies (a struct, memcpy) are 16-byte pieces, as a GPU moves them.
  const std::size_t pieces = std::min<std::size_t>((std::max<std::size_t>(size, 1) + 15) / 16, 64);
  for (std::size_t piece = 0; piece < pieces; ++piece) {
    const std::uintptr_t piece_pc = pc + piece * 0x100000000000ULL;
    const std::uint32_t index = m.group_of(piece_pc, thread, m.access_index, [&] {
      PendingAccess& p = m.accesses.emplace_back();
      p.pc = pc;
      p.warp = warp;
      p.shared = shared;
      p.array = array;
      p.store = write;
      p.access.width = 0;
      return static_cast<std::uint32_t>(m.accesses.size());
    });
    PendingAccess& p = m.accesses[index - 1];
    p.access.address[lane] = address + piece * 16;
    p.access.active |= 1u << lane;
    p.access.width =
        std::max(p.access.width, static_cast<std::uint32_t>(std::min<std::size_t>(size, 16)));
  }
}

inline void ProfileCollector::Impl::basic_block(std::uintptr_t pc, std::uint32_t thread) {
  Impl& m = *this;
  // Nearly every block: a lane that follows its warp's trace, from a step whose first target is
  // this block (where the lanes before it went). What basic_block_off_trace does then, without
  // its registers saved.
  if (m.diverged[thread] == 0) {
    const std::vector<TraceEvent>& trace = m.traces[thread / profile::kWarpLanes];
    std::uint32_t& at = m.cursor[thread];
    const std::uint32_t from = m.last[thread];
    if (from != 0 && at < trace.size() && trace[at].pc == pc) {
      PendingStep& s = m.steps[from - 1];
      if (s.targets != 0 && s.target[0] == pc) {
        const std::uint32_t lane_bit = 1u << (thread % profile::kWarpLanes);
        s.lanes[0] |= lane_bit;
        const std::uint32_t index = trace[at++].group;
        m.steps[index - 1].active |= lane_bit;
        m.last[thread] = index;
        m.totals.saw_blocks = true;
        return;
      }
    }
  }
  m.basic_block_off_trace(pc, thread);
}

void ProfileCollector::Impl::basic_block_off_trace(std::uintptr_t pc, std::uint32_t thread) {
  Impl& m = *this;
  const std::uint32_t warp = thread / profile::kWarpLanes;
  const std::uint32_t lane_bit = 1u << (thread % profile::kWarpLanes);
  // The step this lane leaves: record where it went.
  if (const std::uint32_t from = m.last[thread]; from != 0) {
    PendingStep& s = m.steps[from - 1];
    std::uint8_t i = 0;
    while (i < s.targets && s.target[i] != pc) ++i;
    if (i == s.targets && i < s.target.size()) s.target[s.targets++] = pc;
    if (i < s.target.size()) s.lanes[i] |= lane_bit;
  }
  const std::uint32_t index = m.group_of(pc, thread, m.step_index, [&] {
    PendingStep& s = m.steps.emplace_back();
    s.pc = pc;
    s.warp = warp;
    return static_cast<std::uint32_t>(m.steps.size());
  });
  m.steps[index - 1].active |= lane_bit;
  m.last[thread] = index;
  m.totals.saw_blocks = true;
}

inline void ProfileCollector::Impl::memory_access(std::uintptr_t address, std::size_t size,
                                                  bool write, std::uintptr_t pc,
                                                  std::uint32_t thread, ProfileStack stack) {
  if (address >= spaces.dyn_begin && address < spaces.dyn_end) {
    access(address - spaces.dyn_begin, size, write, "extern", pc, thread);
    return;
  }
  if (address >= spaces.tls_begin && address < spaces.tls_end) {
    const std::uint64_t off = address - spaces.tls_begin;
    const ProgramSymbols::TlsSymbol* sym = nullptr;
    for (const ProgramSymbols::TlsSymbol* s : tls_symbols) {
      if (s != nullptr && off >= s->offset && off < s->offset + s->size) {
        sym = s;
        break;
      }
    }
    if (sym == nullptr) {
      sym = ProgramSymbols::get().tls_symbol_at(off);
      if (sym != nullptr) tls_symbols[next_tls_symbol++ % tls_symbols.size()] = sym;
    }
    if (sym != nullptr && sym->user_shared)
      access(off - sym->offset, size, write, sym->name.c_str(), pc, thread);
    return;
  }
  if (address >= stack.begin && address < stack.begin + stack.size) return;  // the thread's locals
  if (is_global(address)) access(address, size, write, nullptr, pc, thread);
}

void ProfileCollector::memory_access(std::uintptr_t address, std::size_t size, bool write,
                                     std::uintptr_t pc, std::uint32_t thread, ProfileStack stack) {
  impl_->memory_access(address, size, write, pc, thread, stack);
}

void ProfileCollector::basic_block(std::uintptr_t pc, std::uint32_t thread) {
  impl_->basic_block(pc, thread);
}

void ProfileCollector::events(std::span<const ProfileEvent> batch, ProfileSegment& segment,
                              bool& instrumented) {
  Impl& m = *impl_;
  const std::uintptr_t tls_bytes = m.spaces.tls_end - m.spaces.tls_begin;
  std::uint32_t thread = segment.thread;
  ProfileStack stack = segment.stack;
  for (const ProfileEvent& e : batch) {
    if (e.meta >= ProfileEvent::kSegment) {
      if (e.meta == ProfileEvent::kBasicBlock) {
        m.basic_block(e.pc, thread);
      } else {
        thread = static_cast<std::uint32_t>(e.meta);
        stack = ProfileStack{e.pc, e.address};
      }
      continue;
    }
    // What RaceChecker::access and access_checked do with an access while only the profile is
    // on: the emulator's own TLS variables (threadIdx & co.) prove the kernel instrumented, and
    // atomics are not loads or stores to Nsight Compute.
    const std::uintptr_t off = e.address - m.spaces.tls_begin;
    if (off < tls_bytes) {
      instrumented = true;
      if (m.spaces.tls_kinds[off].load(std::memory_order_relaxed) == 1) continue;
    }
    if ((e.meta & 1) != 0) continue;
    m.memory_access(e.address, static_cast<std::size_t>(e.meta >> 2), (e.meta & 2) != 0, e.pc,
                    thread, stack);
  }
  segment = ProfileSegment{thread, stack};
}

void begin_profiled_launch() {
  LaunchState& s = launch_state();
  std::lock_guard lock(s.mutex);
  s.totals = Totals{};
}

LaunchProfile end_profiled_launch() {
  LaunchState& s = launch_state();
  std::lock_guard lock(s.mutex);
  LaunchProfile r;
  r.has_branches = s.totals.saw_blocks;
  for (auto& [k, a] : s.totals.accesses) {
    if (a.shared) {
      r.total.add_shared(a.smem, a.store);
    } else {
      r.total.add_global(a.global, a.store);
    }
    r.accesses.push_back(std::move(a));
  }
  for (auto& [pc, b] : s.totals.branches) {
    // A block that every lane always left for the same block ends in a jump or a fall-through:
    // not a branch of the source.
    if (b.targets.size() < 2) continue;
    ProfiledBranch out = b;  // the totals less has_example
    out.pc = pc;
    r.total.branch.branches += b.uniform + b.divergent;
    r.total.branch.uniform += b.uniform;
    r.total.branch.divergent += b.divergent;
    r.branches.push_back(std::move(out));
  }
  for (auto& [pc, b] : s.totals.blocks) {
    r.total.inst_executed += b.inst;
    r.total.thread_inst_executed += b.thread_inst;
    r.blocks.push_back(b);
  }
  s.totals = Totals{};
  return r;
}

}  // namespace detail
}  // namespace gpulab::simt
