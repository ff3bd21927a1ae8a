// Coalesced: consecutive threads read and write consecutive floats (4 sectors per request).
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

__global__ void scale(const float* in, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = 2.0f * in[i];
}

int main() {
  const int n = 8192, n_out = 8192;
  std::vector<float> h_in(n), h_out(n_out);
  for (int i = 0; i < n; ++i) h_in[i] = float(i % 1000);
  float *in = nullptr, *out = nullptr;
  CHECK(cudaMalloc(&in, n * sizeof(float)));
  CHECK(cudaMalloc(&out, n_out * sizeof(float)));
  CHECK(cudaMemcpy(in, h_in.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemset(out, 0, n_out * sizeof(float)));
  scale<<<n / 256, 256>>>(in, out, n);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(h_out.data(), out, n_out * sizeof(float), cudaMemcpyDeviceToHost));
  int wrong = 0;
  for (int i = 0; i < n_out; ++i) {
    if (!(h_out[i] == (2.0f * h_in[i]))) ++wrong;
  }
  std::printf("coalesced: %s\n", wrong == 0 ? "ok" : "WRONG");
  CHECK(cudaFree(in));
  CHECK(cudaFree(out));
  return wrong == 0 ? 0 : 1;
}
