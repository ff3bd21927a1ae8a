// Exclusive work-efficient scan of each 256-element block (Blelloch: up-sweep, down-sweep), 128 threads, two elements each: bank conflicts grow with the stride.
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

constexpr int BLOCK = 256;
__global__ void scan(const float* in, float* out) {
  __shared__ float temp[BLOCK];
  int tid = threadIdx.x;
  int base = blockIdx.x * BLOCK;
  temp[2 * tid] = in[base + 2 * tid];
  temp[2 * tid + 1] = in[base + 2 * tid + 1];
  int offset = 1;
  for (int d = BLOCK / 2; d > 0; d /= 2) {
    __syncthreads();
    if (tid < d) {
      int ai = offset * (2 * tid + 1) - 1;
      int bi = offset * (2 * tid + 2) - 1;
      temp[bi] += temp[ai];
    }
    offset *= 2;
  }
  if (tid == 0) temp[BLOCK - 1] = 0.0f;
  for (int d = 1; d < BLOCK; d *= 2) {
    offset /= 2;
    __syncthreads();
    if (tid < d) {
      int ai = offset * (2 * tid + 1) - 1;
      int bi = offset * (2 * tid + 2) - 1;
      float t = temp[ai];
      temp[ai] = temp[bi];
      temp[bi] += t;
    }
  }
  __syncthreads();
  out[base + 2 * tid] = temp[2 * tid];
  out[base + 2 * tid + 1] = temp[2 * tid + 1];
}

int main() {
  const int n = 8192;
  std::vector<float> h_in(n), h_out(n);
  for (int i = 0; i < n; ++i) h_in[i] = float(i % 5);
  float *in = nullptr, *out = nullptr;
  CHECK(cudaMalloc(&in, n * sizeof(float)));
  CHECK(cudaMalloc(&out, n * sizeof(float)));
  CHECK(cudaMemcpy(in, h_in.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  scan<<<n / BLOCK, BLOCK / 2>>>(in, out);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(h_out.data(), out, n * sizeof(float), cudaMemcpyDeviceToHost));
  int wrong = 0;
  for (int b = 0; b < n / BLOCK; ++b) {
    float sum = 0.0f;
    for (int i = 0; i < BLOCK; ++i) {
      if (h_out[b * BLOCK + i] != sum) ++wrong;
      sum += h_in[b * BLOCK + i];
    }
  }
  std::printf("scan_blelloch: %s\n", wrong == 0 ? "ok" : "WRONG");
  CHECK(cudaFree(in));
  CHECK(cudaFree(out));
  return wrong == 0 ? 0 : 1;
}
