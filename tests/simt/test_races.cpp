// Tests of check mode: shared-memory races reported with threads, array and index.
#include <catch2/catch.hpp>

#include <random>
#include <string>
#include <vector>

#include "kernels/prelude.cuh"
#include "race_kernels.hpp"
#include "simt/simt.hpp"
#include "test_util.hpp"

namespace simt_test::unchecked {
GPULAB_SIMT_DYNAMIC_SHARED(int, dyn_i);
#include "races.cuh"
}  // namespace simt_test::unchecked

namespace {

using gpulab::simt::MemorySpace;
using gpulab::simt::Race;
using simt_test::DeviceArray;
namespace races = simt_test::races;

// A ThreadSanitizer build has no check mode (its runtime owns the hooks): nothing to test there.
#define SKIP_WITHOUT_CHECKS()                                                       \
  do {                                                                              \
    if (!gpulab::simt::check_supported()) {                                         \
      WARN("race checks are not available in this build (GPULAB_SANITIZE=thread)"); \
      return;                                                                       \
    }                                                                               \
  } while (false)

gpulab::simt::RunOptions check_mode(std::size_t max_reports = 8) {
  gpulab::simt::RunOptions o;
  o.check = true;
  o.max_reports = max_reports;
  return o;
}

}  // namespace

TEST_CASE("a missing __syncthreads is reported as a race", "[simt][race]") {
  SKIP_WITHOUT_CHECKS();
  DeviceArray<int> out(64, -1);
  const auto stats = races::shift(out.get(), false, check_mode());
  // Thread 0 reads buf[1] before thread 1 writes it: the first race found is on buf[1].
  REQUIRE(stats.races.size() == 8);
  CHECK(stats.races_found == 64);  // every element of buf races
  const Race& r = stats.races[0];
  CHECK(r.space == MemorySpace::static_shared);
  CHECK(r.array == "shift_kernel::buf");
  REQUIRE(r.index.has_value());
  CHECK(*r.index == 1);
  CHECK(r.byte_offset == 4);
  CHECK(r.first.linear == 0);
  CHECK_FALSE(r.first_wrote);
  CHECK(r.second.linear == 1);
  CHECK(r.second_wrote);
  CHECK(r.barrier_interval == 0);
  CHECK(r.block.x == 0);
  CHECK(r.describe().en ==
        "block (0,0,0): race on __shared__ shift_kernel::buf[1] before the block's first "
        "__syncthreads(): thread 0 read, then thread 1 wrote with no barrier in between");
  CHECK(r.describe().zh ==
        "线程块 (0,0,0)：在线程块的第一个 __syncthreads() 之前，__shared__ shift_kernel::buf[1] "
        "上有竞争：线程 0 读取，随后线程 1 写入，中间没有屏障");
  for (std::size_t i = 0; i < stats.races.size(); ++i) {
    CHECK(*stats.races[i].index == i + 1);
    CHECK(stats.races[i].first.linear == i);
    CHECK(stats.races[i].second.linear == i + 1);
  }

  const auto few = races::shift(out.get(), false, check_mode(3));
  CHECK(few.races.size() == 3);
  CHECK(few.races_found == 64);
}

TEST_CASE("the same kernel with its barrier has no race", "[simt][race]") {
  SKIP_WITHOUT_CHECKS();
  DeviceArray<int> out(64, -1);
  const auto stats = races::shift(out.get(), true, check_mode());
  CHECK(stats.races.empty());
  CHECK(stats.races_found == 0);
  for (unsigned t = 0; t < 64; ++t) CHECK(out[t] == static_cast<int>((t + 1) % 64) * 3 + 1);
}

TEST_CASE("check mode off: no race is looked for", "[simt][race]") {
  SKIP_WITHOUT_CHECKS();
  DeviceArray<int> out(64, -1);
  const auto stats = races::shift(out.get(), false, {});
  CHECK(stats.races.empty());
  CHECK(stats.races_found == 0);
}

TEST_CASE("__syncwarp orders accesses within a warp", "[simt][race]") {
  SKIP_WITHOUT_CHECKS();
  DeviceArray<int> out(64, -1);
  const auto racy = races::warp_exchange(out.get(), false);
  REQUIRE_FALSE(racy.races.empty());
  const Race& r = racy.races[0];
  CHECK(r.array == "warp_exchange_kernel::lanes");
  CHECK(*r.index == 1);  // thread 0 read lanes[1] before thread 1 wrote it
  CHECK(r.first.linear == 0);
  CHECK(r.second.linear == 1);
  CHECK(racy.races_found == 64);

  const auto synced = races::warp_exchange(out.get(), true);
  CHECK(synced.races.empty());
  for (unsigned t = 0; t < 64; ++t) CHECK(out[t] == static_cast<int>(t ^ 1u) + 10);
}

TEST_CASE("a tree reduction without its loop barrier", "[simt][race]") {
  SKIP_WITHOUT_CHECKS();
  const std::uint64_t seed = simt_test::fresh_seed();
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  constexpr unsigned kBlocks = 6;
  std::vector<float> in(128 * kBlocks);
  for (auto& v : in) v = static_cast<float>(rng() % 1000) + 1.0f;
  DeviceArray<float> d_in(in);
  DeviceArray<float> out(kBlocks, -1.0f);

  const auto good = races::reduce(d_in.get(), out.get(), kBlocks, true);
  CHECK(good.races.empty());
  for (unsigned b = 0; b < kBlocks; ++b) {
    float sum = 0;
    for (unsigned t = 0; t < 128; ++t) sum += in[b * 128 + t];
    CHECK(out[b] == sum);  // integers: exact in any order
  }
  CHECK(good.barriers_crossed == kBlocks * 8);

  const auto bad = races::reduce(d_in.get(), out.get(), kBlocks, false);
  REQUIRE_FALSE(bad.races.empty());
  const Race& r = bad.races[0];
  // With no barrier in the loop, thread 0 runs all its steps first and reads partial[1] in the last
  // one; thread 1 then writes partial[1] in its first step.
  CHECK(r.block.x == 0);
  CHECK(r.array == "reduce_kernel::partial");
  CHECK(r.barrier_interval == 1);
  CHECK(*r.index == 1);
  CHECK(r.first.linear == 0);
  CHECK_FALSE(r.first_wrote);
  CHECK(r.second.linear == 1);
  CHECK(r.second_wrote);
  CHECK_THAT(r.describe().en, Catch::Contains("after the block's __syncthreads() #1"));
  CHECK_THAT(r.describe().zh, Catch::Contains("在线程块的第 1 个 __syncthreads() 之后"));
}

TEST_CASE("races on dynamic shared memory", "[simt][race]") {
  SKIP_WITHOUT_CHECKS();
  DeviceArray<int> out(128, -1);
  const auto stats = races::dynamic_race(out.get(), 96);
  REQUIRE_FALSE(stats.races.empty());
  const Race& r = stats.races[0];
  CHECK(r.space == MemorySpace::dynamic_shared);
  // Thread t reads dyn_i[95 - t]: thread 47 read dyn_i[48] before thread 48 wrote it.
  CHECK(*r.index == 48);
  CHECK(r.byte_offset == 48 * 4);
  CHECK(r.first.linear == 47);
  CHECK(r.second.linear == 48);
  CHECK_THAT(r.describe().en, Catch::Contains("extern __shared__ memory[48] (byte 192)"));
  CHECK_THAT(r.describe().zh, Catch::Contains("extern __shared__ 内存[48]（第 192 字节）"));
}

TEST_CASE("bytes of a shared word race on their own", "[simt][race]") {
  SKIP_WITHOUT_CHECKS();
  DeviceArray<int> out(64, -1);
  // Whole words first, then each thread its own byte of them: no race.
  const auto clean = races::bytes(out.get(), false);
  CHECK(clean.races.empty());
  CHECK(clean.races_found == 0);
  // Thread 1 reads byte 2 before thread 2 writes it: that byte races, and no other.
  const auto racy = races::bytes(out.get(), true);
  REQUIRE(racy.races.size() == 1);
  CHECK(racy.races_found == 1);
  const Race& r = racy.races[0];
  CHECK(r.array == "bytes_kernel::words");
  CHECK(r.byte_offset == 2);
  CHECK(r.access_bytes == 1);
  CHECK(r.first.linear == 1);
  CHECK_FALSE(r.first_wrote);
  CHECK(r.second.linear == 2);
  CHECK(r.second_wrote);
  CHECK(r.barrier_interval == 1);
}

TEST_CASE("check mode catches accesses past the dynamic shared memory given", "[simt][race]") {
  SKIP_WITHOUT_CHECKS();
  DeviceArray<int> out(128, -1);
  CHECK_NOTHROW(races::dynamic_overflow(out.get(), 32, 0));
  try {
    races::dynamic_overflow(out.get(), 32, 5);
    FAIL("no fault");
  } catch (const gpulab::simt::KernelFault& e) {
    CHECK(e.kind() == gpulab::simt::KernelFault::Kind::invalid_argument);
    CHECK_THAT(e.what(), Catch::Contains("thread 27 wrote extern __shared__ memory at byte 128, "
                                         "past the 128 bytes"));
  }
}

TEST_CASE("global memory is not checked", "[simt][race]") {
  SKIP_WITHOUT_CHECKS();
  DeviceArray<int> out(32, -1);
  const auto stats = races::global_only(out.get(), 8);
  CHECK(stats.races.empty());
}

TEST_CASE("check mode refuses a kernel compiled without instrumentation", "[simt][race]") {
  SKIP_WITHOUT_CHECKS();
  DeviceArray<int> out(64, -1);
  CHECK_THROWS_AS(gpulab::simt::launch(simt_test::unchecked::shift_kernel, 1, 64, 0, check_mode(),
                                       out.get(), 0),
                  gpulab::UsageError);
}
