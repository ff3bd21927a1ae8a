// What CUDA 13 removed and older books still print: cudaDeviceProp's clock rates, deviceOverlap
// and compute mode, cudaThreadSynchronize, and cudaMemAdvise/cudaMemPrefetchAsync with a device
// number. nvcc 13 refuses this program; gpulab's emulator runs it and says what replaces each.
#include <cstdio>

__global__ void fill(int* v, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) v[i] = 3 * i;
}

int main() {
  cudaDeviceProp prop;
  cudaGetDeviceProperties(&prop, 0);
  int clock_khz = 0, mode = 0;
  cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, 0);
  cudaDeviceGetAttribute(&mode, cudaDevAttrComputeMode, 0);
  printf("clockRate agrees with cudaDevAttrClockRate: %s\n",
         prop.clockRate == clock_khz ? "yes" : "no");
  printf("computeMode agrees with cudaDevAttrComputeMode: %s\n",
         prop.computeMode == mode ? "yes" : "no");
  printf("deviceOverlap agrees with asyncEngineCount: %s\n",
         (prop.deviceOverlap != 0) == (prop.asyncEngineCount > 0) ? "yes" : "no");

  const int n = 1000;
  int* v;
  cudaMallocManaged(&v, n * sizeof(int));
  cudaMemAdvise(v, n * sizeof(int), cudaMemAdviseSetPreferredLocation, 0);
  cudaMemPrefetchAsync(v, n * sizeof(int), 0);
  fill<<<(n + 127) / 128, 128>>>(v, n);
  cudaThreadSynchronize();
  int wrong = 0;
  for (int i = 0; i < n; ++i) wrong += v[i] != 3 * i;
  printf("managed memory after the kernel: %d wrong of %d\n", wrong, n);
  printf("last error: %s\n", cudaGetErrorName(cudaGetLastError()));
  cudaFree(v);
  return 0;
}
