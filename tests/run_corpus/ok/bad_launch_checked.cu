// A launch with too many threads per block, caught the right way with cudaGetLastError.
#include <cstdio>
__global__ void k(int* p) { p[blockIdx.x * blockDim.x + threadIdx.x] = threadIdx.x; }
int main() {
  int* p;
  cudaMalloc(&p, 2048 * sizeof(int));
  k<<<1, 2048>>>(p);
  cudaError_t e = cudaGetLastError();
  printf("launch: %s (%s)\n", cudaGetErrorName(e), cudaGetErrorString(e));
  k<<<2, 1024>>>(p);
  e = cudaGetLastError();
  cudaError_t s = cudaDeviceSynchronize();
  printf("second launch: %s, sync: %s\n", cudaGetErrorName(e), cudaGetErrorName(s));
  cudaFree(p);
  return 0;
}
