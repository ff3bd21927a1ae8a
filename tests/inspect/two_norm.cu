// The course notes' two-norm kernel: the squared differences in a 16 KiB shared buffer, summed by
// rows, then by one thread.
#include <cuda_runtime.h>
#include <cmath>
#include <cstdio>

__global__ void two_norm_kernel(const float* a, const float* b, float* c, int n, int m) {
  __shared__ float a_minus_b[64 * 64];
  for (int row = threadIdx.x; row < n; row += blockDim.x) {
    for (int col = 0; col < m; col++) {
      float a_ij = a[row * m + col];
      float b_ij = b[row * m + col];
      a_minus_b[row * m + col] = (a_ij - b_ij) * (a_ij - b_ij);
    }
  }
  __syncthreads();
  for (int row = threadIdx.x; row < n; row += blockDim.x) {
    for (int col = 1; col < m; col++) a_minus_b[row * m + 0] += a_minus_b[row * m + col];
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    for (int i = 1; i < n; i++) a_minus_b[0] += a_minus_b[i * m + 0];
    c[0] = sqrtf(a_minus_b[0]);
  }
}

int main() {
  const int n = 32, m = 14;
  float *a, *b, *c;
  cudaMallocManaged(&a, n * m * sizeof(float));
  cudaMallocManaged(&b, n * m * sizeof(float));
  cudaMallocManaged(&c, sizeof(float));
  double want = 0;
  for (int i = 0; i < n * m; ++i) {
    a[i] = 0.5f * static_cast<float>(i % 7);
    b[i] = 0.25f * static_cast<float>(i % 5);
    want += (a[i] - b[i]) * (a[i] - b[i]);
  }
  two_norm_kernel<<<1, 512>>>(a, b, c, n, m);
  cudaDeviceSynchronize();
  printf("%g (want %g)\n", c[0], std::sqrt(want));
  return std::fabs(c[0] - std::sqrt(want)) > 1e-3 * std::sqrt(want);
}
