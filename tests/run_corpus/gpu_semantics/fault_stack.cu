// A recursion that never gets near its end: each call keeps a local array alive across the next,
// so the CUDA thread's stack overflows. The GPU fails the launch (at the next synchronising
// call); gpulab says the stack overflowed and at which line.
#include <cstdio>

__device__ int depth(int n, volatile int* sink) {
  int local[64];
  for (int i = 0; i < 64; ++i) local[i] = n + i;
  *sink = local[n % 64];
  const int below = n == 0 ? 0 : depth(n - 1, sink);
  return below + local[(n * 7) % 64] - n;
}

__global__ void recurse(int n, int* out, int* sink) {
  *out = depth(n, sink);
}

int main() {
  int *out, *sink;
  cudaMalloc(&out, sizeof(int));
  cudaMalloc(&sink, sizeof(int));
  recurse<<<1, 1>>>(1 << 20, out, sink);
  printf("launch: %s\n", cudaGetErrorName(cudaGetLastError()));
  cudaError_t e = cudaDeviceSynchronize();
  printf("synchronize: %s\n", e == cudaSuccess ? "cudaSuccess" : "an error (the launch failed)");
  printf("sticky: %s\n", cudaDeviceSynchronize() == e ? "yes" : "no");
  return 0;
}
