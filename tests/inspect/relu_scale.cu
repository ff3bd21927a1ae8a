// The course notes' fused ReLU + scale: out = max(in, 0) * alpha, one thread per element.
#include <cuda_runtime.h>
#include <cstdio>

__global__ void fused_relu_scale_kernel(const float* in, float* out, int n, float alpha) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = fmaxf(in[i], 0.0f) * alpha;
}

int main() {
  const int n = 4096;
  float *in, *out;
  cudaMallocManaged(&in, n * sizeof(float));
  cudaMallocManaged(&out, n * sizeof(float));
  for (int i = 0; i < n; ++i) in[i] = static_cast<float>(i % 11) - 5.0f;
  fused_relu_scale_kernel<<<(n + 255) / 256, 256>>>(in, out, n, 2.0f);
  cudaDeviceSynchronize();
  int wrong = 0;
  for (int i = 0; i < n; ++i) wrong += out[i] != (in[i] > 0 ? in[i] * 2.0f : 0.0f);
  printf("%d wrong\n", wrong);
  return wrong != 0;
}
