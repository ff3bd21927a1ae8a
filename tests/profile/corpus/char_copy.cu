// One byte per thread: a warp's 32 bytes fill one sector, so 1 sector per request is ideal.
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

__global__ void copy_bytes(const unsigned char* in, unsigned char* out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = in[i] + 1;
}

int main() {
  const int n = 8192, n_out = 8192;
  std::vector<unsigned char> h_in(n), h_out(n_out);
  for (int i = 0; i < n; ++i) h_in[i] = static_cast<unsigned char>(i % 200);
  unsigned char *in = nullptr, *out = nullptr;
  CHECK(cudaMalloc(&in, n * sizeof(unsigned char)));
  CHECK(cudaMalloc(&out, n_out * sizeof(unsigned char)));
  CHECK(cudaMemcpy(in, h_in.data(), n * sizeof(unsigned char), cudaMemcpyHostToDevice));
  CHECK(cudaMemset(out, 0, n_out * sizeof(unsigned char)));
  copy_bytes<<<n / 256, 256>>>(in, out);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(h_out.data(), out, n_out * sizeof(unsigned char), cudaMemcpyDeviceToHost));
  int wrong = 0;
  for (int i = 0; i < n_out; ++i) {
    if (!(h_out[i] == ((unsigned char)(h_in[i] + 1)))) ++wrong;
  }
  std::printf("char_copy: %s\n", wrong == 0 ? "ok" : "WRONG");
  CHECK(cudaFree(in));
  CHECK(cudaFree(out));
  return wrong == 0 ? 0 : 1;
}
