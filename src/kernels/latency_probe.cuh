// gpulab warp-hiding --measure: a kernel whose every step waits for one global-memory load and
// then has `ops` arithmetic instructions of work that need the loaded value. With few warps on an
// SM its schedulers sit idle through each load; with enough warps one warp's work fills another
// warp's wait.
#pragma once
#include "kernels/prelude.cuh"

#define LATENCY_PROBE_MAX_BLOCK 1024

// The SM a block runs on (the hardware's %smid register); the emulator is one SM.
__device__ __forceinline__ unsigned current_sm() {
#if defined(__CUDA_ARCH__)
  unsigned id;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(id));
  return id;
#else
  return 0;
#endif
}

// next[] is one random cycle through a table far larger than the L2 cache, one entry per 64 bytes
// (no two entries share a cache sector), so each load misses the caches and waits the full memory
// latency. All 32 lanes of a warp follow the same chain from starts[warp]: one memory request per
// warp per step. Lane 0 records the SM's clock before and after the loop in clocks[2 * warp] and
// clocks[2 * warp + 1] (clock64() counts per SM: only clocks of one SM compare). `ops` is a
// multiple of 4: four independent chains of fused multiply-adds, so a single warp can issue one of
// them every cycle. It needs few registers: 64 warps (2048 threads) fit an SM's 65,536 at up to 32
// each.
__global__ void __launch_bounds__(LATENCY_PROBE_MAX_BLOCK)
    latency_probe(const unsigned* next, const unsigned* starts, int steps, int ops, unsigned* ends,
                  long long* clocks, unsigned* sms) {
  unsigned warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
  unsigned p = starts[warp];
  float x0 = 0.0f, x1 = 0.25f, x2 = 0.5f, x3 = 0.75f;
  long long begin = clock64();
  for (int s = 0; s < steps; ++s) {
    p = next[p];                                    // the wait: a load that misses every cache
    float v = (float)(p & 255u) * (1.0f / 256.0f);  // the work needs the loaded value
#if defined(__CUDACC__)
#pragma unroll 16
#endif
    for (int k = 0; k < ops; k += 4) {
      x0 = fmaf(x0, 0.5f, v);
      x1 = fmaf(x1, 0.5f, v);
      x2 = fmaf(x2, 0.5f, v);
      x3 = fmaf(x3, 0.5f, v);
    }
    // x stays in [0, 2), so this adds 0; the next load still has to wait for the work.
    p += (unsigned)((x0 + x1 + x2 + x3) * 0.0f);
  }
  long long end = clock64();
  if (threadIdx.x % 32 == 0) {
    ends[warp] = p;
    clocks[2 * warp] = begin;
    clocks[2 * warp + 1] = end;
    sms[warp] = current_sm();
  }
}
