// Cooperative launches: one OS thread per block, and the grid barrier (see cooperative_launch.hpp).
#include "simt/cooperative_launch.hpp"

#include <source_location>
#include <system_error>
#include <thread>
#include <vector>

#include "simt/device_api.hpp"
#include "simt/guard.hpp"
#include "simt/kernel_code.hpp"
#include "simt/memory_check.hpp"

namespace gpulab::simt::detail {

bool GridBarrier::arrive_and_wait(std::string* why) {
  std::unique_lock lock(mutex_);
  if (broken_) {
    *why = why_;
    return false;
  }
  const std::uint64_t generation = generation_;
  if (++waiting_ + ended_ == blocks_) {
    if (ended_ > 0) {
      broken_ = true;
      why_ = "grid.sync() is not reached by every block of the grid: " + std::to_string(ended_) +
             " of " + std::to_string(blocks_) +
             " blocks returned without it, and a GPU would wait for them forever";
      released_.notify_all();
      *why = why_;
      return false;
    }
    // Everything the blocks did before the barrier is ordered before what they do after it.
    grid_synchronized();
    waiting_ = 0;
    ++generation_;
    released_.notify_all();
    return true;
  }
  released_.wait(lock, [&] { return generation_ != generation || broken_; });
  if (generation_ != generation) return true;
  *why = why_;
  return false;
}

void GridBarrier::block_ended() {
  std::lock_guard lock(mutex_);
  ++ended_;
  if (!broken_ && waiting_ > 0 && waiting_ + ended_ == blocks_) {
    broken_ = true;
    why_ = "grid.sync() is not reached by every block of the grid: " + std::to_string(ended_) +
           " of " + std::to_string(blocks_) +
           " blocks returned without it, and a GPU would wait for them forever";
    released_.notify_all();
  }
}

bool GridBarrier::abandon(std::string why) {
  std::lock_guard lock(mutex_);
  if (broken_) return false;
  broken_ = true;
  why_ = std::move(why);
  released_.notify_all();
  return true;
}

unsigned run_cooperative(unsigned threads, void (*work)(const void*, unsigned), const void* arg,
                         GridBarrier& grid) {
  std::mutex m;
  std::condition_variable go;
  bool started = false;
  const auto body = [&](unsigned index) {
    {
      std::unique_lock lock(m);
      go.wait(lock, [&] { return started; });
    }
    tl_grid = &grid;
    work(arg, index);
    tl_grid = nullptr;
  };
  std::vector<std::thread> pool;
  pool.reserve(threads > 0 ? threads - 1 : 0);
  for (unsigned i = 1; i < threads; ++i) {
    try {
      if (!room_for_another_thread()) {
        throw std::system_error(std::make_error_code(std::errc::resource_unavailable_try_again));
      }
      pool.emplace_back(body, i);
    } catch (const std::system_error&) {
      // Blocks are handed out one at a time, so the threads that did start run them all; but
      // they cannot all be resident, and a grid barrier could never complete.
      grid.abandon("the emulator could start only " + std::to_string(pool.size() + 1) +
                   " threads for the " + std::to_string(threads) +
                   " blocks of this cooperative launch (the system refused more), so the blocks "
                   "cannot all wait at grid.sync() at once");
      break;
    }
  }
  {
    std::lock_guard lock(m);
    started = true;
  }
  go.notify_all();
  body(0);
  for (std::thread& t : pool) t.join();
  return static_cast<unsigned>(pool.size()) + 1;
}

void grid_sync(const std::source_location& where) {
  const EmulatorCode emulator;  // kernel_code.hpp
  GridBarrier* const grid = tl_grid;
  if (grid == nullptr) {
    invalid_device_call(
        "grid.sync() in a kernel that was not launched with cudaLaunchCooperativeKernel: only a "
        "cooperative launch keeps every block of the grid resident, so that they can wait for "
        "each other (this_grid().is_valid() is false here)",
        where);
  }
  std::string why;
  if (!grid->arrive_and_wait(&why)) invalid_device_call(why.c_str(), where);
}

bool grid_is_cooperative() {
  return tl_grid != nullptr;
}

}  // namespace gpulab::simt::detail
