// A tiled matrix multiply: each block stages TILE x TILE tiles of A and B in shared memory, every
// thread accumulates one element of C with fused multiply-adds.
#include <cuda_runtime.h>
#include <cstdio>

#define TILE 16

__global__ void matmul_tiled(const float* A, const float* B, float* C, int n) {
  __shared__ float As[TILE][TILE];
  __shared__ float Bs[TILE][TILE];
  int row = blockIdx.y * TILE + threadIdx.y;
  int col = blockIdx.x * TILE + threadIdx.x;
  float sum = 0.0f;
  for (int t = 0; t < (n + TILE - 1) / TILE; ++t) {
    int ac = t * TILE + threadIdx.x, br = t * TILE + threadIdx.y;
    As[threadIdx.y][threadIdx.x] = (row < n && ac < n) ? A[row * n + ac] : 0.0f;
    Bs[threadIdx.y][threadIdx.x] = (br < n && col < n) ? B[br * n + col] : 0.0f;
    __syncthreads();
    for (int k = 0; k < TILE; ++k) sum += As[threadIdx.y][k] * Bs[k][threadIdx.x];
    __syncthreads();
  }
  if (row < n && col < n) C[row * n + col] = sum;
}

int main() {
  const int n = 100;
  float *A, *B, *C;
  cudaMallocManaged(&A, n * n * sizeof(float));
  cudaMallocManaged(&B, n * n * sizeof(float));
  cudaMallocManaged(&C, n * n * sizeof(float));
  for (int i = 0; i < n * n; ++i) {
    A[i] = static_cast<float>(i % 3);
    B[i] = static_cast<float>(i % 5) - 2.0f;
  }
  dim3 block(TILE, TILE), grid((n + TILE - 1) / TILE, (n + TILE - 1) / TILE);
  matmul_tiled<<<grid, block>>>(A, B, C, n);
  cudaDeviceSynchronize();
  int wrong = 0;
  for (int r = 0; r < n; ++r) {
    for (int c = 0; c < n; ++c) {
      double want = 0;
      for (int k = 0; k < n; ++k) want += static_cast<double>(A[r * n + k]) * B[k * n + c];
      wrong += C[r * n + c] != static_cast<float>(want);
    }
  }
  printf("%d wrong\n", wrong);
  return wrong != 0;
}
