// The race-test kernels, compiled with gpulab_simt_instrument() like a backend's checked copy.
#include "race_kernels.hpp"

#include "kernels/prelude.cuh"

namespace simt_test::race_kernels {
GPULAB_SIMT_DYNAMIC_SHARED(int, dyn_i);
#include "races.cuh"
}  // namespace simt_test::race_kernels

namespace simt_test::races {

namespace k = race_kernels;
using gpulab::simt::launch;
using gpulab::simt::LaunchStats;
using gpulab::simt::RunOptions;

namespace {
RunOptions checked() {
  RunOptions o;
  o.check = true;
  return o;
}
}  // namespace

LaunchStats shift(int* out, bool synced, const RunOptions& options) {
  return launch(k::shift_kernel, 1, 64, 0, options, out, synced ? 1 : 0);
}

LaunchStats warp_exchange(int* out, bool synced) {
  return launch(k::warp_exchange_kernel, 1, 64, 0, checked(), out, synced ? 1 : 0);
}

LaunchStats reduce(const float* in, float* out, unsigned blocks, bool synced) {
  RunOptions o = checked();
  o.workers = 2;
  return launch(k::reduce_kernel, blocks, 128, 0, o, in, out, synced ? 1 : 0);
}

LaunchStats dynamic_race(int* out, unsigned threads) {
  return launch(k::dynamic_race_kernel, 1, threads, threads * sizeof(int), checked(), out);
}

LaunchStats dynamic_overflow(int* out, unsigned threads, int past) {
  return launch(k::dynamic_overflow_kernel, 1, threads, threads * sizeof(int), checked(), out,
                past);
}

LaunchStats global_only(int* out, unsigned blocks) {
  return launch(k::global_only_kernel, blocks, 32, 0, checked(), out);
}

LaunchStats bytes(int* out, bool racy) {
  return launch(k::bytes_kernel, 1, 64, 0, checked(), out, racy ? 1 : 0);
}

}  // namespace simt_test::races
