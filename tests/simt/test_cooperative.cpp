// Tests of cooperative launches: every block resident on a few workers, grid.sync() as a real
// barrier, shared memory kept per block across it, the barrier broken by a block that returns or
// faults, and check mode's race reports.
#include <catch2/catch.hpp>

#include <cstdint>
#include <numeric>
#include <string>
#include <vector>

#include "checked_kernels.hpp"
#include "kernels/prelude.cuh"
#include "simt/cooperative_groups.hpp"
#include "simt/simt.hpp"
#include "test_util.hpp"

namespace simt_test::coop_kernels {
GPULAB_SIMT_DYNAMIC_SHARED(int, coop_dyn);
#include "cooperative.cuh"
}  // namespace simt_test::coop_kernels

namespace {

using gpulab::simt::KernelFault;
using gpulab::simt::launch;
using gpulab::simt::RunOptions;
using simt_test::DeviceArray;
namespace k = simt_test::coop_kernels;

RunOptions cooperative(unsigned workers) {
  RunOptions o;
  o.workers = workers;
  o.cooperative = true;
  return o;
}

}  // namespace

TEST_CASE("cooperative: many more blocks than workers all wait at grid.sync()", "[simt][coop]") {
  // 1056 blocks on 1 to 3 workers: each worker keeps hundreds of blocks parked.
  const unsigned blocks = 1056, threads = 64;
  const int n = 100003;
  std::vector<int> host(n);
  for (int i = 0; i < n; ++i) host[i] = (i * 7919) % 1001 - 500;
  const long long expected = std::accumulate(host.begin(), host.end(), 0LL);
  const DeviceArray<int> in(host);
  for (unsigned workers : {1u, 2u, 3u}) {
    CAPTURE(workers);
    DeviceArray<long long> partial(blocks), totals(blocks);
    DeviceArray<int> changed(1), arrivals(1);
    const auto stats =
        launch(k::coop_phases, blocks, threads, threads * sizeof(int), cooperative(workers),
               in.get(), n, partial.get(), totals.get(), changed.get(), arrivals.get());
    CHECK(changed[0] == 0);
    CHECK(arrivals[0] == static_cast<int>(blocks));
    for (unsigned b = 0; b < blocks; ++b) {
      if (totals[b] != expected) FAIL("block " << b << " got " << totals[b]);
    }
    CHECK(stats.workers == workers);
    // Each block: its own barrier, and two block barriers per grid.sync().
    CHECK(stats.barriers_crossed == std::uint64_t{blocks} * (1 + 3 * 2));
  }
}

TEST_CASE("cooperative: a block that returns without grid.sync() breaks the barrier",
          "[simt][coop]") {
  for (unsigned workers : {1u, 2u}) {
    CAPTURE(workers);
    try {
      launch(k::coop_quitter, 300, 32, 0, cooperative(workers), 123u);
      FAIL("the launch went through");
    } catch (const KernelFault& e) {
      CHECK_THAT(e.what(), Catch::Contains("not reached by every block of the grid"));
      CHECK_THAT(e.what(), Catch::Contains("1 of 300 blocks returned without it"));
    }
  }
}

TEST_CASE("cooperative: a block's fault is the launch's, not the waiting blocks'", "[simt][coop]") {
  for (unsigned workers : {1u, 2u}) {
    CAPTURE(workers);
    try {
      launch(k::coop_trap, 300, 32, 0, cooperative(workers), 250u);
      FAIL("the launch went through");
    } catch (const KernelFault& e) {
      CHECK(e.kind() == KernelFault::Kind::trap);
      CHECK_THAT(e.what(), Catch::Contains("block (250,0,0)"));
    }
    // The next launch runs normally on the same workers.
    DeviceArray<long long> partial(8), totals(8);
    DeviceArray<int> changed(1), arrivals(1);
    const DeviceArray<int> in(std::vector<int>(100, 1));
    launch(k::coop_phases, 8, 32, 32 * sizeof(int), cooperative(workers), in.get(), 100,
           partial.get(), totals.get(), changed.get(), arrivals.get());
    CHECK(totals[7] == 100);
    CHECK(changed[0] == 0);
  }
}

TEST_CASE("cooperative: check mode finds a shared-memory race after grid.sync() in each block",
          "[simt][coop]") {
  DeviceArray<int> out(200);
  const auto stats = simt_test::checked::cooperative_race(out.get(), 200, 2);
  REQUIRE(!stats.races.empty());
  const auto& r = stats.races[0];
  CHECK(r.array.find("cell") != std::string::npos);
  CHECK(r.first.linear == 0);
  CHECK(r.first_wrote);
  CHECK(r.second.linear == 1);
  CHECK(!r.second_wrote);
  // After grid.sync()'s two block barriers.
  CHECK(r.barrier_interval == 2);
}
