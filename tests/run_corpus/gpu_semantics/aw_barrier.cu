// cuda::barrier and cuda::atomic_ref as NVIDIA's simpleAWBarrier uses them: each block sums a dot
// product, its threads meet at a block-scope cuda::barrier (arrive, then wait), thread 0 adds the
// block's sum into the total through cuda::atomic_ref, the grid meets at grid.sync() (a
// cooperative launch), and every thread divides its elements by the norm.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cuda/atomic>
#include <cuda/barrier>
#include <cstdio>
namespace cg = cooperative_groups;

__global__ void normalize(const float* a, const float* b, float* out, double* dot, int n) {
  __shared__ cuda::barrier<cuda::thread_scope_block> bar;
  __shared__ double warp_sums[32];
  cg::thread_block block = cg::this_thread_block();
  cg::grid_group grid = cg::this_grid();
  if (block.thread_rank() == 0) init(&bar, block.size());
  block.sync();
  double s = 0.0;
  for (unsigned long long i = grid.thread_rank(); i < n; i += grid.size()) s += a[i] * b[i];
  cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
  s = cg::reduce(warp, s, cg::plus<double>());
  if (warp.thread_rank() == 0) warp_sums[warp.meta_group_rank()] = s;
  cuda::barrier<cuda::thread_scope_block>::arrival_token token = bar.arrive();
  bar.wait(std::move(token));
  if (block.thread_rank() == 0) {
    double block_sum = 0.0;
    for (unsigned w = 0; w < warp.meta_group_size(); ++w) block_sum += warp_sums[w];
    cuda::atomic_ref<double, cuda::thread_scope_device> total(*dot);
    total.fetch_add(block_sum, cuda::memory_order_relaxed);
  }
  grid.sync();
  const double norm = sqrt(*dot);
  for (unsigned long long i = grid.thread_rank(); i < n; i += grid.size()) out[i] = a[i] / norm;
}

int main() {
  int n = 4096;
  float* h = new float[n];
  for (int i = 0; i < n; ++i) h[i] = 1.0f;
  float *a, *b, *out;
  double* dot;
  cudaMalloc(&a, n * sizeof(float));
  cudaMalloc(&b, n * sizeof(float));
  cudaMalloc(&out, n * sizeof(float));
  cudaMalloc(&dot, sizeof(double));
  cudaMemcpy(a, h, n * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(b, h, n * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemset(dot, 0, sizeof(double));
  const int threads = 128;
  int per_sm = 0, sms = 0;
  cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, normalize, threads, 0);
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  int blocks = per_sm * sms < 8 ? per_sm * sms : 8;
  void* args[] = {&a, &b, &out, &dot, &n};
  printf("launch: %s\n",
         cudaGetErrorName(cudaLaunchCooperativeKernel((void*)normalize, blocks, threads, args)));
  printf("synchronize: %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
  double d = 0.0;
  cudaMemcpy(&d, dot, sizeof d, cudaMemcpyDeviceToHost);
  cudaMemcpy(h, out, n * sizeof(float), cudaMemcpyDeviceToHost);
  printf("dot: %.1f, out[0] = %.6f, out[%d] = %.6f\n", d, h[0], n - 1, h[n - 1]);
  cudaFree(a);
  cudaFree(b);
  cudaFree(out);
  cudaFree(dot);
  delete[] h;
  return 0;
}
