// Doubles: a warp reads 256 contiguous bytes, 8 sectors per request, which is ideal for 8-byte accesses.
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

__global__ void scale_double(const double* in, double* out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = 2.0 * in[i];
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
  scale_double<<<n / 256, 256>>>(in, out);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(h_out.data(), out, n_out * sizeof(double), cudaMemcpyDeviceToHost));
  int wrong = 0;
  for (int i = 0; i < n_out; ++i) {
    if (!(h_out[i] == (2.0 * h_in[i]))) ++wrong;
  }
  std::printf("double_copy: %s\n", wrong == 0 ? "ok" : "WRONG");
  CHECK(cudaFree(in));
  CHECK(cudaFree(out));
  return wrong == 0 ? 0 : 1;
}
