// Check mode: finds shared-memory races among the accesses that instrumented kernels report.
//
// See tsan_hooks.cpp and docs/simt.md, "Race checks".
#pragma once

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

#include "simt/memory_check.hpp"
#include "simt/profile_gather.hpp"
#include "simt/program_symbols.hpp"
#include "simt/scheduler.hpp"
#include "simt/simt.hpp"

namespace gpulab::simt::detail {

// Check mode: the shared-memory races found before the calling thread's last launch failed (a
// race is often what makes a kernel fault); taking them empties the list (launch.cpp).
std::vector<Race> races_of_failed_launch();

class RaceChecker {
 public:
  RaceChecker(const LaunchShape& shape, std::size_t max_reports);
  RaceChecker(const RaceChecker&) = delete;
  RaceChecker& operator=(const RaceChecker&) = delete;
  ~RaceChecker();

  void begin_block(std::uint64_t linear_block, uint3 block_index);
  void on_barrier();
  void on_warp_sync(std::uint32_t warp, std::uint32_t mask);
  void set_thread(std::uint32_t t) {
    thread_ = t;
    // Its first event opens a segment of the profile batch (make_room).
    profile_segment_open_ = false;
    profile_sp_min_ = ~std::uintptr_t{0};
  }
  void set_runner(BlockRunner* runner) { runner_ = runner; }
  // The worker's block faulted: no block after it is checked (global-memory checks).
  void worker_faulted();

  // Called from the hooks for every access of instrumented code while a CUDA thread runs; `pc` is
  // the code address of the access.
  void access(std::uintptr_t address, std::size_t size, bool write, std::uintptr_t pc,
              bool atomic = false) {
    // Most accesses to the TLS block are the emulator's own variables (threadIdx & co., read by
    // every thread), where there is nothing to check or count: answered here, in the hook.
    const std::uintptr_t off = address - tls_begin_;
    if (off < tls_bytes_ && tls_kinds_[off].load(std::memory_order_relaxed) == 1) {
      // Any kernel reads threadIdx: proof that it is instrumented.
      instrumented_ = true;
      return;
    }
    if (!profile_ && runner_ != nullptr) {
      // Only the checks are on (no profile): access_checked()'s path without its calls. Past the
      // last kHookStackBytes of the CUDA thread's stack (see access_checked), a shared access
      // goes straight to its shadow, and a global one outside the thread's stack is logged here
      // for the in-order check (memory_check.hpp) unless an exercise records it.
      const StackBounds stack = runner_->current_stack();
      const auto begin = reinterpret_cast<std::uintptr_t>(stack.bottom);
      const auto sp = reinterpret_cast<std::uintptr_t>(__builtin_frame_address(0));
      if (sp - begin >= kHookStackBytes || begin == 0) {
        if (off < tls_bytes_) {
          access_shared(address, size, write, pc, atomic);
          return;
        }
        if (fast_global_) {
          if (address - begin < stack.size) return;  // the thread's local memory
          if (log_global_fast(address, size, write, atomic, pc, thread_, epoch_,
                              thread_ < held_.size() ? held_[thread_] : 0u))
            return;
        }
      }
    }
    access_checked(address, size, write, pc, atomic);
  }
  // The hook's common path while only the checks are on: what access() does for a read of the
  // emulator's variables (threadIdx & co.), an access to the CUDA thread's own stack, or a global
  // access that joins the worker's log with no allocation; false where access() must be called.
  // Inlined into each hook, it calls nothing.
  [[gnu::always_inline]] bool access_inline(std::uintptr_t address, std::size_t size, bool write,
                                            std::uintptr_t pc, std::uintptr_t sp) {
    const std::uintptr_t off = address - tls_begin_;
    if (off < tls_bytes_) {
      const std::uint8_t kind = tls_kinds_[off].load(std::memory_order_relaxed);
      if (kind == 1) {
        instrumented_ = true;
        return true;
      }
      return kind == 2 && log_shared(address, size, write, pc, sp);
    }
    if (!fast_global_ || runner_ == nullptr) return false;
    const StackBounds stack = runner_->current_stack();
    const auto begin = reinterpret_cast<std::uintptr_t>(stack.bottom);
    if (begin == 0 || sp - begin < kHookStackBytes) return false;
    if (address - begin < stack.size) return true;  // the thread's local memory
    const FastLog& log = tl_fast_log;
    if (address >= log.arguments_begin && address < log.arguments_end) return true;
    return log_inline(address, size, write, pc);
  }
  // access_inline()'s global access, out of line: the hook's path to the emulator's variables
  // and the stack then saves no registers.
  [[gnu::noinline]] bool log_inline(std::uintptr_t address, std::size_t size, bool write,
                                    std::uintptr_t pc) {
    FastLog& log = tl_fast_log;
    if (log.accesses == nullptr || g_device_heap_blocks.load(std::memory_order_relaxed) != 0)
      return false;
    const std::uint32_t lock = thread_ < held_.size() ? held_[thread_] : 0u;
    if (log_in_run(log, address, size, write, false, pc, thread_, epoch_, lock)) return true;
    // A new run, unless the log must grow (an allocation, which access() makes as the
    // emulator's).
    return log.accesses->size() < log.accesses->capacity() &&
           log_new_run(log, address, size, write, false, pc, thread_, epoch_, lock);
  }
  bool instrumented() {
    end_profile_batch();
    flush_shared(true);
    return instrumented_;
  }
  // Called from the basic-block hook (gpulab profile's builds) while a CUDA thread runs.
  void basic_block(std::uintptr_t pc) {
    if (profile_only_) {
      profile_push(ProfileEvent{pc, 0, ProfileEvent::kBasicBlock});
    } else if (profile_) {
      profile_->basic_block(pc, thread_);
    }
  }

  // gpulab profile without --check: the hooks append the CUDA thread's accesses and basic blocks
  // to a batch (ProfileEvent) and return; the batch is sorted and counted in bulk when the thread
  // gives up the OS thread, at a barrier, at the block's end, or when it is full, in the order the
  // events were made. False (nothing kept) where the hook must call access() or basic_block():
  // no open batch with room (make_room, then again), profiling with the checks, or a stack
  // pointer `sp` near the end of the thread's stack (access_checked leaves those accesses out).
  [[gnu::always_inline]] bool keep_profile_event(std::uintptr_t pc, std::uintptr_t address,
                                                 std::uint64_t meta, std::uintptr_t sp) {
    if (profile_next_ == profile_end_ || sp < profile_sp_min_) return false;
    *profile_next_++ = ProfileEvent{pc, address, meta};
    return true;
  }

  // Spin locks: an atomic write of the word a thread holds a lock on (an exchange, a store, a
  // compare-and-swap) lets it go; otherwise a compare-and-swap that changed a word (`cas`) takes
  // the lock at that address. Global accesses made under the same lock do not race (Eraser's
  // lockset, one lock per thread): CUDA by Example's dot product with a lock is clean.
  void lock_write(std::uintptr_t address, bool cas);
  // A thread waited for others of its block outside a barrier (a cuda::pipeline's stage): every
  // access before is ordered before every access after, as at a barrier (races across the wait go
  // unreported); the barrier count in race reports is not changed.
  void on_handoff() {
    flush_shared(true);
    ++epoch_;
    ++handoffs_;
  }

  std::vector<Race> take_races() {
    flush_shared(true);
    return std::move(races_);
  }
  std::uint64_t races_found() const { return races_found_; }

  // The first event of a thread's turn opens its segment of the batch; one that finds the batch
  // full counts it first (not with the stack pointer `sp` near the end of the stack: the counting
  // needs stack). False where it did neither, or profiling is not batched.
  bool make_room(std::uintptr_t sp);

 private:
  // The last accesses to one byte within the current barrier interval. An epoch identifies a
  // (block, barrier interval) pair on this worker; records of older epochs are ignored, so the
  // shadow never needs clearing.
  struct Access {
    std::uint32_t epoch = 0;
    std::uint32_t clock = 0;  // the thread's own warp-sync clock when it accessed
    std::uint16_t thread = 0;
    std::uintptr_t pc = 0;
  };
  struct Cell {
    Access write, read1, read2;
  };
  // The shadow of one aligned 4-byte word: while every access to it covered the whole word, its 4
  // bytes share one history (`whole`); the first access to part of it (a char, a misaligned
  // access) gives each byte its own copy (split_[split - 1]) from then on. A whole-word access to
  // a word whose bytes share one history does to each byte exactly what it does to `whole`.
  struct Word {
    Cell whole;
    std::uint32_t split = 0;  // 0: one history for the 4 bytes
  };
  static constexpr std::size_t kChunkBytes = 4096;
  static constexpr std::uintptr_t kHookStackBytes = 16 * 1024;

  Word& word(std::uintptr_t address);
  bool ordered(const Access& earlier, std::uint32_t t) const;
  // One byte's (or one whole word's) part of an access: reports a race with what is there unless
  // `reported`, then records the access.
  void touch(Cell& c, const Access& now, bool write, std::uintptr_t address, std::size_t size,
             std::uintptr_t pc, bool& reported);
  void report(const Access& earlier, bool earlier_wrote, bool wrote, std::uintptr_t address,
              std::size_t size, std::uintptr_t pc);
  void access_global(std::uintptr_t address, std::size_t size, bool write, std::uintptr_t pc,
                     bool atomic);
  void access_checked(std::uintptr_t address, std::size_t size, bool write, std::uintptr_t pc,
                      bool atomic);
  void access_shared(std::uintptr_t address, std::size_t size, bool write, std::uintptr_t pc,
                     bool atomic);
  // access_shared() without the log: an access checked now, in order.
  void touch_shared(std::uintptr_t address, std::size_t size, bool write, std::uintptr_t pc,
                    bool atomic);
  // Shared accesses of the current barrier interval, logged as runs (memory_check.hpp's
  // LoggedAccess) while only the checks are on: an interval in which no two CUDA threads touch
  // one byte, one of them writing, has no race (nothing orders threads within an interval but a
  // __syncwarp, which ends the log), and needs no shadow at all, since the shadow's records of
  // older intervals are never looked at. Checked when the interval ends (flush_shared(true)):
  // as ranges first, access by access in order (touch_shared) when ranges meet. A __syncwarp, an
  // access that takes access_shared() or a fault checks the log access by access at once, and the
  // rest of the interval goes access by access too (shared_direct_).
  [[gnu::always_inline]] bool log_shared(std::uintptr_t address, std::size_t size, bool write,
                                         std::uintptr_t pc, std::uintptr_t sp) {
    if (!fast_shared_ || shared_direct_) return false;
    // In the last kHookStackBytes of the CUDA thread's stack access_checked() checks nothing.
    if (runner_ != nullptr) {
      const auto begin = reinterpret_cast<std::uintptr_t>(runner_->current_stack().bottom);
      if (begin != 0 && sp - begin < kHookStackBytes) return false;
    }
    if (address - dyn_begin_ < dyn_end_ - dyn_begin_) {
      if (address - dyn_begin_ + size > shape_.dynamic_shared_bytes) return false;
    } else if (address + size > tls_end_) {
      return false;
    }
    if (!log_in_run(shared_log_, address, size, write, false, pc, thread_, epoch_, 0)) {
      if (shared_runs_.size() == shared_runs_.capacity() ||
          !log_new_run(shared_log_, address, size, write, false, pc, thread_, epoch_, 0))
        return false;
    }
    instrumented_ = true;
    shared_writes_ = shared_writes_ || write;
    return true;
  }
  void flush_shared(bool interval_ends) {
    if (!shared_runs_.empty()) check_shared_log(interval_ends);
    if (interval_ends) shared_direct_ = shared_block_direct_;
  }
  void check_shared_log(bool interval_ends);
  bool fast_shared_ = false;    // no profile, no recording: shared accesses may be logged
  bool shared_direct_ = false;  // the rest of the interval goes access by access
  bool shared_writes_ = false;  // the log holds a write
  // An interval of the block had threads meet: the block's other intervals likely do too (a
  // missing barrier), and go access by access, as checking each log twice would cost more.
  bool shared_block_direct_ = false;
  std::vector<LoggedAccess> shared_runs_;
  FastLog shared_log_;
  // The open runs of the shared log and of the worker's global log (tl_fast_log).
  std::array<OpenRun, kOpenRuns> shared_open_{}, global_open_{};
  void shared_fault(std::uintptr_t address, std::size_t size, bool write, std::uintptr_t pc);
  // The block's fields of a global access's context (memory_check.hpp).
  GlobalAccessContext block_context() const;
  std::uint32_t clock_of(std::uint32_t t, std::uint32_t other_lane);
  void refresh_warp(std::uint32_t warp);

  const LaunchShape& shape_;
  std::size_t max_reports_;
  BlockRunner* runner_ = nullptr;
  std::uint32_t thread_ = 0;
  std::uint32_t epoch_ = 0;
  bool check_global_ = false;  // global-memory checks on (memory_check.hpp)
  bool fast_global_ = false;   // check_global_, and no profile or recording to feed
  bool recording_ = false;     // the exercise recorder is on (access_record.hpp)
  void record_shared(std::uintptr_t address, std::size_t size, bool write, bool atomic);
  // gpulab profile: the counters (profile_gather.hpp); with profile_only_, no race checks.
  std::unique_ptr<ProfileCollector> profile_;
  bool profile_only_ = false;
  // The batch of keep_profile_event: [profile_begin_, profile_next_) kept, room up to
  // profile_end_. A segment marker (ProfileEvent::kSegment) names the thread of the events that
  // follow and its stack; profile_segment_open_ while the current thread's is in the batch, and
  // profile_sp_min_ is the lowest stack pointer at which a hook may keep an event (the largest
  // value while no segment is open). The segment that the batch ends in, as counted so far.
  static constexpr std::size_t kProfileBatch = 4096;
  std::vector<ProfileEvent> profile_batch_;
  ProfileEvent* profile_begin_ = nullptr;
  ProfileEvent* profile_next_ = nullptr;
  ProfileEvent* profile_end_ = nullptr;
  std::uintptr_t profile_sp_min_ = ~std::uintptr_t{0};
  bool profile_segment_open_ = false;
  ProfileSegment profile_segment_;
  // Makes room and keeps `e` in the batch.
  void profile_push(const ProfileEvent& e);
  // Counts what the batch holds and empties it.
  void count_profile_batch();
  void end_profile_batch();
  ProfileStack current_stack() const {
    if (runner_ == nullptr) return {};
    const StackBounds stack = runner_->current_stack();
    return {reinterpret_cast<std::uintptr_t>(stack.bottom), stack.size};
  }
  // What each byte of the TLS block holds (race_check.cpp, tls_kinds): shared by all workers.
  std::atomic<std::uint8_t>* tls_kinds_ = nullptr;
  std::uintptr_t tls_bytes_ = 0;  // 0 until the table is there
  std::uint32_t block_first_epoch_ = 0;
  std::uint32_t handoffs_ = 0;  // in the block, since block_first_epoch_ (on_handoff)
  std::uint64_t block_linear_ = 0;
  uint3 block_index_{0, 0, 0};
  // The lock each thread of the block holds (0: none), as lock_token() of its address.
  std::vector<std::uint32_t> held_;
  bool instrumented_ = false;

  // This OS thread's shared memory: its static TLS block (static __shared__ arrays) and, inside it,
  // the dynamic shared buffer.
  std::uintptr_t tls_begin_ = 0, tls_end_ = 0;
  std::uintptr_t dyn_begin_ = 0, dyn_end_ = 0;
  std::uintptr_t words_begin_ = 0;               // tls_begin_ rounded down to a word
  std::vector<std::unique_ptr<Word[]>> chunks_;  // kChunkBytes of the TLS block each
  std::vector<std::array<Cell, 4>> split_;       // the bytes of words accessed in part

  // Warp-level happens-before: vc_[t][l] = the clock of lane l (same warp) that thread t has seen
  // at a __syncwarp. Reset at each barrier (lazily, per warp, by epoch).
  std::vector<std::uint32_t> vc_;
  std::vector<std::uint32_t> vc_epoch_;

  std::vector<Race> races_;
  std::unordered_set<std::uint64_t> reported_;  // locations (offsets in the TLS block) reported
  std::uint64_t races_found_ = 0;
  bool reported_overflow_ = false;
};

// Non-null only while instrumented kernel code of a checked launch runs on this OS thread.
inline thread_local RaceChecker* tl_recording = nullptr;
// The instrumented access a hook is working for, while the hook is out of its common path: a
// fault there (a CUDA thread's stack overflowing in the hook's call) names that access's line.
inline thread_local void* tl_hook_site = nullptr;

// The dynamic shared buffer of the calling OS thread.
unsigned char* dynamic_shared_buffer() noexcept;

}  // namespace gpulab::simt::detail
