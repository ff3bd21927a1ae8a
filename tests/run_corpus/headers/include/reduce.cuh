// A kernel, dynamic shared memory and the launch itself in a header, as NVIDIA's samples keep
// them: every .cu file that includes it gets its own copy (static), as with nvcc.
#pragma once

#include <cstdio>

#include "reduce_config.h"  // beside this header, not beside the file that includes it

static __global__ void block_sums(const float* in, float* out, int n) {
  extern __shared__ float partial[];
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  partial[threadIdx.x] = i < n ? in[i] : 0.0f;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s /= 2) {
    if (threadIdx.x < s) partial[threadIdx.x] += partial[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0) out[blockIdx.x] = partial[0];
}

// The sum of d_in[0..n), one partial per block on the device, the partials added on the host.
static inline double sum_on_device(const float* d_in, int n) {
  const int blocks = (n + kReduceBlock - 1) / kReduceBlock;
  float* d_out = nullptr;
  cudaMalloc(&d_out, blocks * sizeof(float));
  block_sums<<<blocks, kReduceBlock, kReduceBlock * sizeof(float)>>>(d_in, d_out, n);
  const cudaError_t launched = cudaGetLastError();
  if (launched != cudaSuccess) std::printf("launch failed: %s\n", cudaGetErrorString(launched));
  float* h_out = new float[blocks];
  cudaMemcpy(h_out, d_out, blocks * sizeof(float), cudaMemcpyDeviceToHost);
  double total = 0;
  for (int b = 0; b < blocks; ++b) total += h_out[b];
  delete[] h_out;
  cudaFree(d_out);
  return total;
}

// A block's sum of tile[0..blockDim.x) (a power of two), left in tile[0]: a device function that
// waits at barriers, called by a kernel of another file (squares.cu) that waits too.
static __device__ void tile_sum(float* tile) {
  for (unsigned s = blockDim.x / 2; s > 0; s /= 2) {
    if (threadIdx.x < s) tile[threadIdx.x] += tile[threadIdx.x + s];
    __syncthreads();
  }
}
