// Shared-memory races that the check meets after barrier intervals it checked as ranges, for the
// test that the findings are those of the check access by access (tests/cli/test_run.cpp): every
// block fills a tile (each thread its own element), then every thread reads its neighbour's; in
// block 5 thread 0 also overwrites element 7, which thread 6 reads in the same interval. A
// warp-synchronous step after a __syncwarp() has no race.
#include <cstdio>

__global__ void neighbours(const float* in, float* out) {
  __shared__ float tile[256];
  const int t = threadIdx.x;
  tile[t] = in[blockIdx.x * 256 + t];
  __syncthreads();
  float v = tile[(t + 1) % 256];
  if (blockIdx.x == 5 && t == 0) tile[7] = -1.0f;
  __syncthreads();
  if (t < 32) {
    tile[t] = v;
    __syncwarp();
    v += tile[31 - t];
  }
  out[blockIdx.x * 256 + t] = v;
}

int main() {
  const int blocks = 16, n = blocks * 256;
  float *in, *out;
  cudaMalloc(&in, n * sizeof(float));
  cudaMalloc(&out, n * sizeof(float));
  cudaMemset(in, 0, n * sizeof(float));
  neighbours<<<blocks, 256>>>(in, out);
  cudaDeviceSynchronize();
  printf("done\n");
  cudaFree(in);
  cudaFree(out);
  return 0;
}
