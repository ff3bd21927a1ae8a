// Block scheduling: the plain thread loop, fibers for parked threads, barriers, collectives.
#include "simt/scheduler.hpp"

#include <sys/mman.h>

#include <algorithm>
#include <bit>
#include <coroutine>
#include <cstdio>
#include <cstring>
#include <new>
#include <string>
#include <utility>

#include "simt/guard.hpp"
#include "simt/kernel_code.hpp"
#include "simt/race_check.hpp"
#include "simt/sanitizers.hpp"

namespace gpulab::simt::detail {

namespace ctx = boost::context;

namespace {

constexpr std::uint32_t kNoThread = 0xffffffffu;

// Address space reserved for one worker's coroutine frames (pages are touched only as used): 1024
// threads of up to 64 KiB each.
constexpr std::size_t kFrameArenaBytes = std::size_t{64} << 20;

// Failed tries in a row on one address after which a spinning thread yields.
constexpr std::uint32_t kSpinTries = 8;

bool same_site(const std::source_location& a, const std::source_location& b) {
  // The same call site is usually the same object: compared without reading it.
  if (std::memcmp(&a, &b, sizeof a) == 0) return true;
  return a.line() == b.line() && a.column() == b.column() &&
         (a.file_name() == b.file_name() || std::strcmp(a.file_name(), b.file_name()) == 0);
}

bool is_shuffle(WarpOp op) {
  return op == WarpOp::shfl_idx || op == WarpOp::shfl_up || op == WarpOp::shfl_down ||
         op == WarpOp::shfl_xor;
}

std::string hex_mask(std::uint32_t mask) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%08x", mask);
  return buf;
}

// One lane's shuffle, as PTX specifies shfl.sync: the segment is `width` lanes; idx wraps the
// source lane into the segment, up/down/xor keep the lane's own value when the source lies outside
// it.
std::uint32_t shuffle_source(WarpOp op, std::uint32_t lane, int arg, int width) {
  const std::uint32_t segmask = static_cast<std::uint32_t>(32 - width) & 31u;  // high lane bits
  const std::uint32_t min_lane = lane & segmask;
  const std::uint32_t b = static_cast<std::uint32_t>(arg) & 31u;
  const int max_lane = static_cast<int>(min_lane | (31u & ~segmask));
  int j = static_cast<int>(lane);
  bool in_range = true;
  switch (op) {
    case WarpOp::shfl_idx:
      j = static_cast<int>(min_lane | (b & ~segmask));
      break;
    case WarpOp::shfl_up:
      j = static_cast<int>(lane) - static_cast<int>(b);
      in_range = j >= static_cast<int>(min_lane);
      break;
    case WarpOp::shfl_down:
      j = static_cast<int>(lane + b);
      in_range = j <= max_lane;
      break;
    case WarpOp::shfl_xor:
      j = static_cast<int>(lane ^ b);
      in_range = j <= max_lane;
      break;
    default:
      break;
  }
  return in_range ? static_cast<std::uint32_t>(j) : lane;
}

}  // namespace

std::string format_lanes(std::uint64_t mask, std::uint32_t offset) {
  std::vector<std::uint32_t> ids;
  for (std::uint64_t m = mask; m != 0; m &= m - 1) {
    ids.push_back(static_cast<std::uint32_t>(std::countr_zero(m)) + offset);
  }
  return format_ids(ids);
}

std::string format_ids(const std::vector<std::uint32_t>& ids) {
  std::string out;
  for (std::size_t i = 0; i < ids.size();) {
    std::size_t j = i;
    while (j + 1 < ids.size() && ids[j + 1] == ids[j] + 1) ++j;
    if (!out.empty()) out += ", ";
    out += std::to_string(ids[i]);
    if (j > i) {
      out += '-';
      out += std::to_string(ids[j]);
    }
    i = j + 1;
  }
  return out;
}

std::string site_name(const std::source_location& where) {
  const char* file = where.file_name();
  const char* slash = std::strrchr(file, '/');
  return std::string(slash != nullptr ? slash + 1 : file) + ":" + std::to_string(where.line());
}

const char* warp_op_name(WarpOp op) {
  switch (op) {
    case WarpOp::sync:
      return "__syncwarp";
    case WarpOp::shfl_idx:
      return "__shfl_sync";
    case WarpOp::shfl_up:
      return "__shfl_up_sync";
    case WarpOp::shfl_down:
      return "__shfl_down_sync";
    case WarpOp::shfl_xor:
      return "__shfl_xor_sync";
    case WarpOp::ballot:
      return "__ballot_sync";
    case WarpOp::any:
      return "__any_sync";
    case WarpOp::all:
      return "__all_sync";
    case WarpOp::activemask:
      return "__activemask";
    case WarpOp::match_any:
      return "__match_any_sync";
    case WarpOp::match_all:
      return "__match_all_sync";
    case WarpOp::reduce_add:
      return "__reduce_add_sync";
    case WarpOp::reduce_min:
      return "__reduce_min_sync";
    case WarpOp::reduce_max:
      return "__reduce_max_sync";
    case WarpOp::reduce_and:
      return "__reduce_and_sync";
    case WarpOp::reduce_or:
      return "__reduce_or_sync";
    case WarpOp::reduce_xor:
      return "__reduce_xor_sync";
  }
  return "?";
}

const char* block_op_name(BlockOp op) {
  switch (op) {
    case BlockOp::sync:
      return "__syncthreads";
    case BlockOp::count:
      return "__syncthreads_count";
    case BlockOp::all:
      return "__syncthreads_and";
    case BlockOp::any:
      return "__syncthreads_or";
  }
  return "?";
}

FrameArena::~FrameArena() {
  if (base_ != nullptr) ::munmap(base_, capacity_);
}

void* FrameArena::allocate(std::size_t bytes) {
  if (base_ == nullptr && capacity_ == 0) {
    void* p = ::mmap(nullptr, kFrameArenaBytes, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    capacity_ = kFrameArenaBytes;
    if (p == MAP_FAILED) return nullptr;  // capacity_ stays set: no second try
    base_ = static_cast<unsigned char*>(p);
  }
  bytes = (bytes + 15) & ~std::size_t{15};
  if (base_ == nullptr || bytes > capacity_ - used_) return nullptr;
  void* p = base_ + used_;
  used_ += bytes;
  return p;
}

BlockRunner::BlockRunner(const LaunchShape& shape, StackPool& pool, RaceChecker* checker)
    : shape_(shape),
      pool_(pool),
      checker_(checker),
      n_(shape.threads),
      wait_(n_),
      co_(n_, nullptr),
      result_(n_),
      fiber_(n_),
      stack_(n_),
      coords_(n_),
      present_(shape.warps),
      finished_(shape.warps),
      warp_wait_(shape.warps),
      block_wait_(shape.warps),
      activemask_wait_(shape.warps) {
  // Resuming a thread must not cost three divisions.
  for (std::uint32_t t = 0; t < n_; ++t) {
    const std::uint32_t bx = shape.block.x, by = shape.block.y;
    coords_[t] = uint3{t % bx, (t / bx) % by, t / (bx * by)};
  }
  for (std::uint32_t w = 0; w < shape.warps; ++w) {
    const std::uint32_t lanes = std::min<std::uint32_t>(32, n_ - w * 32);
    present_[w] = lanes == 32 ? 0xffffffffu : (1u << lanes) - 1u;
  }
  ready_.reserve(n_);
  gather_.co = co_.data();
  gather_.block_wait = block_wait_.data();
  gather_.activemask_wait = activemask_wait_.data();
  gather_.result = result_.data();
  gather_.current = &loop_.current;
  loop_.threads = n_;
  loop_.coords = coords_.data();
  loop_.linear = shape.block.y == 1 && shape.block.z == 1;
  loop_.runner = this;
  loop_.enter = &BlockRunner::loop_enter;
  loop_.exit = &BlockRunner::loop_exit;
}

void BlockRunner::loop_enter(void* runner, std::uint32_t t) {
  auto* r = static_cast<BlockRunner*>(runner);
  if (r->checker_ != nullptr) {
    r->checker_->set_thread(t);
    tl_recording = r->checker_;
  }
}

void BlockRunner::loop_exit(void* runner, std::uint32_t t) {
  auto* r = static_cast<BlockRunner*>(runner);
  if (r->checker_ != nullptr) tl_recording = nullptr;
  if (r->co_first_park_) {
    // The kernel call returned because the thread's coroutine is suspended, not because it ended.
    r->co_first_park_ = false;
    return;
  }
  r->on_thread_exit(t);
}

// The block's first barrier or collective: from now on the scheduler keeps the books of every
// thread's end (a lane that returns may complete an __activemask()).
void BlockRunner::go_on_fibers() {
  if (loop_.region) [[unlikely]] {
    // A thread of a block that runs as region loops would wait (a barrier or collective in a
    // device function the transformation could not see, a spin): it cannot park.
    loop_.region = false;
    fail_here(KernelFault::Kind::divergent_barrier,
              {thread_name(loop_.current) +
                   " waits at a barrier, collective or spin that gpulab run's region loops cannot "
                   "see (in a function the kernel calls); the block cannot go on",
               thread_name(loop_.current, Lang::zh) +
                   " 在 gpulab run 的区域循环看不到的屏障、集体操作或自旋处等待（在核函数调用的"
                   "函数里）；线程块无法继续"});
  }
  on_fibers_ = true;
  if (!loop_.hooks) {
    // Until now the thread loop kept no books: every thread before the current one has ended.
    const std::uint32_t done = loop_.current;
    loop_.finished = done;
    for (std::uint32_t w = 0; w < done / 32; ++w) finished_[w] = present_[w];
    if (done % 32 != 0) finished_[done / 32] = (1u << (done % 32)) - 1u;
  }
  loop_.hooks = true;
}

std::string BlockRunner::block_name(Lang lang) const {
  return std::string(lang == Lang::zh ? "线程块 (" : "block (") + std::to_string(block_index_.x) +
         "," + std::to_string(block_index_.y) + "," + std::to_string(block_index_.z) + ")";
}

std::string BlockRunner::thread_name(std::uint32_t t, Lang lang) const {
  std::string s = (lang == Lang::zh ? "线程 " : "thread ") + std::to_string(t);
  if (shape_.block.y > 1 || shape_.block.z > 1) {
    const std::uint32_t bx = shape_.block.x, by = shape_.block.y;
    s += " (" + std::to_string(t % bx) + "," + std::to_string((t / bx) % by) + "," +
         std::to_string(t / (bx * by)) + ")";
  }
  return s;
}

void BlockRunner::run(std::uint64_t linear_block, uint3 block_index) {
  begin_block(linear_block, block_index);

  // The scheduler (this OS thread's own stack) only starts the block and takes control back when
  // it is done or has faulted; in between, fibers hand the OS thread to each other directly.
  start_loop_fiber(From::scheduler, 0);
  if (on_fibers_) ++totals_.blocks_on_fibers;
  if (!loop_.faulted) return;

  abandon();
  if (exception_) {
    try {
      std::rethrow_exception(exception_);
    } catch (const KernelFault&) {
      throw;
    } catch (const std::exception& e) {
      throw KernelFault(KernelFault::Kind::kernel_exception,
                        {block_name() + ", " + thread_name(exception_thread_) +
                             ": the kernel threw an exception: " + e.what(),
                         block_name(Lang::zh) + "，" + thread_name(exception_thread_, Lang::zh) +
                             "：核函数抛出了异常：" + e.what()},
                        0);
    } catch (...) {
      throw KernelFault(KernelFault::Kind::kernel_exception,
                        {block_name() + ", " + thread_name(exception_thread_) +
                             ": the kernel threw an exception of unknown type",
                         block_name(Lang::zh) + "，" + thread_name(exception_thread_, Lang::zh) +
                             "：核函数抛出了未知类型的异常"},
                        0);
    }
  }
  throw KernelFault(fault_kind_, fault_message_, fault_pc_);
}

void BlockRunner::begin_block(std::uint64_t linear_block, uint3 block_index) {
  block_linear_ = linear_block;
  block_index_ = block_index;
  loop_.next = 0;
  loop_.finished = 0;
  on_fibers_ = false;
  region_fallen_ = false;
  loop_.hooks = checker_ != nullptr;
  loop_.thread_index = &threadIdx;
  aborting_ = false;
  loop_.faulted = false;
  loop_.threads = n_;
  warp_fault_ = false;
  fault_pc_ = 0;
  exception_ = nullptr;
  std::fill(finished_.begin(), finished_.end(), 0u);
  std::fill(warp_wait_.begin(), warp_wait_.end(), 0u);
  std::fill(block_wait_.begin(), block_wait_.end(), 0u);
  std::fill(activemask_wait_.begin(), activemask_wait_.end(), 0u);
  ready_.clear();
  ready_head_ = 0;
  release_next_ = release_end_ = 0;
  gather_.arrived = 0;
  gather_.count = 0;
  gather_.mixed = false;
  co_first_park_ = false;
  frames_.reset();
  yielded_.clear();
  atomic_spins_ = loop_spins_ = {};
  if (checker_ != nullptr) checker_->begin_block(linear_block, block_index);
}

// A block that ran on the first loop fiber and ended without waiting (no thread parked or was
// suspended, no fault): the fiber goes on with the next block of the source, if any, as the
// scheduler would have started it, without the two switches through the scheduler. Not in check
// mode (the checker and the launch look at each block between blocks).
bool BlockRunner::chain_next_block() {
  if (source_ == nullptr || on_fibers_ || loop_.faulted || loop_.finished != n_ ||
      !yielded_.empty() || work_pending()) {
    return false;
  }
  const EmulatorCode emulator_code;  // kernel_code.hpp
  std::uint64_t linear = 0;
  uint3 index{0, 0, 0};
  if (!source_->take(&linear, &index)) return false;
  begin_block(linear, index);
  return true;
}

// ---- Fibers ------------------------------------------------------------------------------------

// Every switch says who is leaving (`from`), so that the context that gets the OS thread can file
// the leaver's continuation: as the scheduler, a parked thread, or an idle fiber.
void BlockRunner::switch_to(ctx::fiber&& target, StackBounds target_stack, From from,
                            std::uint32_t from_thread) {
  from_ = from;
  from_thread_ = from_thread;
  from_stack_ = current_stack_;
  current_stack_ = target_stack;
  void* fake_stack = nullptr;
  GuardPoint* const guard = tl_guard_point;  // each context keeps its own recovery point
  asan_start_switch(&fake_stack, target_stack);
  ctx::fiber incoming = std::move(target).resume();
  StackBounds incoming_stack;
  asan_finish_switch(fake_stack, &incoming_stack);
  tl_guard_point = guard;
  accept(std::move(incoming), incoming_stack);
}

// `incoming_stack` is where ASan saw the leaver run (nothing without ASan). The scheduler is not
// always the context that started the block: a cooperative block's runner is destroyed, and its
// idle fibers ended, from its worker's stack, not from the block's fiber that ran it.
void BlockRunner::accept(ctx::fiber&& incoming, StackBounds incoming_stack) {
  switch (from_) {
    case From::scheduler:
      scheduler_ = std::move(incoming);
      if (kAsanEnabled) scheduler_stack_ = incoming_stack;
      break;
    case From::thread:
      fiber_[from_thread_] = std::move(incoming);
      break;
    case From::idle:
      idle_.push_back({std::move(incoming), from_stack_});
      break;
    case From::ended:
      break;  // a fiber that finished: nothing to keep
  }
}

void BlockRunner::start_loop_fiber(From from, std::uint32_t from_thread) {
  if (!idle_.empty()) {
    IdleFiber idle = std::move(idle_.back());
    idle_.pop_back();
    switch_to(std::move(idle.fiber), idle.stack, from, from_thread);
    return;
  }
  const ctx::stack_context stack = pool_.allocate();
  ctx::fiber f(std::allocator_arg, PooledStack(&pool_, stack),
               [this](ctx::fiber&& incoming) { return loop_entry(std::move(incoming)); });
  switch_to(std::move(f), bounds_of(stack), from, from_thread);
}

// Hands the OS thread to what should run next, on behalf of a context that stops running (a thread
// that parks, a fiber that goes idle): a released thread, a fiber for the next unstarted thread,
// or, when the block is done, stuck or abandoned, the scheduler. Returns when the caller is
// resumed.
void BlockRunner::dispatch(From from, std::uint32_t from_thread) {
  for (;;) {
    if (loop_.faulted || aborting_) {
      switch_to(std::move(scheduler_), scheduler_stack_, from, from_thread);
      return;
    }
    if (work_pending()) {
      // Threads a barrier released (in thread order), then those a collective released.
      const std::uint32_t t = release_next_ < release_end_ ? release_next_ : ready_[ready_head_];
      if (co_[t] != nullptr && from == From::thread) {
        // A coroutine thread is resumed by a call, on the stack of the context that resumes it,
        // and may park on that stack (a barrier in code that is no coroutine): never on the stack
        // of a parked thread. A loop fiber resumes it instead.
        start_loop_fiber(from, from_thread);
        return;
      }
      if (release_next_ < release_end_) {
        ++release_next_;
      } else {
        ++ready_head_;
      }
      set_thread(t);
      if (co_[t] != nullptr) {
        resume_coroutine(t);
        continue;
      }
      // The thread that parks may be the one released first (a barrier it arrived at last).
      if (from == From::thread && t == from_thread) return;
      switch_to(std::move(fiber_[t]), stack_[t], from, from_thread);
      return;
    }
    ready_.clear();
    ready_head_ = 0;
    if (loop_.next < n_) {
      start_loop_fiber(from, from_thread);
      return;
    }
    if (!yielded_.empty()) {
      // Threads that spun run again once every other thread has had its turn.
      for (const std::uint32_t t : yielded_) ready_.push_back(t);
      yielded_.clear();
      continue;
    }
    if (loop_.finished == n_) {
      switch_to(std::move(scheduler_), scheduler_stack_, from, from_thread);
      return;
    }
    quiescent();  // releases a barrier (threads become ready) or records a fault
  }
}

BlockRunner::~BlockRunner() {
  // End the idle fibers, so that their stacks go back to the pool.
  retiring_ = true;
  while (!idle_.empty()) {
    IdleFiber idle = std::move(idle_.back());
    idle_.pop_back();
    switch_to(std::move(idle.fiber), idle.stack, From::scheduler, 0);
  }
}

ctx::fiber BlockRunner::loop_entry(ctx::fiber&& incoming) {
  // Entered from the scheduler or a parked thread: accept() files the leaver.
  StackBounds from_stack;
  asan_finish_switch(nullptr, &from_stack);
  accept(std::move(incoming), from_stack);
  while (!retiring_) {
    try {
      // A loop fiber started to resume a coroutine thread goes to it first (dispatch), as a
      // parked thread would have. A kernel's illegal access comes back here (guard.hpp) and
      // fails the block.
      CaughtSignal caught;
      bool ran = true;
      if (!work_pending()) {
        const KernelCode kernel_code;  // kernel_code.hpp
        ran = run_guarded([](void* r) { static_cast<BlockRunner*>(r)->thread_loop(); }, this,
                          &caught);
      }
      if (!ran) caught_signal(caught);
    } catch (const Unwind&) {
      // The thread's stack is unwound; the block is being abandoned or has faulted.
    } catch (...) {
      if (!loop_.faulted) {
        loop_.faulted = true;
        exception_ = std::current_exception();
        exception_thread_ = loop_.current;
      }
    }
    tl_recording = nullptr;
    // No thread left to start: keep this fiber and its stack for the next loop. Coroutine threads
    // resumed from here run kernel code on this stack: a fault among them comes back here too.
    CaughtSignal caught;
    if (!run_guarded([](void* r) { static_cast<BlockRunner*>(r)->dispatch(From::idle, 0); }, this,
                     &caught)) {
      caught_signal(caught);
      dispatch(From::idle, 0);
    }
  }
  from_ = From::ended;
  asan_start_switch(nullptr, scheduler_stack_);
  return std::move(scheduler_);
}

// The loop every fiber runs: threads one after another on the same stack. A thread that parks keeps
// this stack (and this loop's frame), and another fiber goes on with the next thread. A parked
// thread that is resumed and ends goes on with the next unstarted thread, if any.
void BlockRunner::thread_loop() {
  const ErasedKernel& kernel = *shape_.kernel;
  do {
    if (kernel.run_threads != nullptr) {
      kernel.run_threads(kernel.closure, loop_);
    } else {
      run_thread_loop(loop_, [&kernel] { kernel.run_thread(kernel.closure); });
    }
    // A block that never waited: the loop kept no books, and every thread it started has ended.
    if (!loop_.hooks) loop_.finished = loop_.next;
    raise_warp_fault();
  } while (chain_next_block());
}

void BlockRunner::park(std::uint32_t t) {
  stack_[t] = current_stack_;
  dispatch(From::thread, t);
  if (aborting_) throw Unwind{};
}

void BlockRunner::set_thread(std::uint32_t t) {
  threadIdx = coords_[t];
  loop_.current = t;
  if (checker_ != nullptr) checker_->set_thread(t);
}

void BlockRunner::make_ready(std::uint32_t t) {
  // Reuse the queue from its start whenever it has drained: a lane that completes a collective
  // queues the others without going through dispatch(), which would otherwise reset it.
  if (ready_head_ == ready_.size()) {
    ready_.clear();
    ready_head_ = 0;
  }
  ready_.push_back(t);
}

void BlockRunner::abandon() {
  aborting_ = true;
  for (std::uint32_t t = 0; t < n_; ++t) {
    if (fiber_[t]) {
      set_thread(t);
      switch_to(std::move(fiber_[t]), stack_[t], From::scheduler, 0);
    }
  }
  for (std::uint32_t t = 0; t < n_; ++t) {
    if (co_[t] != nullptr) {
      set_thread(t);
      std::coroutine_handle<>::from_address(co_[t]).destroy();
      co_[t] = nullptr;
    }
  }
  yielded_.clear();
  co_first_park_ = false;
  aborting_ = false;
  ready_.clear();
  ready_head_ = 0;
  release_next_ = release_end_ = 0;
}

void BlockRunner::on_thread_exit(std::uint32_t t) {
  ++loop_.finished;
  const std::uint32_t w = t >> 5;
  const std::uint32_t bit = 1u << (t & 31);
  finished_[w] |= bit;
  // A collective that waits for this lane is now stuck; it is reported once the block can make no
  // progress, so that the report shows where every lane ended up.
  if (on_fibers_ && activemask_wait_[w] != 0) try_resolve_activemask(w, kNoThread, nullptr);
}

// ---- Faults ------------------------------------------------------------------------------------

void BlockRunner::set_fault(KernelFault::Kind kind, Text message) {
  if (loop_.faulted) return;
  loop_.faulted = true;
  fault_kind_ = kind;
  fault_message_ = {block_name() + ": " + message.en, block_name(Lang::zh) + "：" + message.zh};
}

void BlockRunner::fail_here(KernelFault::Kind kind, Text message) {
  set_fault(kind, std::move(message));
  throw Unwind{};
}

void BlockRunner::note_fault(KernelFault::Kind kind, const Text& message, std::uintptr_t pc) {
  if (!loop_.faulted) fault_pc_ = pc;
  set_fault(kind, message);
}

void BlockRunner::end_thread_in_warp(KernelFault::Kind kind, Text message) {
  if (!warp_fault_) {
    warp_fault_ = true;
    warp_fault_kind_ = kind;
    warp_fault_message_ = std::move(message);
    // The loop stops after this thread's warp (a thread resumed after all have started stops it
    // at once).
    loop_.threads = std::min(n_, (loop_.current / 32 + 1) * 32);
  }
  throw ThreadEnded{};
}

void BlockRunner::raise_warp_fault() {
  if (!warp_fault_ || loop_.next < loop_.threads) return;
  warp_fault_ = false;
  loop_.threads = n_;
  set_fault(warp_fault_kind_, std::move(warp_fault_message_));
}

void BlockRunner::trap(const std::source_location& where) {
  fail_here(
      KernelFault::Kind::trap,
      {thread_name(loop_.current) + " called __trap() at " + site_name(where),
       thread_name(loop_.current, Lang::zh) + " 在 " + site_name(where) + " 调用了 __trap()"});
}

void BlockRunner::invalid_call(const Text& what, const std::source_location& where) {
  fail_here(KernelFault::Kind::invalid_argument,
            {thread_name(loop_.current) + " at " + site_name(where) + ": " + what.en,
             thread_name(loop_.current, Lang::zh) + " 在 " + site_name(where) + "：" + what.zh});
}

Text BlockRunner::describe_barrier_divergence() const {
  // Group threads by where they are, in thread order.
  struct Group {
    Text what;
    std::vector<std::uint32_t> ids;
  };
  std::vector<Group> groups;
  for (std::uint32_t t = 0; t < n_; ++t) {
    const std::uint32_t w = t >> 5, bit = 1u << (t & 31);
    Text what;
    if ((finished_[w] & bit) != 0) {
      what = {"returned", "已返回"};
    } else if ((block_wait_[w] & bit) != 0) {
      const auto op = static_cast<BlockOp>(wait_[t].op);
      const std::string site = site_name(wait_[t].where);
      what = op == BlockOp::sync
                 ? Text{"wait at " + site, "在 " + site + " 等待"}
                 : Text{"wait at " + std::string(block_op_name(op)) + "() at " + site,
                        "在 " + site + " 的 " + block_op_name(op) + "() 处等待"};
    } else {
      what = {"are elsewhere", "在别处"};
    }
    auto it =
        std::find_if(groups.begin(), groups.end(), [&](const Group& g) { return g.what == what; });
    if (it == groups.end()) {
      groups.push_back({what, {t}});
    } else {
      it->ids.push_back(t);
    }
  }
  Text out{"__syncthreads() is not reached by every thread of the block: ",
           "__syncthreads() 没有被线程块的每个线程到达："};
  for (std::size_t i = 0; i < groups.size(); ++i) {
    if (i > 0) {
      out += Text{"; ", "；"};
    }
    const std::string ids = format_ids(groups[i].ids);
    out +=
        Text{(groups[i].ids.size() == 1 ? "thread " : "threads ") + ids + " " + groups[i].what.en,
             "线程 " + ids + " " + groups[i].what.zh};
  }
  if (shape_.block.y > 1 || shape_.block.z > 1) {
    out += Text{" (linear thread ids: x + y*blockDim.x + z*blockDim.x*blockDim.y)",
                "（线程的线性编号：x + y*blockDim.x + z*blockDim.x*blockDim.y）"};
  }
  return out;
}

Text BlockRunner::describe_warp_deadlock(std::uint32_t warp, std::uint32_t lane_waiting) const {
  const std::uint32_t base = warp * 32;
  const Wait& c = wait_[base + lane_waiting];
  const auto op = static_cast<WarpOp>(c.op);
  const std::uint32_t last_thread = std::min(base + 32, n_) - 1;
  const std::string threads = std::to_string(base) + "-" + std::to_string(last_thread);
  const std::string call = std::string(warp_op_name(op)) + "(mask " + hex_mask(c.mask) + ")";
  Text out{"warp " + std::to_string(warp) + " (threads " + threads + "): " + call + " at " +
               site_name(c.where) + " waits for lanes that will never arrive: ",
           "线程束 " + std::to_string(warp) + "（线程 " + threads + "）：" + site_name(c.where) +
               " 处的 " + call + " 在等待永远不会到达的通道："};
  struct Group {
    Text what;
    std::uint32_t lanes;
  };
  std::vector<Group> groups;
  const std::uint32_t started = lanes_started(warp);
  for (std::uint32_t m = c.mask; m != 0; m &= m - 1) {
    const auto lane = static_cast<std::uint32_t>(std::countr_zero(m));
    const std::uint32_t bit = 1u << lane;
    const Wait& l = wait_[base + lane];
    const std::string site = site_name(l.where);
    Text what;
    if ((finished_[warp] & bit) != 0) {
      what = {"returned", "已返回"};
    } else if ((block_wait_[warp] & bit) != 0) {
      const std::string name = std::string(block_op_name(static_cast<BlockOp>(l.op))) + "()";
      what = {"wait at " + name + " at " + site, "在 " + site + " 的 " + name + " 处等待"};
    } else if ((warp_wait_[warp] & bit) != 0) {
      if (l.op == c.op && l.mask == c.mask) {
        what = same_site(l.where, c.where) ? Text{"wait there", "在同一处等待"}
                                           : Text{"wait at " + site, "在 " + site + " 等待"};
      } else {
        std::string name = warp_op_name(static_cast<WarpOp>(l.op));
        if (static_cast<WarpOp>(l.op) != WarpOp::activemask)
          name += "(mask " + hex_mask(l.mask) + ")";
        what = {"wait at " + name + " at " + site, "在 " + site + " 的 " + name + " 处等待"};
      }
    } else if ((started & bit) == 0) {
      what = {"have not run yet", "还没有运行"};
    } else {
      what = {"are running", "正在运行"};
    }
    auto it =
        std::find_if(groups.begin(), groups.end(), [&](const Group& g) { return g.what == what; });
    if (it == groups.end()) {
      groups.push_back({what, bit});
    } else {
      it->lanes |= bit;
    }
  }
  for (std::size_t i = 0; i < groups.size(); ++i) {
    if (i > 0) {
      out += Text{"; ", "；"};
    }
    const std::string lanes = format_lanes(groups[i].lanes, 0);
    out += Text{(std::popcount(groups[i].lanes) == 1 ? "lane " : "lanes ") + lanes + " " +
                    groups[i].what.en,
                "通道 " + lanes + " " + groups[i].what.zh};
  }
  return out;
}

// ---- Block barriers ----------------------------------------------------------------------------

int BlockRunner::block_barrier(BlockOp op, int predicate, const std::source_location& where) {
  const std::uint32_t t = loop_.current;
  if (!gather_.arrive_like_first(op, predicate, where, nullptr)) {
    barrier_arrive(op, predicate, where);
  }
  park(t);
  return static_cast<int>(result_[t]);
}

CoArrival BlockRunner::co_block_barrier(BlockOp op, int predicate,
                                        const std::source_location& where, void* handle) {
  const std::uint32_t t = loop_.current;
  co_[t] = handle;
  // (An arrival like the first was booked inline by the awaitable, unless in check mode.)
  if (!gather_.arrive_like_first(op, predicate, where, handle)) {
    barrier_arrive(op, predicate, where);
  }
  return {&result_[t], true};
}

void BlockRunner::barrier_arrive(BlockOp op, int predicate, const std::source_location& where) {
  const std::uint32_t t = loop_.current;
  const std::uint32_t w = t >> 5;
  if (!on_fibers_) go_on_fibers();
  block_wait_[w] |= 1u << (t & 31);
  const std::uint64_t value = predicate != 0 ? 1 : 0;
  // Arrivals are counted and compared with the first one as they come, so that releasing the
  // barrier needs no pass over the block's threads. While every arrival matches the first, only
  // the first's record is written: the others' are the same (materialize_barrier_waits).
  const auto record = [&] {
    Wait& wt = wait_[t];
    wt.where = where;
    wt.value = value;
    wt.op = static_cast<std::uint8_t>(op);
    wt.mask = 0;
    wt.block = true;
  };
  if (gather_.arrived == 0) {
    gather_.first = t;
    gather_.first_op = static_cast<std::uint8_t>(op);
    gather_.first_where = where;
    record();
  } else if (gather_.mixed) {
    record();
  } else if (wait_[gather_.first].op != static_cast<std::uint8_t>(op) ||
             !same_site(wait_[gather_.first].where, where)) {
    block_wait_[w] &= ~(1u << (t & 31));
    materialize_barrier_waits();
    block_wait_[w] |= 1u << (t & 31);
    gather_.mixed = true;
    record();
  }
  ++gather_.arrived;
  gather_.count += value;
  if (activemask_wait_[w] != 0) try_resolve_activemask(w, kNoThread, nullptr);
}

// Writes the record of every thread waiting at the block barrier that matched the first arrival
// (barrier_arrive wrote only the first's), before anything reads them.
void BlockRunner::materialize_barrier_waits() {
  if (gather_.mixed || gather_.arrived == 0) return;
  const Wait first = wait_[gather_.first];
  for (std::uint32_t w = 0; w < shape_.warps; ++w) {
    for (std::uint32_t m = block_wait_[w]; m != 0; m &= m - 1) {
      const std::uint32_t t = w * 32 + static_cast<std::uint32_t>(std::countr_zero(m));
      if (t != gather_.first) wait_[t] = first;
    }
  }
}

// Nothing can run: every thread has ended or waits. Either a barrier can be released or the block
// is stuck, which on a GPU would be a hang (or silently wrong results).
void BlockRunner::quiescent() {
  bool resolved = false;
  for (std::uint32_t w = 0; w < shape_.warps; ++w) {
    if (activemask_wait_[w] != 0) resolved |= try_resolve_activemask(w, kNoThread, nullptr);
  }
  if (resolved) return;
  for (std::uint32_t w = 0; w < shape_.warps; ++w) {
    if (const std::uint32_t waiting = warp_wait_[w] & ~activemask_wait_[w]; waiting != 0) {
      materialize_barrier_waits();
      set_fault(KernelFault::Kind::warp_collective,
                describe_warp_deadlock(w, static_cast<std::uint32_t>(std::countr_zero(waiting))));
      return;
    }
  }
  if (loop_.finished > 0) {
    materialize_barrier_waits();
    set_fault(KernelFault::Kind::divergent_barrier, describe_barrier_divergence());
    return;
  }
  // Every thread waits at a block barrier (none has returned, none waits at a collective).
  if (gather_.mixed || gather_.arrived != n_) {
    materialize_barrier_waits();
    set_fault(KernelFault::Kind::divergent_barrier, describe_barrier_divergence());
    return;
  }
  const Wait& first = wait_[gather_.first];
  const std::uint64_t count = gather_.count;
  std::uint64_t result = 1;
  switch (static_cast<BlockOp>(first.op)) {
    case BlockOp::sync:
      result = 0;
      break;
    case BlockOp::count:
      result = count;
      break;
    case BlockOp::all:
      result = count == n_ ? 1 : 0;
      break;
    case BlockOp::any:
      result = count != 0 ? 1 : 0;
      break;
  }
  // __syncthreads() returns nothing: its threads' results are not read.
  if (static_cast<BlockOp>(first.op) != BlockOp::sync)
    std::fill(result_.begin(), result_.end(), result);
  release_next_ = 0;
  release_end_ = n_;
  gather_.arrived = 0;
  gather_.count = 0;
  gather_.mixed = false;
  std::fill(block_wait_.begin(), block_wait_.end(), 0u);
  ++totals_.barriers;
  if (checker_ != nullptr) checker_->on_barrier();
}

// ---- Warp collectives --------------------------------------------------------------------------

std::uint32_t BlockRunner::lanes_started(std::uint32_t warp) const {
  const std::uint32_t base = warp * 32;
  if (loop_.next >= base + 32) return 0xffffffffu;
  if (loop_.next <= base) return 0;
  return (1u << (loop_.next - base)) - 1u;
}

// Kept out of line: the hot path's frame stays small, and every parked thread keeps one.
void BlockRunner::invalid_collective(WarpOp op, unsigned mask, int width,
                                     const std::source_location& where) {
  const std::uint32_t t = loop_.current;
  const std::uint32_t lane = t & 31;
  const std::string name = std::string(warp_op_name(op)) + "(mask " + hex_mask(mask) + ")";
  const std::string site = site_name(where);
  if ((mask >> lane & 1u) == 0) {
    fail_here(
        KernelFault::Kind::invalid_argument,
        {thread_name(t) + " (lane " + std::to_string(lane) + ") calls " + name + " at " + site +
             ", whose mask leaves out the calling lane; every caller must be in the mask",
         thread_name(t, Lang::zh) + "（通道 " + std::to_string(lane) + "）调用 " + site + " 处的 " +
             name + "，但掩码不含调用它的通道；每个调用者都必须在掩码内"});
  }
  fail_here(KernelFault::Kind::invalid_argument,
            {thread_name(t) + " calls " + name + " at " + site + " with width " +
                 std::to_string(width) + "; width must be a power of 2 from 1 to 32",
             thread_name(t, Lang::zh) + " 调用 " + site + " 处的 " + name + " 时 width 为 " +
                 std::to_string(width) + "；width 必须是 1 到 32 之间的 2 的幂"});
}

std::uint64_t BlockRunner::warp_collective(WarpOp op, unsigned mask, std::uint64_t value, int arg,
                                           int width, const std::source_location& where) {
  const std::uint32_t t = loop_.current;
  if (collective_arrive(op, mask, value, arg, width, where)) park(t);
  return result_[t];
}

CoArrival BlockRunner::co_warp_collective(WarpOp op, unsigned mask, std::uint64_t value, int arg,
                                          int width, const std::source_location& where,
                                          void* handle) {
  const std::uint32_t t = loop_.current;
  const bool wait = collective_arrive(op, mask, value, arg, width, where);
  if (wait) co_[t] = handle;
  return {&result_[t], wait};
}

// Books the current thread's arrival at a collective; true when it must wait for other lanes
// (false: it completed the collective, or its __activemask() resolved, and goes on).
bool BlockRunner::collective_arrive(WarpOp op, unsigned mask, std::uint64_t value, int arg,
                                    int width, const std::source_location& where) {
  const std::uint32_t t = loop_.current;
  const std::uint32_t w = t >> 5;
  const std::uint32_t lane = t & 31;
  const std::uint32_t bit = 1u << lane;
  if (!on_fibers_) go_on_fibers();

  // Lanes past the block's last thread are absent, not missing: a full mask in a partial last warp
  // runs on a GPU (cooperative_groups' 32-wide tiles and NVIDIA's samples rely on it), so those
  // lanes leave the mask. A lane that exists but exits or never arrives still deadlocks.
  if (op == WarpOp::activemask) {
    mask = present_[w];
  } else if ((mask & bit) == 0 ||
             (is_shuffle(op) && (width < 1 || width > 32 || (width & (width - 1)) != 0))) {
    invalid_collective(op, mask, width, where);
  } else {
    mask &= present_[w];
  }
  Wait& wt = wait_[t];
  wt.where = where;
  wt.value = value;
  wt.mask = mask;
  wt.arg = arg;
  wt.width = width;
  wt.op = static_cast<std::uint8_t>(op);
  wt.block = false;
  warp_wait_[w] |= bit;

  if (op == WarpOp::activemask) {
    activemask_wait_[w] |= bit;
    bool released = false;
    try_resolve_activemask(w, t, &released);
    return !released;
  }
  if (group_complete(w, mask, wt.op)) {
    complete_group(w, mask, t);
    return false;
  }
  if (activemask_wait_[w] != 0) try_resolve_activemask(w, kNoThread, nullptr);
  return true;
}

// ---- Coroutine threads -------------------------------------------------------------------------

void BlockRunner::co_started(void* handle) {
  const auto h = std::coroutine_handle<>::from_address(handle);
  if (h.done()) {
    h.destroy();  // the thread ended without waiting: the thread loop counts it
    return;
  }
  co_first_park_ = true;
}

// Resumes thread t's coroutine on this stack (a loop fiber's) until it waits again or ends.
void BlockRunner::resume_coroutine(std::uint32_t t) {
  const auto h = std::coroutine_handle<>::from_address(co_[t]);
  co_[t] = nullptr;
  if (checker_ != nullptr) tl_recording = checker_;
  try {
    const KernelCode kernel_code;  // kernel_code.hpp: a kernel's new comes from the device heap
    h.resume();
  } catch (const Unwind&) {
    // Ended by a fault (__trap, an invalid argument) or by abandoning the block.
    tl_recording = nullptr;
    h.destroy();
    return;
  } catch (const ThreadEnded&) {
    // A failed assert in a resumed thread: its lanes that already ran have had their turn.
    tl_recording = nullptr;
    h.destroy();
    on_thread_exit(t);
    loop_.next = std::max(loop_.next, loop_.threads);
    raise_warp_fault();
    return;
  } catch (...) {
    tl_recording = nullptr;
    if (!loop_.faulted) {
      loop_.faulted = true;
      exception_ = std::current_exception();
      exception_thread_ = t;
    }
    h.destroy();
    return;
  }
  if (checker_ != nullptr) tl_recording = nullptr;
  if (h.done()) {
    h.destroy();
    on_thread_exit(t);
  }
}

void* BlockRunner::co_frame_allocate(std::size_t bytes) {
  return frames_.allocate(bytes);
}

// ---- Region loops ------------------------------------------------------------------------------

ThreadLoop* BlockRunner::region_begin(bool speculative) {
  // A block whose region loops fell back runs the kernel's code as written: every call of it.
  if (speculative && region_fallen_) return nullptr;
  // Only the block's first call of the kernel, before any thread waited, and not in check mode
  // (gpulab run's check builds are not split): anything else fails the block rather than skip a
  // thread.
  if (loop_.hooks || on_fibers_ || loop_.current != 0 || loop_.next != 1 || loop_.region) {
    fail_here(KernelFault::Kind::invalid_argument,
              {thread_name(loop_.current) +
                   ": a kernel split into region loops cannot run here (check mode, or a thread "
                   "that already waited)",
               thread_name(loop_.current, Lang::zh) +
                   "：拆分成区域循环的核函数不能在这里运行（检查模式，或线程已经等待过）"});
  }
  loop_.region = true;
  return &loop_;
}

// The block's threads did not agree on the condition its region loops assumed, before any of them
// did anything another thread could see: the first thread's call goes on with the kernel's code as
// written, as thread 0, and the thread loop then calls it for the others.
void BlockRunner::region_fall_back() {
  loop_.region = false;
  region_fallen_ = true;
  loop_.current = 0;
  *loop_.thread_index = uint3{0, 0, 0};
}

void* BlockRunner::region_storage(std::size_t bytes) {
  void* p = frames_.allocate(bytes);
  if (p == nullptr) {
    const std::string arena = std::to_string(frames_.range().second - frames_.range().first);
    fail_here(KernelFault::Kind::invalid_argument,
              {"the per-thread copies of the kernel's locals need " + std::to_string(bytes) +
                   " bytes more than the block's " + arena + "-byte arena holds",
               "核函数局部变量的每线程副本还需要 " + std::to_string(bytes) +
                   " 字节，超出了线程块 " + arena + " 字节的存储区"});
  }
  return p;
}

void BlockRunner::region_barrier(bool first) {
  ++totals_.barriers;
  // As on the other paths, a block whose threads waited counts as on fibers.
  if (first) ++totals_.blocks_on_fibers;
}

// ---- Spinning threads --------------------------------------------------------------------------

void BlockRunner::handoff() {
  if (checker_ != nullptr) checker_->on_handoff();
}

void BlockRunner::spin(const void* address) {
  const std::uint32_t t = loop_.current;
  // __nanosleep (a null address) says outright that the thread waits; a round of an empty loop
  // (spin_wait) and a failed atomic count apart, since a loop on an atomic is both.
  if (address != nullptr) {
    SpinCount& c = address == &kLoopRound ? loop_spins_ : atomic_spins_;
    if (address != c.address || t != c.thread) c = {address, t, 0};
    if (++c.count < kSpinTries) return;
    c.count = 0;
  }
  if (!on_fibers_) go_on_fibers();
  yielded_.push_back(t);
  park(t);
}

bool BlockRunner::group_complete(std::uint32_t warp, std::uint32_t mask, std::uint8_t op) const {
  if ((warp_wait_[warp] & mask) != mask) return false;
  const std::uint32_t base = warp * 32;
  for (std::uint32_t m = mask; m != 0; m &= m - 1) {
    const Wait& l = wait_[base + static_cast<std::uint32_t>(std::countr_zero(m))];
    if (l.op != op || l.mask != mask) return false;
  }
  return true;
}

// In check mode, a shuffle that reads a lane outside its mask is a fault: the value is undefined
// (an H100 returned 0 in one test and the source lane's value in another), so neither the GPU's
// answer nor the emulator's may be trusted.
void BlockRunner::check_shuffle_sources(std::uint32_t warp, std::uint32_t mask) {
  const std::uint32_t base = warp * 32;
  std::uint32_t readers = 0;
  std::uint32_t first_src = 0;
  for (std::uint32_t m = mask; m != 0; m &= m - 1) {
    const auto lane = static_cast<std::uint32_t>(std::countr_zero(m));
    const Wait& me = wait_[base + lane];
    const std::uint32_t src = shuffle_source(static_cast<WarpOp>(me.op), lane, me.arg, me.width);
    if ((mask >> src & 1u) != 0) continue;
    if (readers == 0) first_src = src;
    readers |= 1u << lane;
  }
  if (readers == 0) return;
  const auto lane = static_cast<std::uint32_t>(std::countr_zero(readers));
  const Wait& me = wait_[base + lane];
  const std::string name = warp_op_name(static_cast<WarpOp>(me.op));
  const std::string site = site_name(me.where);
  Text out{"warp " + std::to_string(warp) + ": lane " + std::to_string(lane) + " (" +
               thread_name(base + lane) + ") calls " + name + " at " + site + " and reads lane " +
               std::to_string(first_src),
           "线程束 " + std::to_string(warp) + "：通道 " + std::to_string(lane) + "（" +
               thread_name(base + lane, Lang::zh) + "）在 " + site + " 调用 " + name +
               "，读取通道 " + std::to_string(first_src)};
  if ((present_[warp] >> first_src & 1u) == 0) {
    const std::string present = std::to_string(std::popcount(present_[warp]));
    out += Text{", which holds no thread (the block's last warp has " + present + " threads)",
                "，但该通道没有线程（线程块的最后一个线程束只有 " + present + " 个线程）"};
  } else {
    out += Text{", which is outside the mask " + hex_mask(mask),
                "，但它在掩码 " + hex_mask(mask) + " 之外"};
  }
  if (std::popcount(readers) > 1) {
    const std::string others = format_lanes(readers & ~(1u << lane), 0);
    out += Text{"; lanes " + others + " read outside the mask too",
                "；通道 " + others + " 也读取了掩码之外的通道"};
  }
  out += Text{
      ". The value read is undefined on a GPU (an H100 gave 0 or the source lane's value): include "
      "the source lane in the mask, or do not use the value",
      "。读到的值在 GPU 上没有定义（H100 给出 0 或源通道的值）：请把源通道放进掩码，或不要使用"
      "这个值"};
  fail_here(KernelFault::Kind::invalid_argument, std::move(out));
}

// Every lane of the mask has arrived: compute each lane's result from the values all of them hold
// now, and let them go on (self continues without parking).
void BlockRunner::complete_group(std::uint32_t warp, std::uint32_t mask, std::uint32_t self) {
  const std::uint32_t base = warp * 32;
  const auto first = static_cast<std::uint32_t>(std::countr_zero(mask));
  const auto op = static_cast<WarpOp>(wait_[base + first].op);
  const bool is_signed = wait_[base + first].arg != 0;
  if (checker_ != nullptr && is_shuffle(op)) check_shuffle_sources(warp, mask);

  if (is_shuffle(op)) {
    // The common case, on its own: each lane reads its source lane's value.
    std::uint64_t values[32];
    const Wait& lead = wait_[base + first];
    bool uniform = true;  // every lane passed the same offset and width
    for (std::uint32_t m = mask; m != 0; m &= m - 1) {
      const auto lane = static_cast<std::uint32_t>(std::countr_zero(m));
      const Wait& me = wait_[base + lane];
      values[lane] = me.value;
      uniform &= me.arg == lead.arg && me.width == lead.width;
    }
    if (uniform && mask == 0xffffffffu && lead.width == 32) {
      // A full warp with one offset (a reduction's step): every source lane is in the mask, and
      // the source is the lane itself, or a lane at a fixed distance or xor (shuffle_source).
      const std::uint32_t b = static_cast<std::uint32_t>(lead.arg) & 31u;
      std::uint64_t* const out = &result_[base];
      for (std::uint32_t lane = 0; lane < 32; ++lane) {
        std::uint32_t src = lane;
        switch (op) {
          case WarpOp::shfl_idx:
            src = b;
            break;
          case WarpOp::shfl_up:
            src = lane >= b ? lane - b : lane;
            break;
          case WarpOp::shfl_down:
            src = lane + b <= 31u ? lane + b : lane;
            break;
          default:  // shfl_xor
            src = lane ^ b;
            break;
        }
        out[lane] = values[src];
      }
      release_group(warp, mask, self, op);
      return;
    }
    for (std::uint32_t m = mask; m != 0; m &= m - 1) {
      const auto lane = static_cast<std::uint32_t>(std::countr_zero(m));
      const Wait& me = wait_[base + lane];
      const std::uint32_t src = shuffle_source(op, lane, me.arg, me.width);
      // Reading a lane outside the mask (or one with no thread) is undefined; an H100 returned 0
      // for a lane with no thread and the source lane's value for a lane outside a tile's mask
      // (CUDA 13), and check mode reports it (check_shuffle_sources).
      result_[base + lane] = (mask & (1u << src)) != 0 ? values[src] : 0;
    }
    release_group(warp, mask, self, op);
    return;
  }

  std::uint32_t votes = 0;
  for (std::uint32_t m = mask; m != 0; m &= m - 1) {
    const auto lane = static_cast<std::uint32_t>(std::countr_zero(m));
    if (wait_[base + lane].value != 0) votes |= 1u << lane;
  }
  std::uint64_t reduced = 0;
  if (op >= WarpOp::reduce_add) {
    bool have = false;
    for (std::uint32_t m = mask; m != 0; m &= m - 1) {
      const std::uint64_t v = wait_[base + static_cast<std::uint32_t>(std::countr_zero(m))].value;
      const auto u = static_cast<std::uint32_t>(v);
      const auto s = static_cast<std::int32_t>(u);
      const auto r = static_cast<std::uint32_t>(reduced);
      if (!have) {
        reduced = u;
        have = true;
        continue;
      }
      switch (op) {
        case WarpOp::reduce_add:
          reduced = r + u;
          break;
        case WarpOp::reduce_min:
          reduced = is_signed
                        ? static_cast<std::uint32_t>(std::min(static_cast<std::int32_t>(r), s))
                        : std::min(r, u);
          break;
        case WarpOp::reduce_max:
          reduced = is_signed
                        ? static_cast<std::uint32_t>(std::max(static_cast<std::int32_t>(r), s))
                        : std::max(r, u);
          break;
        case WarpOp::reduce_and:
          reduced = r & u;
          break;
        case WarpOp::reduce_or:
          reduced = r | u;
          break;
        case WarpOp::reduce_xor:
          reduced = r ^ u;
          break;
        default:
          break;
      }
    }
  }

  bool all_equal = true;
  if (op == WarpOp::match_all) {
    for (std::uint32_t m = mask; m != 0; m &= m - 1) {
      if (wait_[base + static_cast<std::uint32_t>(std::countr_zero(m))].value !=
          wait_[base + first].value) {
        all_equal = false;
      }
    }
  }

  for (std::uint32_t m = mask; m != 0; m &= m - 1) {
    const auto lane = static_cast<std::uint32_t>(std::countr_zero(m));
    const Wait& me = wait_[base + lane];
    std::uint64_t r = 0;
    switch (op) {
      case WarpOp::sync:
      case WarpOp::activemask:
        break;
      case WarpOp::shfl_idx:  // above
      case WarpOp::shfl_up:
      case WarpOp::shfl_down:
      case WarpOp::shfl_xor:
        break;
      case WarpOp::ballot:
        r = votes;
        break;
      case WarpOp::any:
        r = votes != 0 ? 1 : 0;
        break;
      case WarpOp::all:
        r = votes == mask ? 1 : 0;
        break;
      case WarpOp::match_any: {
        std::uint32_t same = 0;
        for (std::uint32_t k = mask; k != 0; k &= k - 1) {
          const auto other = static_cast<std::uint32_t>(std::countr_zero(k));
          if (wait_[base + other].value == me.value) same |= 1u << other;
        }
        r = same;
        break;
      }
      case WarpOp::match_all:
        r = all_equal ? mask : 0;
        break;
      default:
        r = reduced;
        break;
    }
    result_[base + lane] = r;
  }
  release_group(warp, mask, self, op);
}

// The lanes of a completed collective go on (self, the lane that completed it, without parking);
// results are all computed before any lane moves on.
void BlockRunner::release_group(std::uint32_t warp, std::uint32_t mask, std::uint32_t self,
                                WarpOp op) {
  const std::uint32_t base = warp * 32;
  warp_wait_[warp] &= ~mask;
  for (std::uint32_t m = mask; m != 0; m &= m - 1) {
    const std::uint32_t t = base + static_cast<std::uint32_t>(std::countr_zero(m));
    if (t != self) make_ready(t);
  }
  ++totals_.collectives;
  if (op == WarpOp::sync && checker_ != nullptr) checker_->on_warp_sync(warp, mask);
}

// __activemask() has no mask to wait for: the lanes that are "active together" are taken to be
// those that reach the same __activemask() call before any lane of the warp moves on, i.e. once
// every lane of the warp has ended or waits somewhere.
bool BlockRunner::try_resolve_activemask(std::uint32_t warp, std::uint32_t self,
                                         bool* self_released) {
  if ((lanes_started(warp) & present_[warp]) != present_[warp]) return false;
  if ((present_[warp] & ~(finished_[warp] | warp_wait_[warp] | block_wait_[warp])) != 0) {
    return false;
  }
  const std::uint32_t base = warp * 32;
  std::uint32_t pending = activemask_wait_[warp];
  if (pending == 0) return false;
  while (pending != 0) {
    const auto first = static_cast<std::uint32_t>(std::countr_zero(pending));
    std::uint32_t group = 0;
    for (std::uint32_t m = pending; m != 0; m &= m - 1) {
      const auto lane = static_cast<std::uint32_t>(std::countr_zero(m));
      if (same_site(wait_[base + lane].where, wait_[base + first].where)) group |= 1u << lane;
    }
    for (std::uint32_t m = group; m != 0; m &= m - 1) {
      const std::uint32_t t = base + static_cast<std::uint32_t>(std::countr_zero(m));
      result_[t] = group;
      if (t == self) {
        *self_released = true;
      } else {
        make_ready(t);
      }
    }
    pending &= ~group;
    ++totals_.collectives;
  }
  warp_wait_[warp] &= ~activemask_wait_[warp];
  activemask_wait_[warp] = 0;
  return true;
}

}  // namespace gpulab::simt::detail
