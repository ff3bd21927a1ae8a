// Check mode's access recorder for gpulab exercise: who wrote each element of device memory, how
// many global and shared accesses each thread made, and (for small launches) every access, so that
// a kernel's access pattern can be counted against an exercise's rules and drawn.
//
// It sees the same instrumented loads and stores as the race checker (race_check.hpp), and only
// while recording is on (the exercise harness asks for it through its environment).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "simt/simt.hpp"

namespace gpulab::simt {

void enable_access_recording();
bool access_recording_enabled();

// One access of a recorded launch, kept only while the launch has made few accesses (a drawing).
struct RecordedAccess {
  std::uintptr_t address = 0;  // global: the device address; shared: the byte offset in `array`
  std::uint32_t bytes = 0;
  uint3 block{0, 0, 0}, thread{0, 0, 0};
  bool write = false;
  bool shared = false;
  const char* array = nullptr;  // shared: the __shared__ array ("extern": dynamic shared memory)
};

// What one launch did, as counted per thread.
struct LaunchRecord {
  std::uint64_t max_global_reads = 0, max_global_writes = 0;  // by any one thread
  uint3 max_reads_block{0, 0, 0}, max_reads_thread{0, 0, 0};
  uint3 max_writes_block{0, 0, 0}, max_writes_thread{0, 0, 0};
  std::uint64_t shared_reads = 0, shared_writes = 0;  // all threads together
  std::uint64_t atomics = 0;  // atomic accesses to global memory (not in the per-thread counts)
  std::uint64_t threads_counted = 0;     // threads with counts (the grid, if small)
  std::vector<RecordedAccess> accesses;  // empty when there were too many
  bool accesses_complete = false;
};

// The thread that last wrote the element starting at `p` in any recorded launch.
struct Writer {
  uint3 block{0, 0, 0}, thread{0, 0, 0};
};
std::optional<Writer> last_writer(const void* p);

namespace detail {

void begin_recorded_launch(dim3 grid, dim3 block);
LaunchRecord end_recorded_launch();
// From RaceChecker::access, for every access of instrumented kernel code. `shared_array` is null
// for global memory.
void record_access(std::uintptr_t address, std::size_t size, bool write, bool atomic,
                   const char* shared_array, std::uint64_t block_linear, uint3 block,
                   std::uint32_t thread);

}  // namespace detail
}  // namespace gpulab::simt
