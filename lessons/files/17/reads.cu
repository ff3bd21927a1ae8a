// Contiguous and strided reads of the same amount of data: run it with `gpulab profile reads.cu`.
#include <cstdio>
#include <vector>

// Thread i reads element i: a warp reads 32 neighbouring floats.
__global__ void contiguous(const float* in, float* out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = in[i] * 2.0f;
}

// Thread i reads element i * 32: neighbouring threads are 128 bytes apart.
__global__ void strided(const float* in, float* out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = in[i * 32] * 2.0f;
}

int main() {
  const int n = 8192;  // threads, and elements written
  std::vector<float> h_in(n * 32), h_out(n);
  for (int i = 0; i < n * 32; ++i) h_in[i] = float(i % 100);
  float *in, *out;
  cudaMalloc(&in, n * 32 * sizeof(float));
  cudaMalloc(&out, n * sizeof(float));
  cudaMemcpy(in, h_in.data(), n * 32 * sizeof(float), cudaMemcpyHostToDevice);
  contiguous<<<n / 256, 256>>>(in, out);
  cudaMemcpy(h_out.data(), out, n * sizeof(float), cudaMemcpyDeviceToHost);
  int wrong = 0;
  for (int i = 0; i < n; ++i) wrong += h_out[i] != h_in[i] * 2.0f;
  strided<<<n / 256, 256>>>(in, out);
  cudaMemcpy(h_out.data(), out, n * sizeof(float), cudaMemcpyDeviceToHost);
  for (int i = 0; i < n; ++i) wrong += h_out[i] != h_in[i * 32] * 2.0f;
  std::printf("%s\n", wrong == 0 ? "both correct" : "WRONG");
  cudaFree(in);
  cudaFree(out);
  return 0;
}
