// A program of three files, built as `nvcc -rdc=true -Iinclude -DOFFSET=7 main.cu kernels.cu
// reference.cpp` builds it; its own option -n=N comes after --.
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "scale.cuh"

__global__ void fill(int* d, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) d[i] = scale(i) + g_offset;
}

void launch_fill(int* d, int n) {
  fill<<<(n + 63) / 64, 64>>>(d, n);
}

int main(int argc, char** argv) {
  int n = 100;
  for (int a = 1; a < argc; ++a) {
    if (std::strncmp(argv[a], "-n=", 3) == 0) n = std::atoi(argv[a] + 3);
  }
  int* d;
  cudaMalloc(&d, n * sizeof(int));
  launch_fill(d, n);
  int* h = new int[n];
  cudaMemcpy(h, d, n * sizeof(int), cudaMemcpyDeviceToHost);
  const int ok = host_check(h, n);
  printf("n=%d last=%d %s\n", n, h[n - 1], ok ? "matches the host" : "WRONG");
  cudaFree(d);
  delete[] h;
  return ok ? 0 : 1;
}
