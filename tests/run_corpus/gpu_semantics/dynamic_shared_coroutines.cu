// Dynamic shared memory (`extern __shared__`) in kernels that run as coroutines: a block reduction
// that ends with the last warp's steps written warp-synchronously through a volatile pointer (as
// Professional CUDA C Programming's reduceSmemDyn does), and one that ends with
// __shfl_down_sync. Both must be transformed (not compiled as written) and give the host's sums;
// --check names the volatile steps' race between lanes of one warp.
#include <cstdio>
#include <cstdlib>

__global__ void reduce_volatile(const int* in, int* out) {
  extern __shared__ int smem[];
  const unsigned tid = threadIdx.x;
  smem[tid] = in[blockIdx.x * blockDim.x + tid];
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 32; s /= 2) {
    if (tid < s) smem[tid] += smem[tid + s];
    __syncthreads();
  }
  if (tid < 32) {
    volatile int* v = smem;
    v[tid] += v[tid + 32];
    v[tid] += v[tid + 16];
    v[tid] += v[tid + 8];
    v[tid] += v[tid + 4];
    v[tid] += v[tid + 2];
    v[tid] += v[tid + 1];
  }
  if (tid == 0) out[blockIdx.x] = smem[0];
}

__global__ void reduce_shuffle(const int* in, int* out) {
  extern __shared__ int partial[];
  const unsigned tid = threadIdx.x;
  int value = in[blockIdx.x * blockDim.x + tid];
  for (int offset = 16; offset > 0; offset /= 2)
    value += __shfl_down_sync(0xffffffffu, value, offset);
  if (tid % 32 == 0) partial[tid / 32] = value;
  __syncthreads();
  if (tid < 32) {
    value = tid < blockDim.x / 32 ? partial[tid] : 0;
    for (int offset = 16; offset > 0; offset /= 2)
      value += __shfl_down_sync(0xffffffffu, value, offset);
    if (tid == 0) out[blockIdx.x] = value;
  }
}

int main() {
  const int blocks = 64, threads = 256, n = blocks * threads;
  int* h = static_cast<int*>(malloc(n * sizeof(int)));
  long long host = 0;
  for (int i = 0; i < n; ++i) {
    h[i] = (i * 7919) % 255;
    host += h[i];
  }
  int *in, *out, sums[blocks];
  if (cudaMalloc(&in, n * sizeof(int)) != cudaSuccess) return 1;
  if (cudaMalloc(&out, blocks * sizeof(int)) != cudaSuccess) return 1;
  if (cudaMemcpy(in, h, n * sizeof(int), cudaMemcpyHostToDevice) != cudaSuccess) return 1;
  const char* names[2] = {"volatile warp steps", "shuffles"};
  for (int k = 0; k < 2; ++k) {
    if (k == 0) {
      reduce_volatile<<<blocks, threads, threads * sizeof(int)>>>(in, out);
    } else {
      reduce_shuffle<<<blocks, threads, threads / 32 * sizeof(int)>>>(in, out);
    }
    if (cudaGetLastError() != cudaSuccess) return 1;
    if (cudaMemcpy(sums, out, sizeof sums, cudaMemcpyDeviceToHost) != cudaSuccess) return 1;
    long long total = 0;
    for (int b = 0; b < blocks; ++b) total += sums[b];
    printf("%s: %lld, host %lld: %s\n", names[k], total, host,
           total == host ? "same" : "DIFFERENT");
  }
  cudaFree(in);
  cudaFree(out);
  free(h);
  return 0;
}
