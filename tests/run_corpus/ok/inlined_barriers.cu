// Device functions that wait at the block's barrier, called by kernels: the emulator inlines them
// into the kernel (region loops), and must give what a GPU gives. Each kernel is one a careless
// inlining would get wrong.
#include <cooperative_groups.h>
#include <cstdio>
namespace cg = cooperative_groups;

// A Hillis-Steele inclusive scan of the block, as NVIDIA's scan sample writes it: the bound a
// parameter, the position and the sum each thread's own across the barriers.
__device__ unsigned scan_block(unsigned v, volatile unsigned* s, unsigned size,
                               cg::thread_block b) {
  unsigned pos = 2 * threadIdx.x - (threadIdx.x & (size - 1));
  s[pos] = 0;
  pos += size;
  s[pos] = v;
  for (unsigned offset = 1; offset < size; offset <<= 1) {
    cg::sync(b);
    unsigned t = s[pos] + s[pos - offset];
    cg::sync(b);
    s[pos] = t;
  }
  return s[pos];
}

// Its exclusive form, a call inside a return.
__device__ unsigned exclusive_block(unsigned v, volatile unsigned* s, unsigned size,
                                    cg::thread_block b) {
  return scan_block(v, s, size, b) - v;
}

// `pos` here and `pos` in the kernel are two variables.
__global__ void scan_kernel(const unsigned* in, unsigned* out, unsigned size) {
  cg::thread_block block = cg::this_thread_block();
  __shared__ unsigned s[2 * 128];
  const unsigned pos = blockIdx.x * blockDim.x + threadIdx.x;
  const unsigned v = in[pos];
  const unsigned x = exclusive_block(v, s, size, block);
  out[pos] = x + 1000 * (pos % 2);
}

// A parameter the function changes, each thread its own, on both sides of a barrier; called
// twice in one kernel.
__device__ int rotate(cg::thread_block g, int* t, int v) {
  t[g.thread_rank()] = v;
  g.sync();
  v += t[(g.thread_rank() + 1) % g.size()];
  g.sync();
  return v;
}
__global__ void twice(int* out) {
  __shared__ int t[64];
  cg::thread_block g = cg::this_thread_block();
  int a = rotate(g, t, threadIdx.x);
  out[threadIdx.x] = rotate(g, t, a * 10);
}

// A global the function reads, and a local of the kernel of the same name: the function's name
// is the global.
__device__ int scale = 3;
__device__ int scaled(cg::thread_block g, int* t, int v) {
  t[threadIdx.x] = v * scale;
  g.sync();
  return t[63 - threadIdx.x];
}
__global__ void shadowed(int* out) {
  __shared__ int t[64];
  cg::thread_block g = cg::this_thread_block();
  const int scale = 100;
  out[threadIdx.x] = scaled(g, t, threadIdx.x) + scale;
}

// A macro that names the function's local, and a local of that name in the kernel.
#define AT(i) t[base + (i)]
__device__ int through_macro(cg::thread_block g, int* t) {
  const int base = 1;
  AT(threadIdx.x) = threadIdx.x;
  g.sync();
  return AT(0);
}
__global__ void macro_local(int* out) {
  __shared__ int t[65];
  cg::thread_block g = cg::this_thread_block();
  const int base = 7;
  out[threadIdx.x] = through_macro(g, t) + base;
}

int main() {
  unsigned *in, *uout;
  int* out;
  cudaMallocManaged(&in, 512 * sizeof(unsigned));
  cudaMallocManaged(&uout, 512 * sizeof(unsigned));
  cudaMallocManaged(&out, 64 * sizeof(int));
  for (int i = 0; i < 512; ++i) in[i] = i % 7 + 1;

  scan_kernel<<<4, 128>>>(in, uout, 128);
  cudaDeviceSynchronize();
  printf("scan_kernel: %u %u %u %u %u\n", uout[0], uout[1], uout[127], uout[128], uout[511]);

  twice<<<1, 64>>>(out);
  cudaDeviceSynchronize();
  printf("twice: %d %d %d\n", out[0], out[1], out[63]);

  shadowed<<<1, 64>>>(out);
  cudaDeviceSynchronize();
  printf("shadowed: %d %d\n", out[0], out[63]);

  macro_local<<<1, 64>>>(out);
  cudaDeviceSynchronize();
  printf("macro_local: %d %d\n", out[0], out[63]);

  cudaFree(in);
  cudaFree(uout);
  cudaFree(out);
  return 0;
}
