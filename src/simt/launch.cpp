// Launch: validation as a GPU does it, workers and block order, statistics, device memory.
#include <algorithm>
#include <atomic>
#include <bit>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <system_error>
#include <thread>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include <unistd.h>

#include "calc/launch_limits.hpp"
#include "core/i18n_format.hpp"
#include "simt/cooperative_launch.hpp"
#include "simt/guard.hpp"
#include "simt/memory_check.hpp"
#include "simt/program_symbols.hpp"
#include "simt/race_check.hpp"
#include "simt/scheduler.hpp"
#include "simt/simt.hpp"

namespace gpulab::simt {

namespace detail {

namespace {

static_assert(kDynamicSharedCapacity == kMaxSharedPerBlockOptin);

std::string kib(std::uint64_t bytes) {
  if (bytes % 1024 == 0) return std::to_string(bytes / 1024) + " KiB";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f KiB", static_cast<double>(bytes) / 1024.0);
  return buf;
}

// cudaFuncSetAttribute(MaxDynamicSharedMemorySize) values, per kernel.
std::mutex& attributes_mutex() {
  static std::mutex m;
  return m;
}
std::unordered_map<const void*, std::size_t>& max_dynamic_shared() {
  static std::unordered_map<const void*, std::size_t> m;
  return m;
}

// The limits are CUDA's rules, shared with the commands that teach them (calc/launch_limits).
void check_config(dim3 grid, dim3 block) {
  if (auto why = limits::check_launch_text({grid.x, grid.y, grid.z}, {block.x, block.y, block.z})) {
    // CUDA 13 reports bad launch dimensions as cudaErrorInvalidValue (checked on an H100; CUDA 12
    // and older said cudaErrorInvalidConfiguration).
    throw CudaError("cudaErrorInvalidValue",
                    {"invalid launch configuration: " + why->en, "无效的启动配置：" + why->zh});
  }
}

void check_shared(const void* kernel, std::size_t dynamic_bytes, std::size_t static_bytes) {
  std::optional<std::size_t> opted_in;
  {
    std::lock_guard lock(attributes_mutex());
    if (const auto it = max_dynamic_shared().find(kernel); it != max_dynamic_shared().end()) {
      opted_in = it->second;
    }
  }
  // Without an opt-in, a kernel may use 48 KiB in all; cudaFuncSetAttribute raises the dynamic
  // part.
  const std::size_t max_dynamic =
      opted_in
          ? *opted_in
          : (static_bytes < kDefaultSharedPerBlock ? kDefaultSharedPerBlock - static_bytes : 0);
  if (dynamic_bytes <= max_dynamic) return;
  const std::string total = std::to_string(dynamic_bytes + static_bytes);
  const std::string parts = std::to_string(static_bytes), dynamic = std::to_string(dynamic_bytes);
  Text why{"the block asks for " + total + " bytes of shared memory (" + parts + " static + " +
               dynamic + " dynamic)",
           "线程块要求 " + total + " 字节共享内存（静态 " + parts + " + 动态 " + dynamic + "）"};
  if (opted_in) {
    const std::string opted = std::to_string(*opted_in);
    why +=
        Text{", more than the " + opted + " bytes of dynamic shared memory this kernel opted in to",
             "，超过了这个核函数申请的 " + opted + " 字节动态共享内存"};
  } else {
    const std::string plain =
        std::to_string(kDefaultSharedPerBlock) + " (" + kib(kDefaultSharedPerBlock) + ")";
    const std::string most =
        std::to_string(kMaxSharedPerBlockOptin) + " (" + kib(kMaxSharedPerBlockOptin) + ")";
    why += Text{"; without opting in a block may use " + plain +
                    "; cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, "
                    "bytes) allows up to " +
                    most + " on an H100",
                "；不申请时一个线程块最多用 " + plain +
                    "；在 H100 上，cudaFuncSetAttribute(kernel, "
                    "cudaFuncAttributeMaxDynamicSharedMemorySize, bytes) 最多允许 " +
                    most};
  }
  throw CudaError("cudaErrorInvalidValue", std::move(why));
}

// A bijection of [0, n) chosen by the seed: a 4-round Feistel network on the smallest even number
// of bits that covers n, walking the cycle until the value falls in range. It needs no memory, so
// even 2^31 blocks can be shuffled.
class BlockOrder {
 public:
  BlockOrder(std::uint64_t n, std::optional<std::uint64_t> seed) : n_(n), shuffle_(seed && n > 1) {
    if (!shuffle_) return;
    const int bits = std::max(2, static_cast<int>(std::bit_width(n - 1)));
    half_bits_ = (bits + 1) / 2;
    half_mask_ = (std::uint64_t{1} << half_bits_) - 1;
    std::uint64_t s = *seed;
    for (auto& k : keys_) k = splitmix(s);
  }

  std::uint64_t operator()(std::uint64_t i) const {
    if (!shuffle_) return i;
    std::uint64_t x = i;
    do {
      x = permute(x);
    } while (x >= n_);
    return x;
  }

 private:
  static std::uint64_t splitmix(std::uint64_t& s) {
    std::uint64_t z = (s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }

  std::uint64_t permute(std::uint64_t x) const {
    std::uint64_t left = x >> half_bits_, right = x & half_mask_;
    for (const std::uint64_t key : keys_) {
      std::uint64_t f = right ^ key;
      f = splitmix(f) & half_mask_;
      const std::uint64_t next = left ^ f;
      left = right;
      right = next;
    }
    return (left << half_bits_) | right;
  }

  std::uint64_t n_;
  bool shuffle_;
  int half_bits_ = 0;
  std::uint64_t half_mask_ = 0;
  std::uint64_t keys_[4] = {};
};

// The races that check mode found in this host thread's last launch before it failed.
thread_local std::vector<Race> t_races_of_failed_launch;

struct WorkerResult {
  BlockTotals totals;
  std::vector<Race> races;
  std::uint64_t races_found = 0;
  std::exception_ptr error;
  bool consequence = false;  // failed because another block of a cooperative grid did
};

// The OS threads that run blocks, kept from launch to launch: a launch hands its work to threads
// that already exist (a wake-up, not a thread creation). One launch uses the pool at a time; a
// launch that finds it busy (another host thread is launching) starts threads of its own, as
// every launch did before the pool. The pool is never destroyed: its threads sleep until the
// process exits. After a fork() the child has none of them, so it makes a pool of its own.
class WorkerPool {
 public:
  static WorkerPool* get() {
    static std::mutex m;
    static WorkerPool* pool = nullptr;
    std::lock_guard lock(m);
    if (pool == nullptr || pool->pid_ != ::getpid()) pool = new WorkerPool();  // left to exit
    return pool;
  }

  // Locked by the launch that uses the pool.
  std::mutex& use() { return use_; }

  // Runs work(1) ... work(helpers) on pool threads, as many of them as wake up before the caller
  // has finished: the caller runs work(0) meanwhile, and blocks are handed out one at a time, so a
  // thread that wakes late finds nothing left and costs nothing. Returns the number of helpers the
  // pool could provide (fewer than asked when the system refuses threads).
  template <class Work>
  unsigned run(unsigned helpers, const Work& work) {
    helpers = grow(helpers);
    {
      std::lock_guard lock(m_);
      job_ = [](const void* w, unsigned index) { (*static_cast<const Work*>(w))(index); };
      job_arg_ = &work;
      job_helpers_ = helpers;
      claimed_ = 0;
      done_ = 0;
      open_ = true;
      published_.store(++generation_, std::memory_order_release);
      // Threads that still spin (they finished the last launch a moment ago) see the new
      // generation without a system call.
      if (helpers > 0 && sleeping_ > 0) wake_.notify_all();
    }
    work(0);
    std::unique_lock lock(m_);
    open_ = false;  // threads that wake from now on find no job
    if (done_ != claimed_) {
      // The helpers end their last blocks about when the caller does: wait for them spinning a
      // moment before sleeping, as they wait for a launch.
      const unsigned claimed = claimed_;
      lock.unlock();
      spin_while([&] { return done_.load(std::memory_order_acquire) != claimed; });
      lock.lock();
    }
    finished_.wait(lock, [&] { return done_ == claimed_; });
    return helpers;
  }

 private:
  WorkerPool() : pid_(::getpid()) {}

  unsigned grow(unsigned wanted) {
    while (threads_ < wanted) {
      if (!room_for_another_thread()) break;
      try {
        std::thread(&WorkerPool::serve, this).detach();
      } catch (const std::system_error&) {
        // The system refused another thread (ulimit -u, ulimit -v): the threads that exist run
        // every block, only more slowly.
        break;
      }
      ++threads_;
    }
    return std::min(wanted, threads_);
  }

  void serve() {
    std::uint64_t seen = 0;
    std::unique_lock lock(m_);
    for (;;) {
      if (generation_ == seen) {
        // A program launches again and again: waking a sleeping thread takes tens of
        // microseconds, longer than a small launch's share of work on many cores. So a thread
        // spins a short while for the next launch before it sleeps (as OpenMP runtimes do).
        lock.unlock();
        spin_while([&] { return published_.load(std::memory_order_acquire) == seen; });
        lock.lock();
      }
      ++sleeping_;
      wake_.wait(lock, [&] { return generation_ != seen; });
      --sleeping_;
      seen = generation_;
      if (!open_ || claimed_ >= job_helpers_) continue;
      const unsigned index = ++claimed_;
      void (*job)(const void*, unsigned) = job_;
      const void* arg = job_arg_;
      lock.unlock();
      job(arg, index);
      lock.lock();
      if (++done_ == claimed_ && !open_) finished_.notify_all();
    }
  }

  // Spins while busy() holds, for at most about 200 microseconds.
  template <class Busy>
  static void spin_while(const Busy& busy) {
    const auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(200);
    for (unsigned i = 1; busy(); ++i) {
      if (i % 64 == 0 && std::chrono::steady_clock::now() > until) return;
#if defined(__x86_64__) || defined(__i386__)
      __builtin_ia32_pause();
#else
      std::this_thread::yield();
#endif
    }
  }

  const pid_t pid_;
  std::mutex use_;
  std::mutex m_;
  std::condition_variable wake_, finished_;
  unsigned threads_ = 0;  // pool threads started (only the launch that holds use_ adds some)
  std::uint64_t generation_ = 0;
  std::atomic<std::uint64_t> published_{0};  // generation_, for the threads that spin
  unsigned sleeping_ = 0;                    // threads in wake_.wait
  void (*job_)(const void*, unsigned) = nullptr;
  const void* job_arg_ = nullptr;
  unsigned job_helpers_ = 0;
  unsigned claimed_ = 0;
  std::atomic<unsigned> done_{0};  // written under m_; read without it by the caller's spin
  bool open_ = false;
};

std::string place_key(const Race& r) {
  return std::to_string(static_cast<int>(r.space)) + ":" + r.array + ":" +
         std::to_string(r.byte_offset);
}

}  // namespace

void require_instrumented(RaceChecker& checker, bool assume_instrumented) {
  if (assume_instrumented || checker.instrumented()) return;
  throw UsageError(
      "race checks need the kernel compiled with instrumentation (CMake: "
      "gpulab_simt_instrument(<source>)); this kernel reported no memory access",
      "检查竞争需要带插桩编译的内核（CMake：gpulab_simt_instrument(<source>)）；"
      "这个内核没有报告任何内存访问");
}

std::size_t static_shared_erased(const void* kernel) {
  return ProgramSymbols::get().static_shared_bytes(kernel);
}

void validate_erased(const void* kernel, dim3 grid, dim3 block, std::size_t dynamic_shared_bytes) {
  check_config(grid, block);
  check_shared(kernel, dynamic_shared_bytes, static_shared_erased(kernel));
}

void set_max_dynamic_shared_erased(const void* kernel, std::size_t bytes) {
  const std::size_t static_bytes = static_shared_erased(kernel);
  if (bytes + static_bytes > kMaxSharedPerBlockOptin) {
    const std::size_t most =
        kMaxSharedPerBlockOptin - std::min(static_bytes, kMaxSharedPerBlockOptin);
    throw CudaError(
        "cudaErrorInvalidValue",
        both("cudaFuncSetAttribute(MaxDynamicSharedMemorySize, {}): with {} bytes of static shared "
             "memory a block may have at most {} bytes of dynamic shared memory ({} in all on an "
             "H100)",
             "cudaFuncSetAttribute(MaxDynamicSharedMemorySize, {})：有 {} 字节静态共享内存时，一个"
             "线程块最多只能有 {} 字节动态共享内存（在 H100 上总共 {}）",
             bytes, static_bytes, most, kib(kMaxSharedPerBlockOptin)));
  }
  std::lock_guard lock(attributes_mutex());
  max_dynamic_shared()[kernel] = bytes;
}

LaunchStats launch_erased(const ErasedKernel& kernel, dim3 grid, dim3 block,
                          std::size_t dynamic_shared_bytes, const RunOptions& options) {
  if (tl_runner != nullptr) {
    throw KernelFault(KernelFault::Kind::outside_kernel,
                      {"a kernel launched another kernel: dynamic parallelism is not emulated",
                       "核函数启动了另一个核函数：模拟器不模拟动态并行"},
                      0);
  }
  const auto start = std::chrono::steady_clock::now();
  const std::size_t static_bytes = static_shared_erased(kernel.address);
  check_config(grid, block);
  check_shared(kernel.address, dynamic_shared_bytes, static_bytes);
  if (options.check && !check_supported()) {
    throw UsageError(
        "race checks are not available in this build: it is built with ThreadSanitizer, whose "
        "runtime owns the hooks the checks rely on",
        "这个构建不能检查竞争：它是用 ThreadSanitizer 构建的，检查所依赖的钩子归它的运行时所有");
  }

  LaunchStats stats;
  stats.grid = grid;
  stats.block = block;
  stats.dynamic_shared_bytes = dynamic_shared_bytes;
  stats.static_shared_bytes = static_bytes;
  stats.blocks = std::uint64_t{grid.x} * grid.y * grid.z;
  stats.threads_per_block = std::uint64_t{block.x} * block.y * block.z;
  stats.threads = stats.blocks * stats.threads_per_block;
  stats.warps_per_block = (stats.threads_per_block + kWarpSize - 1) / kWarpSize;
  stats.warps = stats.blocks * stats.warps_per_block;
  stats.idle_lanes_last_warp =
      static_cast<unsigned>(stats.warps_per_block * kWarpSize - stats.threads_per_block);

  LaunchShape shape;
  shape.kernel = &kernel;
  shape.grid = grid;
  shape.block = block;
  shape.threads = static_cast<std::uint32_t>(stats.threads_per_block);
  shape.warps = static_cast<std::uint32_t>(stats.warps_per_block);
  shape.dynamic_shared_bytes = dynamic_shared_bytes;

  unsigned workers = options.workers != 0 ? options.workers : std::thread::hardware_concurrency();
  workers = static_cast<unsigned>(std::clamp<std::uint64_t>(workers, 1, stats.blocks));
  // A cooperative launch: its blocks all resident on the workers (the caller checked that they fit
  // the device), with a grid barrier between them (cooperative_launch.hpp).
  std::optional<GridBarrier> grid_barrier;
  if (options.cooperative) grid_barrier.emplace(stats.blocks);
  stats.workers = workers;
  if (options.check) checked_launch_workers(workers);

  const BlockOrder order(stats.blocks, options.shuffle_seed);
  std::atomic<std::uint64_t> next_block{0};
  // Workers claim blocks a few at a time: on 16 cores one shared counter taken per block costs
  // more than a vector add's block (its cache line moves between the cores at every claim). A
  // chunk is at most a 16th of a worker's share, so the last chunks still even out the load.
  // One at a time where blocks must be taken in order (check mode's logs, a cooperative grid).
  const std::uint64_t chunk =
      options.check || grid_barrier || workers == 1
          ? 1
          : std::clamp<std::uint64_t>(stats.blocks / (std::uint64_t{workers} * 16), 1, 64);
  std::atomic<bool> stop{false};
  std::vector<WorkerResult> results(workers);

  const auto work = [&](unsigned index) {
    WorkerResult& out = results[index];
    // Outside the try: the races it found before a fault are kept (see races_of_failed_launch).
    std::optional<RaceChecker> checker;
    try {
      blockDim = block;
      gridDim = grid;
      std::unique_ptr<StackPool> pool = StackPool::lease();
      struct PoolReturn {
        std::unique_ptr<StackPool>& pool;
        ~PoolReturn() { StackPool::give_back(std::move(pool)); }
      } pool_return{pool};
      prepare_worker(dynamic_shared_bytes, options.check);  // guard.hpp

      const std::uint64_t gx = grid.x, gy = grid.y;
      std::uint64_t claimed = 0, claimed_end = 0;  // the chunk this worker holds
      // The next block of this worker, as the runner's fiber takes it too (BlockSource).
      const auto take = [&](std::uint64_t* b_out, uint3* index_out) {
        if (stop.load(std::memory_order_relaxed)) return false;
        if (claimed == claimed_end) {
          claimed = next_block.fetch_add(chunk, std::memory_order_relaxed);
          claimed_end = std::min(claimed + chunk, stats.blocks);
          if (claimed >= claimed_end) {
            claimed = claimed_end;  // nothing left: so says every later call
            return false;
          }
        }
        const std::uint64_t i = claimed++;
        const std::uint64_t b = order(i);
        *b_out = b;
        // A one-dimensional grid needs no divisions (three 64-bit ones cost more than starting
        // a block of a vector add's threads).
        *index_out = gx == stats.blocks ? uint3{static_cast<unsigned>(b), 0, 0}
                                        : uint3{static_cast<unsigned>(b % gx),
                                                static_cast<unsigned>((b / gx) % gy),
                                                static_cast<unsigned>(b / (gx * gy))};
        blockIdx = *index_out;
        return true;
      };
      const BlockSource source{[](void* c, std::uint64_t* b_out, uint3* index_out) {
                                 return (*static_cast<decltype(take)*>(c))(b_out, index_out);
                               },
                               const_cast<void*>(static_cast<const void*>(&take))};
      if (grid_barrier) {
        ResidentResult resident;
        run_resident_blocks(
            shape, *pool, source, *grid_barrier,
            {options.check, options.assume_instrumented, options.max_reports, dynamic_shared_bytes},
            stop, resident);
        out.totals = resident.totals;
        out.races = std::move(resident.races);
        out.races_found = resident.races_found;
        out.error = resident.error;
        out.consequence = resident.consequence;
        return;
      }
      if (options.check) checker.emplace(shape, options.max_reports);
      BlockRunner runner(shape, *pool, checker ? &*checker : nullptr);
      if (checker) checker->set_runner(&runner);
      struct RunnerScope {
        RunnerScope(BlockRunner* r, bool checked) {
          tl_runner = r;
          // Checked runs book every arrival through a call (their recording is paused there).
          tl_gather = checked ? nullptr : r->gather();
        }
        ~RunnerScope() {
          tl_runner = nullptr;
          tl_gather = nullptr;
        }
      } scope(&runner, checker.has_value());
      // A block that never waits is followed by the next on the same fiber, except in check
      // mode, where each block must be seen on its own.
      if (!checker) runner.set_source(&source);
      std::uint64_t b = 0;
      uint3 index3{0, 0, 0};
      while (take(&b, &index3)) {
        runner.run(b, index3);
        if (checker) require_instrumented(*checker, options.assume_instrumented);
      }
      out.totals = runner.totals();
      if (checker) {
        out.races = checker->take_races();
        out.races_found = checker->races_found();
      }
    } catch (...) {
      out.error = std::current_exception();
      if (checker) {
        checker->worker_faulted();
        out.races = checker->take_races();
        out.races_found = checker->races_found();
      }
      // The blocks that wait at grid.sync() fail too: only the first fault is the cause.
      if (grid_barrier)
        out.consequence = !grid_barrier->abandon(
            {"another block of the grid faulted", "网格中的另一个线程块出错了"});
      stop.store(true, std::memory_order_relaxed);
    }
  };

  if (workers == 1) {
    work(0);
  } else if (WorkerPool* pool = WorkerPool::get();
             std::unique_lock use{pool->use(), std::try_to_lock}) {
    stats.workers = pool->run(workers - 1, work) + 1;
  } else {
    // Another host thread's launch holds the pool: this one starts threads of its own.
    std::vector<std::thread> threads;
    threads.reserve(workers - 1);
    for (unsigned w = 1; w < workers; ++w) {
      if (!room_for_another_thread()) break;
      try {
        threads.emplace_back(work, w);
      } catch (const std::system_error&) {
        // The system refused another thread (ulimit -u, ulimit -v): blocks are handed out one at
        // a time, so the workers that did start run them all, only more slowly.
        break;
      }
    }
    stats.workers = static_cast<unsigned>(threads.size()) + 1;
    work(0);
    for (auto& t : threads) t.join();
  }

  if (std::any_of(results.begin(), results.end(), [](const auto& r) { return bool(r.error); })) {
    t_races_of_failed_launch.clear();
    for (WorkerResult& r : results)
      for (Race& race : r.races) t_races_of_failed_launch.push_back(std::move(race));
  }
  for (const WorkerResult& r : results) {
    if (r.error && !r.consequence) std::rethrow_exception(r.error);
  }
  for (const WorkerResult& r : results) {
    if (r.error) std::rethrow_exception(r.error);
  }
  std::vector<Race> races;
  for (WorkerResult& r : results) {
    stats.barriers_crossed += r.totals.barriers;
    stats.warp_collectives += r.totals.collectives;
    stats.blocks_on_fibers += r.totals.blocks_on_fibers;
    stats.races_found += r.races_found;
    for (Race& race : r.races) races.push_back(std::move(race));
  }
  if (!races.empty()) {
    const auto linear = [&](const Race& r) {
      return (std::uint64_t{r.block.z} * grid.y + r.block.y) * grid.x + r.block.x;
    };
    std::stable_sort(races.begin(), races.end(), [&](const Race& a, const Race& b) {
      return linear(a) != linear(b) ? linear(a) < linear(b)
                                    : a.barrier_interval < b.barrier_interval;
    });
    // Workers report separately: keep one race per location overall.
    std::unordered_set<std::string> seen;
    for (Race& race : races) {
      if (stats.races.size() >= options.max_reports) break;
      if (seen.insert(place_key(race)).second) stats.races.push_back(std::move(race));
    }
  }
  stats.elapsed_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return stats;
}

std::vector<Race> races_of_failed_launch() {
  return std::exchange(t_races_of_failed_launch, {});
}

}  // namespace detail

void* device_malloc(std::size_t bytes) {
  return allocate(bytes, AllocationKind::device, {});
}

void device_free(void* p) noexcept {
  if (p == nullptr) return;
  if (!release(p, AllocationKind::device)) {
    std::fprintf(stderr, "gpulab: warning: device_free(%p): not a pointer device_malloc returned\n",
                 p);
  }
}

bool check_supported() noexcept {
#if defined(GPULAB_SIMT_NO_CHECK)
  return false;
#else
  return true;
#endif
}

}  // namespace gpulab::simt
