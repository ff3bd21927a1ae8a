// new and delete in a kernel share one device heap with malloc and free (cudaLimitMallocHeapSize,
// 8 MiB by default): with 6 MiB taken by malloc, a new of 4 MiB gives nullptr, as a GPU's
// device-side new does; once the malloc'd block is freed, the same new fits.
#include <cstdio>

__global__ void one_heap(int* got) {
  char* a = static_cast<char*>(malloc(6 << 20));
  int* b = new int[1 << 20];  // 4 MiB
  got[0] = a != nullptr;
  got[1] = b != nullptr;
  delete[] b;
  free(a);
  int* c = new int[1 << 20];
  got[2] = c != nullptr;
  if (c != nullptr) {
    c[0] = 5;
    c[(1 << 20) - 1] = 7;
    got[3] = c[0] + c[(1 << 20) - 1];
  }
  delete[] c;
}

int main() {
  int* d;
  cudaMalloc(&d, 4 * sizeof(int));
  cudaMemset(d, 0, 4 * sizeof(int));
  one_heap<<<1, 1>>>(d);
  printf("synchronize: %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
  int h[4];
  cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
  printf("malloc 6 MiB: %s\n", h[0] ? "a block" : "null");
  printf("then new 4 MiB: %s\n", h[1] ? "a block" : "null");
  printf("after free, new 4 MiB: %s, holding %d\n", h[2] ? "a block" : "null", h[3]);
  cudaFree(d);
  return 0;
}
