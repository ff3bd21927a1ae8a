// gpulab twonorm --kernel reduce: the two-norm distance for any size, in two launches.
#pragma once
#include "kernels/prelude.cuh"

#define TWO_NORM_BLOCK 256  // threads per block of both launches; a multiple of 32

// Adds v over the 32 lanes of a warp: after 5 halvings lane 0 holds the warp's sum.
__device__ __forceinline__ float warp_sum(float v) {
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffffu, v, offset);
  return v;
}

__device__ __forceinline__ double warp_sum(double v) {
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffffu, v, offset);
  return v;
}

// Launch 1: each block sums (a-b)^2 over a grid-stride slice of the elements and writes one
// partial.
__global__ void two_norm_partials(const float* a, const float* b, double* partials,
                                  long long count) {
  __shared__ float warp_sums[TWO_NORM_BLOCK / 32];
  // Grid-stride loop: thread i handles i, i + total threads, ...: any size, any grid.
  float sum = 0.0f;
  long long stride = (long long)gridDim.x * blockDim.x;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < count; i += stride) {
    float d = a[i] - b[i];
    sum += d * d;
  }
  // Reduce within each warp by shuffles, then the warps' sums through shared memory.
  sum = warp_sum(sum);
  int lane = threadIdx.x % 32;
  int warp = threadIdx.x / 32;
  if (lane == 0) warp_sums[warp] = sum;
  __syncthreads();
  if (warp == 0) {
    sum = lane < (int)(blockDim.x / 32) ? warp_sums[lane] : 0.0f;
    sum = warp_sum(sum);
    if (lane == 0) partials[blockIdx.x] = (double)sum;
  }
}

// Launch 2: one block adds the partials in double precision and takes the square root.
__global__ void two_norm_finish(const double* partials, int count, double* result) {
  __shared__ double warp_sums[TWO_NORM_BLOCK / 32];
  double sum = 0.0;
  for (int i = threadIdx.x; i < count; i += blockDim.x) sum += partials[i];
  sum = warp_sum(sum);
  int lane = threadIdx.x % 32;
  int warp = threadIdx.x / 32;
  if (lane == 0) warp_sums[warp] = sum;
  __syncthreads();
  if (warp == 0) {
    sum = lane < (int)(blockDim.x / 32) ? warp_sums[lane] : 0.0;
    sum = warp_sum(sum);
    if (lane == 0) result[0] = sqrt(sum);
  }
}
