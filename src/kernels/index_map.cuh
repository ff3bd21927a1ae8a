// gpulab index-map --run: every thread writes the indices it computes, for the host to check.
#pragma once
#include "kernels/prelude.cuh"

#define INDEX_RECORD_WORDS 8  // blockIdx x,y,z; threadIdx x,y,z; global index; warp

__global__ void write_indices(unsigned* records) {
  // Which block am I, counting blocks row by row, then layer by layer (x fastest)?
  unsigned block = blockIdx.x + blockIdx.y * gridDim.x + blockIdx.z * gridDim.x * gridDim.y;
  // Which thread am I inside my block, in the same order?
  unsigned thread = threadIdx.x + threadIdx.y * blockDim.x + threadIdx.z * blockDim.x * blockDim.y;
  // Every block before mine holds blockDim.x * blockDim.y * blockDim.z threads.
  unsigned global = block * (blockDim.x * blockDim.y * blockDim.z) + thread;

  unsigned* r = records + (unsigned long long)global * INDEX_RECORD_WORDS;
  r[0] = blockIdx.x;
  r[1] = blockIdx.y;
  r[2] = blockIdx.z;
  r[3] = threadIdx.x;
  r[4] = threadIdx.y;
  r[5] = threadIdx.z;
  r[6] = global;
  r[7] = thread / warpSize;  // warps are cut from consecutive thread numbers, 32 at a time
}
