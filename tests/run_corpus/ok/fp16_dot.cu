// Dot product in half precision, in the shape of NVIDIA's fp16 scalar product sample: each block
// sums its pairs in a __shared__ array of half2, halving the active threads at each step. --check
// must not take the __shared__ declaration for an access.
#include <cstdio>
#include <cuda_fp16.h>

constexpr int kBlocks = 4;
constexpr int kThreads = 128;

__device__ void reduce_in_shared(half2* v) {
  for (int active = kThreads / 2; active > 0; active /= 2) {
    if (threadIdx.x < active) v[threadIdx.x] = __hadd2(v[threadIdx.x], v[threadIdx.x + active]);
    __syncthreads();
  }
}

__global__ void dot(const half2* a, const half2* b, float* partial, int n) {
  __shared__ half2 sums[kThreads];
  sums[threadIdx.x] = __float2half2_rn(0.f);
  half2 value = __float2half2_rn(0.f);
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    value = __hfma2(a[i], b[i], value);
  }
  sums[threadIdx.x] = value;
  __syncthreads();
  reduce_in_shared(sums);
  if (threadIdx.x == 0) {
    const half2 r = sums[0];
    partial[blockIdx.x] = __low2float(r) + __high2float(r);
  }
}

int main() {
  const int n = 1024;  // half2 pairs
  half2 ha[n], hb[n];
  for (int i = 0; i < n; ++i) {
    ha[i] = __floats2half2_rn(0.5f, 0.25f);
    hb[i] = __floats2half2_rn(0.125f, 1.0f);
  }
  half2 *a, *b;
  float* partial;
  cudaMalloc(&a, sizeof ha);
  cudaMalloc(&b, sizeof hb);
  cudaMalloc(&partial, kBlocks * sizeof(float));
  cudaMemcpy(a, ha, sizeof ha, cudaMemcpyHostToDevice);
  cudaMemcpy(b, hb, sizeof hb, cudaMemcpyHostToDevice);
  dot<<<kBlocks, kThreads>>>(a, b, partial, n);
  float hp[kBlocks];
  cudaMemcpy(hp, partial, sizeof hp, cudaMemcpyDeviceToHost);
  float total = 0;
  for (float p : hp) total += p;
  std::printf("dot product: %.1f (expected %.1f)\n", total, n * (0.5f * 0.125f + 0.25f * 1.0f));
  cudaFree(a);
  cudaFree(b);
  cudaFree(partial);
  return 0;
}
