// Histogram of bytes with shared-memory atomics: a private histogram per block, added to the global one at the end.
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

__global__ void histogram(const unsigned char* data, unsigned int* bins) {
  __shared__ unsigned int local[256];
  local[threadIdx.x] = 0;
  __syncthreads();
  atomicAdd(&local[data[blockIdx.x * blockDim.x + threadIdx.x]], 1u);
  __syncthreads();
  atomicAdd(&bins[threadIdx.x], local[threadIdx.x]);
}

int main() {
  const int n = 8192;
  std::vector<unsigned char> h_data(n);
  std::vector<unsigned int> h_bins(256), expect(256, 0);
  for (int i = 0; i < n; ++i) {
    h_data[i] = static_cast<unsigned char>((i * 7) % 251);
    ++expect[h_data[i]];
  }
  unsigned char* data = nullptr;
  unsigned int* bins = nullptr;
  CHECK(cudaMalloc(&data, n));
  CHECK(cudaMalloc(&bins, 256 * sizeof(unsigned int)));
  CHECK(cudaMemcpy(data, h_data.data(), n, cudaMemcpyHostToDevice));
  CHECK(cudaMemset(bins, 0, 256 * sizeof(unsigned int)));
  histogram<<<n / 256, 256>>>(data, bins);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(h_bins.data(), bins, 256 * sizeof(unsigned int), cudaMemcpyDeviceToHost));
  int wrong = 0;
  for (int b = 0; b < 256; ++b) {
    if (h_bins[b] != expect[b]) ++wrong;
  }
  std::printf("histogram_shared: %s\n", wrong == 0 ? "ok" : "WRONG");
  CHECK(cudaFree(data));
  CHECK(cudaFree(bins));
  return wrong == 0 ? 0 : 1;
}
