// Kernels with barriers or warp collectives turned into C++20 coroutines, so that the emulator
// runs them without a fiber switch per thread at each barrier (docs/simt.md, "Coroutine threads"),
// or, where every thread provably reaches the same barriers, into loops over the block's threads
// between barriers (docs/simt.md, "Region loops");
// and empty spin-wait loops in device code given a yield, so that a thread that waits for another
// of its block lets it run (docs/simt.md, "Spinning threads").
//
// The transformation is lexical and keeps every line where it was (code it copies, a guarded
// kernel's code as written, stands between #line directives). A kernel it cannot prove it can
// transform (a lambda in its body, cooperative groups other than a thread block's sync, a
// parameter it cannot name, ...) is left as it is and runs on fibers, with the same results and
// diagnostics, only more slowly.
#pragma once

#include <string>
#include <string_view>

namespace gpulab::run {

struct Split {
  std::string text;  // the source, each line at its number (#line where code is copied)
  int kernels = 0;   // kernels turned into coroutines or region loops
  int regions = 0;   // of those, kernels turned into region loops
  int spin_loops = 0;
  int deferred_adds = 0;      // atomicAdd statements made deferred_add (a thread's last action)
  int lockstep_accesses = 0;  // warp-synchronous volatile accesses read and written in rounds
  int inlined = 0;  // calls of device functions that wait, inlined into kernels (a level a pass)
  // Whether the text changed at all; whether what the program does changed, not only its speed.
  bool changed() const { return kernels > 0 || changes_behaviour(); }
  bool changes_behaviour() const { return spin_loops + deferred_adds + lockstep_accesses > 0; }
};

// coroutines: turn kernels into coroutines (false: only the spin loops change). regions: a kernel
// whose barriers every thread provably reaches together runs as region loops instead
// (docs/simt.md, "Region loops"), which cannot run under the checkers.
// elsewhere: the program's other code (its user headers, its other files), whose device functions
// that wait keep a kernel that calls them off region loops.
Split split_kernels(std::string_view source, bool coroutines = true, bool regions = true,
                    std::string_view elsewhere = {});

// Goes into gpulab run's cache key: a change of the transformation (or of the emulator build's
// flags) rebuilds cached programs.
inline constexpr const char* kSplitVersion = "split-22";

}  // namespace gpulab::run
