// Dynamic shared memory declared with the qualifiers in NVIDIA's samples' order (`extern double
// __shared__ sdata[]`, as reductionMultiBlockCG writes it), handed to a device function, in a
// kernel with barriers; and `extern __shared__ __align__(16) float` in a second kernel. Each block
// sums its part; checked against a float64 host sum.
#include <cstdio>

__device__ void block_sum(double* sdata) {
  for (unsigned s = blockDim.x / 2; s > 0; s /= 2) {
    if (threadIdx.x < s) sdata[threadIdx.x] += sdata[threadIdx.x + s];
    __syncthreads();
  }
}

__global__ void sums(const double* in, double* out, int n) {
  extern double __shared__ sdata[];
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  sdata[threadIdx.x] = i < n ? in[i] : 0.0;
  __syncthreads();
  block_sum(sdata);
  if (threadIdx.x == 0) out[blockIdx.x] = sdata[0];
}

__global__ void scale(float* v, float k, int n) {
  extern __shared__ __align__(16) float tile[];
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  tile[threadIdx.x] = i < n ? v[i] : 0.0f;
  __syncthreads();
  if (i < n) v[i] = tile[blockDim.x - 1 - threadIdx.x] * k;
}

int main() {
  const int n = 1000, threads = 128, blocks = (n + threads - 1) / threads;
  double h[n], parts[blocks], expected = 0;
  for (int i = 0; i < n; ++i) {
    h[i] = (i % 17) * 0.5;
    expected += h[i];
  }
  double *d_in, *d_out;
  cudaMalloc(&d_in, sizeof h);
  cudaMalloc(&d_out, sizeof parts);
  cudaMemcpy(d_in, h, sizeof h, cudaMemcpyHostToDevice);
  sums<<<blocks, threads, threads * sizeof(double)>>>(d_in, d_out, n);
  cudaMemcpy(parts, d_out, sizeof parts, cudaMemcpyDeviceToHost);
  double total = 0;
  for (int b = 0; b < blocks; ++b) total += parts[b];
  printf("sum %.1f, host %.1f: %s\n", total, expected, total == expected ? "same" : "DIFFERENT");

  float f[256];
  for (int i = 0; i < 256; ++i) f[i] = static_cast<float>(i);
  float* d_f;
  cudaMalloc(&d_f, sizeof f);
  cudaMemcpy(d_f, f, sizeof f, cudaMemcpyHostToDevice);
  scale<<<2, 128, 128 * sizeof(float)>>>(d_f, 2.0f, 256);
  cudaMemcpy(f, d_f, sizeof f, cudaMemcpyDeviceToHost);
  printf("v[0] %.0f, v[127] %.0f, v[128] %.0f\n", f[0], f[127], f[128]);
  cudaError_t e = cudaGetLastError();
  printf("%s\n", cudaGetErrorString(e));
  cudaFree(d_in);
  cudaFree(d_out);
  cudaFree(d_f);
  return 0;
}
