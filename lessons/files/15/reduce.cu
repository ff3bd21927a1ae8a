// A tree reduction with its __syncthreads() inside the if (lesson 15): from the first step on,
// only some threads of the block reach the barrier. Run it with: gpulab run reduce.cu
#include <cstdio>

__global__ void block_sum(const float* in, float* out) {
  __shared__ float buf[256];
  buf[threadIdx.x] = in[blockIdx.x * blockDim.x + threadIdx.x];
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s /= 2) {
    if (threadIdx.x < s) {
      buf[threadIdx.x] += buf[threadIdx.x + s];
      __syncthreads();  // inside the if: not every thread gets here
    }
  }
  if (threadIdx.x == 0) out[blockIdx.x] = buf[0];
}

int main() {
  const int n = 1024, threads = 256, blocks = n / threads;
  float *in, *out;
  cudaMallocManaged(&in, n * sizeof(float));
  cudaMallocManaged(&out, blocks * sizeof(float));
  for (int i = 0; i < n; i++) in[i] = 1.0f;
  block_sum<<<blocks, threads>>>(in, out);
  cudaDeviceSynchronize();
  for (int b = 0; b < blocks; b++) printf("block %d: %g\n", b, out[b]);
  cudaFree(in);
  cudaFree(out);
  return 0;
}
