#include <cstdio>
__global__ void past_end(int* v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i <= n) v[i] = i;  // one past the end
}
void other_says() {
  printf("other: %s\n", __FILE__);
  int* v;
  cudaMalloc(&v, 32 * sizeof(int));
  past_end<<<1, 64>>>(v, 32);
  cudaDeviceSynchronize();
  cudaFree(v);
}
