// Threads that wait for other threads of their block by spinning (issue 22, item 5). Since Volta a
// GPU lets every thread make progress, so each kernel finishes; a scheduler that ran a thread until
// it waits at a barrier would spin forever in each of them.
//   1. thread 0 spins on a volatile flag in shared memory that the block's last thread sets;
//   2. the same with atomicCAS, after a __syncthreads();
//   3. a ticket lock: thread t waits until it is t's turn, turns going from the last thread down;
//   4. CUDA by Example's spin lock (atomicCAS / atomicExch) held by thread 0 until all others wait.
#include <cstdio>

__global__ void volatile_flag(int* out) {
  __shared__ int flag;
  __shared__ int value;
  if (threadIdx.x == 0) flag = 0;
  __syncthreads();
  volatile int* f = &flag;
  if (threadIdx.x == 0) {
    while (*f == 0)
      ;
    out[blockIdx.x] = value;
  } else if (threadIdx.x == blockDim.x - 1) {
    value = 100 + blockIdx.x;
    __threadfence_block();
    *f = 1;
  }
}

__global__ void cas_flag(int* out) {
  __shared__ int flag;
  if (threadIdx.x == 0) flag = 0;
  __syncthreads();
  if (threadIdx.x == 0) {
    while (atomicCAS(&flag, 1, 1) != 1) {
    }
    out[blockIdx.x] = 200 + blockIdx.x;
  } else if (threadIdx.x == blockDim.x - 1) {
    atomicExch(&flag, 1);
  }
}

__global__ void reverse_turns(int* turn, int* count, int* order) {
  const int t = threadIdx.x;
  while (atomicCAS(turn, t, t) != t) {
  }
  order[atomicAdd(count, 1)] = t;
  atomicSub(turn, 1);
}

__global__ void held_lock(int* mutex, int* waiting, int* sum) {
  if (threadIdx.x == 0) {
    while (atomicCAS(mutex, 0, 1) != 0) {
    }
    while (atomicAdd(waiting, 0) != (int)blockDim.x - 1) {
      __nanosleep(100);
    }
    *sum += 1000;
    __threadfence();
    atomicExch(mutex, 0);
    return;
  }
  atomicAdd(waiting, 1);
  while (atomicCAS(mutex, 0, 1) != 0) {
  }
  *sum += threadIdx.x;
  __threadfence();
  atomicExch(mutex, 0);
}

int main() {
  const int blocks = 4, threads = 128;
  int *out, *turn, *count, *order, *mutex, *waiting, *sum;
  cudaMalloc(&out, blocks * sizeof(int));
  cudaMalloc(&turn, sizeof(int));
  cudaMalloc(&count, sizeof(int));
  cudaMalloc(&order, threads * sizeof(int));
  cudaMalloc(&mutex, sizeof(int));
  cudaMalloc(&waiting, sizeof(int));
  cudaMalloc(&sum, sizeof(int));
  int host[threads];

  volatile_flag<<<blocks, threads>>>(out);
  cudaMemcpy(host, out, blocks * sizeof(int), cudaMemcpyDeviceToHost);
  printf("volatile flag: %d %d %d %d\n", host[0], host[1], host[2], host[3]);

  cas_flag<<<blocks, threads>>>(out);
  cudaMemcpy(host, out, blocks * sizeof(int), cudaMemcpyDeviceToHost);
  printf("atomicCAS flag: %d %d %d %d\n", host[0], host[1], host[2], host[3]);

  const int last = threads - 1;
  cudaMemcpy(turn, &last, sizeof(int), cudaMemcpyHostToDevice);
  cudaMemset(count, 0, sizeof(int));
  reverse_turns<<<1, threads>>>(turn, count, order);
  cudaMemcpy(host, order, threads * sizeof(int), cudaMemcpyDeviceToHost);
  bool in_order = true;
  for (int i = 0; i < threads; ++i) in_order = in_order && host[i] == threads - 1 - i;
  printf("turns: %d threads, %s\n", threads, in_order ? "last to first" : "OUT OF ORDER");

  cudaMemset(mutex, 0, sizeof(int));
  cudaMemset(waiting, 0, sizeof(int));
  cudaMemset(sum, 0, sizeof(int));
  held_lock<<<1, threads>>>(mutex, waiting, sum);
  int s = 0;
  cudaMemcpy(&s, sum, sizeof(int), cudaMemcpyDeviceToHost);
  printf("lock: sum %d (expected %d)\n", s, 1000 + threads * (threads - 1) / 2);

  cudaError_t e = cudaDeviceSynchronize();
  printf("%s\n", cudaGetErrorName(e));
  for (int* p : {out, turn, count, order, mutex, waiting, sum}) cudaFree(p);
  return 0;
}
