// Runs the kernel of tests/profile/exercises/20-transpose_padded.txt (kernel.cuh, written by the
// test) once and checks its output, so that gpulab profile --require can measure its counter
// rules before the exercise engine runs it.
#include <cstdio>
#include <vector>

#include "kernel.cuh"

int main() {
  const int n = 96;
  std::vector<float> hin(n * n), hout(n * n);
  for (int i = 0; i < n * n; ++i) hin[i] = float(i);
  float *in, *out;
  cudaMalloc(&in, n * n * sizeof(float));
  cudaMalloc(&out, n * n * sizeof(float));
  cudaMemcpy(in, hin.data(), n * n * sizeof(float), cudaMemcpyHostToDevice);
  transpose<<<dim3(n / 32, n / 32), dim3(32, 32)>>>(in, out, n);
  cudaMemcpy(hout.data(), out, n * n * sizeof(float), cudaMemcpyDeviceToHost);
  int wrong = 0;
  for (int r = 0; r < n; ++r)
    for (int c = 0; c < n; ++c) wrong += hout[c * n + r] != hin[r * n + c];
  std::printf("transpose: %s\n", wrong == 0 ? "ok" : "WRONG");
  return wrong == 0 ? 0 : 1;
}
