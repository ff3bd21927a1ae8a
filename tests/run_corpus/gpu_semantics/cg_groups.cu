// Cooperative groups inside a warp: coalesced_threads, labeled_partition, binary_partition,
// cg::reduce and the scans, each thread's result written out and printed for a few threads.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cooperative_groups/scan.h>
#include <cstdio>
namespace cg = cooperative_groups;

constexpr int kResults = 8;

__global__ void groups(int* out) {
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
  const int t = block.thread_rank();
  int* mine = out + t * kResults;
  if (t % 2 == 1) {
    cg::coalesced_group odd = cg::coalesced_threads();
    mine[0] = odd.size() * 100 + odd.thread_rank();
    mine[1] = cg::inclusive_scan(odd, t);
  }
  cg::coalesced_group by_three = cg::labeled_partition(warp, t % 3);
  mine[2] = by_three.size() * 100 + by_three.thread_rank();
  cg::coalesced_group low = cg::binary_partition(warp, warp.thread_rank() < 10);
  mine[3] = low.size() * 100 + low.thread_rank();
  mine[4] = cg::reduce(warp, t, cg::plus<int>());
  cg::thread_block_tile<16> half = cg::tiled_partition<16>(block);
  mine[5] = cg::reduce(half, t, cg::greater<int>());
  mine[6] = cg::inclusive_scan(warp, 1);
  const int before = cg::exclusive_scan(warp, t);
  mine[7] = warp.thread_rank() == 0 ? -1 : before;  // rank 0's result is undefined in CUDA
}

int main() {
  const int threads = 64;
  int* d;
  cudaMalloc(&d, threads * kResults * sizeof(int));
  cudaMemset(d, 0, threads * kResults * sizeof(int));
  groups<<<1, threads>>>(d);
  printf("synchronize: %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
  int h[threads * kResults];
  cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
  const int shown[] = {0, 1, 5, 10, 31, 33, 63};
  for (int t : shown) {
    const int* r = h + t * kResults;
    printf("thread %2d: coalesced %d, its scan %d, by t%%3 %d, t<10 %d, sum %d, max of 16 %d, "
           "scan of 1 %d, exclusive scan %d\n",
           t, r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7]);
  }
  cudaFree(d);
  return 0;
}
