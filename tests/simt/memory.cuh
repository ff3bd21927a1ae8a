// Test kernels for atomics and shared memory: plain CUDA, no namespace of their own.
#include "kernels/prelude.cuh"

struct Counters {
  int i;
  unsigned u;
  unsigned long long ull;
  float f;
  double d;
  int sub_i;
  unsigned sub_u;
  int min_i, max_i;
  unsigned min_u, max_u;
  long long min_ll, max_ll;
  unsigned long long min_ull, max_ull;
  unsigned and_u, or_u, xor_u;
  int and_i, or_i, xor_i;
  unsigned long long and_ull, or_ull, xor_ull;
  unsigned inc, dec;
  unsigned cas_u;
  unsigned long long cas_ull;
  int cas_i;
  int exch;
};

// Every thread of every block updates the same counters with its own random value.
__global__ void atomics_kernel(Counters* c, const unsigned* values, int* exch_old) {
  const unsigned t = threadIdx.x + blockIdx.x * blockDim.x;
  const unsigned v = values[t];
  const int small = static_cast<int>(v % 7) + 1;
  atomicAdd(&c->i, small);
  atomicAdd(&c->u, static_cast<unsigned>(small));
  atomicAdd(&c->ull, static_cast<unsigned long long>(v) << 20);
  atomicAdd(&c->f, static_cast<float>(small));
  atomicAdd(&c->d, static_cast<double>(v) * 0.5);
  atomicSub(&c->sub_i, small);
  atomicSub(&c->sub_u, static_cast<unsigned>(small));
  atomicMin(&c->min_i, static_cast<int>(v) - 1000000);
  atomicMax(&c->max_i, static_cast<int>(v) - 1000000);
  atomicMin(&c->min_u, v);
  atomicMax(&c->max_u, v);
  atomicMin(&c->min_ll, -static_cast<long long>(v) * 4096);
  atomicMax(&c->max_ll, -static_cast<long long>(v) * 4096);
  atomicMin(&c->min_ull, static_cast<unsigned long long>(v) * 3);
  atomicMax(&c->max_ull, static_cast<unsigned long long>(v) * 3);
  atomicAnd(&c->and_u, v | 0x80000001u);
  atomicOr(&c->or_u, v & 0x0f0f0f0fu);
  atomicXor(&c->xor_u, v);
  atomicAnd(&c->and_i, static_cast<int>(v | 0x40000001u));
  atomicOr(&c->or_i, static_cast<int>(v & 0x00f0f0f0u));
  atomicXor(&c->xor_i, static_cast<int>(v));
  atomicAnd(&c->and_ull, (static_cast<unsigned long long>(v) << 32) | 0xffffffffull);
  atomicOr(&c->or_ull, static_cast<unsigned long long>(v & 0xffu) << 40);
  atomicXor(&c->xor_ull, static_cast<unsigned long long>(v) << 16);
  atomicInc(&c->inc, 9u);
  atomicDec(&c->dec, 9u);
  // A CAS loop increment: exact only if every CAS is atomic.
  unsigned old = c->cas_u;
  for (;;) {
    const unsigned seen = atomicCAS(&c->cas_u, old, old + 3u);
    if (seen == old) break;
    old = seen;
  }
  unsigned long long old_ull = c->cas_ull;
  for (;;) {
    const unsigned long long seen = atomicCAS(&c->cas_ull, old_ull, old_ull + 5ull);
    if (seen == old_ull) break;
    old_ull = seen;
  }
  int old_i = c->cas_i;
  for (;;) {
    const int seen = atomicCAS(&c->cas_i, old_i, old_i - 2);
    if (seen == old_i) break;
    old_i = seen;
  }
  exch_old[t] = atomicExch(&c->exch, static_cast<int>(t));
}

// Each block writes its own id into a static __shared__ tile and reads a neighbour's slot back,
// many times: blocks running at once on other OS threads must not see each other's tile.
__global__ void per_block_shared_kernel(int* bad, int rounds) {
  __shared__ int tile[128];
  const int t = static_cast<int>(threadIdx.x);
  const int n = static_cast<int>(blockDim.x);
  const int b = static_cast<int>(blockIdx.x);
  for (int r = 0; r < rounds; ++r) {
    tile[t] = b * 1000 + t + r;
    __syncthreads();
    const int other = (t + 1) % n;
    if (tile[other] != b * 1000 + other + r) atomicAdd(bad, 1);
    __syncthreads();
  }
}

// Reverses each block's slice through dynamic shared memory.
__global__ void reverse_kernel(const float* in, float* out) {
  extern __shared__ float dyn_f[];
  const unsigned t = threadIdx.x;
  const unsigned n = blockDim.x;
  dyn_f[t] = in[blockIdx.x * n + t];
  __syncthreads();
  out[blockIdx.x * n + t] = dyn_f[n - 1 - t];
}

// Two extern __shared__ arrays alias, as in CUDA; the whole opted-in size is usable.
__global__ void big_dynamic_kernel(unsigned long long* out, unsigned words) {
  extern __shared__ float dyn_f[];
  extern __shared__ int dyn_i[];
  unsigned* w = reinterpret_cast<unsigned*>(dyn_i);
  for (unsigned k = threadIdx.x; k < words; k += blockDim.x) w[k] = k * 2654435761u;
  __syncthreads();
  unsigned long long sum = 0;
  for (unsigned k = 0; k < words; ++k) sum += w[k];
  if (threadIdx.x == 0) {
    out[0] = sum;
    out[1] = static_cast<void*>(dyn_f) == static_cast<void*>(dyn_i) ? 1 : 0;
  }
}

// Records the order in which blocks start.
__global__ void order_kernel(unsigned* order, unsigned* counter) {
  if (threadIdx.x == 0) order[blockIdx.x] = atomicAdd(counter, 1u);
}

__global__ void vecadd_kernel(const float* a, const float* b, float* c, int n) {
  const int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (i < n) c[i] = a[i] + b[i];
}

// 48 KiB of static shared memory: the most a kernel may have without opting in.
__global__ void static_shared_kernel(float* out) {
  __shared__ float big[12 * 1024];
  big[threadIdx.x] = 1.0f;
  __syncthreads();
  out[threadIdx.x] = big[(threadIdx.x + 1) % blockDim.x];
}

// A template kernel with static and (class-typed) dynamic shared memory: each block sums its slice
// through a float4 tile.
template <int kBlock>
__global__ void __launch_bounds__(kBlock) tile_sum_kernel(const float* in, float* out) {
  __shared__ float partial[kBlock];
  extern __shared__ __align__(16) float4 dyn_v[];
  const unsigned t = threadIdx.x;
  const float* mine = in + (blockIdx.x * kBlock + t) * 4;
  dyn_v[t] = make_float4(mine[0], mine[1], mine[2], mine[3]);
  __syncthreads();
  const float4 v = dyn_v[(t + 1) % kBlock];
  partial[t] = v.x + v.y + v.z + v.w;
  __syncthreads();
  if (t == 0) {
    float s = 0.0f;
    for (int k = 0; k < kBlock; ++k) s += partial[k];
    out[blockIdx.x] = s;
  }
}

__global__ void empty_kernel() {}

// Which memory the emulator takes as the block's own, where atomics need no lock: its static and
// dynamic shared memory, not global memory nor the thread's stack. out[4 * block + k].
__global__ void private_memory_kernel(int* out) {
  __shared__ int fixed[4];
  extern __shared__ float dyn_f[];
  int local = 0;
  if (threadIdx.x == 0) {
    int* o = out + 4 * blockIdx.x;
    o[0] = gpulab::simt::detail::block_private(&fixed[2]) ? 1 : 0;
    o[1] = gpulab::simt::detail::block_private(&dyn_f[1]) ? 1 : 0;
    o[2] = gpulab::simt::detail::block_private(out) ? 1 : 0;
    o[3] = gpulab::simt::detail::block_private(&local) ? 1 : 0;
  }
  fixed[threadIdx.x % 4] = local;
}
