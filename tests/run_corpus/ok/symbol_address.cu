// A __device__ array reached through cudaGetSymbolAddress and plain cudaMemcpy (Professional CUDA
// C Programming's globalVariable2), and a copy "to the device" into a host array, which CUDA
// refuses. The output is an H200's.
#include <cstdio>

__device__ float values[4];
static float host_values[4];

__global__ void scale(float k) {
  values[threadIdx.x] *= k;
}

int main() {
  float* d = nullptr;
  if (cudaGetSymbolAddress(reinterpret_cast<void**>(&d), values) != cudaSuccess) return 1;
  size_t bytes = 0;
  cudaGetSymbolSize(&bytes, values);
  const float h[4] = {1.5f, -2.0f, 3.25f, 0.5f};
  cudaError_t e = cudaMemcpy(d, h, sizeof h, cudaMemcpyHostToDevice);
  printf("copy to the symbol's address: %s (%zu bytes)\n", cudaGetErrorString(e), bytes);
  scale<<<1, 4>>>(3.0f);
  float back[4] = {0, 0, 0, 0};
  e = cudaMemcpy(back, d, sizeof back, cudaMemcpyDeviceToHost);
  printf("back: %s: %.2f %.2f %.2f %.2f\n", cudaGetErrorString(e), back[0], back[1], back[2],
         back[3]);
  e = cudaMemcpy(host_values, h, sizeof h, cudaMemcpyHostToDevice);
  printf("copy \"to the device\" into a host array: %s\n", cudaGetErrorName(e));
  cudaGetLastError();
  return 0;
}
