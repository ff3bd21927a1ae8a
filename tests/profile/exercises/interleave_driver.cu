// Runs the kernel of tests/profile/exercises/19-interleave.txt (kernel.cuh, written by the test)
// once and checks its output, so that gpulab profile --require can measure its counter rules
// before the exercise engine runs it.
#include <cstdio>
#include <vector>

#include "kernel.cuh"

int main() {
  const int n = 3000;
  std::vector<float> hx(n), hy(n), hout(2 * n);
  for (int i = 0; i < n; ++i) {
    hx[i] = float(i);
    hy[i] = float(-i);
  }
  float *x, *y, *out;
  cudaMalloc(&x, n * sizeof(float));
  cudaMalloc(&y, n * sizeof(float));
  cudaMalloc(&out, 2 * n * sizeof(float));
  cudaMemcpy(x, hx.data(), n * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(y, hy.data(), n * sizeof(float), cudaMemcpyHostToDevice);
  interleave<<<(2 * n + 255) / 256, 256>>>(x, y, out, n);
  cudaMemcpy(hout.data(), out, 2 * n * sizeof(float), cudaMemcpyDeviceToHost);
  int wrong = 0;
  for (int i = 0; i < n; ++i) wrong += hout[2 * i] != hx[i] || hout[2 * i + 1] != hy[i];
  std::printf("interleave: %s\n", wrong == 0 ? "ok" : "WRONG");
  return wrong == 0 ? 0 : 1;
}
