// 64-bit shared accesses: a warp's doubles are served one half-warp at a time, 2 wavefronts without a conflict.
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

__global__ void stage_double(const double* in, double* out) {
  __shared__ double s[256];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  s[threadIdx.x] = in[i];
  __syncthreads();
  out[i] = 2.0 * s[255 - threadIdx.x];
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
  stage_double<<<n / 256, 256>>>(in, out);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(h_out.data(), out, n_out * sizeof(double), cudaMemcpyDeviceToHost));
  int wrong = 0;
  for (int i = 0; i < n_out; ++i) {
    if (!(h_out[i] == (2.0 * h_in[i / 256 * 256 + 255 - i % 256]))) ++wrong;
  }
  std::printf("shared_double: %s\n", wrong == 0 ? "ok" : "WRONG");
  CHECK(cudaFree(in));
  CHECK(cudaFree(out));
  return wrong == 0 ? 0 : 1;
}
