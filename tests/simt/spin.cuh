// Threads that wait for another thread of their block by spinning on an atomic (issue 22, item 5):
// since Volta every thread of a GPU makes progress, so these finish there; the emulator, which
// runs a block's threads one after another, must let the others run while one spins. Plain CUDA.
#include "kernels/prelude.cuh"

// Thread 0 waits until the block's last thread has set a flag.
__global__ void wait_for_last_kernel(int* flag, int* out) {
  if (threadIdx.x == 0) {
    while (atomicCAS(flag, 1, 1) != 1) {
    }
    out[0] = out[1] + 1;
  }
  if (threadIdx.x == blockDim.x - 1) {
    out[1] = 41;
    atomicExch(flag, 1);
  }
}

// Each thread waits for its turn; turns go from the last thread to the first, and each records
// when it got in.
__global__ void reverse_turns_kernel(int* turn, int* count, int* order) {
  const int t = static_cast<int>(threadIdx.x);
  while (atomicCAS(turn, t, t) != t) {
  }
  order[atomicAdd(count, 1)] = t;
  atomicSub(turn, 1);
}

// A lock taken with atomicExch: thread 0 holds it until the last thread has arrived, and every
// other thread waits for it with __nanosleep between tries.
__global__ void exchange_lock_kernel(int* lock, int* arrived, int* out) {
  const int t = static_cast<int>(threadIdx.x);
  if (t == 0) {
    atomicExch(lock, 1);
    while (atomicCAS(arrived, static_cast<int>(blockDim.x) - 1, 0) !=
           static_cast<int>(blockDim.x) - 1) {
    }
    out[0] = 1;
    atomicExch(lock, 0);
    return;
  }
  atomicAdd(arrived, 1);
  while (atomicExch(lock, 1) != 0) __nanosleep(100);
  out[t] = out[0] + t;
  atomicExch(lock, 0);
}

// After a barrier (a kernel gpulab run turns into a coroutine), thread 0 waits for a flag in
// shared memory that the last thread sets.
__global__ void flag_after_barrier_kernel(int* out) {
  __shared__ int flag;
  __shared__ int value;
  if (threadIdx.x == 0) flag = 0;
  __syncthreads();
  if (threadIdx.x == 0) {
    while (atomicCAS(&flag, 1, 1) != 1) {
    }
    out[blockIdx.x] = value;
  } else if (threadIdx.x == blockDim.x - 1) {
    value = 42 + static_cast<int>(blockIdx.x);
    atomicExch(&flag, 1);
  }
}
