// Partial block: 1000 elements in 4 blocks of 256; the guard idles 24 threads of the last block.
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

__global__ void add_one(const float* in, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] + 1.0f;
}

int main() {
  const int n = 1000, n_out = 1000;
  std::vector<float> h_in(n), h_out(n_out);
  for (int i = 0; i < n; ++i) h_in[i] = float(i % 1000);
  float *in = nullptr, *out = nullptr;
  CHECK(cudaMalloc(&in, n * sizeof(float)));
  CHECK(cudaMalloc(&out, n_out * sizeof(float)));
  CHECK(cudaMemcpy(in, h_in.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemset(out, 0, n_out * sizeof(float)));
  add_one<<<(n + 255) / 256, 256>>>(in, out, n);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(h_out.data(), out, n_out * sizeof(float), cudaMemcpyDeviceToHost));
  int wrong = 0;
  for (int i = 0; i < n_out; ++i) {
    if (!(h_out[i] == (h_in[i] + 1.0f))) ++wrong;
  }
  std::printf("partial_block: %s\n", wrong == 0 ? "ok" : "WRONG");
  CHECK(cudaFree(in));
  CHECK(cudaFree(out));
  return wrong == 0 ? 0 : 1;
}
