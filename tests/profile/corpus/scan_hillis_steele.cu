// Inclusive scan of each 256-element block (Hillis-Steele, double-buffered in shared memory): the first warp diverges while the offset is below 32.
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
  __shared__ float temp[2 * BLOCK];
  int tid = threadIdx.x;
  int g = blockIdx.x * BLOCK + tid;
  int pout = 0, pin = 1;
  temp[tid] = in[g];
  __syncthreads();
  for (int offset = 1; offset < BLOCK; offset *= 2) {
    pout = 1 - pout;
    pin = 1 - pout;
    if (tid >= offset)
      temp[pout * BLOCK + tid] = temp[pin * BLOCK + tid] + temp[pin * BLOCK + tid - offset];
    else
      temp[pout * BLOCK + tid] = temp[pin * BLOCK + tid];
    __syncthreads();
  }
  out[g] = temp[pout * BLOCK + tid];
}

int main() {
  const int n = 8192;
  std::vector<float> h_in(n), h_out(n);
  for (int i = 0; i < n; ++i) h_in[i] = float(i % 5);
  float *in = nullptr, *out = nullptr;
  CHECK(cudaMalloc(&in, n * sizeof(float)));
  CHECK(cudaMalloc(&out, n * sizeof(float)));
  CHECK(cudaMemcpy(in, h_in.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  scan<<<n / BLOCK, BLOCK>>>(in, out);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(h_out.data(), out, n * sizeof(float), cudaMemcpyDeviceToHost));
  int wrong = 0;
  for (int b = 0; b < n / BLOCK; ++b) {
    float sum = 0.0f;
    for (int i = 0; i < BLOCK; ++i) {
      sum += h_in[b * BLOCK + i];
      if (h_out[b * BLOCK + i] != sum) ++wrong;
    }
  }
  std::printf("scan_hillis_steele: %s\n", wrong == 0 ? "ok" : "WRONG");
  CHECK(cudaFree(in));
  CHECK(cudaFree(out));
  return wrong == 0 ? 0 : 1;
}
