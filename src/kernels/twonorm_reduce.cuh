// gpulab twonorm --kernel reduce: the two-norm distance for any size, in two launches.
#pragma once
#include "kernels/prelude.cuh"

#define TWO_NORM_BLOCK 256  // threads per block of both launches; a multiple of 32

// Adds v over the 32 lanes of a warp: after 5 halvings (16, 8, 4, 2, 1) lane 0 holds the sum.
template <class T>
__device__ __forceinline__ T warp_sum(T v) {
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffffu, v, offset);
  return v;
}

// Adds v over the whole block; thread 0 gets the total. Each warp adds its lanes by shuffles,
// lane 0 of each warp leaves the warp's sum in warp_sums (blockDim.x / 32 of them, in shared
// memory), and after one __syncthreads() the first warp adds those.
template <class T>
__device__ __forceinline__ T block_sum(T v, T* warp_sums) {
  v = warp_sum(v);
  int lane = threadIdx.x % 32;
  int warp = threadIdx.x / 32;
  if (lane == 0) warp_sums[warp] = v;
  __syncthreads();
  if (warp == 0) {
    v = lane < (int)(blockDim.x / 32) ? warp_sums[lane] : (T)0;
    v = warp_sum(v);
  }
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
  long long first = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  long long done = 0;  // elements the float4 loop covered
  // When both inputs are 16-byte aligned, load 4 floats at a time: one 16-byte load per
  // thread instead of four 4-byte ones, fewer instructions per byte moved.
  if ((((unsigned long long)a | (unsigned long long)b) & 15) == 0) {
    const float4* a4 = (const float4*)a;
    const float4* b4 = (const float4*)b;
    long long count4 = count / 4;
    for (long long i = first; i < count4; i += stride) {
      float4 x = a4[i], y = b4[i];
      float d0 = x.x - y.x, d1 = x.y - y.y, d2 = x.z - y.z, d3 = x.w - y.w;
      sum += (d0 * d0 + d1 * d1) + (d2 * d2 + d3 * d3);
    }
    done = count4 * 4;
  }
  // The rest one float at a time (everything, when the inputs are not aligned).
  for (long long i = done + first; i < count; i += stride) {
    float d = a[i] - b[i];
    sum += d * d;
  }
  sum = block_sum(sum, warp_sums);
  if (threadIdx.x == 0) partials[blockIdx.x] = (double)sum;
}

// Launch 2: one block adds the partials in double precision and takes the square root.
__global__ void two_norm_finish(const double* partials, int count, double* result) {
  __shared__ double warp_sums[TWO_NORM_BLOCK / 32];
  double sum = 0.0;
  for (int i = threadIdx.x; i < count; i += blockDim.x) sum += partials[i];
  sum = block_sum(sum, warp_sums);
  if (threadIdx.x == 0) result[0] = sqrt(sum);
}
