// Bug: a host array (malloc) passed to the kernel instead of a device copy.
#include <cstdlib>
__global__ void scale(float* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= 2.0f;  // expect: host_memory
}
int main() {
  const int n = 100;
  float* h = (float*)calloc(n, sizeof(float));
  scale<<<1, 128>>>(h, n);
  cudaDeviceSynchronize();
  free(h);
  return 0;
}
