// A block sum with cooperative groups: 32-wide tiles reduce with cg::reduce, tile leaders combine
// through shared memory, and thread 0 of the block adds the block's sum atomically.
#include <cstdio>
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
namespace cg = cooperative_groups;

__global__ void block_sum(const int* in, int* out, int n) {
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
  __shared__ int tile_sums[32];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = i < n ? in[i] : 0;
  int s = cg::reduce(tile, v, cg::plus<int>());
  if (tile.thread_rank() == 0) tile_sums[tile.meta_group_rank()] = s;
  block.sync();
  if (block.thread_rank() == 0) {
    int total = 0;
    for (unsigned t = 0; t < tile.meta_group_size(); ++t) total += tile_sums[t];
    atomicAdd(out, total);
  }
}

int main() {
  const int n = 10000, threads = 192;
  int* h = new int[n];
  long long expect = 0;
  for (int i = 0; i < n; ++i) { h[i] = (i % 9) - 4 + (i % 5); expect += h[i]; }
  int *d_in, *d_out, result = 0;
  cudaMalloc(&d_in, n * sizeof(int));
  cudaMalloc(&d_out, sizeof(int));
  cudaMemcpy(d_in, h, n * sizeof(int), cudaMemcpyHostToDevice);
  cudaMemset(d_out, 0, sizeof(int));
  block_sum<<<(n + threads - 1) / threads, threads>>>(d_in, d_out, n);
  cudaMemcpy(&result, d_out, sizeof(int), cudaMemcpyDeviceToHost);
  printf("cooperative groups sum of %d ints: %d (host: %lld)\n", n, result, expect);
  cudaFree(d_in); cudaFree(d_out);
  delete[] h;
  return result == expect ? 0 : 1;
}
