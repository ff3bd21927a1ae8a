// Bug: a launch with 2048 threads per block fails, and nothing asks cudaGetLastError.
__global__ void fill(int* p) { p[threadIdx.x] = 1; }
int main() {
  int* p;
  cudaMalloc(&p, 2048 * sizeof(int));
  fill<<<1, 2048>>>(p);  // expect: unchecked_launch_error
  cudaDeviceSynchronize();
  cudaFree(p);
  return 0;
}
