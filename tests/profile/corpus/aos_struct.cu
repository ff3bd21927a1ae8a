// Array of structures: reading one 4-byte field of 12-byte structs, consecutive threads 12 bytes apart (12 sectors per request where 4 would do).
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

struct Particle {
  float x, y, z;
};
__global__ void read_x(const Particle* p, float* out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = p[i].x;
}

int main() {
  const int n = 8192;
  std::vector<Particle> h_p(n);
  std::vector<float> h_out(n);
  for (int i = 0; i < n; ++i) h_p[i] = Particle{float(i % 1000), 1.0f, 2.0f};
  Particle* p = nullptr;
  float* out = nullptr;
  CHECK(cudaMalloc(&p, n * sizeof(Particle)));
  CHECK(cudaMalloc(&out, n * sizeof(float)));
  CHECK(cudaMemcpy(p, h_p.data(), n * sizeof(Particle), cudaMemcpyHostToDevice));
  read_x<<<n / 256, 256>>>(p, out);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(h_out.data(), out, n * sizeof(float), cudaMemcpyDeviceToHost));
  int wrong = 0;
  for (int i = 0; i < n; ++i) {
    if (h_out[i] != h_p[i].x) ++wrong;
  }
  std::printf("aos_struct: %s\n", wrong == 0 ? "ok" : "WRONG");
  CHECK(cudaFree(p));
  CHECK(cudaFree(out));
  return wrong == 0 ? 0 : 1;
}
