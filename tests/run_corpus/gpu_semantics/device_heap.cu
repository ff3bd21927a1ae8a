// malloc and free in a kernel: each thread builds a small array on the device heap, sums it and
// frees it (checked against the host); a block larger than the heap (8 MiB by default) is null,
// and fits once cudaDeviceSetLimit(cudaLimitMallocHeapSize) has made the heap larger (which CUDA
// allows only before the first kernel that uses the heap: here after cudaDeviceReset).
#include <cstdio>
#include <cstdlib>

__global__ void sums(int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int len = 1 + i % 5;
  int* a = static_cast<int*>(malloc(len * sizeof(int)));
  if (a == nullptr) {
    out[i] = -1;
    return;
  }
  for (int k = 0; k < len; ++k) a[k] = i + k;
  int s = 0;
  for (int k = 0; k < len; ++k) s += a[k];
  out[i] = s;
  free(a);
}

__global__ void big(size_t bytes, int* got) {
  char* p = static_cast<char*>(malloc(bytes));
  *got = p != nullptr;
  if (p != nullptr) {
    p[0] = 1;
    p[bytes - 1] = 2;
    *got += p[0] + p[bytes - 1];
    free(p);
  }
}

int main() {
  const int n = 500;
  int* d = nullptr;
  cudaMalloc(&d, n * sizeof(int));
  sums<<<2, 256>>>(d, n);
  int h[n];
  cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
  int wrong = 0;
  for (int i = 0; i < n; ++i) {
    int len = 1 + i % 5, s = 0;
    for (int k = 0; k < len; ++k) s += i + k;
    wrong += h[i] != s;
  }
  printf("per-thread arrays: %d wrong\n", wrong);

  size_t heap = 0;
  cudaDeviceGetLimit(&heap, cudaLimitMallocHeapSize);
  printf("heap: %zu bytes\n", heap);
  int* got = nullptr;
  cudaMalloc(&got, sizeof(int));
  big<<<1, 1>>>(16u << 20, got);
  int g = 0;
  cudaMemcpy(&g, got, sizeof g, cudaMemcpyDeviceToHost);
  printf("16 MiB from the 8 MiB heap: %s\n", g == 0 ? "null" : "allocated");
  printf("make the heap larger after a kernel used it: %s\n",
         cudaGetErrorName(cudaDeviceSetLimit(cudaLimitMallocHeapSize, 64u << 20)));
  cudaGetLastError();
  cudaFree(d);
  cudaFree(got);

  // A new context (cudaDeviceReset): the limit may be set before its first kernel.
  cudaDeviceReset();
  printf("after a reset, a 64 MiB heap: %s\n",
         cudaGetErrorName(cudaDeviceSetLimit(cudaLimitMallocHeapSize, 64u << 20)));
  cudaMalloc(&got, sizeof(int));
  big<<<1, 1>>>(16u << 20, got);
  cudaMemcpy(&g, got, sizeof g, cudaMemcpyDeviceToHost);
  printf("16 MiB from the 64 MiB heap: %s (%d)\n", g == 0 ? "null" : "allocated", g);
  cudaFree(got);
  return 0;
}
