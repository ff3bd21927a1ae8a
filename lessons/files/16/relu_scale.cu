// Lesson 16's kernel as a whole program: the fused ReLU + scale, y = max(x, 0) * alpha, that
// gpulab's PyTorch package registers as torch.ops.gpulab.relu_scale. One pass: x is read once
// and y written once. Run it with: gpulab run relu_scale.cu
#include <cmath>
#include <cstdio>

// One element. A NaN stays NaN, as in torch.relu; the notes' fmaxf(v, 0.0f) would give 0.
__device__ float relu_scale_one(float v, float alpha) {
  return (v > 0.0f || v != v ? v : 0.0f) * alpha;
}

// A grid-stride loop: any grid covers any n.
__global__ void relu_scale_forward(const float* x, float* y, long long n, float alpha) {
  const long long stride = (long long)gridDim.x * blockDim.x;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    y[i] = relu_scale_one(x[i], alpha);
  }
}

int main() {
  const long long n = 1000;
  const float alpha = 1.5f;
  float x[n], y[n];
  for (long long i = 0; i < n; ++i) x[i] = (float)(i % 7) - 3.0f;  // -3 .. 3
  x[0] = NAN;
  float *dx, *dy;
  cudaMalloc(&dx, sizeof x);
  cudaMalloc(&dy, sizeof y);
  cudaMemcpy(dx, x, sizeof x, cudaMemcpyHostToDevice);
  relu_scale_forward<<<2, 256>>>(dx, dy, n, alpha);  // 512 threads, 1000 elements
  cudaError_t e = cudaGetLastError();
  if (e == cudaSuccess) e = cudaMemcpy(y, dy, sizeof y, cudaMemcpyDeviceToHost);
  cudaFree(dx);
  cudaFree(dy);
  if (e != cudaSuccess) {
    std::printf("CUDA error: %s\n", cudaGetErrorString(e));
    return 1;
  }
  int wrong = 0;
  for (long long i = 0; i < n; ++i) {
    const float want = std::isnan(x[i]) ? NAN : (x[i] > 0.0f ? x[i] : 0.0f) * alpha;
    const bool same = std::isnan(want) ? std::isnan(y[i]) : y[i] == want;
    if (!same) ++wrong;
  }
  std::printf("relu_scale of %lld elements, alpha %.1f: %d wrong; y[0] = %f (x[0] is NaN)\n", n,
              alpha, wrong, y[0]);
  std::printf("y[1..6] = %.1f %.1f %.1f %.1f %.1f %.1f\n", y[1], y[2], y[3], y[4], y[5], y[6]);
  return wrong == 0 ? 0 : 1;
}
