// Launchers for the race-test kernels, whose translation unit is compiled for check mode.
#pragma once

#include "simt/simt.hpp"

namespace simt_test::races {

gpulab::simt::LaunchStats shift(int* out, bool synced, const gpulab::simt::RunOptions& options);
gpulab::simt::LaunchStats warp_exchange(int* out, bool synced);
gpulab::simt::LaunchStats reduce(const float* in, float* out, unsigned blocks, bool synced);
gpulab::simt::LaunchStats dynamic_race(int* out, unsigned threads);
gpulab::simt::LaunchStats dynamic_overflow(int* out, unsigned threads, int past);
gpulab::simt::LaunchStats global_only(int* out, unsigned blocks);
gpulab::simt::LaunchStats bytes(int* out, bool racy);

}  // namespace simt_test::races
