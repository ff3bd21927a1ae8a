// __constant__ coefficients set with cudaMemcpyToSymbol, a __device__ counter read back with
// cudaMemcpyFromSymbol, a kernel with a default argument, and events around the launch.
#include <cstdio>

__constant__ float coeff[4];
__device__ unsigned int calls;

__global__ void poly(const float* x, float* y, int n, float scale = 1.0f) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float v = x[i];
    y[i] = scale * (coeff[0] + v * (coeff[1] + v * (coeff[2] + v * coeff[3])));
    atomicAdd(&calls, 1u);
  }
}

int main() {
  const int n = 300;
  float hx[n], hy[n];
  for (int i = 0; i < n; ++i) hx[i] = i * 0.01f;
  const float c[4] = {1.0f, -2.0f, 0.5f, 0.25f};
  cudaMemcpyToSymbol(coeff, c, sizeof c);
  float *x, *y;
  cudaMalloc(&x, sizeof hx);
  cudaMalloc(&y, sizeof hy);
  cudaMemcpy(x, hx, sizeof hx, cudaMemcpyHostToDevice);
  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  cudaEventRecord(start);
  poly<<<(n + 127) / 128, 128>>>(x, y, n);
  cudaEventRecord(stop);
  cudaEventSynchronize(stop);
  float ms = -1;
  cudaError_t timing = cudaEventElapsedTime(&ms, start, stop);
  unsigned int counted = 0;
  cudaMemcpyFromSymbol(&counted, calls, sizeof counted);
  cudaMemcpy(hy, y, sizeof hy, cudaMemcpyDeviceToHost);
  int wrong = 0;
  for (int i = 0; i < n; ++i) {
    float v = hx[i];
    float ref = c[0] + v * (c[1] + v * (c[2] + v * c[3]));
    wrong += fabsf(hy[i] - ref) > 1e-4f * (1 + fabsf(ref));
  }
  printf("poly: %d wrong of %d, %u kernel calls counted, event timing %s\n", wrong, n, counted,
         timing == cudaSuccess && ms >= 0 ? "ok" : "failed");
  cudaEventDestroy(start); cudaEventDestroy(stop);
  cudaFree(x); cudaFree(y);
  return wrong == 0 && counted == n ? 0 : 1;
}
