// Micro-benchmarks of the SIMT emulator: barrier-free threads, barrier crossings, shuffles (raw and
// through cooperative groups).
//
// Usage: simt_bench [workers] (default: all cores).
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "kernels/prelude.cuh"
#include "simt/cooperative_groups.hpp"
#include "simt/simt.hpp"

namespace bench_kernels {

__global__ void vecadd(const float* a, const float* b, float* c, int n) {
  const int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (i < n) c[i] = a[i] + b[i];
}

__global__ void barriers(int* out, int rounds) {
  __shared__ int tile[1024];
  const unsigned t = threadIdx.x;
  int acc = 0;
  for (int r = 0; r < rounds; ++r) {
    tile[t] = r + static_cast<int>(t);
    __syncthreads();
    acc += tile[(t + 1) % blockDim.x];
  }
  out[blockIdx.x * blockDim.x + t] = acc;
}

__global__ void shuffles(unsigned* out, int rounds) {
  unsigned v = threadIdx.x;  // unsigned: the sums wrap instead of overflowing
  for (int r = 0; r < rounds; ++r) v += __shfl_xor_sync(0xffffffffu, v, r & 31);
  out[blockIdx.x * blockDim.x + threadIdx.x] = v;
}

// The same shuffles through a 32-wide cooperative-groups tile.
__global__ void cg_shuffles(unsigned* out, int rounds) {
  namespace cg = cooperative_groups;
  const cg::thread_block_tile<32> tile = cg::tiled_partition<32>(cg::this_thread_block());
  unsigned v = threadIdx.x;
  for (int r = 0; r < rounds; ++r) v += tile.shfl_xor(v, static_cast<unsigned>(r & 31));
  out[blockIdx.x * blockDim.x + threadIdx.x] = v;
}

}  // namespace bench_kernels

namespace {

using gpulab::simt::launch;
using gpulab::simt::LaunchStats;

// Best of a few runs: the emulator's cost, not the machine's noise.
template <class F>
LaunchStats best_of(int runs, F&& f) {
  LaunchStats best = f();
  for (int i = 1; i < runs; ++i) {
    LaunchStats s = f();
    if (s.elapsed_ms < best.elapsed_ms) best = s;
  }
  return best;
}

}  // namespace

int main(int argc, char** argv) {
  gpulab::simt::RunOptions options;
  if (argc > 1) options.workers = static_cast<unsigned>(std::strtoul(argv[1], nullptr, 10));

  {
    const int n = 1 << 22;
    std::vector<float> a(n, 1.5f), b(n, 2.25f), c(n, 0.0f);
    const unsigned blocks = (n + 255) / 256;
    const LaunchStats s = best_of(5, [&] {
      return launch(bench_kernels::vecadd, blocks, 256, 0, options, a.data(), b.data(), c.data(),
                    n);
    });
    if (c[n - 1] != 3.75f) return 1;
    std::printf(
        "barrier-free (vecadd, %d threads, block 256, %u workers): %.1f ms, %.2f ns/thread\n", n,
        s.workers, s.elapsed_ms, s.elapsed_ms * 1e6 / static_cast<double>(s.threads));
  }
  {
    const int rounds = 1000;
    for (const unsigned threads : {256u, 1024u}) {
      gpulab::simt::RunOptions one = options;
      one.workers = 1;
      std::vector<int> out(threads, 0);
      const LaunchStats s = best_of(3, [&] {
        return launch(bench_kernels::barriers, 1, threads, 0, one, out.data(), rounds);
      });
      const double per_barrier_ns = s.elapsed_ms * 1e6 / static_cast<double>(s.barriers_crossed);
      std::printf(
          "barrier-heavy (1 block of %u threads, %d __syncthreads, 1 worker): %.1f ms, "
          "%.0f ns per barrier crossing, %.1f ns per thread per barrier\n",
          threads, rounds, s.elapsed_ms, per_barrier_ns, per_barrier_ns / threads);
    }
  }
  for (const bool cg : {false, true}) {
    const int rounds = 1000;
    const unsigned blocks = 8, threads = 256;
    std::vector<unsigned> out(blocks * threads, 0);
    const LaunchStats s = best_of(3, [&] {
      return launch(cg ? bench_kernels::cg_shuffles : bench_kernels::shuffles, blocks, threads, 0,
                    options, out.data(), rounds);
    });
    std::printf(
        "warp shuffles (%u blocks of %u threads, %d %s, %u workers): %.1f ms, "
        "%.1f ns per thread per shuffle\n",
        blocks, threads, rounds, cg ? "tile.shfl_xor" : "__shfl_xor_sync", s.workers, s.elapsed_ms,
        s.elapsed_ms * 1e6 / (static_cast<double>(s.threads) * rounds));
  }
  return 0;
}
