// Naive matrix product (64x64, 16x16 blocks): the row of A read by half-warps at one address each, the column of B coalesced.
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <cuda_runtime.h>

#define CHECK(call)                                                             \
  do {                                                                          \
    cudaError_t e = (call);                                                     \
    if (e != cudaSuccess) {                                                     \
      std::printf("%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); \
      return 1;                                                                 \
    }                                                                           \
  } while (0)

constexpr int N = 64;
__global__ void matmul_naive(const float* a, const float* b, float* c) {
  int row = blockIdx.y * 16 + threadIdx.y;
  int col = blockIdx.x * 16 + threadIdx.x;
  float sum = 0.0f;
  for (int k = 0; k < N; ++k) sum += a[row * N + k] * b[k * N + col];
  c[row * N + col] = sum;
}

int main() {
  const int n = N * N;
  std::vector<float> h_a(n), h_b(n), h_c(n);
  for (int i = 0; i < n; ++i) {
    h_a[i] = float(i % 5);
    h_b[i] = float(i % 3);
  }
  float *a = nullptr, *b = nullptr, *c = nullptr;
  CHECK(cudaMalloc(&a, n * sizeof(float)));
  CHECK(cudaMalloc(&b, n * sizeof(float)));
  CHECK(cudaMalloc(&c, n * sizeof(float)));
  CHECK(cudaMemcpy(a, h_a.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(b, h_b.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  matmul_naive<<<dim3(N / 16, N / 16), dim3(16, 16)>>>(a, b, c);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(h_c.data(), c, n * sizeof(float), cudaMemcpyDeviceToHost));
  int wrong = 0;
  for (int r = 0; r < N; ++r) {
    for (int col = 0; col < N; ++col) {
      float sum = 0.0f;
      for (int k = 0; k < N; ++k) sum += h_a[r * N + k] * h_b[k * N + col];
      if (h_c[r * N + col] != sum) ++wrong;
    }
  }
  std::printf("matmul_naive: %s\n", wrong == 0 ? "ok" : "WRONG");
  CHECK(cudaFree(a));
  CHECK(cudaFree(b));
  CHECK(cudaFree(c));
  return wrong == 0 ? 0 : 1;
}
