// Barriers every thread of a block reaches because their condition is the block's own (blockIdx),
// and cooperative groups' block sync: gpulab run runs these kernels as region loops
// (docs/simt.md, "Region loops"). Each result is compared with the host's.
// With arguments N LAUNCHES it also times LAUNCHES launches of each kernel over N values
// (docs/performance.md, "Kernels in headers, barriers under a block's condition, a block group's
// sync").
#include <cooperative_groups.h>

#include <cstdio>
#include <cstdlib>

namespace cg = cooperative_groups;

#define BINS 16
#define BLOCK 128

// Counts of values by bin, each block's counted in shared memory first. Even blocks also keep
// their counts in their row of `rows`; odd blocks clear theirs. The barrier stands in each branch
// of a condition on the block alone.
__global__ void bin_counts(const unsigned* values, unsigned n, unsigned* rows, unsigned* total) {
  __shared__ unsigned counts[BINS];
  for (unsigned b = threadIdx.x; b < BINS; b += blockDim.x) counts[b] = 0;
  __syncthreads();
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(&counts[values[i] % BINS], 1u);
  if (blockIdx.x % 2 == 0) {
    __syncthreads();
    for (unsigned b = threadIdx.x; b < BINS; b += blockDim.x) {
      rows[blockIdx.x * BINS + b] = counts[b];
    }
  } else {
    for (unsigned b = threadIdx.x; b < BINS; b += blockDim.x) rows[blockIdx.x * BINS + b] = 0;
    __syncthreads();
  }
  for (unsigned b = threadIdx.x; b < BINS; b += blockDim.x) {
    if (counts[b] > 0) atomicAdd(&total[b], counts[b]);
  }
}

// An inclusive scan of each block's BLOCK values (Hillis and Steele, two buffers), the block
// waiting through its cooperative group.
__global__ void block_scan(const unsigned* in, unsigned* out, unsigned n) {
  cg::thread_block block = cg::this_thread_block();
  __shared__ unsigned buf[2][BLOCK];
  const unsigned t = threadIdx.x;
  const unsigned i = blockIdx.x * BLOCK + t;
  buf[0][t] = i < n ? in[i] : 0;
  block.sync();
  int from = 0;
  for (unsigned offset = 1; offset < BLOCK; offset *= 2) {
    buf[1 - from][t] = t >= offset ? buf[from][t] + buf[from][t - offset] : buf[from][t];
    cg::sync(block);
    from = 1 - from;
  }
  if (i < n) out[i] = buf[from][t];
}

// Every block after the first adds the sum of the blocks before it (sums[b]: blocks 0..b); the
// first adds nothing and does not wait.
__global__ void add_block_sums(unsigned* out, const unsigned* sums, unsigned n) {
  __shared__ unsigned base;
  if (threadIdx.x == 0 && blockIdx.x > 0) base = sums[blockIdx.x - 1];
  if (blockIdx.x > 0) cg::this_thread_block().sync();
  const unsigned i = blockIdx.x * BLOCK + threadIdx.x;
  if (i < n && blockIdx.x > 0) out[i] += base;
}

// Milliseconds a launch of `launch()`, over `launches` launches.
template <class Launch>
float time_launches(int launches, Launch launch) {
  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  cudaEventRecord(start);
  for (int k = 0; k < launches; ++k) launch();
  cudaEventRecord(stop);
  cudaEventSynchronize(stop);
  float ms = 0;
  cudaEventElapsedTime(&ms, start, stop);
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  return ms / launches;
}

int main(int argc, char** argv) {
  // Not a multiple of the block.
  const unsigned n = argc > 2 ? static_cast<unsigned>(std::atoi(argv[1])) : 5000;
  const int launches = argc > 2 ? std::atoi(argv[2]) : 0;
  const unsigned blocks = (n + BLOCK - 1) / BLOCK;
  unsigned *values, *rows, *total, *scan, *sums;
  cudaMallocManaged(&values, n * sizeof(unsigned));
  cudaMallocManaged(&rows, blocks * BINS * sizeof(unsigned));
  cudaMallocManaged(&total, BINS * sizeof(unsigned));
  cudaMallocManaged(&scan, n * sizeof(unsigned));
  cudaMallocManaged(&sums, blocks * sizeof(unsigned));
  for (unsigned k = 0; k < n; ++k) values[k] = (k * 2654435761u) >> 7;
  cudaMemset(total, 0, BINS * sizeof(unsigned));
  bin_counts<<<blocks, BLOCK>>>(values, n, rows, total);
  cudaDeviceSynchronize();
  {
    unsigned want[BINS] = {};
    int wrong = 0;
    for (unsigned k = 0; k < n; ++k) ++want[values[k] % BINS];
    for (unsigned b = 0; b < BINS; ++b) wrong += total[b] != want[b];
    for (unsigned blk = 0; blk < blocks; ++blk) {
      unsigned row[BINS] = {};
      if (blk % 2 == 0) {
        for (unsigned k = blk * BLOCK; k < n && k < (blk + 1) * BLOCK; ++k) ++row[values[k] % BINS];
      }
      for (unsigned b = 0; b < BINS; ++b) wrong += rows[blk * BINS + b] != row[b];
    }
    std::printf("bin_counts: %s\n", wrong == 0 ? "ok" : "WRONG");
  }
  for (unsigned k = 0; k < n; ++k) values[k] %= 1000;
  block_scan<<<blocks, BLOCK>>>(values, scan, n);
  cudaDeviceSynchronize();
  unsigned running = 0;
  for (unsigned blk = 0; blk < blocks; ++blk) {
    const unsigned last = blk * BLOCK + BLOCK - 1 < n ? blk * BLOCK + BLOCK - 1 : n - 1;
    running += scan[last];
    sums[blk] = running;
  }
  add_block_sums<<<blocks, BLOCK>>>(scan, sums, n);
  cudaDeviceSynchronize();
  {
    int wrong = 0;
    unsigned want = 0;
    for (unsigned k = 0; k < n; ++k) {
      want += values[k];
      wrong += scan[k] != want;
    }
    std::printf("scan: %s (last %u)\n", wrong == 0 ? "ok" : "WRONG", scan[n - 1]);
  }
  if (launches > 0) {
    const float counts =
        time_launches(launches, [&] { bin_counts<<<blocks, BLOCK>>>(values, n, rows, total); });
    const float scans =
        time_launches(launches, [&] { block_scan<<<blocks, BLOCK>>>(values, scan, n); });
    const float adds =
        time_launches(launches, [&] { add_block_sums<<<blocks, BLOCK>>>(scan, sums, n); });
    std::printf(
        "%u values, %d launches each: bin_counts %.3f ms, block_scan %.3f ms, "
        "add_block_sums %.3f ms a launch\n",
        n, launches, counts, scans, adds);
  }
  cudaFree(values);
  cudaFree(rows);
  cudaFree(total);
  cudaFree(scan);
  cudaFree(sums);
  return 0;
}
