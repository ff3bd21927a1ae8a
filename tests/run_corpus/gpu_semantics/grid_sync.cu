// A sum over a whole grid in one launch: every block sums its part, grid.sync(), then block 0 adds
// the blocks' sums. The grid is as large as the device holds at once
// (cudaOccupancyMaxActiveBlocksPerMultiprocessor x SMs), launched with cudaLaunchCooperativeKernel;
// one block more is refused with cudaErrorCooperativeLaunchTooLarge, which is not sticky.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cstdio>
namespace cg = cooperative_groups;

__global__ void grid_sum(const float* in, float* partial, float* total, int n) {
  cg::grid_group grid = cg::this_grid();
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
  __shared__ float warp_sums[32];
  float v = 0.0f;
  for (unsigned long long i = grid.thread_rank(); i < n; i += grid.size()) v += in[i];
  v = cg::reduce(warp, v, cg::plus<float>());
  if (warp.thread_rank() == 0) warp_sums[warp.meta_group_rank()] = v;
  block.sync();
  if (block.thread_rank() == 0) {
    float s = 0.0f;
    for (unsigned w = 0; w < warp.meta_group_size(); ++w) s += warp_sums[w];
    partial[grid.block_rank()] = s;
  }
  grid.sync();
  if (grid.block_rank() == 0 && block.thread_rank() == 0) {
    float s = 0.0f;
    for (unsigned long long b = 0; b < grid.num_blocks(); ++b) s += partial[b];
    *total = s;
  }
}

int main() {
  int n = 1 << 20;
  const int threads = 256;
  cudaDeviceProp prop;
  cudaGetDeviceProperties(&prop, 0);
  printf("cooperative launch: %s\n", prop.cooperativeLaunch ? "supported" : "not supported");
  int per_sm = 0;
  cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, grid_sum, threads, 0);
  const int blocks = per_sm * prop.multiProcessorCount;
  printf("blocks per SM: %s\n", per_sm > 0 ? "at least one" : "none");

  float* h = new float[n];
  for (int i = 0; i < n; ++i) h[i] = 1.0f;
  float *in, *partial, *total;
  cudaMalloc(&in, n * sizeof(float));
  cudaMalloc(&partial, (blocks + 1) * sizeof(float));
  cudaMalloc(&total, sizeof(float));
  cudaMemcpy(in, h, n * sizeof(float), cudaMemcpyHostToDevice);
  void* args[] = {&in, &partial, &total, &n};

  cudaError_t e = cudaLaunchCooperativeKernel((void*)grid_sum, blocks, threads, args, 0, 0);
  printf("launch: %s\n", cudaGetErrorName(e));
  printf("synchronize: %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
  float sum = 0.0f;
  cudaMemcpy(&sum, total, sizeof sum, cudaMemcpyDeviceToHost);
  printf("sum: %.0f (expected %d)\n", sum, n);

  e = cudaLaunchCooperativeKernel((void*)grid_sum, blocks + 1, threads, args, 0, 0);
  printf("one block too many: %s\n", cudaGetErrorName(e));
  printf("then GetLastError: %s\n", cudaGetErrorName(cudaGetLastError()));
  printf("then synchronize: %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
  cudaFree(in);
  cudaFree(partial);
  cudaFree(total);
  delete[] h;
  return 0;
}
