// 64-bit shared reads with a stride of 2 doubles: each half-warp needs 32 words from 16 banks, a 2-way conflict.
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

__global__ void read_double_stride2(const double* in, double* out) {
  __shared__ double s[512];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  double v = in[i];
  s[threadIdx.x] = v;
  s[threadIdx.x + 256] = v;
  __syncthreads();
  out[i] = s[2 * threadIdx.x];
}

int main() {
  const int n = 8192, n_out = 8192;
  std::vector<double> h_in(n), h_out(n_out);
  for (int i = 0; i < n; ++i) h_in[i] = double(i % 1000);
  double *in = nullptr, *out = nullptr;
  CHECK(cudaMalloc(&in, n * sizeof(double)));
  CHECK(cudaMalloc(&out, n_out * sizeof(double)));
  CHECK(cudaMemcpy(in, h_in.data(), n * sizeof(double), cudaMemcpyHostToDevice));
  CHECK(cudaMemset(out, 0, n_out * sizeof(double)));
  read_double_stride2<<<n / 256, 256>>>(in, out);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(h_out.data(), out, n_out * sizeof(double), cudaMemcpyDeviceToHost));
  int wrong = 0;
  for (int i = 0; i < n_out; ++i) {
    if (!(h_out[i] == (h_in[(i / 256) * 256 + (2 * (i % 256)) % 256]))) ++wrong;
  }
  std::printf("shared_double_conflict: %s\n", wrong == 0 ? "ok" : "WRONG");
  CHECK(cudaFree(in));
  CHECK(cudaFree(out));
  return wrong == 0 ? 0 : 1;
}
