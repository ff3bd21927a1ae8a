// The course notes' vector add: one thread per element, guarded by i < n.
#include <cuda_runtime.h>
#include <cstdio>

__global__ void vector_add(const int* a, const int* b, int* c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}

int main() {
  const int n = 1000;
  int *a, *b, *c;
  cudaMallocManaged(&a, n * sizeof(int));
  cudaMallocManaged(&b, n * sizeof(int));
  cudaMallocManaged(&c, n * sizeof(int));
  for (int i = 0; i < n; ++i) {
    a[i] = i;
    b[i] = 2 * i;
  }
  vector_add<<<(n + 255) / 256, 256>>>(a, b, c, n);
  cudaDeviceSynchronize();
  int wrong = 0;
  for (int i = 0; i < n; ++i) wrong += c[i] != 3 * i;
  printf("%d wrong\n", wrong);
  return wrong != 0;
}
