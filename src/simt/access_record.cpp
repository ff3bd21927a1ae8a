// The access recorder of check mode (see access_record.hpp).
#include "simt/access_record.hpp"

#include <atomic>
#include <mutex>
#include <unordered_map>

#include "simt/memory_check.hpp"

namespace gpulab::simt {
namespace {

// Past these, a launch is too big to count per thread or to draw; its owners are still kept.
constexpr std::uint64_t kMaxCountedThreads = 1u << 22;
constexpr std::size_t kMaxDrawnAccesses = 20000;

struct State {
  std::mutex mutex;
  dim3 grid, block;
  std::uint32_t threads_per_block = 1;
  std::vector<std::uint32_t> reads, writes;  // per thread of the grid
  LaunchRecord record;
  bool too_many = false;
  std::unordered_map<std::uintptr_t, Writer> owners;
};

std::atomic<bool> g_enabled{false};

State& state() {
  static State* s = new State;  // used from exit handlers too
  return *s;
}

uint3 thread_index(std::uint32_t t, dim3 block) {
  return uint3{t % block.x, (t / block.x) % block.y, t / (block.x * block.y)};
}

uint3 block_index(std::uint64_t linear, dim3 grid) {
  return uint3{static_cast<unsigned>(linear % grid.x),
               static_cast<unsigned>((linear / grid.x) % grid.y),
               static_cast<unsigned>(linear / (static_cast<std::uint64_t>(grid.x) * grid.y))};
}

}  // namespace

void enable_access_recording() {
  g_enabled = true;
}
bool access_recording_enabled() {
  return g_enabled;
}

std::optional<Writer> last_writer(const void* p) {
  State& s = state();
  std::lock_guard lock(s.mutex);
  const auto it = s.owners.find(reinterpret_cast<std::uintptr_t>(p));
  if (it == s.owners.end()) return std::nullopt;
  return it->second;
}

namespace detail {

void begin_recorded_launch(dim3 grid, dim3 block) {
  State& s = state();
  std::lock_guard lock(s.mutex);
  s.grid = grid;
  s.block = block;
  s.threads_per_block = block.x * block.y * block.z;
  const std::uint64_t threads =
      static_cast<std::uint64_t>(grid.x) * grid.y * grid.z * s.threads_per_block;
  s.record = LaunchRecord{};
  s.too_many = false;
  s.reads.clear();
  s.writes.clear();
  if (threads <= kMaxCountedThreads) {
    s.reads.assign(threads, 0);
    s.writes.assign(threads, 0);
    s.record.threads_counted = threads;
  }
}

LaunchRecord end_recorded_launch() {
  State& s = state();
  std::lock_guard lock(s.mutex);
  LaunchRecord r = std::move(s.record);
  for (std::size_t t = 0; t < s.reads.size(); ++t) {
    const auto where = [&](uint3& b, uint3& th) {
      b = block_index(t / s.threads_per_block, s.grid);
      th = thread_index(static_cast<std::uint32_t>(t % s.threads_per_block), s.block);
    };
    if (s.reads[t] > r.max_global_reads) {
      r.max_global_reads = s.reads[t];
      where(r.max_reads_block, r.max_reads_thread);
    }
    if (s.writes[t] > r.max_global_writes) {
      r.max_global_writes = s.writes[t];
      where(r.max_writes_block, r.max_writes_thread);
    }
  }
  r.accesses_complete = !s.too_many;
  if (s.too_many) r.accesses.clear();
  s.record = LaunchRecord{};
  return r;
}

void record_access(std::uintptr_t address, std::size_t size, bool write, bool atomic,
                   const char* shared_array, std::uint64_t block_linear, uint3 block,
                   std::uint32_t thread) {
  if (!g_enabled) return;
  const bool shared = shared_array != nullptr;
  if (!shared && !find_allocation(reinterpret_cast<const void*>(address))) return;
  State& s = state();
  std::lock_guard lock(s.mutex);
  const std::uint64_t t = block_linear * s.threads_per_block + thread;
  if (shared) {
    ++(write ? s.record.shared_writes : s.record.shared_reads);
  } else {
    // Atomics are counted apart: an exercise's rules are about the data a thread loads and
    // stores, and the emulator's float atomicAdd is a load and a compare-exchange loop.
    if (t < s.reads.size() && !atomic) ++(write ? s.writes[t] : s.reads[t]);
    if (atomic) ++s.record.atomics;
    if (write) s.owners[address] = Writer{block, thread_index(thread, s.block)};
  }
  if (s.too_many) return;
  if (s.record.accesses.size() >= kMaxDrawnAccesses) {
    s.too_many = true;
    return;
  }
  RecordedAccess a;
  a.address = address;
  a.bytes = static_cast<std::uint32_t>(size);
  a.block = block;
  a.thread = thread_index(thread, s.block);
  a.write = write;
  a.shared = shared;
  a.array = shared_array;  // a symbol's name: lives as long as the program
  s.record.accesses.push_back(a);
}

}  // namespace detail
}  // namespace gpulab::simt
