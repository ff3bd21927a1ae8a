// The same two sides of an if, split by thread and split by warp: `gpulab profile branches.cu`.
#include <cstdio>
#include <vector>

// Even and odd threads of every warp go different ways: each warp runs both sides.
__global__ void by_thread(const float* in, float* out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (threadIdx.x % 2 == 0) {
    out[i] = in[i] * in[i];
  } else {
    out[i] = in[i] + 1.0f;
  }
}

// Whole warps go the same way: every warp runs one side only.
__global__ void by_warp(const float* in, float* out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if ((threadIdx.x / 32) % 2 == 0) {
    out[i] = in[i] * in[i];
  } else {
    out[i] = in[i] + 1.0f;
  }
}

int main() {
  const int n = 4096;
  std::vector<float> h_in(n), h_out(n);
  for (int i = 0; i < n; ++i) h_in[i] = float(i % 10);
  float *in, *out;
  cudaMalloc(&in, n * sizeof(float));
  cudaMalloc(&out, n * sizeof(float));
  cudaMemcpy(in, h_in.data(), n * sizeof(float), cudaMemcpyHostToDevice);
  by_thread<<<n / 256, 256>>>(in, out);
  by_warp<<<n / 256, 256>>>(in, out);
  cudaMemcpy(h_out.data(), out, n * sizeof(float), cudaMemcpyDeviceToHost);
  int wrong = 0;
  for (int i = 0; i < n; ++i)
    wrong += h_out[i] != ((i / 32) % 2 == 0 ? h_in[i] * h_in[i] : h_in[i] + 1.0f);
  std::printf("%s\n", wrong == 0 ? "correct" : "WRONG");
  cudaFree(in);
  cudaFree(out);
  return 0;
}
