// gpulab hello: every thread of every block says hello, naming its block and thread.
#pragma once
#include "kernels/prelude.cuh"

__global__ void hello_kernel() {
  // printf from a kernel lands in a buffer on the GPU; the host prints it when it synchronises.
  printf("Hello from block %u, thread %u\n", blockIdx.x, threadIdx.x);
}
