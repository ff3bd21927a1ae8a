// The second file: the same header, by a path relative to this file.
#include "include/reduce.cuh"

__global__ void square(float* v, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) v[i] = static_cast<float>((i % 5) * (i % 5));
}

// Each block's sum of its squares, through the header's tile_sum (which waits at barriers).
__global__ void square_sums(const float* v, float* sums, int n) {
  __shared__ float tile[256];
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  tile[threadIdx.x] = i < n ? v[i] : 0.0f;
  __syncthreads();
  tile_sum(tile);
  if (threadIdx.x == 0) sums[blockIdx.x] = tile[0];
}

double sum_of_squares(int n) {
  const int blocks = (n + 255) / 256;
  float* d = nullptr;
  float* sums = nullptr;
  cudaMalloc(&d, n * sizeof(float));
  cudaMalloc(&sums, blocks * sizeof(float));
  square<<<blocks, 256>>>(d, n);
  const double total = sum_on_device(d, n);
  square_sums<<<blocks, 256>>>(d, sums, n);
  float h[64];
  cudaMemcpy(h, sums, blocks * sizeof(float), cudaMemcpyDeviceToHost);
  double by_tiles = 0;
  for (int b = 0; b < blocks; ++b) by_tiles += h[b];
  cudaFree(sums);
  cudaFree(d);
  return total == by_tiles ? total : -1.0;  // -1: the two device sums disagree
}
