// Bug: every thread adds to one global counter without an atomic.
__global__ void count_positive(const int* x, int n, int* count) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && x[i] > 0) *count += 1;  // expect: global_race
}
int main() {
  const int n = 256;
  int h[n];
  for (int i = 0; i < n; ++i) h[i] = i % 3 - 1;
  int *x, *count, result = 0;
  cudaMalloc(&x, sizeof h); cudaMalloc(&count, sizeof(int));
  cudaMemcpy(x, h, sizeof h, cudaMemcpyHostToDevice);
  cudaMemset(count, 0, sizeof(int));
  count_positive<<<4, 64>>>(x, n, count);
  cudaMemcpy(&result, count, sizeof(int), cudaMemcpyDeviceToHost);
  cudaFree(x); cudaFree(count);
  return 0;
}
