// gpulab run's emulator throughput: the same int vector add as `gpulab vecadd`
// (kernels/vecadd.cuh), as a student would write it, timed with CUDA events (CPU time on the
// emulator); median of 7. Compare: gpulab vecadd --n 16777216 --block 256 --backend cpu --bench
#include <algorithm>
#include <cstdio>
#include <vector>

__global__ void vector_add(const int* a, const int* b, int* c, int n) {
  int tid = blockIdx.x * blockDim.x + threadIdx.x;
  if (tid < n) c[tid] = a[tid] + b[tid];
}

int main() {
  const int n = 1 << 24, block = 256, reps = 7;
  std::vector<int> h(n);
  for (int i = 0; i < n; ++i) h[i] = i % 1000;
  int *a, *b, *c;
  cudaMalloc(&a, n * sizeof(int));
  cudaMalloc(&b, n * sizeof(int));
  cudaMalloc(&c, n * sizeof(int));
  cudaMemcpy(a, h.data(), n * sizeof(int), cudaMemcpyHostToDevice);
  cudaMemcpy(b, h.data(), n * sizeof(int), cudaMemcpyHostToDevice);
  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  std::vector<float> ms(reps);
  vector_add<<<(n + block - 1) / block, block>>>(a, b, c, n);  // warm-up
  for (int r = 0; r < reps; ++r) {
    cudaEventRecord(start);
    vector_add<<<(n + block - 1) / block, block>>>(a, b, c, n);
    cudaEventRecord(stop);
    cudaEventSynchronize(stop);
    cudaEventElapsedTime(&ms[r], start, stop);
  }
  std::sort(ms.begin(), ms.end());
  cudaMemcpy(h.data(), c, n * sizeof(int), cudaMemcpyDeviceToHost);
  int wrong = 0;
  for (int i = 0; i < n; ++i) wrong += h[i] != 2 * (i % 1000);
  printf("vector_add, %d ints, blocks of %d: median %.3f ms (%.2f ns per thread), %d wrong\n", n,
         block, ms[reps / 2], ms[reps / 2] * 1e6 / n, wrong);
  cudaFree(a);
  cudaFree(b);
  cudaFree(c);
  return wrong == 0 ? 0 : 1;
}
