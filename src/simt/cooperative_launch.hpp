// Cooperative launches (cudaLaunchCooperativeKernel): every block of the grid resident at once, as
// a GPU guarantees for such a launch, so that cg::this_grid().sync() can wait for all of them.
//
// Each block runs on an OS thread of its own (with its own shared memory, as any worker's), and the
// grid barrier is a counter across those threads. A block that faults, or that returns while others
// wait at grid.sync(), breaks the barrier: the waiting blocks fail with a message that says why,
// where a GPU would hang or fail the launch.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>

namespace gpulab::simt::detail {

class GridBarrier {
 public:
  explicit GridBarrier(std::uint64_t blocks) : blocks_(blocks) {}

  // One block arrives (its thread 0, once every thread of the block has reached grid.sync()) and
  // waits for the others. False when the barrier is broken: *why says why.
  bool arrive_and_wait(std::string* why);
  // A block ran to its end.
  void block_ended();
  // A block faulted, or the threads could not be started: the barrier will never complete. True
  // for the first call (the cause); later ones are consequences.
  bool abandon(std::string why);

 private:
  std::mutex mutex_;
  std::condition_variable released_;
  const std::uint64_t blocks_;
  std::uint64_t waiting_ = 0, ended_ = 0, generation_ = 0;
  bool broken_ = false;
  std::string why_;
};

// The grid barrier of the cooperative launch this OS thread runs a block of, if any.
inline thread_local GridBarrier* tl_grid = nullptr;

// Runs work(arg, 0) ... work(arg, threads - 1), each on an OS thread of its own (0 on the
// caller's), all started before any runs, with tl_grid set to `grid`. Returns the number of threads
// that ran (fewer when the system refused threads: the grid barrier is then broken, saying so).
unsigned run_cooperative(unsigned threads, void (*work)(const void* arg, unsigned index),
                         const void* arg, GridBarrier& grid);

}  // namespace gpulab::simt::detail
