// Host-side API of gpulab's SIMT emulator: validate, launch, and report what a GPU cannot.
//
// A launch is validated as a GPU would, runs on CPU threads, and reports divergent barriers,
// shared-memory races and launch statistics.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "calc/launch_limits.hpp"
#include "core/error.hpp"
#include "simt/thread_loop.hpp"
#include "simt/vector_types.hpp"

namespace gpulab::simt {

// Device limits, those of an H100 (compute capability 9.0); CUDA enforces the same ones on every
// GPU since Volta, except the opt-in shared memory, which is per architecture.
inline constexpr std::uint64_t kMaxThreadsPerBlock = limits::kMaxThreadsPerBlock;
inline constexpr std::size_t kDefaultSharedPerBlock = limits::kDefaultSharedPerBlock;
inline constexpr std::size_t kMaxSharedPerBlockOptin = 227 * 1024;
inline constexpr unsigned kWarpSize = 32;

struct RunOptions {
  unsigned workers = 0;  // OS threads that run blocks; 0 = hardware_concurrency()
  std::optional<std::uint64_t> shuffle_seed;  // run blocks in a random order (default: index order)
  bool check = false;  // report shared-memory races (kernels compiled with instrumentation)
  std::size_t max_reports = 8;  // keep the first N races (one per distinct memory location)
  // The caller built the kernels with the instrumentation itself (gpulab run --check): a kernel
  // that reads no thread-local state (no threadIdx) is then not mistaken for an uninstrumented one.
  bool assume_instrumented = false;
  // cudaLaunchCooperativeKernel: every block resident at once (kept alive on the workers while it
  // waits), so that grid.sync() works (cooperative_launch.hpp).
  bool cooperative = false;
};

struct ThreadId {
  std::uint32_t linear = 0;  // x + y*blockDim.x + z*blockDim.x*blockDim.y
  uint3 index{0, 0, 0};      // threadIdx
};

enum class MemorySpace { static_shared, dynamic_shared };

// Two threads of one block touched the same shared-memory bytes between two barriers, at least one
// of them writing: the outcome depends on the order the GPU happens to run them in.
struct Race {
  uint3 block{0, 0, 0};
  ThreadId first;  // the earlier access (in the emulator's order)
  bool first_wrote = false;
  ThreadId second;  // the access that revealed the race
  bool second_wrote = false;
  std::uint64_t barrier_interval = 0;  // k: after the block's k-th __syncthreads(), before the next
  MemorySpace space = MemorySpace::static_shared;
  std::string array;                   // "reduce::sdata"; empty when the symbol is unknown
  std::optional<std::uint64_t> index;  // element index (byte offset / access size) when aligned
  std::uint64_t byte_offset = 0;       // from the array's start, or from the region's when unknown
  unsigned access_bytes = 0;           // size of the second access
  std::uintptr_t first_pc = 0, second_pc = 0;  // code addresses of the two accesses
  bool multi_dim_block = false;                // print thread coordinates too

  Text describe() const;  // one line
};

// A fault that a GPU would turn into a hang, garbage or an error: a barrier not reached by every
// thread, a warp collective missing a lane, an invalid argument to an intrinsic, a __trap().
class KernelFault : public RuntimeFailure {
 public:
  enum class Kind {
    divergent_barrier,  // __syncthreads() not reached by all threads, or at different places
    warp_collective,    // a lane of the mask exited or never arrived
    invalid_argument,   // bad mask or width in a warp intrinsic, access past dynamic shared memory
    trap,               // __trap() called
    assertion,          // a device-side assert() failed (gpulab run's <assert.h>)
    kernel_exception,   // kernel code threw a C++ exception
    outside_kernel,     // a device intrinsic called outside a launch
    illegal_address,    // an access outside all memory the thread may touch (guard.hpp)
  };
  // `message` in both languages: the emulator words every fault in English and Chinese.
  KernelFault(Kind kind, Text message, std::uintptr_t pc = 0)
      : RuntimeFailure(std::move(message)), kind_(kind), pc_(pc) {}
  Kind kind() const { return kind_; }
  // The code address of the offending access, when an instrumented access found the fault.
  std::uintptr_t pc() const { return pc_; }

 private:
  Kind kind_;
  std::uintptr_t pc_ = 0;
};

struct LaunchStats {
  dim3 grid, block;
  std::size_t dynamic_shared_bytes = 0;
  std::size_t static_shared_bytes = 0;  // from the program's symbol table (0 when stripped)
  std::uint64_t blocks = 0, threads_per_block = 0, threads = 0, warps_per_block = 0, warps = 0;
  unsigned idle_lanes_last_warp = 0;   // lanes of the last warp of each block with no thread
  std::uint64_t barriers_crossed = 0;  // __syncthreads episodes completed, summed over blocks
  std::uint64_t warp_collectives = 0;  // warp collectives completed (shuffles, votes, syncwarp)
  std::uint64_t blocks_on_fibers = 0;  // blocks that met a barrier or a warp collective
  unsigned workers = 0;                // OS threads that ran blocks
  std::vector<Race> races;             // filled in check mode
  std::uint64_t races_found = 0;       // distinct racy locations, including those not kept
  double elapsed_ms = 0;
};

namespace detail {

struct ErasedKernel {
  const void* address;                      // the kernel function, to find its symbol
  void (*run_thread)(const void* closure);  // runs the kernel body for the current CUDA thread
  const void* closure;
  // run_thread_loop over the kernel body; nullptr: the scheduler loops over run_thread.
  void (*run_threads)(const void* closure, ThreadLoop& loop) = nullptr;
};

LaunchStats launch_erased(const ErasedKernel& kernel, dim3 grid, dim3 block,
                          std::size_t dynamic_shared_bytes, const RunOptions& options);
void validate_erased(const void* kernel, dim3 grid, dim3 block, std::size_t dynamic_shared_bytes);
void set_max_dynamic_shared_erased(const void* kernel, std::size_t bytes);
std::size_t static_shared_erased(const void* kernel);

template <class... Params>
const void* kernel_address(void (*kernel)(Params...)) {
  return reinterpret_cast<const void*>(kernel);
}

}  // namespace detail

namespace detail {

// One launch of `call` (which calls the kernel with the arguments it is given) over copies of the
// parameters: each CUDA thread gets its own copy, as on a GPU (apply() passes them by value).
template <class Call, class Params>
LaunchStats launch_call(const void* address, const Call& call, const Params& params, dim3 grid,
                        dim3 block, std::size_t dynamic_shared_bytes, const RunOptions& options) {
  struct Closure {
    Call call;
    Params params;
  };
  const Closure closure{call, params};
  const ErasedKernel erased{address,
                            [](const void* c) {
                              const auto& cl = *static_cast<const Closure*>(c);
                              std::apply(cl.call, cl.params);
                            },
                            &closure,
                            [](const void* c, ThreadLoop& loop) {
                              const auto& cl = *static_cast<const Closure*>(c);
                              run_thread_loop(loop, [&cl] { std::apply(cl.call, cl.params); });
                            }};
  return launch_erased(erased, grid, block, dynamic_shared_bytes, options);
}

}  // namespace detail

// Runs kernel<<<grid, block, dynamic_shared_bytes>>>(args...) and returns when every block is done.
// Throws CudaError for a configuration a GPU rejects, KernelFault for a fault found while running.
template <class... Params, class... Args>
LaunchStats launch(void (*kernel)(Params...), dim3 grid, dim3 block,
                   std::size_t dynamic_shared_bytes, const RunOptions& options, Args&&... args) {
  static_assert(sizeof...(Params) == sizeof...(Args),
                "launch: the kernel takes a different number of arguments");
  return detail::launch_call(
      detail::kernel_address(kernel), kernel,
      std::tuple<std::remove_cvref_t<Params>...>{std::forward<Args>(args)...}, grid, block,
      dynamic_shared_bytes, options);
}

namespace detail {

template <auto Kernel>
struct NamedKernel {
  template <class... P>
  void operator()(const P&... p) const {
    Kernel(p...);
  }
};

template <auto Kernel, class... Params, class... Args>
LaunchStats launch_named(void (*)(Params...), dim3 grid, dim3 block,
                         std::size_t dynamic_shared_bytes, const RunOptions& options,
                         Args&&... args) {
  static_assert(sizeof...(Params) == sizeof...(Args),
                "launch: the kernel takes a different number of arguments");
  return launch_call(kernel_address(Kernel), NamedKernel<Kernel>{},
                     std::tuple<std::remove_cvref_t<Params>...>{std::forward<Args>(args)...}, grid,
                     block, dynamic_shared_bytes, options);
}

}  // namespace detail

// The same with the kernel named at compile time, launch<kernel>(grid, block, ...): its body can
// be inlined into the loop over a block's threads, as in gpulab run's launches.
template <auto Kernel, class... Args>
LaunchStats launch(dim3 grid, dim3 block, std::size_t dynamic_shared_bytes,
                   const RunOptions& options, Args&&... args) {
  return detail::launch_named<Kernel>(Kernel, grid, block, dynamic_shared_bytes, options,
                                      std::forward<Args>(args)...);
}

// The checks of launch() without running anything: CudaError if a GPU would refuse the launch.
template <class... Params>
void validate_launch(void (*kernel)(Params...), dim3 grid, dim3 block,
                     std::size_t dynamic_shared_bytes) {
  detail::validate_erased(detail::kernel_address(kernel), grid, block, dynamic_shared_bytes);
}

// cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes): lets launches
// of this kernel use more than 48 KiB of shared memory, up to 227 KiB with the static part.
template <class... Params>
void set_max_dynamic_shared_bytes(void (*kernel)(Params...), std::size_t bytes) {
  detail::set_max_dynamic_shared_erased(detail::kernel_address(kernel), bytes);
}

// The kernel's static __shared__ bytes, found in the program's symbol table (0 if it is stripped).
template <class... Params>
std::size_t static_shared_bytes(void (*kernel)(Params...)) {
  return detail::static_shared_erased(detail::kernel_address(kernel));
}

// "Global memory": 256-byte aligned, like cudaMalloc, and uninitialized. Throws CudaError
// (cudaErrorMemoryAllocation) when the host is out of memory; 0 bytes gives nullptr.
void* device_malloc(std::size_t bytes);
void device_free(void* p) noexcept;

// Whether this build can check races: false when the whole program is built with ThreadSanitizer,
// whose runtime owns the hooks that check mode relies on.
bool check_supported() noexcept;

}  // namespace gpulab::simt
