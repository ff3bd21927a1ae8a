// Findings at many places of memory at once, for the test that --check gives the same findings with
// any number of workers (tests/cli/test_run.cpp): every block makes more global accesses than one
// task of the in-order check takes, so the check of each block is split by address among the
// workers. Races between blocks, reads of memory never written and reads past an allocation.
#include <cstdio>

__global__ void spread(float* a, const float* b, float* c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float s = 0.0f;
  for (int k = 0; k < 160; ++k) s += b[(i * 7 + k * 4099) % n];  // half never written, some past b
  a[(i * 37) % n] = s;                                           // blocks write the same elements
  c[i] = a[(i * 53) % n];                                        // and read what others write
}

int main() {
  const int n = 1 << 16;
  float *a, *b, *c;
  cudaMalloc(&a, n * sizeof(float));
  cudaMalloc(&b, n * sizeof(float) - 40);  // the last 10 elements are past its end
  cudaMalloc(&c, n * sizeof(float));
  cudaMemset(b, 0, n / 2 * sizeof(float));
  for (int r = 0; r < 2; ++r) spread<<<n / 256, 256>>>(a, b, c, n);
  cudaDeviceSynchronize();
  printf("done\n");
  cudaFree(a);
  cudaFree(b);
  cudaFree(c);
  return 0;
}
