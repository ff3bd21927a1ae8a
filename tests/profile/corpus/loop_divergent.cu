// A loop whose trip count depends on the lane (1 to 4 times): the warp runs it 4 times with fewer lanes each time.
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

constexpr int N = 8192;
__global__ void sum_rows(const float* in, float* out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = 0.0f;
  for (int k = 0; k <= threadIdx.x % 4; ++k) v += in[k * N + i];
  out[i] = v;
}

int main() {
  const int n = 4 * N, n_out = N;
  std::vector<float> h_in(n), h_out(n_out);
  for (int i = 0; i < n; ++i) h_in[i] = float(i % 1000);
  float *in = nullptr, *out = nullptr;
  CHECK(cudaMalloc(&in, n * sizeof(float)));
  CHECK(cudaMalloc(&out, n_out * sizeof(float)));
  CHECK(cudaMemcpy(in, h_in.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemset(out, 0, n_out * sizeof(float)));
  sum_rows<<<N / 256, 256>>>(in, out);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(h_out.data(), out, n_out * sizeof(float), cudaMemcpyDeviceToHost));
  int wrong = 0;
  for (int i = 0; i < n_out; ++i) {
    float sum = 0.0f;
    for (int k = 0; k <= i % 4; ++k) sum += h_in[k * N + i];
    if (!(h_out[i] == sum)) ++wrong;
  }
  std::printf("loop_divergent: %s\n", wrong == 0 ? "ok" : "WRONG");
  CHECK(cudaFree(in));
  CHECK(cudaFree(out));
  return wrong == 0 ? 0 : 1;
}
