// A stack on the device heap, in the shape of NVIDIA's newdelete sample: one kernel creates it
// with new, blocks push to it and threads pop from it with atomics, a last kernel deletes it; and
// each thread of another kernel mallocs, fills and frees a buffer of its own. Memory a kernel
// allocates is device memory: --check must not call it host memory.
#include <cstdio>

class Stack {
 public:
  __device__ explicit Stack(int capacity)
      : capacity_(capacity), top_(0), data_(new int[capacity]) {}
  __device__ ~Stack() { delete[] data_; }
  __device__ bool push(int v) {
    const int at = atomicAdd(&top_, 1);
    if (at >= capacity_) return false;
    data_[at] = v;
    return true;
  }
  __device__ bool pop(int& v) {
    const int at = atomicSub(&top_, 1) - 1;
    if (at < 0) return false;
    v = data_[at];
    return true;
  }

 private:
  int capacity_;
  int top_;
  int* data_;
};

__global__ void create(Stack** stack, int capacity) { *stack = new Stack(capacity); }

__global__ void fill(Stack** stack) {
  if (threadIdx.x == 0) (*stack)->push(blockIdx.x);
}

__global__ void consume(Stack** stack, int* out) {
  int v = -1;
  out[threadIdx.x] = (*stack)->pop(v) ? v : -1;
}

__global__ void destroy(Stack** stack) { delete *stack; }

__global__ void scratch(int* sums) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  int* buffer = static_cast<int*>(malloc(8 * sizeof(int)));
  int sum = 0;
  for (int i = 0; i < 8; ++i) buffer[i] = t * i;
  for (int i = 0; i < 8; ++i) sum += buffer[i];
  free(buffer);
  sums[t] = sum;
}

int main() {
  constexpr int kBlocks = 16, kThreads = 64;
  Stack** stack;
  int* out;
  int* sums;
  cudaMalloc(&stack, sizeof(Stack*));
  cudaMalloc(&out, kThreads * sizeof(int));
  cudaMalloc(&sums, kThreads * sizeof(int));
  create<<<1, 1>>>(stack, kBlocks);
  fill<<<kBlocks, 32>>>(stack);
  consume<<<1, kThreads>>>(stack, out);
  destroy<<<1, 1>>>(stack);
  scratch<<<2, kThreads / 2>>>(sums);
  int h_out[kThreads], h_sums[kThreads];
  cudaMemcpy(h_out, out, sizeof h_out, cudaMemcpyDeviceToHost);
  cudaMemcpy(h_sums, sums, sizeof h_sums, cudaMemcpyDeviceToHost);
  int popped = 0, total = 0, empty = 0;
  for (int v : h_out) {
    if (v < 0) {
      ++empty;
    } else {
      ++popped;
      total += v;
    }
  }
  long long scratch_total = 0;
  for (int s : h_sums) scratch_total += s;
  std::printf("popped %d values summing to %d; %d threads found the stack empty\n", popped, total,
              empty);
  std::printf("scratch buffers: %lld (expected %lld)\n", scratch_total,
              28LL * (kThreads - 1) * kThreads / 2);
  cudaFree(stack);
  cudaFree(out);
  cudaFree(sums);
  return 0;
}
