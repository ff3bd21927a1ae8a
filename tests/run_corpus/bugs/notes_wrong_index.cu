// Bug (the course notes' wrong formula): blockIdx.x * gridDim.x + threadIdx.x leaves elements
// 20-31 of 32 untouched when 4 blocks of 8 threads run (copying them back reads memory no one
// wrote), and blocks overlap: blocks 0 and 1 both write elements 4-7.
__global__ void vectorAdd(const int* a, const int* b, int* c, int n) {
  int tid = blockIdx.x * gridDim.x + threadIdx.x;
  if (tid < n) c[tid] = a[tid] + b[tid];  // expect: global_race
}
int main() {
  const int n = 32;
  int h[n];
  for (int i = 0; i < n; ++i) h[i] = i;
  int *a, *b, *c;
  cudaMalloc(&a, sizeof h); cudaMalloc(&b, sizeof h); cudaMalloc(&c, sizeof h);
  cudaMemcpy(a, h, sizeof h, cudaMemcpyHostToDevice);
  cudaMemcpy(b, h, sizeof h, cudaMemcpyHostToDevice);
  vectorAdd<<<4, 8>>>(a, b, c, n);
  cudaMemcpy(h, c, sizeof h, cudaMemcpyDeviceToHost);  // expect: uninitialized_copy
  cudaFree(a); cudaFree(b); cudaFree(c);
  return 0;
}
