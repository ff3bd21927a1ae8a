// gpulab twonorm --kernel all: the classic reduction ladder, one step at a time. Each step's kernel
// writes one partial sum of (a-b)^2 per block; two_norm_finish (twonorm_reduce.cuh) adds them.
// Every step launches blocks of TWO_NORM_BLOCK threads (a power of two).
// The last step of the ladder is two_norm_partials itself: grid-stride, many elements per thread.
#pragma once
#include "kernels/twonorm_reduce.cuh"

// (a[i] - b[i])^2, or 0 past the end: threads of the last block may have no element.
__device__ __forceinline__ float square_diff(const float* a, const float* b, long long i,
                                             long long count) {
  if (i >= count) return 0.0f;
  float d = a[i] - b[i];
  return d * d;
}

// Step 1, interleaved addressing: one element per thread; at stride s, every thread whose index
// is a multiple of 2s adds its neighbour s away. The active threads are scattered over all the
// warps, so every warp keeps issuing the loop while most of its lanes sit idle (divergence).
__global__ void ladder_interleaved(const float* a, const float* b, double* partials,
                                   long long count) {
  __shared__ float s[TWO_NORM_BLOCK];
  unsigned t = threadIdx.x;
  s[t] = square_diff(a, b, (long long)blockIdx.x * blockDim.x + t, count);
  __syncthreads();
  for (unsigned stride = 1; stride < blockDim.x; stride *= 2) {
    if (t % (2 * stride) == 0) s[t] += s[t + stride];
    __syncthreads();
  }
  if (t == 0) partials[blockIdx.x] = s[0];
}

// The tree of steps 2 to 4: at stride s = blockDim.x / 2, blockDim.x / 4, ... down to `last`, the
// first s threads add element t + s to element t, with a barrier after each round.
__device__ __forceinline__ void halve_down_to(float* s, unsigned t, unsigned last) {
  for (unsigned stride = blockDim.x / 2; stride >= last; stride /= 2) {
    if (t < stride) s[t] += s[t + stride];
    __syncthreads();
  }
}

// Steps 3 and 4: block b covers elements 2 * b * blockDim.x onwards; thread t adds two of them,
// blockDim.x apart (both loads coalesced), as it loads them.
__device__ __forceinline__ float first_add(const float* a, const float* b, long long count) {
  long long i = (long long)blockIdx.x * (2 * blockDim.x) + threadIdx.x;
  return square_diff(a, b, i, count) + square_diff(a, b, i + blockDim.x, count);
}

// Step 2, sequential addressing: at stride s the first s threads add element t + s. The active
// threads are contiguous, so whole warps drop out together and no warp diverges until s < 32.
__global__ void ladder_sequential(const float* a, const float* b, double* partials,
                                  long long count) {
  __shared__ float s[TWO_NORM_BLOCK];
  unsigned t = threadIdx.x;
  s[t] = square_diff(a, b, (long long)blockIdx.x * blockDim.x + t, count);
  __syncthreads();
  halve_down_to(s, t, 1);
  if (t == 0) partials[blockIdx.x] = s[0];
}

// Step 3, first add during load: each block covers 2 * blockDim.x elements; every thread loads
// two and adds them before the tree, so no thread is idle in the first round and half as many
// blocks run.
__global__ void ladder_first_add(const float* a, const float* b, double* partials,
                                 long long count) {
  __shared__ float s[TWO_NORM_BLOCK];
  unsigned t = threadIdx.x;
  s[t] = first_add(a, b, count);
  __syncthreads();
  halve_down_to(s, t, 1);
  if (t == 0) partials[blockIdx.x] = s[0];
}

// Step 4, warp-shuffle final stage: as step 3 until 32 sums are left, then the first warp adds
// them in registers with 5 __shfl_down_sync: no shared memory and no __syncthreads() for the
// last 5 rounds.
__global__ void ladder_warp_shuffle(const float* a, const float* b, double* partials,
                                    long long count) {
  __shared__ float s[TWO_NORM_BLOCK];
  unsigned t = threadIdx.x;
  s[t] = first_add(a, b, count);
  __syncthreads();
  halve_down_to(s, t, 32);
  if (t < 32) {
    float v = warp_sum(s[t]);
    if (t == 0) partials[blockIdx.x] = v;
  }
}
