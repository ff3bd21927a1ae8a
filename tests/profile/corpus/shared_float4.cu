// 128-bit shared accesses: a warp's float4s are served one quarter-warp at a time, 4 wavefronts without a conflict.
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

__global__ void stage_float4(const float* in, float* out) {
  __shared__ float4 s[128];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  s[threadIdx.x] = reinterpret_cast<const float4*>(in)[i];
  __syncthreads();
  reinterpret_cast<float4*>(out)[i] = s[127 - threadIdx.x];
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
  stage_float4<<<n / 4 / 128, 128>>>(in, out);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(h_out.data(), out, n_out * sizeof(float), cudaMemcpyDeviceToHost));
  int wrong = 0;
  for (int i = 0; i < n_out; ++i) {
    if (!(h_out[i] == (h_in[(i / 4) / 128 * 512 + (127 - (i / 4) % 128) * 4 + i % 4]))) ++wrong;
  }
  std::printf("shared_float4: %s\n", wrong == 0 ? "ok" : "WRONG");
  CHECK(cudaFree(in));
  CHECK(cudaFree(out));
  return wrong == 0 ? 0 : 1;
}
