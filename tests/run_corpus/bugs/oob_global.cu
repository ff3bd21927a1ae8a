// Bug: no `if (i < n)` guard, and 1024 threads for 1000 elements.
__global__ void add(const float* a, const float* b, float* c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  c[i] = a[i] + b[i];  // expect: out_of_bounds
}
int main() {
  const int n = 1000;
  float h[n] = {};
  float *a, *b, *c;
  cudaMalloc(&a, n * sizeof(float));
  cudaMalloc(&b, n * sizeof(float));
  cudaMalloc(&c, n * sizeof(float));
  cudaMemcpy(a, h, sizeof h, cudaMemcpyHostToDevice);
  cudaMemcpy(b, h, sizeof h, cudaMemcpyHostToDevice);
  add<<<4, 256>>>(a, b, c, n);
  cudaMemcpy(h, c, sizeof h, cudaMemcpyDeviceToHost);
  cudaFree(a); cudaFree(b); cudaFree(c);
  return 0;
}
