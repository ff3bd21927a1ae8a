// Bug: __syncthreads() inside a branch that only half of the block takes.
__global__ void half_sync(int* out) {
  if (threadIdx.x < 16) {
    __syncthreads();  // expect: kernel_fault
  }
  out[threadIdx.x] = threadIdx.x;
}
int main() {
  int* out;
  cudaMalloc(&out, 32 * sizeof(int));
  half_sync<<<1, 32>>>(out);
  cudaDeviceSynchronize();
  cudaFree(out);
  return 0;
}
