// Bug: b is allocated but never copied to the device before the kernel reads it.
__global__ void add(const int* a, const int* b, int* c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];  // expect: uninitialized_read
}
int main() {
  const int n = 64;
  int h[n] = {};
  int *a, *b, *c;
  cudaMalloc(&a, sizeof h); cudaMalloc(&b, sizeof h); cudaMalloc(&c, sizeof h);
  cudaMemcpy(a, h, sizeof h, cudaMemcpyHostToDevice);
  add<<<1, 64>>>(a, b, c, n);
  cudaMemcpy(h, c, sizeof h, cudaMemcpyDeviceToHost);
  cudaFree(a); cudaFree(b); cudaFree(c);
  return 0;
}
