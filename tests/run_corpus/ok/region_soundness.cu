// Kernels that look like region-loop kernels but are not (each thread must keep its own copy, or a
// barrier waits inside a called function): the emulator must give what a GPU gives.
#include <cooperative_groups.h>
#include <cstdio>
namespace cg = cooperative_groups;

// A parameter the kernel moves: every thread's own copy moves once.
__global__ void moved_parameter(const int* in, int* out) {
  __shared__ int s[64];
  in += blockIdx.x * blockDim.x;
  out += blockIdx.x * blockDim.x;
  s[threadIdx.x] = in[threadIdx.x];
  __syncthreads();
  out[threadIdx.x] = s[blockDim.x - 1 - threadIdx.x];
}

// A local written through its member: each thread's own.
__global__ void member_write(int* out) {
  uint3 c = blockIdx;
  c.y += 1;
  if (c.y == blockIdx.y + 1) {
    __syncthreads();
    out[(blockIdx.y * gridDim.x + blockIdx.x) * blockDim.x + threadIdx.x] = 1;
  }
}

__global__ void member_add(float3 o, float* out) {
  __shared__ float s[64];
  float3 p = o;
  p.x += threadIdx.x;
  s[threadIdx.x] = p.x;
  __syncthreads();
  out[threadIdx.x] = s[63 - threadIdx.x];
}

// A local a function changes through a reference.
__device__ void bump(int& v) {
  v += 1;
}
__global__ void reference_argument(int* out) {
  __shared__ int s[64];
  int hits = 0;
  bump(hits);
  s[threadIdx.x] = hits;
  __syncthreads();
  out[threadIdx.x] = s[63 - threadIdx.x];
}

// A block group passed to a function that waits at its barrier.
__device__ int first_of(cg::thread_block g, int* t, int v) {
  t[g.thread_rank()] = v;
  g.sync();
  return t[0];
}
__global__ void group_argument(int* out) {
  __shared__ int t[64];
  cg::thread_block g = cg::this_thread_block();
  t[threadIdx.x] = 0;
  g.sync();
  out[threadIdx.x] = first_of(g, t, threadIdx.x + 5);
}

// A block's total in an ALL_CAPS __shared__ variable: a variable, not a constant.
__global__ void shared_total(const int* in, int* out) {
  __shared__ int TOTAL;
  if (threadIdx.x == 0) TOTAL = 0;
  __syncthreads();
  atomicAdd(&TOTAL, in[blockIdx.x * blockDim.x + threadIdx.x]);
  __syncthreads();
  const int total = TOTAL;
  __syncthreads();
  if (threadIdx.x == 0) TOTAL = -1;
  __syncthreads();
  out[blockIdx.x * blockDim.x + threadIdx.x] = total;
}

int main() {
  int *in, *out;
  float* f;
  cudaMallocManaged(&in, 256 * sizeof(int));
  cudaMallocManaged(&out, 256 * sizeof(int));
  cudaMallocManaged(&f, 64 * sizeof(float));
  for (int i = 0; i < 256; ++i) in[i] = i;

  moved_parameter<<<4, 64>>>(in, out);
  cudaDeviceSynchronize();
  printf("moved_parameter: %d %d %d\n", out[0], out[65], out[255]);

  cudaMemset(out, 0, 256 * sizeof(int));
  member_write<<<dim3(2, 2), 64>>>(out);
  cudaDeviceSynchronize();
  int sum = 0;
  for (int i = 0; i < 256; ++i) sum += out[i];
  printf("member_write: %d of 256\n", sum);

  member_add<<<1, 64>>>(make_float3(0.5f, 0.0f, 0.0f), f);
  cudaDeviceSynchronize();
  printf("member_add: %.1f %.1f\n", f[0], f[63]);

  reference_argument<<<1, 64>>>(out);
  cudaDeviceSynchronize();
  sum = 0;
  for (int i = 0; i < 64; ++i) sum += out[i];
  printf("reference_argument: %d (64 ones)\n", sum);

  group_argument<<<1, 64>>>(out);
  const cudaError_t e = cudaDeviceSynchronize();
  printf("group_argument: %s %d %d\n", cudaGetErrorName(e), out[0], out[63]);

  shared_total<<<4, 64>>>(in, out);
  cudaDeviceSynchronize();
  printf("shared_total: %d %d %d\n", out[0], out[100], out[255]);

  cudaFree(in);
  cudaFree(out);
  cudaFree(f);
  return 0;
}
