// Launchers, in check mode, for shuffle and cooperative-groups kernels built with instrumentation.
#pragma once

#include "simt/simt.hpp"

namespace simt_test::checked {

// __shfl_down_sync(0x0000ffff, v, 8) on one block of 64 threads: lanes 8-15 read lanes 16-23.
gpulab::simt::LaunchStats partial_shuffle(const int* in, int* out);
// cg::reduce(tile32, v, cg::less<int>()) on one block of `threads`.
gpulab::simt::LaunchStats partial_tile_min(const int* in, int* out, unsigned threads);
// cg_exchange_kernel(out, mode) on one block of 64 threads.
gpulab::simt::LaunchStats exchange(int* out, int mode);

// coop_race(out) as a cooperative launch of `blocks` blocks of 32 threads on `workers` workers.
gpulab::simt::LaunchStats cooperative_race(int* out, unsigned blocks, unsigned workers);

}  // namespace simt_test::checked
