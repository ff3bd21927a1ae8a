// A failed assert() in a kernel: the GPU's message on stderr, the launch fails with
// cudaErrorAssert at the next synchronising call, the error is sticky, and the program goes on.
#include <cassert>
#include <cstdio>

__global__ void check_positive(const int* v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) assert(v[i] > 0);
}

int main() {
  const int n = 64;
  int h[n];
  for (int i = 0; i < n; ++i) h[i] = i == 37 ? -5 : i + 1;  // one bad element: block 1, thread 5
  int* d = nullptr;
  cudaMalloc(&d, sizeof h);
  cudaMemcpy(d, h, sizeof h, cudaMemcpyHostToDevice);
  check_positive<<<2, 32>>>(d, n);
  printf("launch: %s\n", cudaGetErrorName(cudaGetLastError()));
  cudaError_t e = cudaDeviceSynchronize();
  printf("synchronize: %s (%s)\n", cudaGetErrorName(e), cudaGetErrorString(e));
  printf("after: GetLastError %s\n", cudaGetErrorName(cudaGetLastError()));
  printf("after: Memcpy %s\n", cudaGetErrorName(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost)));
  printf("the program goes on\n");
  return 0;
}
