// Cooperative launches: resident blocks on the workers, and the grid barrier (see
// cooperative_launch.hpp).
#include "simt/cooperative_launch.hpp"

#include <algorithm>
#include <cstring>
#include <memory>
#include <source_location>
#include <utility>

#include <boost/context/fiber.hpp>

#include "simt/device_api.hpp"
#include "simt/guard.hpp"
#include "simt/kernel_code.hpp"
#include "simt/memory_check.hpp"
#include "simt/program_symbols.hpp"
#include "simt/race_check.hpp"
#include "simt/sanitizers.hpp"

namespace gpulab::simt::detail {

namespace ctx = boost::context;

// ---- The grid barrier ---------------------------------------------------------------------------

GridBarrier::Arrival GridBarrier::arrive(std::uint64_t* generation, Text* why) {
  std::lock_guard lock(mutex_);
  if (broken_) {
    *why = why_;
    return Arrival::broken;
  }
  *generation = generation_;
  if (++waiting_ + ended_ < blocks_) return Arrival::wait;
  if (ended_ > 0) {
    break_locked(never_reached());
    *why = why_;
    return Arrival::broken;
  }
  // Everything the blocks did before the barrier is ordered before what they do after it.
  grid_synchronized();
  waiting_ = 0;
  ++generation_;
  released_.notify_all();
  return Arrival::released;
}

bool GridBarrier::passed(std::uint64_t generation, Text* why) {
  std::lock_guard lock(mutex_);
  if (generation_ != generation) return true;
  *why = why_;
  return false;
}

bool GridBarrier::ready(std::uint64_t generation) {
  std::lock_guard lock(mutex_);
  return generation_ != generation || broken_;
}

void GridBarrier::wait_past(std::uint64_t generation) {
  std::unique_lock lock(mutex_);
  released_.wait(lock, [&] { return generation_ != generation || broken_; });
}

void GridBarrier::block_ended() {
  std::lock_guard lock(mutex_);
  ++ended_;
  if (!broken_ && waiting_ > 0 && waiting_ + ended_ == blocks_) {
    break_locked(never_reached());
  }
}

Text GridBarrier::never_reached() const {
  const std::string ended = std::to_string(ended_), blocks = std::to_string(blocks_);
  return {"grid.sync() is not reached by every block of the grid: " + ended + " of " + blocks +
              " blocks returned without it, and a GPU would wait for them forever",
          "grid.sync() 没有被网格的每个线程块到达：" + blocks + " 个线程块中有 " + ended +
              " 个没有经过它就返回了，GPU 会永远等待它们"};
}

bool GridBarrier::abandon(Text why) {
  std::lock_guard lock(mutex_);
  if (broken_) return false;
  break_locked(std::move(why));
  return true;
}

void GridBarrier::break_locked(Text why) {
  broken_ = true;
  why_ = std::move(why);
  released_.notify_all();
}

// ---- Resident blocks ----------------------------------------------------------------------------

namespace {

// Where a block's shared memory lies on this worker: the kernels' static __shared__ arrays (in
// the executable's TLS block, the same addresses for every block of the worker) and the dynamic
// shared memory (the window, and the fixed buffer of gpulab's own kernels). A parked block keeps a
// copy of these bytes; the next block of the worker finds them as it would on a GPU, undefined.
class SharedLayout {
 public:
  explicit SharedLayout(std::size_t dynamic_bytes) {
    const std::uintptr_t tls = executable_tls_block().first;
    if (tls != 0) {
      for (const ProgramSymbols::TlsSymbol& s : ProgramSymbols::get().tls_symbols()) {
        if (s.user_shared && s.size > 0) add(tls + s.offset, s.size);
      }
    }
    if (dynamic_bytes > 0) {
      add(reinterpret_cast<std::uintptr_t>(dynamic_shared_window()), dynamic_bytes);
      add(reinterpret_cast<std::uintptr_t>(dynamic_shared_buffer()), dynamic_bytes);
    }
    for (const auto& [begin, end] : ranges_) bytes_ += end - begin;
  }

  void save(std::vector<unsigned char>& to) const {
    to.resize(bytes_);
    unsigned char* out = to.data();
    for (const auto& [begin, end] : ranges_) {
      std::memcpy(out, reinterpret_cast<const void*>(begin), end - begin);
      out += end - begin;
    }
  }

  void restore(const std::vector<unsigned char>& from) const {
    const unsigned char* in = from.data();
    for (const auto& [begin, end] : ranges_) {
      std::memcpy(reinterpret_cast<void*>(begin), in, end - begin);
      in += end - begin;
    }
  }

 private:
  // Keeps the ranges sorted and disjoint (symbols may overlap: aliases, the window in the buffer).
  void add(std::uintptr_t begin, std::size_t size) {
    std::uintptr_t end = begin + size;
    auto it = std::lower_bound(ranges_.begin(), ranges_.end(), std::pair{begin, begin});
    if (it != ranges_.begin() && std::prev(it)->second >= begin) --it;
    while (it != ranges_.end() && it->first <= end) {
      begin = std::min(begin, it->first);
      end = std::max(end, it->second);
      it = ranges_.erase(it);
    }
    ranges_.insert(it, {begin, end});
  }

  std::vector<std::pair<std::uintptr_t, std::uintptr_t>> ranges_;
  std::size_t bytes_ = 0;
};

struct ResidentBlock {
  ResidentBlock(const LaunchShape& shape, StackPool& pool, const ResidentOptions& options,
                std::uint64_t linear_block, uint3 block_index)
      : checker(options.check ? std::make_unique<RaceChecker>(shape, options.max_reports)
                              : nullptr),
        runner(shape, pool, checker.get()),
        linear(linear_block),
        index(block_index) {
    if (checker) checker->set_runner(&runner);
  }

  std::unique_ptr<RaceChecker> checker;
  BlockRunner runner;
  const std::uint64_t linear;
  const uint3 index;
  ctx::fiber fiber;   // not yet started, or parked at grid.sync()
  StackBounds stack;  // the context to resume: the block's fiber, later its thread 0's
  std::vector<unsigned char> shared;
  std::uint64_t generation = 0;  // the barrier generation it waits to pass
  bool ended = false;
  std::exception_ptr error;
  bool consequence = false;
};

// The worker that runs resident blocks on this OS thread.
struct ResidentWorker {
  ctx::fiber worker;  // the worker's own context, while a block runs
  StackBounds worker_stack;
  ResidentBlock* running = nullptr;
  const SharedLayout* layout = nullptr;
};
thread_local ResidentWorker* tl_resident = nullptr;

// Runs the block on its fiber until it ends or parks.
void resume(ResidentWorker& w, ResidentBlock& b) {
  w.running = &b;
  GuardPoint* const guard = tl_guard_point;
  void* fake_stack = nullptr;
  asan_start_switch(&fake_stack, b.stack);
  ctx::fiber back = std::move(b.fiber).resume();
  asan_finish_switch(fake_stack, nullptr);
  b.fiber = std::move(back);  // empty once the block's fiber has returned
  // The worker's own state, whatever the block left.
  tl_guard_point = guard;
  tl_runner = nullptr;
  tl_gather = nullptr;
  tl_recording = nullptr;
  tl_kernel_code = false;
  w.running = nullptr;
}

// From the block's thread 0 in grid.sync(): the worker goes on with its other blocks, and this one
// comes back here once resumed, with its shared memory and thread-locals as they were.
void park(ResidentWorker& w, std::uint64_t generation) {
  ResidentBlock& b = *w.running;
  b.generation = generation;
  const uint3 thread = threadIdx, block = blockIdx;
  BlockRunner* const runner = tl_runner;
  BarrierGather* const gather = tl_gather;
  RaceChecker* const recording = tl_recording;
  GuardPoint* const guard = tl_guard_point;
  const bool kernel_code = tl_kernel_code;
  w.layout->save(b.shared);
  b.stack = runner->current_stack();
  void* fake_stack = nullptr;
  asan_start_switch(&fake_stack, w.worker_stack);
  ctx::fiber back = std::move(w.worker).resume();
  asan_finish_switch(fake_stack, nullptr);
  w.worker = std::move(back);
  w.layout->restore(b.shared);
  threadIdx = thread;
  blockIdx = block;
  tl_runner = runner;
  tl_gather = gather;
  tl_recording = recording;
  tl_guard_point = guard;
  tl_kernel_code = kernel_code;
}

}  // namespace

void run_resident_blocks(const LaunchShape& shape, StackPool& pool, const BlockSource& source,
                         GridBarrier& grid, const ResidentOptions& options, std::atomic<bool>& stop,
                         ResidentResult& out) {
  const SharedLayout layout(options.dynamic_shared_bytes);
  ResidentWorker w;
  w.layout = &layout;
  struct Scope {
    explicit Scope(ResidentWorker* worker, GridBarrier* g) {
      tl_resident = worker;
      tl_grid = g;
    }
    ~Scope() {
      tl_resident = nullptr;
      tl_grid = nullptr;
    }
  } scope(&w, &grid);

  const auto run_block = [&](ResidentBlock& b) {
    tl_runner = &b.runner;
    tl_gather = b.checker ? nullptr : b.runner.gather();
    blockIdx = b.index;
    try {
      b.runner.run(b.linear, b.index);
      grid.block_ended();
      if (b.checker) require_instrumented(*b.checker, options.assume_instrumented);
    } catch (...) {
      b.error = std::current_exception();
      if (b.checker) b.checker->worker_faulted();
      // The blocks that wait at grid.sync() for this one fail too: only the first fault is the
      // cause.
      b.consequence =
          !grid.abandon({"another block of the grid faulted", "网格中的另一个线程块出错了"});
      stop.store(true, std::memory_order_relaxed);
    }
  };
  const auto start = [&](ResidentBlock& b) {
    const ctx::stack_context stack = pool.allocate();
    b.stack = bounds_of(stack);
    b.fiber = ctx::fiber(std::allocator_arg, PooledStack(&pool, stack),
                         [&w, &b, &run_block](ctx::fiber&& worker) {
                           asan_finish_switch(nullptr, &w.worker_stack);
                           w.worker = std::move(worker);
                           run_block(b);
                           b.ended = true;
                           asan_start_switch(nullptr, w.worker_stack);
                           return std::move(w.worker);
                         });
    resume(w, b);
  };
  const auto finish = [&](ResidentBlock& b) {
    const BlockTotals& t = b.runner.totals();
    out.totals.barriers += t.barriers;
    out.totals.collectives += t.collectives;
    out.totals.blocks_on_fibers += t.blocks_on_fibers;
    if (b.checker) {
      for (Race& r : b.checker->take_races()) out.races.push_back(std::move(r));
      out.races_found += b.checker->races_found();
    }
    if (b.error && (!out.error || (out.consequence && !b.consequence))) {
      out.error = b.error;
      out.consequence = b.consequence;
    }
  };

  std::vector<std::unique_ptr<ResidentBlock>> parked;
  std::uint64_t linear = 0;
  uint3 index{0, 0, 0};
  try {
    while (source.take(&linear, &index)) {
      auto b = std::make_unique<ResidentBlock>(shape, pool, options, linear, index);
      start(*b);
      if (b->ended) {
        finish(*b);
      } else {
        parked.push_back(std::move(b));
      }
    }
  } catch (...) {
    // No room for another block (its runner or its fiber's stack): the grid cannot be resident.
    // The parked blocks are still resumed below, to fail at the broken barrier (a suspended fiber
    // is never destroyed).
    const bool cause = grid.abandon(
        {"the emulator could not keep every block of the cooperative grid resident (out of "
         "memory), so the blocks cannot all wait at grid.sync()",
         "模拟器无法让协作网格的所有线程块同时驻留（内存不足），这些线程块不能都在 grid.sync() "
         "处等待"});
    stop.store(true, std::memory_order_relaxed);
    if (!out.error || (out.consequence && cause)) {
      out.error = std::current_exception();
      out.consequence = !cause;
    }
  }
  // Every block is taken: the barrier passes once each has arrived (or breaks).
  while (!parked.empty()) {
    std::uint64_t lowest = parked.front()->generation;
    for (const auto& b : parked) lowest = std::min(lowest, b->generation);
    grid.wait_past(lowest);
    std::vector<std::unique_ptr<ResidentBlock>> still;
    for (auto& b : parked) {
      // A block whose barrier has not passed yet (it arrived at a later one) waits on.
      if (!grid.ready(b->generation)) {
        still.push_back(std::move(b));
        continue;
      }
      resume(w, *b);
      if (b->ended) {
        finish(*b);
      } else {
        still.push_back(std::move(b));
      }
    }
    parked = std::move(still);
  }
}

void grid_sync(const std::source_location& where) {
  const EmulatorCode emulator;  // kernel_code.hpp
  GridBarrier* const grid = tl_grid;
  ResidentWorker* const worker = tl_resident;
  if (grid == nullptr || worker == nullptr || worker->running == nullptr) {
    invalid_device_call(
        "grid.sync() in a kernel that was not launched with cudaLaunchCooperativeKernel: only a "
        "cooperative launch keeps every block of the grid resident, so that they can wait for "
        "each other (this_grid().is_valid() is false here)",
        "核函数不是用 cudaLaunchCooperativeKernel 启动的，却调用了 grid.sync()：只有协作启动才会让"
        "网格的所有线程块同时驻留，从而能互相等待（这里 this_grid().is_valid() 为 false）",
        where);
  }
  Text why;
  std::uint64_t generation = 0;
  switch (grid->arrive(&generation, &why)) {
    case GridBarrier::Arrival::released:
      return;
    case GridBarrier::Arrival::broken:
      invalid_device_call(why.en.c_str(), why.zh.c_str(), where);
    case GridBarrier::Arrival::wait:
      break;
  }
  park(*worker, generation);
  if (!grid->passed(generation, &why)) invalid_device_call(why.en.c_str(), why.zh.c_str(), where);
}

bool grid_is_cooperative() {
  return tl_grid != nullptr;
}

}  // namespace gpulab::simt::detail
