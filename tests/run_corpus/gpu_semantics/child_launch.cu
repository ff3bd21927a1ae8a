// nvcc: -rdc=true
// Dynamic parallelism with CUDA 12's semantics: each block of the parent launches a child grid
// that fills the block's part; a tail launch, which runs after the parent grid and all its other
// children, sums what the children wrote; a fire-and-forget child writes a marker. Checked against
// the host after one cudaDeviceSynchronize.
#include <cstdio>

__global__ void fill(int* part, int block) {
  part[threadIdx.x] = block * 100 + threadIdx.x;
}

__global__ void sum(const int* all, int n, int* total) {
  if (threadIdx.x != 0) return;
  int s = 0;
  for (int i = 0; i < n; ++i) s += all[i];
  *total = s;
}

__global__ void mark(int* marker) {
  *marker = 7;
}

__global__ void parent(int* all, int* total, int* marker) {
  if (threadIdx.x == 0) fill<<<1, 32>>>(all + blockIdx.x * 32, blockIdx.x);
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    sum<<<1, 32, 0, cudaStreamTailLaunch>>>(all, 4 * 32, total);
    mark<<<1, 1, 0, cudaStreamFireAndForget>>>(marker);
  }
}

int main() {
  int *all, *total, *marker;
  cudaMalloc(&all, 4 * 32 * sizeof(int));
  cudaMalloc(&total, sizeof(int));
  cudaMalloc(&marker, sizeof(int));
  cudaMemset(total, 0, sizeof(int));
  cudaMemset(marker, 0, sizeof(int));
  parent<<<4, 64>>>(all, total, marker);
  printf("launch: %s\n", cudaGetErrorName(cudaGetLastError()));
  printf("synchronize: %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
  int h[4 * 32], t = 0, m = 0;
  cudaMemcpy(h, all, sizeof h, cudaMemcpyDeviceToHost);
  cudaMemcpy(&t, total, sizeof t, cudaMemcpyDeviceToHost);
  cudaMemcpy(&m, marker, sizeof m, cudaMemcpyDeviceToHost);
  int wrong = 0, expected = 0;
  for (int b = 0; b < 4; ++b) {
    for (int i = 0; i < 32; ++i) {
      wrong += h[b * 32 + i] != b * 100 + i;
      expected += b * 100 + i;
    }
  }
  printf("children: %d wrong\n", wrong);
  printf("tail launch sum %d, host %d: %s\n", t, expected, t == expected ? "same" : "DIFFERENT");
  printf("fire-and-forget marker: %d\n", m);
  cudaFree(all);
  cudaFree(total);
  cudaFree(marker);
  return 0;
}
