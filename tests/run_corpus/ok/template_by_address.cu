// A kernel template launched by address, as the OLCF training series' cooperative remove_if does:
// cudaLaunchKernel and cudaLaunchCooperativeKernel with (void*)kernel<T> and &kernel<T, N>. The
// .out is the GPU's output.
#include <cooperative_groups.h>
#include <cstdio>

namespace cg = cooperative_groups;

template <typename T>
__global__ void scale(T* data, T k, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] *= k;
}

// Every block adds its sum to a total, then after the grid-wide barrier block 0 writes it out.
template <typename T, int Block>
__global__ void grid_total(const T* data, T* total, T* out, int n) {
  __shared__ T partial[Block];
  T sum = 0;
  for (int i = blockIdx.x * Block + threadIdx.x; i < n; i += gridDim.x * Block) sum += data[i];
  partial[threadIdx.x] = sum;
  __syncthreads();
  if (threadIdx.x == 0) {
    T block_sum = 0;
    for (int t = 0; t < Block; ++t) block_sum += partial[t];
    atomicAdd(total, block_sum);
  }
  cg::this_grid().sync();
  if (blockIdx.x == 0 && threadIdx.x == 0) *out = *total;
}

int main() {
  const int n = 1000;
  int* d = nullptr;
  int *total = nullptr, *out = nullptr;
  cudaMalloc(&d, n * sizeof(int));
  cudaMalloc(&total, sizeof(int));
  cudaMalloc(&out, sizeof(int));
  int h[n];
  for (int i = 0; i < n; ++i) h[i] = i % 7;
  cudaMemcpy(d, h, sizeof h, cudaMemcpyHostToDevice);
  cudaMemset(total, 0, sizeof(int));
  int k = 3, count = n;
  void* scale_args[] = {&d, &k, &count};
  const dim3 grid((n + 127) / 128);
  cudaError_t e = cudaLaunchKernel((void*)scale<int>, grid, dim3(128), scale_args, 0, 0);
  std::printf("cudaLaunchKernel((void*)scale<int>): %s\n", cudaGetErrorName(e));
  void* total_args[] = {&d, &total, &out, &count};
  e = cudaLaunchCooperativeKernel(reinterpret_cast<void*>(&grid_total<int, 64>), dim3(4), dim3(64),
                                  total_args, 0, 0);
  std::printf("cudaLaunchCooperativeKernel(&grid_total<int, 64>): %s\n", cudaGetErrorName(e));
  int result = 0;
  cudaMemcpy(&result, out, sizeof result, cudaMemcpyDeviceToHost);
  long expected = 0;
  for (int i = 0; i < n; ++i) expected += 3 * (i % 7);
  std::printf("total %d, expected %ld\n", result, expected);
  cudaFree(d);
  cudaFree(total);
  cudaFree(out);
  return result == expected ? 0 : 1;
}
