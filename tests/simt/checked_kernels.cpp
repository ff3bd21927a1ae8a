// Shuffle and cooperative-groups kernels compiled with gpulab_simt_instrument(), run in check mode.
#include "checked_kernels.hpp"

#include "kernels/prelude.cuh"
#include "simt/cooperative_groups.hpp"
#include "test_util.hpp"

namespace simt_test::checked_kernels {
#include "cg.cuh"
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

}  // namespace simt_test::checked
