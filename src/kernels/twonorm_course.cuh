// gpulab twonorm --kernel course: the course notes' two-norm kernel, one block of 512 threads.
// Faithful to the notes, except that their debug printf of every element is left out.
#pragma once
#include "kernels/prelude.cuh"

__global__ void two_norm_kernel(const float* a, const float* b, float* c, int n, int m) {
  // A fixed buffer of 64*64 = 4096 floats (16 KiB): the matrix may have at most 4096 elements.
  __shared__ float a_minus_b[64 * 64];

  // Phase 1: thread t squares the differences of rows t, t + blockDim.x, t + 2*blockDim.x, ...
  for (int row = threadIdx.x; row < n; row += blockDim.x) {
    for (int col = 0; col < m; col++) {
      float a_ij = a[row * m + col];
      float b_ij = b[row * m + col];
      a_minus_b[row * m + col] = (a_ij - b_ij) * (a_ij - b_ij);
    }
  }

  __syncthreads();  // every square is written before any row is summed

  // Phase 2: the same threads add each of their rows into the row's first column.
  for (int row = threadIdx.x; row < n; row += blockDim.x) {
    for (int col = 1; col < m; col++) {
      a_minus_b[row * m + 0] += a_minus_b[row * m + col];
    }
  }

  __syncthreads();  // every row sum is written before thread 0 reads them

  // Phase 3: one thread adds the first column and takes the square root.
  if (threadIdx.x == 0) {
    for (int i = 1; i < n; i++) a_minus_b[0] += a_minus_b[i * m + 0];
    c[0] = sqrtf(a_minus_b[0]);
  }
}
