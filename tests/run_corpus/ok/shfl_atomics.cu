// Sum with warp shuffles and one atomicAdd per warp; extern __shared__ sized at launch.
#include <cstdio>

__inline__ __device__ int warp_sum(int v) {
  for (int offset = warpSize / 2; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffff, v, offset);
  return v;
}

__global__ void sum(const int* in, int* out, int n) {
  extern __shared__ int partial[];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = i < n ? in[i] : 0;
  v = warp_sum(v);
  if (threadIdx.x % warpSize == 0) partial[threadIdx.x / warpSize] = v;
  __syncthreads();
  if (threadIdx.x < warpSize) {
    int w = threadIdx.x < blockDim.x / warpSize ? partial[threadIdx.x] : 0;
    w = warp_sum(w);
    if (threadIdx.x == 0) atomicAdd(out, w);
  }
}

int main() {
  const int n = 100000, block = 256;
  int* h = new int[n];
  long long expect = 0;
  for (int i = 0; i < n; ++i) { h[i] = (i * 7) % 13 - 6; expect += h[i]; }
  int *d_in, *d_out, result = 0;
  cudaMalloc(&d_in, n * sizeof(int));
  cudaMalloc(&d_out, sizeof(int));
  cudaMemcpy(d_in, h, n * sizeof(int), cudaMemcpyHostToDevice);
  cudaMemset(d_out, 0, sizeof(int));
  sum<<<(n + block - 1) / block, block, (block / 32) * sizeof(int)>>>(d_in, d_out, n);
  cudaMemcpy(&result, d_out, sizeof(int), cudaMemcpyDeviceToHost);
  printf("sum of %d ints: %d (host: %lld)\n", n, result, expect);
  cudaFree(d_in); cudaFree(d_out);
  delete[] h;
  return result == expect ? 0 : 1;
}
