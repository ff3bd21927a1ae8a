// Naive transpose of a 64x64 matrix: reads along rows (4 sectors per request), writes down columns (32).
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
__global__ void transpose_naive(const float* in, float* out) {
  int x = blockIdx.x * 32 + threadIdx.x;
  int y = blockIdx.y * 32 + threadIdx.y;
  out[x * N + y] = in[y * N + x];
}

int main() {
  const int n = N * N, n_out = N * N;
  std::vector<float> h_in(n), h_out(n_out);
  for (int i = 0; i < n; ++i) h_in[i] = float(i % 1000);
  float *in = nullptr, *out = nullptr;
  CHECK(cudaMalloc(&in, n * sizeof(float)));
  CHECK(cudaMalloc(&out, n_out * sizeof(float)));
  CHECK(cudaMemcpy(in, h_in.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemset(out, 0, n_out * sizeof(float)));
  transpose_naive<<<dim3(N / 32, N / 32), dim3(32, 32)>>>(in, out);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(h_out.data(), out, n_out * sizeof(float), cudaMemcpyDeviceToHost));
  int wrong = 0;
  for (int i = 0; i < n_out; ++i) {
    if (!(h_out[i] == (h_in[(i % N) * N + i / N]))) ++wrong;
  }
  std::printf("transpose_naive: %s\n", wrong == 0 ? "ok" : "WRONG");
  CHECK(cudaFree(in));
  CHECK(cudaFree(out));
  return wrong == 0 ? 0 : 1;
}
