// Shuffle and cooperative-groups kernels compiled with gpulab_simt_instrument(), run in check mode.
#include "checked_kernels.hpp"

#include "kernels/prelude.cuh"
#include "simt/cooperative_groups.hpp"
#include "test_util.hpp"

namespace simt_test::checked_kernels {
GPULAB_SIMT_DYNAMIC_SHARED(int, coop_dyn);
#include "cg.cuh"
#include "cooperative.cuh"
#include "primitives.cuh"
}  // namespace simt_test::checked_kernels

namespace simt_test::checked {

namespace k = checked_kernels;
using gpulab::simt::launch;
using gpulab::simt::LaunchStats;

LaunchStats partial_shuffle(const int* in, int* out) {
  return launch(k::partial_shuffle_kernel, 1, 64, 0, simt_test::check_mode(), in, out);
}

LaunchStats partial_tile_min(const int* in, int* out, unsigned threads) {
  return launch(k::cg_partial_tile_min_kernel, 1, threads, 0, simt_test::check_mode(), in, out);
}

LaunchStats exchange(int* out, int mode) {
  return launch(k::cg_exchange_kernel, 1, 64, 0, simt_test::check_mode(), out, mode);
}

LaunchStats cooperative_race(int* out, unsigned blocks, unsigned workers) {
  gpulab::simt::RunOptions o = simt_test::check_mode();
  o.cooperative = true;
  o.workers = workers;
  return launch(k::coop_race, blocks, 32, 0, o, out);
}

}  // namespace simt_test::checked
