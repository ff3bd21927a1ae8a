// The notes' add2 for the PyTorch bridge: c = a + b over n floats with a grid-stride loop.
#pragma once
#include "kernels/prelude.cuh"

// Any grid works: thread t handles t, t + (all threads of the grid), ... With a grid that covers n
// each thread runs the loop once; with a capped grid each thread handles several elements. The
// index is 64-bit, so a tensor of more than 2^31 elements is neither cut short nor overflowed
// (the notes' `int n` is).
__global__ void add2_kernel(float* c, const float* a, const float* b, long long n) {
  const long long stride = (long long)gridDim.x * blockDim.x;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    c[i] = a[i] + b[i];
  }
}
