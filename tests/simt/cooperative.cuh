// Test kernels for cooperative launches (cg::this_grid().sync()): plain CUDA.
#include "kernels/prelude.cuh"
#if defined(__CUDACC__)
#include <cooperative_groups.h>
#else
#include "simt/cooperative_groups.hpp"
#endif

// Three phases between grid syncs: each block sums its slice of `in` (static shared memory),
// then every block adds all the blocks' sums into totals[block]; `changed` counts blocks whose
// static or dynamic shared memory did not survive a grid.sync(), and order[] records the order
// in which blocks arrived at the first sync (a counter).
__global__ void coop_phases(const int* in, int n, long long* partial, long long* totals,
                            int* changed, int* arrivals) {
  cooperative_groups::grid_group grid = cooperative_groups::this_grid();
  __shared__ long long sums[256];
  __shared__ unsigned mine;
  extern __shared__ int coop_dyn[];
  const unsigned t = threadIdx.x;
  if (t == 0) mine = blockIdx.x;
  coop_dyn[t] = static_cast<int>(blockIdx.x * 1000 + t);
  long long s = 0;
  for (unsigned long long i = grid.thread_rank(); i < static_cast<unsigned long long>(n);
       i += grid.size())
    s += in[i];
  sums[t] = s;
  __syncthreads();
  if (t == 0) {
    long long b = 0;
    for (unsigned i = 0; i < blockDim.x; ++i) b += sums[i];
    partial[blockIdx.x] = b;
    atomicAdd(arrivals, 1);
  }
  grid.sync();
  if (t == 0) {
    // Every block has arrived before any goes on.
    if (atomicAdd(arrivals, 0) != static_cast<int>(gridDim.x)) atomicAdd(changed, 1000000);
    long long total = 0;
    for (unsigned b = 0; b < gridDim.x; ++b) total += partial[b];
    totals[blockIdx.x] = total;
    if (mine != blockIdx.x) atomicAdd(changed, 1);
  }
  if (coop_dyn[t] != static_cast<int>(blockIdx.x * 1000 + t)) atomicAdd(changed, 1);
  grid.sync();
  grid.sync();
  if (t == 0 && mine != blockIdx.x) atomicAdd(changed, 1);
}

// Block `quitter` returns before grid.sync(): the others would wait forever on a GPU.
__global__ void coop_quitter(unsigned quitter) {
  if (blockIdx.x == quitter) return;
  cooperative_groups::this_grid().sync();
}

// Block `faulty` traps before grid.sync(), after the others have reached it.
__global__ void coop_trap(unsigned faulty) {
  if (blockIdx.x == faulty && threadIdx.x == 3) __trap();  // site:coop_trap
  cooperative_groups::this_grid().sync();
}

// A race on shared memory after a grid.sync(): thread 0 writes what thread 1 reads, with no
// barrier between them.
__global__ void coop_race(int* out) {
  __shared__ int cell;
  cooperative_groups::this_grid().sync();
  if (threadIdx.x == 0) cell = static_cast<int>(blockIdx.x);
  if (threadIdx.x == 1) out[blockIdx.x] = cell;  // site:coop_race
}
