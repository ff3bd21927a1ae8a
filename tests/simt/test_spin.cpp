// Tests of threads that spin on an atomic waiting for another thread of their block: the emulator
// lets the others run (Volta's independent thread scheduling), so these kernels finish.
#include <catch2/catch.hpp>

#include <vector>

#include "kernels/prelude.cuh"
#include "simt/simt.hpp"
#include "test_util.hpp"

namespace simt_test::spin {
#include "spin.cuh"
}  // namespace simt_test::spin

namespace {

using simt_test::DeviceArray;
namespace k = simt_test::spin;

}  // namespace

TEST_CASE("a thread spinning on atomicCAS lets a later thread of its block set the flag",
          "[simt][spin]") {
  for (const unsigned threads : {2u, 33u, 256u}) {
    DeviceArray<int> flag(1, 0), out(2, 0);
    gpulab::simt::launch(k::wait_for_last_kernel, 1, threads, 0, {}, flag.get(), out.get());
    CHECK(out.to_host()[0] == 42);
  }
}

TEST_CASE("threads that wait for their turns in reverse order all get in, in that order",
          "[simt][spin]") {
  const unsigned n = 96;
  DeviceArray<int> turn(1, static_cast<int>(n) - 1), count(1, 0), order(n, -1);
  gpulab::simt::launch(k::reverse_turns_kernel, 1, n, 0, {}, turn.get(), count.get(), order.get());
  const std::vector<int> got = order.to_host();
  for (unsigned i = 0; i < n; ++i) CHECK(got[i] == static_cast<int>(n - 1 - i));
}

TEST_CASE("a lock held by thread 0 until every other thread has arrived (atomicExch, __nanosleep)",
          "[simt][spin]") {
  const unsigned n = 64;
  DeviceArray<int> lock(1, 0), arrived(1, 0), out(n, 0);
  gpulab::simt::launch(k::exchange_lock_kernel, 1, n, 0, {}, lock.get(), arrived.get(), out.get());
  const std::vector<int> got = out.to_host();
  CHECK(got[0] == 1);
  for (unsigned t = 1; t < n; ++t) CHECK(got[t] == 1 + static_cast<int>(t));
}

TEST_CASE("after a barrier, a thread waits for a shared flag that the block's last thread sets",
          "[simt][spin]") {
  DeviceArray<int> out(8, 0);
  gpulab::simt::launch(k::flag_after_barrier_kernel, 8, 128, 0, {}, out.get());
  const std::vector<int> got = out.to_host();
  for (int b = 0; b < 8; ++b) CHECK(got[b] == 42 + b);
}
