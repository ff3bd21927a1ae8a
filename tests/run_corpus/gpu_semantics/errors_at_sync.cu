// Errors arrive where CUDA says: a bad launch configuration at the launch, a fault in a kernel at
// the next call that waits for the device; the fault is sticky, later calls fail with it.
#include <cstdio>

__global__ void fill(int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = 2 * i;
}

__global__ void stop(int* out) {
  out[threadIdx.x] = 1;
  if (threadIdx.x == 3) __trap();
}

int main() {
  const int n = 256;
  int* d = nullptr;
  cudaMalloc(&d, n * sizeof(int));

  // A launch configuration error: reported at the launch, not sticky.
  fill<<<1, 2048>>>(d, n);
  printf("bad launch: GetLastError %s\n", cudaGetErrorName(cudaGetLastError()));
  printf("bad launch: GetLastError again %s\n", cudaGetErrorName(cudaGetLastError()));
  printf("bad launch: DeviceSynchronize %s\n", cudaGetErrorName(cudaDeviceSynchronize()));

  // A good launch, checked against the host.
  fill<<<(n + 127) / 128, 128>>>(d, n);
  int h[n];
  printf("good launch: Memcpy %s\n",
         cudaGetErrorName(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost)));
  int wrong = 0;
  for (int i = 0; i < n; ++i) wrong += h[i] != 2 * i;
  printf("good launch: %d wrong\n", wrong);

  // A fault in a kernel: the launch returns, the error surfaces at the synchronising call.
  stop<<<1, 32>>>(d);
  printf("fault: PeekAtLastError after launch %s\n", cudaGetErrorName(cudaPeekAtLastError()));
  printf("fault: DeviceSynchronize %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
  printf("fault: GetLastError %s\n", cudaGetErrorName(cudaGetLastError()));
  printf("fault: GetLastError again %s\n", cudaGetErrorName(cudaGetLastError()));
  printf("fault: Memcpy %s\n", cudaGetErrorName(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost)));
  int* e = nullptr;
  printf("fault: Malloc %s\n", cudaGetErrorName(cudaMalloc(&e, 16)));
  fill<<<1, 32>>>(d, n);
  printf("fault: launch then GetLastError %s\n", cudaGetErrorName(cudaGetLastError()));
  return 0;
}
