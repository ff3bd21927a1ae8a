// Runs one block on one OS thread: a plain loop, and fibers once a thread must wait.
//
// See docs/simt.md, "Fibers".
#pragma once

#include <cstdint>
#include <exception>
#include <source_location>
#include <string>
#include <utility>
#include <vector>

#include <boost/context/fiber.hpp>

#include "simt/device_api.hpp"
#include "simt/simt.hpp"
#include "simt/stack_pool.hpp"

namespace gpulab::simt::detail {

class RaceChecker;
struct CaughtSignal;

// Bump allocation of coroutine frames: every frame of a block is freed at once when the next block
// starts, so a thread's frame costs a pointer increment and its frames lie side by side.
class FrameArena {
 public:
  FrameArena() = default;
  FrameArena(const FrameArena&) = delete;
  FrameArena& operator=(const FrameArena&) = delete;
  ~FrameArena();
  void* allocate(std::size_t bytes);
  void reset() { used_ = 0; }
  std::pair<std::uintptr_t, std::uintptr_t> range() const {
    const auto b = reinterpret_cast<std::uintptr_t>(base_);
    return {b, b + capacity_};
  }

 private:
  unsigned char* base_ = nullptr;
  std::size_t capacity_ = 0, used_ = 0;
};

// What every block of one launch shares.
struct LaunchShape {
  const ErasedKernel* kernel = nullptr;
  dim3 grid, block;
  std::uint32_t threads = 0;  // per block
  std::uint32_t warps = 0;    // per block
  std::size_t dynamic_shared_bytes = 0;
};

// Where a worker takes its blocks from (launch.cpp): next() gives the next block's linear index
// and coordinates (and sets blockIdx), or false when there is none left or the launch stops.
struct BlockSource {
  bool (*next)(void* context, std::uint64_t* linear, uint3* index) = nullptr;
  void* context = nullptr;
  bool take(std::uint64_t* linear, uint3* index) const { return next(context, linear, index); }
};

struct BlockTotals {
  std::uint64_t barriers = 0;
  std::uint64_t collectives = 0;
  std::uint64_t blocks_on_fibers = 0;
};

class BlockRunner {
 public:
  BlockRunner(const LaunchShape& shape, StackPool& pool, RaceChecker* checker);
  BlockRunner(const BlockRunner&) = delete;
  BlockRunner& operator=(const BlockRunner&) = delete;
  ~BlockRunner();

  // Runs every thread of the block to its end; throws KernelFault on a fault. With a source of
  // blocks (set_source), a block that ends without ever waiting is followed on the same fiber by
  // the source's next blocks, until one waits or faults or none is left: a block costs no fiber
  // switches then. The fault thrown names the block it happened in.
  void run(std::uint64_t linear_block, uint3 block_index);
  void set_source(const BlockSource* source) { source_ = source; }

  const BlockTotals& totals() const { return totals_; }

  // Entry points of the device API (the calling CUDA thread is loop_.current).
  int block_barrier(BlockOp op, int predicate, const std::source_location& where);
  std::uint64_t warp_collective(WarpOp op, unsigned mask, std::uint64_t value, int arg, int width,
                                const std::source_location& where);

  // The same for a thread that runs as a coroutine (simt/coroutine.hpp): the arrival is booked
  // exactly as above, but a thread that must wait is suspended (its coroutine returns to whoever
  // resumed it) instead of parked on its fiber. `handle` is the suspended coroutine.
  CoArrival co_block_barrier(BlockOp op, int predicate, const std::source_location& where,
                             void* handle);
  CoArrival co_warp_collective(WarpOp op, unsigned mask, std::uint64_t value, int arg, int width,
                               const std::source_location& where, void* handle);
  // A kernel call started the current thread's coroutine, which has now ended or is suspended.
  void co_started(void* handle);
  void* co_frame_allocate(std::size_t bytes);
  // A kernel split into region loops (simt/region.hpp, device_api.hpp's region_*).
  ThreadLoop* region_begin(bool speculative);
  void region_fall_back();
  void* region_storage(std::size_t bytes);
  void region_barrier(bool first);
  // A spinning thread (a failed atomicCAS loop, an atomicExch that changed nothing, __nanosleep)
  // lets the other threads of its block run before it tries again.
  void spin(const void* address);
  // The current thread waited for others of its block outside a barrier (detail::handoff).
  void handoff();
  // The address spin_wait() passes: a round of an empty loop in device code.
  static inline const char kLoopRound = 0;
  [[noreturn]] void trap(const std::source_location& where);
  // Ends the current thread with a fault that fails the block once the rest of its warp has run
  // (a failed assert: every lane of the warp that fails it too says so, as on a GPU); the first
  // such fault is the block's. Threads of later warps do not start.
  [[noreturn]] void end_thread_in_warp(KernelFault::Kind kind, Text message);
  [[noreturn]] void invalid_call(const Text& what, const std::source_location& where);
  // A fault found by the race checker: reported once the current thread yields.
  void note_fault(KernelFault::Kind kind, const Text& message, std::uintptr_t pc = 0);

  std::uint32_t current_thread() const { return loop_.current; }
  BarrierGather* gather() { return &gather_; }
  // Frames of coroutine threads live in [begin, end) (check mode: local memory, not global).
  std::pair<std::uintptr_t, std::uintptr_t> frame_range() const { return frames_.range(); }
  // The stack of the CUDA thread that runs now (its local variables live there).
  StackBounds current_stack() const { return current_stack_; }

 private:
  // Why a parked thread waits.
  struct Wait {
    std::source_location where;
    std::uint64_t value = 0;
    std::uint32_t mask = 0;
    std::int32_t arg = 0;
    std::int32_t width = 32;
    std::uint8_t op = 0;
    bool block = false;  // at a block barrier (op is a BlockOp), else a warp collective (WarpOp)
  };

  struct Unwind {};  // thrown in a parked thread to end it when the block is abandoned

  // Who gives up the OS thread in a switch.
  enum class From : std::uint8_t { scheduler, thread, idle, ended };

  boost::context::fiber loop_entry(boost::context::fiber&& incoming);
  void thread_loop();
  void begin_block(std::uint64_t linear_block, uint3 block_index);
  bool chain_next_block();
  void on_thread_exit(std::uint32_t t);
  void park(std::uint32_t t);
  void dispatch(From from, std::uint32_t from_thread);
  void switch_to(boost::context::fiber&& target, StackBounds target_stack, From from,
                 std::uint32_t from_thread);
  void accept(boost::context::fiber&& incoming, StackBounds incoming_stack);
  void start_loop_fiber(From from, std::uint32_t from_thread);
  void set_thread(std::uint32_t t);
  static void loop_enter(void* runner, std::uint32_t t);
  static void loop_exit(void* runner, std::uint32_t t);
  void go_on_fibers();
  [[gnu::noinline]] void barrier_arrive(BlockOp op, int predicate,
                                        const std::source_location& where);
  void materialize_barrier_waits();
  // Inlined into its two callers: a coroutine lane's arrival is one call, not two.
  [[gnu::always_inline]] inline bool collective_arrive(WarpOp op, unsigned mask,
                                                       std::uint64_t value, int arg, int width,
                                                       const std::source_location& where);
  [[gnu::always_inline]] inline void resume_coroutine(std::uint32_t t);  // dispatch()'s
  bool work_pending() const { return release_next_ < release_end_ || ready_head_ < ready_.size(); }
  void make_ready(std::uint32_t t);
  void quiescent();
  void abandon();

  bool group_complete(std::uint32_t warp, std::uint32_t mask, std::uint8_t op) const;
  void complete_group(std::uint32_t warp, std::uint32_t mask, std::uint32_t self);
  void release_group(std::uint32_t warp, std::uint32_t mask, std::uint32_t self, WarpOp op);
  void check_shuffle_sources(std::uint32_t warp, std::uint32_t mask);
  bool try_resolve_activemask(std::uint32_t warp, std::uint32_t self, bool* self_released);
  [[noreturn]] void fail_here(KernelFault::Kind kind, Text message);
  [[noreturn, gnu::noinline, gnu::cold]] void invalid_collective(WarpOp op, unsigned mask,
                                                                 int width,
                                                                 const std::source_location& where);
  void set_fault(KernelFault::Kind kind, Text message);
  // A fault the signal handler caught in this block's kernel code (guard.cpp).
  void caught_signal(const CaughtSignal& caught);
  std::string block_name(Lang lang = Lang::en) const;
  // lane_waiting: a lane that waits at the collective to describe.
  Text describe_warp_deadlock(std::uint32_t warp, std::uint32_t lane_waiting) const;
  Text describe_barrier_divergence() const;
  std::string thread_name(std::uint32_t t, Lang lang = Lang::en) const;
  std::uint32_t lanes_started(std::uint32_t warp) const;

  const LaunchShape& shape_;
  StackPool& pool_;
  RaceChecker* checker_;
  const BlockSource* source_ = nullptr;
  BlockTotals totals_;

  // Block state.
  std::uint64_t block_linear_ = 0;
  uint3 block_index_{0, 0, 0};
  std::uint32_t n_ = 0;
  // The thread loop's state: next, current, finished and faulted live there.
  ThreadLoop loop_;
  bool on_fibers_ = false;
  // The block's region loops gave it back to the kernel's code as written (region_fall_back).
  bool region_fallen_ = false;
  bool aborting_ = false;
  KernelFault::Kind fault_kind_ = KernelFault::Kind::divergent_barrier;
  Text fault_message_;
  std::uintptr_t fault_pc_ = 0;  // the access that found it, when an access did
  std::exception_ptr exception_;
  std::uint32_t exception_thread_ = 0;
  // end_thread_in_warp: the fault that fails the block once the loop reaches the warp's end.
  bool warp_fault_ = false;
  KernelFault::Kind warp_fault_kind_ = KernelFault::Kind::assertion;
  Text warp_fault_message_;
  // Raises the pending warp fault (end_thread_in_warp), if any.
  void raise_warp_fault();

  // Per thread.
  std::vector<Wait> wait_;
  // A suspended coroutine (std::coroutine_handle<>::address()), for a thread that waits as one.
  std::vector<void*> co_;
  // The coroutine that a kernel call just started is suspended: the thread loop must not count
  // the thread as ended.
  bool co_first_park_ = false;
  // Coroutine frames of the block's threads: one region, reset at each block.
  FrameArena frames_;
  // Spinning: the address a thread last failed on, and how often in a row; apart for atomics and
  // for rounds of empty loops.
  struct SpinCount {
    const void* address = nullptr;
    std::uint32_t thread = 0, count = 0;
  };
  SpinCount atomic_spins_, loop_spins_;
  std::vector<std::uint32_t> yielded_;  // threads that yielded, run when nothing else can
  std::vector<std::uint64_t> result_;
  std::vector<boost::context::fiber> fiber_;
  std::vector<StackBounds> stack_;
  std::vector<uint3> coords_;  // threadIdx of each linear thread id
  // Per warp, one bit per lane.
  std::vector<std::uint32_t> present_;
  std::vector<std::uint32_t> finished_;
  std::vector<std::uint32_t> warp_wait_;
  std::vector<std::uint32_t> block_wait_;
  std::vector<std::uint32_t> activemask_wait_;

  std::vector<std::uint32_t> ready_;
  std::size_t ready_head_ = 0;
  // Threads [release_next_, release_end_) were released by a barrier and run before ready_.
  std::uint32_t release_next_ = 0, release_end_ = 0;
  // The barrier being gathered: arrivals, the first one, the predicates' sum, and whether any
  // arrival waits at another call or kind than the first.
  BarrierGather gather_;

  // Fiber plumbing.
  boost::context::fiber scheduler_;  // the suspended scheduler, while a fiber runs
  StackBounds scheduler_stack_;      // ASan builds: the stack of the last scheduler to switch in
  StackBounds current_stack_;        // the stack of the context that runs now
  From from_ = From::scheduler;      // the last switch's leaver
  std::uint32_t from_thread_ = 0;
  StackBounds from_stack_;
  // Fibers whose thread loop ran out of threads, kept (with their stacks) for the next loop: a
  // block then costs no fiber creation once its worker has run one like it.
  struct IdleFiber {
    boost::context::fiber fiber;
    StackBounds stack;
  };
  std::vector<IdleFiber> idle_;
  bool retiring_ = false;
};

// The runner of the block that the current OS thread is running, if any.
inline thread_local BlockRunner* tl_runner = nullptr;

std::string format_lanes(std::uint64_t mask, std::uint32_t offset);
std::string format_ids(const std::vector<std::uint32_t>& ids);
std::string site_name(const std::source_location& where);
const char* warp_op_name(WarpOp op);
const char* block_op_name(BlockOp op);

}  // namespace gpulab::simt::detail
