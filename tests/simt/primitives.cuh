// Test kernels for the emulator's warp and block primitives: plain CUDA, no namespace of their own.
#include "kernels/prelude.cuh"

// mode: 0 = __shfl_sync, 1 = up, 2 = down, 3 = xor.
template <class T>
__global__ void shuffle_kernel(const T* in, T* out, int mode, int arg, int width) {
  const unsigned t = threadIdx.x + blockIdx.x * blockDim.x;
  const T v = in[t];
  T r;
  switch (mode) {
    case 0:
      r = __shfl_sync(0xffffffffu, v, arg, width);
      break;
    case 1:
      r = __shfl_up_sync(0xffffffffu, v, static_cast<unsigned>(arg), width);
      break;
    case 2:
      r = __shfl_down_sync(0xffffffffu, v, static_cast<unsigned>(arg), width);
      break;
    default:
      r = __shfl_xor_sync(0xffffffffu, v, arg, width);
      break;
  }
  out[t] = r;
}

// Lanes named by mask vote; the others keep the sentinel in their outputs.
__global__ void vote_kernel(const int* pred, unsigned* ballot, int* any, int* all, unsigned mask) {
  const unsigned t = threadIdx.x + blockIdx.x * blockDim.x;
  const unsigned lane = threadIdx.x % 32;
  if ((mask >> lane & 1u) == 0) return;
  ballot[t] = __ballot_sync(mask, pred[t]);
  any[t] = __any_sync(mask, pred[t]);
  all[t] = __all_sync(mask, pred[t]);
}

// Lanes at or past `limit` of each warp exit first; then the first 5 lanes ask again on their own.
__global__ void activemask_kernel(unsigned* first, unsigned* second, unsigned limit) {
  const unsigned t = threadIdx.x;
  if (t % 32 >= limit) return;
  first[t] = __activemask();
  if (t % 32 < 5) second[t] = __activemask();
}

__global__ void block_vote_kernel(const int* pred, int* count, int* all, int* any) {
  const unsigned t = threadIdx.x + blockIdx.x * blockDim.x;
  const int p = pred[t];
  count[t] = __syncthreads_count(p);
  all[t] = __syncthreads_and(p);
  any[t] = __syncthreads_or(p);
}

// Writes its coordinates, read before and after a barrier: they must survive the fiber switch.
__global__ void index_kernel(unsigned* out, unsigned* after, int use_barrier) {
  const unsigned per_block = blockDim.x * blockDim.y * blockDim.z;
  const unsigned linear =
      threadIdx.x + threadIdx.y * blockDim.x + threadIdx.z * blockDim.x * blockDim.y;
  const unsigned block = blockIdx.x + blockIdx.y * gridDim.x + blockIdx.z * gridDim.x * gridDim.y;
  const unsigned packed = threadIdx.x | threadIdx.y << 10 | threadIdx.z << 20;
  out[block * per_block + linear] = packed;
  if (use_barrier) __syncthreads();
  after[block * per_block + linear] = threadIdx.x | threadIdx.y << 10 | threadIdx.z << 20;
}

// A warp-shuffle sum, the way reductions are written since Volta.
__global__ void warp_sum_kernel(const int* in, int* out) {
  const unsigned t = threadIdx.x + blockIdx.x * blockDim.x;
  int v = in[t];
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffffu, v, offset);
  if (threadIdx.x % 32 == 0) out[t / 32] = v;
}

__global__ void match_reduce_kernel(const unsigned* in, unsigned* match, unsigned* sum,
                                    unsigned* minimum, int* smax) {
  const unsigned t = threadIdx.x;
  const unsigned v = in[t];
  match[t] = __match_any_sync(0xffffffffu, v);
  sum[t] = __reduce_add_sync(0xffffffffu, v);
  minimum[t] = __reduce_min_sync(0xffffffffu, v);
  smax[t] = __reduce_max_sync(0xffffffffu, static_cast<int>(v) - 500);
}

// A barrier inside a loop, many times: what the barrier benchmark measures, checked for results.
__global__ void barrier_loop_kernel(int* out, int rounds) {
  __shared__ int tile[256];
  const unsigned t = threadIdx.x;
  int acc = 0;
  for (int r = 0; r < rounds; ++r) {
    tile[t] = r + static_cast<int>(t);
    __syncthreads();
    acc += tile[(t + 1) % blockDim.x];
    __syncthreads();
  }
  out[blockIdx.x * blockDim.x + t] = acc;
}

// Warp-synchronous exchange through shared memory, ordered by __syncwarp().
__global__ void syncwarp_exchange_kernel(int* out) {
  __shared__ int tile[64];
  const unsigned t = threadIdx.x;
  tile[t] = static_cast<int>(t) * 7 + 3;
  __syncwarp();
  out[t] = tile[t ^ 1u];
}

// Prints once, from a thread that has been parked at a barrier (so it runs on a fiber's stack).
__global__ void printf_kernel(int* out) {
  __syncthreads();
  int n = 0;
  if (threadIdx.x == 0 && blockIdx.x == 0) {
    n = printf("simt_tests: printf from block %u, thread %u, on a fiber: %.3f\n", blockIdx.x,
               threadIdx.x, 2.5);
  }
  if (blockIdx.x == 0 && threadIdx.x < 2) out[threadIdx.x] = n;
}

// Lanes 0-15 shuffle among themselves; lanes 8-15 name sources (16-23) outside the mask.
__global__ void partial_shuffle_kernel(const int* in, int* out) {
  const unsigned t = threadIdx.x;
  if (t % 32 < 16) out[t] = __shfl_down_sync(0x0000ffffu, in[t], 8);  // site:partial-shuffle
}
