// Test kernels with bugs a GPU would hang on or hide: plain CUDA, no namespace of their own.
// The "site:" comments mark the lines the tests expect in the reports.
#include "kernels/prelude.cuh"

__global__ void early_return_kernel(int* out) {
  if (threadIdx.x >= 16) return;
  out[threadIdx.x] = 1;
  __syncthreads();  // site:early-return
  out[threadIdx.x] = 2;
}

__global__ void two_sites_kernel(int* out) {
  if (threadIdx.x < 8) {
    out[threadIdx.x] = 1;
    __syncthreads();  // site:two-a
  } else {
    __syncthreads();  // site:two-b
  }
}

__global__ void exited_lane_kernel(int* out) {
  const int lane = static_cast<int>(threadIdx.x % 32);
  if (lane >= 16) return;
  out[threadIdx.x] = __shfl_sync(0xffffffffu, lane, 0);  // site:exited-lane
}

__global__ void shuffle_vs_barrier_kernel(int* out) {
  const int lane = static_cast<int>(threadIdx.x % 32);
  if (lane < 16) {
    out[threadIdx.x] = __shfl_sync(0xffffffffu, lane, 0);  // site:stuck-shuffle
  } else {
    __syncthreads();  // site:stuck-barrier
  }
}

__global__ void mask_mismatch_kernel(int* out) {
  if (threadIdx.x % 32 < 16) {
    __syncwarp(0x0000ffffu);
  } else {
    __syncwarp(0xffffffffu);  // site:mismatch
  }
  out[threadIdx.x] = 1;
}

__global__ void full_mask_kernel(int* out) {
  out[threadIdx.x] = __shfl_sync(0xffffffffu, static_cast<int>(threadIdx.x), 0);
}

__global__ void lane_not_in_mask_kernel(unsigned* out) {
  out[threadIdx.x] = __ballot_sync(1u, 1);  // site:not-in-mask
}

__global__ void bad_width_kernel(int* out) {
  out[threadIdx.x] = __shfl_sync(0xffffffffu, 1, 0, 6);
}

__global__ void trap_kernel(int* out) {
  out[threadIdx.x] = 1;
  if (threadIdx.x == 3) __trap();  // site:trap
}

// Only block (bx, by, bz) has threads that skip the barrier.
__global__ void fault_in_one_block_kernel(int* out, uint3 bad) {
  if (blockIdx.x == bad.x && blockIdx.y == bad.y && blockIdx.z == bad.z && threadIdx.x >= 7) return;
  __syncthreads();  // site:one-block
  out[threadIdx.x] = 1;
}

// Only block `waits` meets a barrier (all of its threads) and only block `traps` traps: every
// other block runs its threads without waiting.
__global__ void one_block_waits_kernel(int* out, int waits, int traps) {
  const int b = static_cast<int>(blockIdx.x);
  if (b == waits) __syncthreads();
  if (b == traps && threadIdx.x == 0) __trap();  // site:one-block-trap
  atomicAdd(&out[b], 1);
}
