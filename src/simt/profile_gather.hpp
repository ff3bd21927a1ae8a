// gpulab profile's counters: the instrumented accesses and basic blocks of each lane, grouped
// into warp-level requests and branches and counted with the model of profile/counting.hpp.
//
// Lanes run one after another on the emulator, never in lockstep. A warp-level instruction is
// rebuilt from the lanes' own histories: the k-th time lane A executes the access at code
// address P and the k-th time lane B of the same warp does belong to one request (as on a GPU,
// where the lanes that execute an instruction together are those that reached it the same number
// of times). The same rule groups basic blocks (-fsanitize-coverage=trace-pc) into warp-level
// steps; a step whose lanes continue to different blocks is a divergent branch.
//
// Fed by the race checker's access hooks (race_check.hpp) while profiling is on; one collector per
// worker, merged into the launch's totals at the end of each block.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "profile/counting.hpp"
#include "simt/vector_types.hpp"

namespace gpulab::simt {

// Turned on by the child runtime before any launch; with only_profile, the race checker skips its
// own shadow-memory work (profile without --check).
void enable_profiling(bool only_profile);
bool profiling_enabled();
bool profiling_only();

// One memory instruction of the kernel (one code address), summed over the launch.
struct ProfiledAccess {
  std::uintptr_t pc = 0;
  bool shared = false;
  bool store = false;
  std::uint32_t width = 0;      // bytes per lane (the largest seen)
  const char* array = nullptr;  // shared: the __shared__ array ("extern": dynamic shared memory)
  profile::GlobalCost global;   // when !shared
  profile::SharedCost smem;     // when shared
  // The costliest warp-level execution seen, for the drawing: its addresses (global: device
  // addresses; shared: byte offsets from the start of shared memory), its block and warp.
  profile::WarpAccess example;
  std::uint64_t example_cost = 0;  // sectors or wavefronts of that execution
  uint3 example_block{0, 0, 0};
  std::uint32_t example_warp = 0;
};

// One basic block that lanes left for different blocks somewhere in the launch: a branch.
struct ProfiledBranch {
  std::uintptr_t pc = 0;                     // the block that ends in the branch
  std::vector<std::uintptr_t> targets;       // the blocks its lanes went to
  std::uint64_t uniform = 0, divergent = 0;  // warp-level executions
  std::uint32_t example_active = 0;          // a divergent execution: its lanes,
  std::vector<std::uint32_t> example_masks;  // and the lanes that went to each target
  uint3 example_block{0, 0, 0};
  std::uint32_t example_warp = 0;
};

// Warp-level executions of one basic block, and the active lanes summed over them.
struct ProfiledBlock {
  std::uintptr_t pc = 0;
  std::uint64_t inst = 0, thread_inst = 0;
};

struct LaunchProfile {
  profile::Counters total;
  std::vector<ProfiledAccess> accesses;
  std::vector<ProfiledBranch> branches;
  std::vector<ProfiledBlock> blocks;
  bool has_branches = false;  // the program was built with the basic-block hooks
};

namespace detail {

struct LaunchShape;

// One event of a CUDA thread's kernel code as the hooks saw it, kept until it is sorted and
// counted in bulk (ProfileCollector::events): an access or a basic block.
// A batch holds the events of several threads' turns, each after a segment marker.
struct ProfileEvent {
  static constexpr std::uint64_t kBasicBlock = ~std::uint64_t{0};
  // | the thread: the events that follow are its; pc and address are its stack's begin and size.
  static constexpr std::uint64_t kSegment = ~std::uint64_t{0} << 32;
  std::uintptr_t pc = 0;       // the hook's return address
  std::uintptr_t address = 0;  // an access: the address
  std::uint64_t meta = 0;      // kBasicBlock, kSegment | thread, or an access's
                               // bytes << 2 | write << 1 | atomic
};

// Where the kernel's memory spaces lie for one worker (race_check.hpp finds them): this OS
// thread's TLS block (threadIdx & co. and the static __shared__ arrays) and the dynamic shared
// buffer; tls_kinds marks the TLS bytes known to be the emulator's own (1).
struct ProfileSpaces {
  std::uintptr_t tls_begin = 0, tls_end = 0;
  std::uintptr_t dyn_begin = 0, dyn_end = 0;
  const std::atomic<std::uint8_t>* tls_kinds = nullptr;
};

// The CUDA thread's own stack (its locals: not memory traffic), [begin, begin + size).
struct ProfileStack {
  std::uintptr_t begin = 0;
  std::size_t size = 0;
};

// Whose events a batch's events are, as its segment markers say.
struct ProfileSegment {
  std::uint32_t thread = 0;
  ProfileStack stack;
};

void begin_profiled_launch();
LaunchProfile end_profiled_launch();

class ProfileCollector {
 public:
  ProfileCollector(const LaunchShape& shape, const ProfileSpaces& spaces);
  ProfileCollector(const ProfileCollector&) = delete;
  ProfileCollector& operator=(const ProfileCollector&) = delete;
  ~ProfileCollector();

  void begin_block(uint3 block_index);
  // At a block barrier every lane has finished what it did before: warp groups are complete.
  void on_barrier();
  // An access of instrumented code, atomics left out: sorted into shared memory (an array or the
  // dynamic buffer), global memory (device memory), or neither (the thread's stack, the
  // emulator's own variables, the kernel's argument block), and counted if it is memory traffic.
  void memory_access(std::uintptr_t address, std::size_t size, bool write, std::uintptr_t pc,
                     std::uint32_t thread, ProfileStack stack);
  void basic_block(std::uintptr_t pc, std::uint32_t thread);
  // A batch of events in the order the CUDA threads made them, as the hooks recorded them
  // (atomics included); `segment`: the thread (and stack) of the events before the batch's first
  // marker, and after the batch the one of its last. `instrumented` is set when an access shows
  // that the kernel is instrumented (it reads the TLS block: threadIdx & co.), as
  // RaceChecker::access does.
  void events(std::span<const ProfileEvent> batch, ProfileSegment& segment, bool& instrumented);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace detail
}  // namespace gpulab::simt
