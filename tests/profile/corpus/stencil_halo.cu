// 1-D stencil of radius 3 through shared memory with a halo: three lanes of each block load the halo on either side.
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

constexpr int RADIUS = 3, BLOCK = 256;
__global__ void stencil(const float* in, float* out) {
  __shared__ float temp[BLOCK + 2 * RADIUS];
  int g = blockIdx.x * blockDim.x + threadIdx.x;
  int l = threadIdx.x + RADIUS;
  temp[l] = in[g + RADIUS];
  if (threadIdx.x < RADIUS) {
    temp[l - RADIUS] = in[g];
    temp[l + BLOCK] = in[g + RADIUS + BLOCK];
  }
  __syncthreads();
  float result = 0.0f;
  for (int o = -RADIUS; o <= RADIUS; ++o) result += temp[l + o];
  out[g] = result;
}

int main() {
  const int n = 8192, n_in = n + 2 * RADIUS;
  std::vector<float> h_in(n_in), h_out(n);
  for (int i = 0; i < n_in; ++i) h_in[i] = float(i % 10);
  float *in = nullptr, *out = nullptr;
  CHECK(cudaMalloc(&in, n_in * sizeof(float)));
  CHECK(cudaMalloc(&out, n * sizeof(float)));
  CHECK(cudaMemcpy(in, h_in.data(), n_in * sizeof(float), cudaMemcpyHostToDevice));
  stencil<<<n / BLOCK, BLOCK>>>(in, out);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(h_out.data(), out, n * sizeof(float), cudaMemcpyDeviceToHost));
  int wrong = 0;
  for (int i = 0; i < n; ++i) {
    float sum = 0.0f;
    for (int o = -RADIUS; o <= RADIUS; ++o) sum += h_in[i + RADIUS + o];
    if (h_out[i] != sum) ++wrong;
  }
  std::printf("stencil_halo: %s\n", wrong == 0 ? "ok" : "WRONG");
  CHECK(cudaFree(in));
  CHECK(cudaFree(out));
  return wrong == 0 ? 0 : 1;
}
