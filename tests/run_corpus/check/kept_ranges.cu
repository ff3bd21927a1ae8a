// Bugs that the in-order check of global memory meets only after it has kept whole blocks'
// accesses as ranges (each thread of a block reading or writing the next element), for the test
// that such findings are those of the check access by access (tests/cli/test_run.cpp): the first
// thread of every block but block 0 overwrites the element that the last thread of the block
// before wrote (a race between blocks); the last element of `c` is never written, and the last
// thread reads it. Then a smoothing kernel whose threads read their neighbours (reads of one
// element by several threads and blocks, kept as ranges that only reads touched) and double an
// element of their own in place (a read and a write by one thread), while one thread of block 200
// writes an element that threads 43, 44 and 45 of block 1 read: the race is with the last of those
// reads, thread 45's.
#include <cstdio>

__global__ void fill(float* c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n - 1) c[i] = 1.0f;
}

__global__ void shift(const float* a, float* b, const float* c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  b[i] = a[i] + c[i];
  if (threadIdx.x == 0 && blockIdx.x > 0) b[i - 1] = 0.0f;
}

__global__ void smooth(const float* in, float* out, float* own, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i <= 0 || i >= n - 1) return;
  out[i] = in[i - 1] + in[i] + in[i + 1];
  own[i] = 2.0f * own[i];
  if (blockIdx.x == 200 && threadIdx.x == 7) const_cast<float*>(in)[300] = 0.0f;
}

int main() {
  const int n = 1 << 16;
  float *a, *b, *c;
  cudaMalloc(&a, n * sizeof(float));
  cudaMalloc(&b, n * sizeof(float));
  cudaMalloc(&c, n * sizeof(float));
  cudaMemset(a, 0, n * sizeof(float));
  fill<<<n / 256, 256>>>(c, n);
  shift<<<n / 256, 256>>>(a, b, c, n);
  smooth<<<n / 256, 256>>>(a, b, c, n);
  cudaDeviceSynchronize();
  printf("done\n");
  cudaFree(a);
  cudaFree(b);
  cudaFree(c);
  return 0;
}
