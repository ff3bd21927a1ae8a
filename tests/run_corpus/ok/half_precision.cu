// __half basics: convert, add two half2 vectors, convert back; checked against float.
#include <cstdio>
#include <cuda_fp16.h>

__global__ void add_half2(const __half2* a, const __half2* b, __half2* c, int n2) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n2) c[i] = __hadd2(a[i], b[i]);
}

int main() {
  const int n = 512, n2 = n / 2;
  __half ha[n], hb[n], hc[n];
  for (int i = 0; i < n; ++i) {
    ha[i] = __float2half(0.25f * (i % 16));
    hb[i] = __float2half(-1.5f + 0.125f * (i % 8));
  }
  __half2 *a, *b, *c;
  cudaMalloc(&a, sizeof ha); cudaMalloc(&b, sizeof hb); cudaMalloc(&c, sizeof hc);
  cudaMemcpy(a, ha, sizeof ha, cudaMemcpyHostToDevice);
  cudaMemcpy(b, hb, sizeof hb, cudaMemcpyHostToDevice);
  add_half2<<<(n2 + 127) / 128, 128>>>(a, b, c, n2);
  cudaMemcpy(hc, c, sizeof hc, cudaMemcpyDeviceToHost);
  int wrong = 0;
  for (int i = 0; i < n; ++i) {
    float expect = __half2float(ha[i]) + __half2float(hb[i]);
    wrong += __half2float(hc[i]) != expect;
  }
  printf("half2 add: %d of %d wrong; c[7] = %.4f\n", wrong, n, __half2float(hc[7]));
  cudaFree(a); cudaFree(b); cudaFree(c);
  return wrong == 0 ? 0 : 1;
}
