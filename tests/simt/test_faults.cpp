// Tests of what the emulator reports where a GPU would hang or go on silently.
#include <catch2/catch.hpp>

#include <stdexcept>
#include <string>

#include "kernels/prelude.cuh"
#include "simt/simt.hpp"
#include "test_util.hpp"

namespace simt_test::faults {
#include "faults.cuh"
}  // namespace simt_test::faults

// Not CUDA (device code cannot throw): what the emulator does when host C++ in a kernel throws.
void throwing_kernel(int* out) {
  if (threadIdx.x == 5) throw std::runtime_error("boom");
  __syncthreads();
  out[threadIdx.x] = 1;
}

namespace {

using gpulab::simt::KernelFault;
using simt_test::DeviceArray;
using simt_test::site;
namespace k = simt_test::faults;

// Runs the kernel on `threads` threads of one block (or `blocks` blocks); returns the fault.
template <class Kernel, class Arg>
KernelFault fault_of(Kernel kernel, unsigned blocks, unsigned threads, Arg* arg) {
  try {
    gpulab::simt::launch(kernel, blocks, threads, 0, {}, arg);
  } catch (const KernelFault& e) {
    return e;
  }
  FAIL("the kernel ran without a fault");
  return KernelFault(KernelFault::Kind::trap, gpulab::Text{});
}

}  // namespace

TEST_CASE("a barrier some threads returned before", "[simt][fault]") {
  DeviceArray<int> out(64, 0);
  const KernelFault f = fault_of(k::early_return_kernel, 1, 32, out.get());
  CHECK(f.kind() == KernelFault::Kind::divergent_barrier);
  const std::string expect =
      "block (0,0,0): __syncthreads() is not reached by every thread of the "
      "block: threads 0-15 wait at " +
      site("faults.cuh", "early-return") + "; threads 16-31 returned";
  CHECK(std::string(f.what()) == expect);
  // The threads that got to the barrier did run up to it.
  for (int t = 0; t < 16; ++t) CHECK(out[static_cast<std::size_t>(t)] == 1);
}

TEST_CASE("threads waiting at two different barriers", "[simt][fault]") {
  DeviceArray<int> out(64, 0);
  const KernelFault f = fault_of(k::two_sites_kernel, 1, 40, out.get());
  CHECK(f.kind() == KernelFault::Kind::divergent_barrier);
  CHECK_THAT(f.what(), Catch::Contains("threads 0-7 wait at " + site("faults.cuh", "two-a") +
                                       "; threads 8-39 wait at " + site("faults.cuh", "two-b")));
}

TEST_CASE("the fault names the block it happened in", "[simt][fault]") {
  const std::uint64_t seed = simt_test::fresh_seed();
  CAPTURE(seed);
  const uint3 bad{static_cast<unsigned>(seed % 3), static_cast<unsigned>(seed / 3 % 4),
                  static_cast<unsigned>(seed / 12 % 2)};
  DeviceArray<int> out(64, 0);
  try {
    gpulab::simt::launch(k::fault_in_one_block_kernel, dim3(3, 4, 2), 32, 0, simt_test::workers(2),
                         out.get(), bad);
    FAIL("no fault");
  } catch (const KernelFault& e) {
    CHECK(
        std::string(e.what()) ==
        "block (" + std::to_string(bad.x) + "," + std::to_string(bad.y) + "," +
            std::to_string(bad.z) +
            "): __syncthreads() is not reached by every thread of the block: threads 0-6 wait at " +
            site("faults.cuh", "one-block") + "; threads 7-31 returned");
  }
}

// Blocks that never wait follow one another on one fiber (BlockRunner::chain_next_block): a block
// after them that waits still goes on fibers, and a fault names its own block and stops the launch.
TEST_CASE("blocks that never wait, then one that waits or faults", "[simt][fault]") {
  DeviceArray<int> out(8, 0);
  const auto s = gpulab::simt::launch(k::one_block_waits_kernel, 8, 64, 0, simt_test::workers(1),
                                      out.get(), 5, -1);
  CHECK(s.blocks_on_fibers == 1);
  CHECK(s.barriers_crossed == 1);
  for (int b = 0; b < 8; ++b) CHECK(out[b] == 64);

  DeviceArray<int> faulted(8, 0);
  try {
    gpulab::simt::launch(k::one_block_waits_kernel, 8, 64, 0, simt_test::workers(1), faulted.get(),
                         -1, 6);
    FAIL("no fault");
  } catch (const KernelFault& e) {
    CHECK(e.kind() == KernelFault::Kind::trap);
    CHECK(std::string(e.what()) ==
          "block (6,0,0): thread 0 called __trap() at " + site("faults.cuh", "one-block-trap"));
  }
  for (int b = 0; b < 6; ++b) CHECK(faulted[b] == 64);
  CHECK(faulted[6] == 0);  // thread 0 trapped first: no thread after it started
  CHECK(faulted[7] == 0);  // one worker: the launch stopped at block 6
}

TEST_CASE("a shuffle whose mask names lanes that returned", "[simt][fault]") {
  DeviceArray<int> out(64, 0);
  const KernelFault f = fault_of(k::exited_lane_kernel, 1, 64, out.get());
  CHECK(f.kind() == KernelFault::Kind::warp_collective);
  CHECK(std::string(f.what()) ==
        "block (0,0,0): warp 0 (threads 0-31): __shfl_sync(mask 0xffffffff) at " +
            site("faults.cuh", "exited-lane") +
            " waits for lanes that will never arrive: lanes 0-15 wait there; lanes 16-31 returned");
}

TEST_CASE("a shuffle whose lanes wait at a barrier instead", "[simt][fault]") {
  DeviceArray<int> out(64, 0);
  const KernelFault f = fault_of(k::shuffle_vs_barrier_kernel, 1, 32, out.get());
  CHECK(f.kind() == KernelFault::Kind::warp_collective);
  CHECK_THAT(f.what(), Catch::Contains("lanes 0-15 wait there; lanes 16-31 wait at "
                                       "__syncthreads() at " +
                                       site("faults.cuh", "stuck-barrier")));
}

TEST_CASE("__syncwarp with masks that do not match", "[simt][fault]") {
  DeviceArray<int> out(64, 0);
  const KernelFault f = fault_of(k::mask_mismatch_kernel, 1, 32, out.get());
  CHECK(f.kind() == KernelFault::Kind::warp_collective);
  CHECK_THAT(f.what(),
             Catch::Contains("__syncwarp(mask 0xffffffff) at " + site("faults.cuh", "mismatch")) &&
                 Catch::Contains("lanes 0-15 returned; lanes 16-31 wait there"));
}

TEST_CASE("a full mask in a partial last warp runs, as on a GPU", "[simt][fault]") {
  // A block of 40: its second warp has 8 lanes; the other 24 lanes of the mask hold no thread and
  // are left out (an H100 runs this; cooperative_groups' 32-wide tiles rely on it).
  DeviceArray<int> out(64, -1);
  gpulab::simt::launch(k::full_mask_kernel, 1, 40, 0, {}, out.get());
  for (int t = 0; t < 40; ++t) CHECK(out[static_cast<std::size_t>(t)] == (t / 32) * 32);
  CHECK(out[40] == -1);
  // Lanes that exist but have exited still leave the shuffle waiting forever.
  const KernelFault f = fault_of(k::exited_lane_kernel, 1, 40, out.get());
  CHECK(f.kind() == KernelFault::Kind::warp_collective);
  CHECK_THAT(f.what(), Catch::Contains("lanes 16-31 returned"));
}

TEST_CASE("invalid arguments to warp intrinsics", "[simt][fault]") {
  DeviceArray<int> out(64, 0);
  DeviceArray<unsigned> ballots(64, 0);
  KernelFault f = fault_of(k::lane_not_in_mask_kernel, 1, 32, ballots.get());
  CHECK(f.kind() == KernelFault::Kind::invalid_argument);
  CHECK_THAT(f.what(),
             Catch::Contains("thread 1 (lane 1) calls __ballot_sync(mask 0x00000001) at " +
                             site("faults.cuh", "not-in-mask")));

  f = fault_of(k::bad_width_kernel, 1, 32, out.get());
  CHECK(f.kind() == KernelFault::Kind::invalid_argument);
  CHECK_THAT(f.what(), Catch::Contains("width 6"));
}

TEST_CASE("__trap() stops the kernel with a fault", "[simt][fault]") {
  DeviceArray<int> out(64, 0);
  const KernelFault f = fault_of(k::trap_kernel, 1, 32, out.get());
  CHECK(f.kind() == KernelFault::Kind::trap);
  CHECK(std::string(f.what()) ==
        "block (0,0,0): thread 3 called __trap() at " + site("faults.cuh", "trap"));
}

TEST_CASE("an exception thrown by kernel code", "[simt][fault]") {
  DeviceArray<int> out(64, 0);
  const KernelFault f = fault_of(throwing_kernel, 1, 32, out.get());
  CHECK(f.kind() == KernelFault::Kind::kernel_exception);
  CHECK(std::string(f.what()) == "block (0,0,0), thread 5: the kernel threw an exception: boom");
  // Threads 0-4, parked at the barrier, were unwound: none went past it.
  for (int t = 0; t < 32; ++t) CHECK(out[static_cast<std::size_t>(t)] == 0);
}

TEST_CASE("the emulator is usable again after a fault", "[simt][fault]") {
  DeviceArray<int> out(64, 0);
  CHECK_THROWS_AS(gpulab::simt::launch(k::early_return_kernel, 4, 32, 0, {}, out.get()),
                  KernelFault);
  CHECK_THROWS_AS(gpulab::simt::launch(k::exited_lane_kernel, 4, 64, 0, {}, out.get()),
                  KernelFault);
  CHECK_NOTHROW(gpulab::simt::launch(k::full_mask_kernel, 4, 64, 0, {}, out.get()));
  for (int t = 0; t < 64; ++t) CHECK(out[static_cast<std::size_t>(t)] == (t / 32) * 32);
}

TEST_CASE("device intrinsics outside a kernel", "[simt][fault]") {
  try {
    __syncthreads();
    FAIL("no fault");
  } catch (const KernelFault& e) {
    CHECK(e.kind() == KernelFault::Kind::outside_kernel);
  }
}
