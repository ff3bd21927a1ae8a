// Bug: the buffer is never freed.
__global__ void fill(int* p) { p[threadIdx.x] = 1; }
int main() {
  int* p;
  cudaMalloc(&p, 32 * sizeof(int));  // expect: leak
  fill<<<1, 32>>>(p);
  cudaDeviceSynchronize();
  return 0;
}
