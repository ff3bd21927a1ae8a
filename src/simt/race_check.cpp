// Shared-memory race detection over the accesses reported by instrumented kernels.
#include "simt/race_check.hpp"

#include <algorithm>
#include <atomic>
#include <mutex>

#include "simt/access_record.hpp"
#include "simt/device_api.hpp"
#include "simt/kernel_code.hpp"
#include "simt/memory_check.hpp"
#include "simt/program_symbols.hpp"

// The storage of every extern __shared__ array (see GPULAB_SIMT_DYNAMIC_SHARED): one per OS thread.
alignas(256) thread_local unsigned char gpulab_simt_dynamic_shared_storage
    [gpulab::simt::detail::kDynamicSharedCapacity] __asm__("gpulab_simt_dynamic_shared");

namespace gpulab::simt::detail {

unsigned char* dynamic_shared_buffer() noexcept {
  return gpulab_simt_dynamic_shared_storage;
}

namespace {

// What each byte of the executable's TLS block holds, found once per byte for the whole program
// (every OS thread's block has the same layout): 0 not known yet; 1 a variable of the emulator's
// or the compiler's (threadIdx & co., guard variables), where no race is ever reported, so its
// bytes need no shadow; 2 anything else.
std::atomic<std::uint8_t>* tls_kinds(std::size_t bytes) {
  static std::once_flag once;
  static std::atomic<std::uint8_t>* kinds = nullptr;
  std::call_once(once, [&] { kinds = new std::atomic<std::uint8_t>[bytes](); });
  return kinds;
}

std::uint8_t tls_kind(std::atomic<std::uint8_t>* kinds, std::uint64_t off) {
  const std::uint8_t known = kinds[off].load(std::memory_order_relaxed);
  if (known != 0) return known;
  const auto* sym = ProgramSymbols::get().tls_symbol_at(off);
  if (sym == nullptr) {
    kinds[off].store(2, std::memory_order_relaxed);
    return 2;
  }
  const std::uint8_t kind = sym->user_shared ? 2 : 1;
  for (std::uint64_t b = sym->offset; b < sym->offset + sym->size; ++b)
    kinds[b].store(kind, std::memory_order_relaxed);
  return kind;
}

// Whether no two CUDA threads touch one byte in these runs with one of them writing (runs_apart(),
// given that no run that writes touches a byte by two threads).
bool shared_ranges_apart(const std::vector<LoggedAccess>& runs) {
  thread_local std::vector<const LoggedAccess*> sorted;
  thread_local std::vector<RunGroup> groups;
  sorted.clear();
  for (const LoggedAccess& r : runs) {
    const std::uint64_t step =
        r.address_step < 0 ? 0 - static_cast<std::uint64_t>(r.address_step) : r.address_step;
    // A write whose elements overlap, made by different threads.
    if (r.write && r.count > 1 && r.thread_step != 0 && step < r.size) return false;
    sorted.push_back(&r);
  }
  return runs_apart(sorted, groups);
}

}  // namespace

RaceChecker::RaceChecker(const LaunchShape& shape, std::size_t max_reports)
    : shape_(shape), max_reports_(max_reports) {
  const auto [begin, end] = executable_tls_block();
  tls_begin_ = begin;
  tls_end_ = end;
  dyn_begin_ = reinterpret_cast<std::uintptr_t>(dynamic_shared_buffer());
  dyn_end_ = dyn_begin_ + kDynamicSharedCapacity;
  if (tls_begin_ == 0) {
    // No TLS block found: watch the dynamic buffer only.
    tls_begin_ = dyn_begin_;
    tls_end_ = dyn_end_;
  }
  words_begin_ = tls_begin_ & ~std::uintptr_t{3};
  chunks_.resize((tls_end_ - words_begin_ + kChunkBytes - 1) / kChunkBytes);
  tls_kinds_ = tls_kinds(tls_end_ - tls_begin_);
  tls_bytes_ = tls_end_ - tls_begin_;
  vc_.assign(static_cast<std::size_t>(shape.warps) * 32 * 32, 0);
  vc_epoch_.assign(shape.warps, 0);
  check_global_ = memory_checks_enabled();
  recording_ = access_recording_enabled();
  if (profiling_enabled()) {
    profile_ = std::make_unique<ProfileCollector>(
        shape, ProfileSpaces{tls_begin_, tls_end_, dyn_begin_, dyn_end_, tls_kinds_});
    profile_only_ = profiling_only();
    if (profile_only_) {
      profile_batch_.resize(kProfileBatch);
      profile_begin_ = profile_next_ = profile_batch_.data();
      profile_end_ = profile_begin_ + kProfileBatch;
    }
  }
  fast_global_ = check_global_ && !recording_ && !profile_;
  fast_shared_ = !recording_ && !profile_;
  shared_runs_.reserve(4096);
  shared_log_.accesses = &shared_runs_;
  shared_log_.open = shared_open_.data();
}

void RaceChecker::count_profile_batch() {
  // The emulator's work, wherever the batch ends (a hook, the scheduler): its allocations are
  // the host's (kernel_code.hpp), and an instrumented copy of an inline function that it runs is
  // not the kernel's access.
  RaceChecker* const recording = tl_recording;
  tl_recording = nullptr;
  {
    const EmulatorCode emulator;
    profile_->events({profile_begin_, profile_next_}, profile_segment_, instrumented_);
  }
  tl_recording = recording;
  profile_next_ = profile_begin_;
}

bool RaceChecker::make_room(std::uintptr_t sp) {
  if (profile_begin_ == nullptr) return false;
  if (!profile_segment_open_) {
    // The thread's first event of its turn: a marker names it and its stack.
    const ProfileStack stack = current_stack();
    // A hook keeps an event only well above the last kHookStackBytes of the stack (its frame is
    // a little above access_checked's), where access_checked would have counted it too.
    const std::uintptr_t sp_min =
        stack.begin == 0 ? 0 : stack.begin + kHookStackBytes + kHookStackBytes / 4;
    if (profile_end_ - profile_next_ < 2) {
      if (sp < sp_min) return false;
      count_profile_batch();
    }
    *profile_next_++ = ProfileEvent{stack.begin, stack.size, ProfileEvent::kSegment | thread_};
    profile_segment_open_ = true;
    profile_sp_min_ = sp_min;
    return true;
  }
  if (profile_next_ != profile_end_) return true;
  if (sp < profile_sp_min_) return false;
  count_profile_batch();
  return true;
}

void RaceChecker::profile_push(const ProfileEvent& e) {
  // From access_checked or basic_block, past access_checked's test of the stack where it applies.
  if (!profile_segment_open_ || profile_next_ == profile_end_) make_room(~std::uintptr_t{0});
  *profile_next_++ = e;
}

void RaceChecker::end_profile_batch() {
  if (profile_next_ != profile_begin_) count_profile_batch();
}

void RaceChecker::record_shared(std::uintptr_t address, std::size_t size, bool write, bool atomic) {
  if (address >= dyn_begin_ && address < dyn_end_) {
    record_access(address - dyn_begin_, size, write, atomic, "extern", block_linear_, block_index_,
                  thread_);
    return;
  }
  // The rest of the TLS block also holds threadIdx & co. and the emulator's own variables: only
  // a kernel's function-local thread_local (= __shared__) arrays count, named "kernel::array".
  const std::uint64_t off = address - tls_begin_;
  const auto* sym = ProgramSymbols::get().tls_symbol_at(off);
  if (sym == nullptr || !sym->user_shared) return;
  record_access(off - sym->offset, size, write, atomic, sym->name.c_str(), block_linear_,
                block_index_, thread_);
}

RaceChecker::~RaceChecker() {
  end_profile_batch();
  // The worker's last block ended (one that faulted was ended by worker_faulted() first).
  if (check_global_) checked_worker_done(false);
}

void RaceChecker::worker_faulted() {
  end_profile_batch();
  flush_shared(true);
  if (check_global_) checked_worker_done(true);
}

void RaceChecker::begin_block(std::uint64_t linear_block, uint3 block_index) {
  end_profile_batch();
  flush_shared(true);
  shared_block_direct_ = shared_direct_ = false;
  ++epoch_;
  block_first_epoch_ = epoch_;
  handoffs_ = 0;
  block_linear_ = linear_block;
  block_index_ = block_index;
  held_.assign(static_cast<std::size_t>(shape_.block.x) * shape_.block.y * shape_.block.z, 0u);
  if (check_global_) {
    tl_fast_log.open = global_open_.data();
    checked_block_begun(block_context());
  }
  if (profile_) profile_->begin_block(block_index);
}

void RaceChecker::on_barrier() {
  end_profile_batch();
  flush_shared(true);
  ++epoch_;
  if (profile_) profile_->on_barrier();
}

void RaceChecker::lock_write(std::uintptr_t address, bool cas) {
  if (thread_ >= held_.size()) return;
  std::uint32_t& held = held_[thread_];
  const std::uint32_t token = lock_token(address);
  if (held == token) {
    held = 0;
  } else if (cas) {
    held = token;
  }
}

void RaceChecker::refresh_warp(std::uint32_t warp) {
  if (vc_epoch_[warp] == epoch_) return;
  vc_epoch_[warp] = epoch_;
  std::uint32_t* rows = &vc_[static_cast<std::size_t>(warp) * 32 * 32];
  std::fill(rows, rows + 32 * 32, 0u);
  // A thread's own clock starts at 1, so that nobody has "seen" an access before a __syncwarp().
  for (std::uint32_t lane = 0; lane < 32; ++lane) rows[lane * 32 + lane] = 1;
}

std::uint32_t RaceChecker::clock_of(std::uint32_t t, std::uint32_t other_lane) {
  refresh_warp(t >> 5);
  return vc_[static_cast<std::size_t>(t) * 32 + other_lane];
}

void RaceChecker::on_warp_sync(std::uint32_t warp, std::uint32_t mask) {
  flush_shared(false);  // the log's accesses with the clocks they were made with
  refresh_warp(warp);
  std::uint32_t* rows = &vc_[static_cast<std::size_t>(warp) * 32 * 32];
  std::uint32_t merged[32] = {};
  for (std::uint32_t m = mask; m != 0; m &= m - 1) {
    const auto lane = static_cast<std::uint32_t>(std::countr_zero(m));
    for (std::uint32_t l = 0; l < 32; ++l) merged[l] = std::max(merged[l], rows[lane * 32 + l]);
  }
  for (std::uint32_t m = mask; m != 0; m &= m - 1) {
    const auto lane = static_cast<std::uint32_t>(std::countr_zero(m));
    std::copy(merged, merged + 32, rows + lane * 32);
    ++rows[lane * 32 + lane];
  }
}

bool RaceChecker::ordered(const Access& earlier, std::uint32_t t) const {
  if (earlier.epoch != epoch_ || earlier.thread == t) return true;
  if ((earlier.thread >> 5) != (t >> 5)) return false;
  // Same warp: ordered if t has synchronized (__syncwarp) with that lane after its access.
  const std::size_t row = static_cast<std::size_t>(t) * 32;
  return vc_epoch_[t >> 5] == epoch_ && vc_[row + (earlier.thread & 31u)] >= earlier.clock;
}

RaceChecker::Word& RaceChecker::word(std::uintptr_t address) {
  const std::uintptr_t off = address - words_begin_;
  auto& chunk = chunks_[off / kChunkBytes];
  if (!chunk) chunk = std::make_unique<Word[]>(kChunkBytes / 4);
  return chunk[(off % kChunkBytes) / 4];
}

GlobalAccessContext RaceChecker::block_context() const {
  GlobalAccessContext context;
  context.block_linear = block_linear_;
  context.block = block_index_;
  context.block_dim = shape_.block;
  context.grid = shape_.grid;
  return context;
}

void RaceChecker::access_global(std::uintptr_t address, std::size_t size, bool write,
                                std::uintptr_t pc, bool atomic) {
  GlobalAccessContext context = block_context();
  context.thread = thread_;
  context.epoch = epoch_;
  if (thread_ < held_.size()) context.lock = held_[thread_];
  if (runner_ != nullptr) {
    const StackBounds stack = runner_->current_stack();
    context.stack_begin = reinterpret_cast<std::uintptr_t>(stack.bottom);
    context.stack_end = context.stack_begin + stack.size;
  }
  check_global(address, size, write, atomic, pc, context);
}

void RaceChecker::access_checked(std::uintptr_t address, std::size_t size, bool write,
                                 std::uintptr_t pc, bool atomic) {
  // The checks' own calls need stack. In the last kHookStackBytes of a CUDA thread's stack (a
  // recursion about to overflow) the access goes unchecked: the overflow then happens in the
  // kernel's code, where the guard page names the kernel's line, and never inside the checker
  // while it holds the memory checker's lock (which hung the launch until --timeout).
  std::uintptr_t stack_begin = 0, stack_end = 0;
  if (runner_ != nullptr) {
    const StackBounds stack = runner_->current_stack();
    stack_begin = reinterpret_cast<std::uintptr_t>(stack.bottom);
    stack_end = stack_begin + stack.size;
    const auto sp = reinterpret_cast<std::uintptr_t>(__builtin_frame_address(0));
    if (stack_begin != 0 && sp >= stack_begin && sp < stack_begin + kHookStackBytes) return;
  }
  if (profile_only_) {
    // Sorted and counted with the rest of the thread's batch (ProfileCollector::events), atomics
    // left out there: Nsight Compute counts them apart from loads and stores.
    profile_push(ProfileEvent{
        pc, address, std::uint64_t{size} << 2 | std::uint64_t{write} << 1 | std::uint64_t{atomic}});
    return;
  }
  if (profile_ && !atomic)
    profile_->memory_access(address, size, write, pc, thread_, current_stack());
  if (address < tls_begin_ || address >= tls_end_) {
    if (recording_)
      record_access(address, size, write, atomic, nullptr, block_linear_, block_index_, thread_);
    if (!check_global_) return;
    if (address >= stack_begin && address < stack_end) return;  // the thread's local memory
    // Logged for the in-order check (the common case), else checked now.
    const std::uint32_t lock = thread_ < held_.size() ? held_[thread_] : 0u;
    if (!log_global(address, size, write, atomic, pc, thread_, epoch_, lock))
      access_global(address, size, write, pc, atomic);
    return;
  }
  access_shared(address, size, write, pc, atomic);
}

// An access past the dynamic shared memory given at launch: the thread's fault (cold, apart from
// the checks' hot path).
[[gnu::noinline, gnu::cold]] void RaceChecker::shared_fault(std::uintptr_t address,
                                                            std::size_t size, bool write,
                                                            std::uintptr_t pc) {
  const std::uint32_t t = thread_;
  const std::uintptr_t off = address - dyn_begin_;
  if (shape_.dynamic_shared_bytes == 0) {
    // No dynamic shared memory at all: the access ran past one of the kernel's own arrays.
    const auto* past = ProgramSymbols::get().user_shared_before(address - tls_begin_);
    Text where{"outside every __shared__ array of the kernel", "在核函数所有 __shared__ 数组之外"};
    if (past != nullptr) {
      const std::string from = std::to_string(address - tls_begin_ - past->offset);
      const std::string array_bytes = std::to_string(past->size);
      where = {from + " bytes from the start of __shared__ " + past->name + " (" + array_bytes +
                   " bytes), past its end",
               "距 __shared__ " + past->name + "（" + array_bytes + " 字节）开头 " + from +
                   " 字节处，已越过它的末尾"};
    }
    runner_->note_fault(
        KernelFault::Kind::invalid_argument,
        {"thread " + std::to_string(t) + (write ? " wrote" : " read") + " shared memory " +
             where.en,
         "线程 " + std::to_string(t) + (write ? " 写入" : " 读取") + "共享内存，" + where.zh},
        pc);
    return;
  }
  const std::string at = std::to_string(off), given = std::to_string(shape_.dynamic_shared_bytes);
  runner_->note_fault(
      KernelFault::Kind::invalid_argument,
      {"thread " + std::to_string(t) + (write ? " wrote" : " read") +
           " extern __shared__ memory at byte " + at + ", past the " + given +
           " bytes of dynamic shared memory given at launch",
       "线程 " + std::to_string(t) + (write ? " 写入" : " 读取") + " extern __shared__ 内存的第 " +
           at + " 字节，越过了启动时给出的 " + given + " 字节动态共享内存"},
      pc);
  (void)size;
}

// Inlined: a shared access is one word, or a few, in the common case.
[[gnu::always_inline]] inline void RaceChecker::touch(Cell& c, const Access& now, bool write,
                                                      std::uintptr_t address, std::size_t size,
                                                      std::uintptr_t pc, bool& reported) {
  const std::uint32_t t = now.thread;
  if (write) {
    if (!reported && !ordered(c.write, t)) {
      report(c.write, true, true, address, size, pc);
      reported = true;
    }
    for (const Access* r : {&c.read1, &c.read2}) {
      if (!reported && !ordered(*r, t)) {
        report(*r, false, true, address, size, pc);
        reported = true;
      }
    }
    c.write = now;
  } else {
    if (!reported && !ordered(c.write, t)) {
      report(c.write, true, false, address, size, pc);
      reported = true;
    }
    // Keep up to two readers of this interval, so that a later writer finds one that is not
    // itself.
    if (c.read1.epoch != epoch_ || c.read1.thread == t) {
      if (c.read1.epoch != epoch_) c.read2 = Access{};
      c.read1 = now;
    } else {
      c.read2 = now;
    }
  }
}

void RaceChecker::check_shared_log(bool interval_ends) {
  // The emulator's work, wherever it runs (a hook, the scheduler): see count_profile_batch().
  RaceChecker* const recording = tl_recording;
  tl_recording = nullptr;
  {
    const EmulatorCode emulator;
    const bool met = interval_ends && shared_writes_ && !shared_ranges_apart(shared_runs_);
    shared_block_direct_ = shared_block_direct_ || met;
    if (!interval_ends || met) {
      thread_local ExpandedAccesses accesses;
      accesses.clear();
      for (const LoggedAccess& r : shared_runs_) expand_run(r, accesses);
      sort_in_order(accesses);
      const std::uint32_t thread = thread_;
      for (const auto& [index, a] : accesses) {
        thread_ = a.thread;
        touch_shared(a.address, a.size, a.write, a.pc, false);
      }
      thread_ = thread;
    }
  }
  tl_recording = recording;
  shared_runs_.clear();
  shared_log_.close_runs();
  shared_log_.next_index = 0;
  shared_writes_ = false;
  // Checked in the middle of the interval: what follows goes access by access, after it.
  shared_direct_ = !interval_ends;
}

void RaceChecker::access_shared(std::uintptr_t address, std::size_t size, bool write,
                                std::uintptr_t pc, bool atomic) {
  // An atomic leaves no record (touch_shared): the log waits.
  if (!atomic) flush_shared(false);
  touch_shared(address, size, write, pc, atomic);
}

void RaceChecker::touch_shared(std::uintptr_t address, std::size_t size, bool write,
                               std::uintptr_t pc, bool atomic) {
  if (recording_) record_shared(address, size, write, atomic);
  // Any kernel reads threadIdx (thread-local, in this range): proof that it is instrumented.
  instrumented_ = true;
  // Atomics do not race with each other; shared-memory atomics are not recorded.
  if (atomic) return;
  const std::uint32_t t = thread_;
  if (address >= dyn_begin_ && address < dyn_end_) {
    if (address - dyn_begin_ + size > shape_.dynamic_shared_bytes) {
      shared_fault(address, size, write, pc);
      return;
    }
  } else if (tls_kind(tls_kinds_, address - tls_begin_) == 1) {
    // threadIdx & co., the emulator's other variables and the compiler's guard variables live in
    // the TLS block too: a race there is never reported (report()), so their bytes need no
    // shadow.
    return;
  }
  size = std::min<std::size_t>(size, tls_end_ - address);
  const std::uint32_t own_clock = clock_of(t, t & 31u);
  const Access now{epoch_, own_clock, static_cast<std::uint16_t>(t), pc};
  bool reported = false;
  // Word by word: a word the access covers whole, whose bytes share one history, is one step;
  // any other word is done byte by byte, as each byte has its own history from then on.
  const std::uintptr_t end = address + size;
  for (std::uintptr_t a = address; a < end;) {
    const std::uintptr_t word_begin = a & ~std::uintptr_t{3};
    const std::uintptr_t stop = std::min(word_begin + 4, end);
    Word& w = word(a);
    if (w.split == 0 && a == word_begin && stop == word_begin + 4) {
      touch(w.whole, now, write, address, size, pc, reported);
    } else {
      if (w.split == 0) {
        split_.push_back({w.whole, w.whole, w.whole, w.whole});
        w.split = static_cast<std::uint32_t>(split_.size());
      }
      std::array<Cell, 4>& bytes = split_[w.split - 1];
      for (std::uintptr_t b = a; b < stop; ++b)
        touch(bytes[b - word_begin], now, write, address, size, pc, reported);
    }
    a = stop;
  }
}

void RaceChecker::report(const Access& earlier, bool earlier_wrote, bool wrote,
                         std::uintptr_t address, std::size_t size, std::uintptr_t pc) {
  // One report per memory location: a missing barrier usually races on every element, and every
  // racing access comes here. The location's offset in the TLS block names the space, the array
  // and the byte: a location reported before is answered before anything is built.
  const std::uint64_t key = address - tls_begin_;
  if (reported_.count(key) != 0) return;
  Race race;
  race.first_pc = earlier.pc;
  race.second_pc = pc;
  race.block = block_index_;
  race.multi_dim_block = shape_.block.y > 1 || shape_.block.z > 1;
  const auto id = [&](std::uint32_t t) {
    const std::uint32_t bx = shape_.block.x, by = shape_.block.y;
    return ThreadId{t, uint3{t % bx, (t / bx) % by, t / (bx * by)}};
  };
  race.first = id(earlier.thread);
  race.first_wrote = earlier_wrote;
  race.second = id(thread_);
  race.second_wrote = wrote;
  race.barrier_interval = epoch_ - block_first_epoch_ - handoffs_;
  race.access_bytes = static_cast<unsigned>(size);
  std::uint64_t element_offset = 0;
  if (address >= dyn_begin_ && address < dyn_end_) {
    race.space = MemorySpace::dynamic_shared;
    race.byte_offset = address - dyn_begin_;
    element_offset = race.byte_offset;
  } else {
    race.space = MemorySpace::static_shared;
    const std::uint64_t off = address - tls_begin_;
    const auto* sym = ProgramSymbols::get().tls_symbol_at(off);
    // Only a kernel's __shared__ arrays are shared memory. The rest of the TLS block is the
    // emulator's, or the compiler's: the guard variable of a thread_local (= __shared__) array,
    // which every thread of the block tests at the declaration, is no access the program made.
    if (sym == nullptr || !sym->user_shared) return;
    race.array = sym->name;
    race.byte_offset = off - sym->offset;
    element_offset = race.byte_offset;
  }
  if ((race.space == MemorySpace::dynamic_shared || !race.array.empty()) && size > 0 &&
      element_offset % size == 0) {
    race.index = element_offset / size;
  }
  if (reported_.size() < 100000) reported_.insert(key);
  ++races_found_;
  if (races_.size() < max_reports_) races_.push_back(std::move(race));
}

}  // namespace gpulab::simt::detail

namespace gpulab::simt {

Text Race::describe() const {
  const auto who = [&](const ThreadId& t) {
    std::string s = std::to_string(t.linear);
    if (multi_dim_block) {
      s += " (" + std::to_string(t.index.x) + "," + std::to_string(t.index.y) + "," +
           std::to_string(t.index.z) + ")";
    }
    return s;
  };
  const std::string byte = std::to_string(byte_offset);
  Text where;
  if (space == MemorySpace::dynamic_shared) {
    where =
        index
            ? Text{"extern __shared__ memory[" + std::to_string(*index) + "] (byte " + byte + ")",
                   "extern __shared__ 内存[" + std::to_string(*index) + "]（第 " + byte + " 字节）"}
            : Text{"extern __shared__ memory at byte " + byte,
                   "extern __shared__ 内存的第 " + byte + " 字节"};
  } else if (!array.empty()) {
    where = index ? Text{"__shared__ " + array + "[" + std::to_string(*index) + "]",
                         "__shared__ " + array + "[" + std::to_string(*index) + "]"}
                  : Text{"__shared__ " + array + " at byte " + byte,
                         "__shared__ " + array + " 的第 " + byte + " 字节"};
  } else {
    where = {"static shared memory at byte " + byte + " of the TLS block",
             "TLS 块中第 " + byte + " 字节处的静态共享内存"};
  }
  const std::string k = std::to_string(barrier_interval);
  const Text interval = barrier_interval == 0
                            ? Text{"before the block's first __syncthreads()",
                                   "在线程块的第一个 __syncthreads() 之前"}
                            : Text{"after the block's __syncthreads() #" + k,
                                   "在线程块的第 " + k + " 个 __syncthreads() 之后"};
  const std::string b = "(" + std::to_string(block.x) + "," + std::to_string(block.y) + "," +
                        std::to_string(block.z) + ")";
  return {"block " + b + ": race on " + where.en + " " + interval.en + ": thread " + who(first) +
              (first_wrote ? " wrote" : " read") + ", then thread " + who(second) +
              (second_wrote ? " wrote" : " read") + " with no barrier in between",
          "线程块 " + b + "：" + interval.zh + "，" + where.zh + " 上有竞争：线程 " + who(first) +
              (first_wrote ? " 写入" : " 读取") + "，随后线程 " + who(second) +
              (second_wrote ? " 写入" : " 读取") + "，中间没有屏障"};
}

}  // namespace gpulab::simt
