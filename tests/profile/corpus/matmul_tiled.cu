// Tiled matrix product (64x64, 16x16 tiles in shared memory): coalesced global loads, no bank conflict.
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

constexpr int N = 64, TILE = 16;
__global__ void matmul_tiled(const float* a, const float* b, float* c) {
  __shared__ float as[TILE][TILE];
  __shared__ float bs[TILE][TILE];
  int tx = threadIdx.x, ty = threadIdx.y;
  int row = blockIdx.y * TILE + ty;
  int col = blockIdx.x * TILE + tx;
  float sum = 0.0f;
  for (int t = 0; t < N / TILE; ++t) {
    as[ty][tx] = a[row * N + t * TILE + tx];
    bs[ty][tx] = b[(t * TILE + ty) * N + col];
    __syncthreads();
    for (int k = 0; k < TILE; ++k) sum += as[ty][k] * bs[k][tx];
    __syncthreads();
  }
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
  matmul_tiled<<<dim3(N / TILE, N / TILE), dim3(TILE, TILE)>>>(a, b, c);
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
  std::printf("matmul_tiled: %s\n", wrong == 0 ? "ok" : "WRONG");
  CHECK(cudaFree(a));
  CHECK(cudaFree(b));
  CHECK(cudaFree(c));
  return wrong == 0 ? 0 : 1;
}
