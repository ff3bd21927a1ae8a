// Cooperative launches (cudaLaunchCooperativeKernel): every block of the grid resident at once, as
// a GPU guarantees for such a launch, so that cg::this_grid().sync() can wait for all of them.
//
// The blocks run on the launch's ordinary workers (no OS thread per block). A worker keeps every
// block it took alive: a block whose thread 0 reaches grid.sync() before the last block does is
// parked (its runner, its threads' fibers or coroutine frames, and a copy of its shared memory),
// and the worker goes on with its next block. Once every block has arrived, each worker resumes
// its parked blocks one after another. A block never moves to another worker (its kernel code may
// hold addresses of the worker's thread-local shared memory). A block that faults, or that
// returns while others wait at grid.sync(), breaks the barrier: the waiting blocks fail with a
// message that says why, where a GPU would hang or fail the launch.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <mutex>
#include <string>
#include <vector>

#include "simt/scheduler.hpp"
#include "simt/simt.hpp"

namespace gpulab::simt::detail {

class RaceChecker;

class GridBarrier {
 public:
  explicit GridBarrier(std::uint64_t blocks) : blocks_(blocks) {}

  enum class Arrival { released, wait, broken };
  // One block arrives (its thread 0, once every thread of the block has reached grid.sync()).
  // released: it was the last, the barrier is passed; wait: park until the barrier passes
  // *generation; broken: *why says why.
  Arrival arrive(std::uint64_t* generation, Text* why);
  // After waiting for `generation`: true when it was passed, false when the barrier broke.
  bool passed(std::uint64_t generation, Text* why);
  // Whether a block waiting for `generation` may go on (the barrier passed it, or broke).
  bool ready(std::uint64_t generation);
  // Sleeps until the barrier passes `generation` or breaks.
  void wait_past(std::uint64_t generation);
  // A block ran to its end.
  void block_ended();
  // A block faulted: the barrier will never complete. True for the first call (the cause); later
  // ones are consequences.
  bool abandon(Text why);

 private:
  void break_locked(Text why);
  // Why the barrier broke when blocks returned without reaching it (lock held).
  Text never_reached() const;

  std::mutex mutex_;
  std::condition_variable released_;
  const std::uint64_t blocks_;
  std::uint64_t waiting_ = 0, ended_ = 0, generation_ = 0;
  bool broken_ = false;
  Text why_;
};

// The grid barrier of the cooperative launch this OS thread runs blocks of, if any.
inline thread_local GridBarrier* tl_grid = nullptr;

// What one worker of a cooperative launch did.
struct ResidentResult {
  BlockTotals totals;
  std::vector<Race> races;
  std::uint64_t races_found = 0;
  std::exception_ptr error;  // the first fault of the worker's blocks
  bool consequence = false;  // it failed because another block of the grid did
};

struct ResidentOptions {
  bool check = false;
  bool assume_instrumented = false;
  std::size_t max_reports = 0;
  std::size_t dynamic_shared_bytes = 0;
};

// Check mode: a kernel that reported no access was not compiled with the instrumentation
// (launch.cpp): throws UsageError unless the caller vouches for it.
void require_instrumented(RaceChecker& checker, bool assume_instrumented);

// One worker's part of a cooperative launch: takes blocks from `source` until none is left, each
// on a fiber of its own with its own runner (and race checker in check mode), parking those that
// wait at grid.sync() and resuming them once the barrier passes, until every block it took has
// ended. The worker's thread-locals (blockDim, gridDim, the dynamic shared window) are set by the
// caller. On a fault, `stop` is set (no further blocks are taken) and the barrier broken.
void run_resident_blocks(const LaunchShape& shape, StackPool& pool, const BlockSource& source,
                         GridBarrier& grid, const ResidentOptions& options, std::atomic<bool>& stop,
                         ResidentResult& out);

}  // namespace gpulab::simt::detail
