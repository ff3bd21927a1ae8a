// A device-side assert that fails in several lanes of one warp: on a GPU each of those lanes
// prints its line (file:line, function, block, thread, expression) before the launch stops with
// cudaErrorAssert; lanes that pass print nothing, and the program goes on.
#include <cassert>
#include <cstdio>

__global__ void within(const float* v, int n, float limit) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) assert(v[i] <= limit);
}

int main() {
  const int n = 128;
  float h[n];
  // Elements 123..127 are too large: block 1, threads 59..63, all in that block's second warp.
  for (int i = 0; i < n; ++i) h[i] = i < 123 ? 1.0f : 9.0f;
  h[100] = 2.0f;  // at the limit: passes
  float* d = nullptr;
  cudaMalloc(&d, sizeof h);
  cudaMemcpy(d, h, sizeof h, cudaMemcpyHostToDevice);
  within<<<2, 64>>>(d, n, 2.0f);
  const cudaError_t e = cudaDeviceSynchronize();
  printf("synchronize: %s\n", cudaGetErrorName(e));
  printf("then: %s\n", cudaGetErrorName(cudaGetLastError()));
  printf("the program goes on\n");
  return 0;
}
