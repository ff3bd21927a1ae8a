// gpulab vecadd: c = a + b, one thread per element, as in the course notes.
#pragma once
#include "kernels/prelude.cuh"

__global__ void vector_add(const int* a, const int* b, int* c, int n) {
  // Global index: the blocks before mine hold blockIdx.x * blockDim.x threads, then my place.
  int tid = blockIdx.x * blockDim.x + threadIdx.x;
  // The last block may have more threads than elements left: those threads must do nothing.
  if (tid < n) {
    c[tid] = a[tid] + b[tid];
  }
}
