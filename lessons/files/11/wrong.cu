// The notes' formula blockIdx.x * gridDim.x + threadIdx.x in a whole program (lesson 11):
// 4 blocks of 8 threads over 32 elements. Run it with: gpulab run --check wrong.cu
__global__ void vectorAdd(const int* a, const int* b, int* c, int n) {
  int tid = blockIdx.x * gridDim.x + threadIdx.x;  // the right formula: blockIdx.x * blockDim.x
  if (tid < n) c[tid] = a[tid] + b[tid];
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
  cudaMemcpy(h, c, sizeof h, cudaMemcpyDeviceToHost);
  cudaFree(a); cudaFree(b); cudaFree(c);
  return 0;
}
