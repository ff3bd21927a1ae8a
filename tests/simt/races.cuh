// Test kernels for check mode's race reports: plain CUDA, no namespace of their own.
#include "kernels/prelude.cuh"

// Each thread reads its neighbour's slot; without the barrier the neighbour may not have written
// it.
__global__ void shift_kernel(int* out, int synced) {
  __shared__ int buf[64];
  const unsigned t = threadIdx.x;
  buf[t] = static_cast<int>(t) * 3 + 1;
  if (synced) __syncthreads();
  out[t] = buf[(t + 1) % 64];
}

// The same exchange within each warp, ordered by __syncwarp() or not.
__global__ void warp_exchange_kernel(int* out, int synced) {
  __shared__ int lanes[64];
  const unsigned t = threadIdx.x;
  lanes[t] = static_cast<int>(t) + 10;
  if (synced) __syncwarp();
  out[t] = lanes[t ^ 1u];
}

// A tree reduction; the barrier inside the loop is what makes it correct.
__global__ void reduce_kernel(const float* in, float* out, int synced) {
  __shared__ float partial[128];
  const unsigned t = threadIdx.x;
  partial[t] = in[blockIdx.x * blockDim.x + t];
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s /= 2) {
    if (t < s) partial[t] += partial[t + s];
    if (synced) __syncthreads();
  }
  if (t == 0) out[blockIdx.x] = partial[0];
}

__global__ void dynamic_race_kernel(int* out) {
  extern __shared__ int dyn_i[];
  const unsigned t = threadIdx.x;
  dyn_i[t] = static_cast<int>(t);
  out[t] = dyn_i[blockDim.x - 1 - t];
}

__global__ void dynamic_overflow_kernel(int* out, int past) {
  extern __shared__ int dyn_i[];
  const unsigned t = threadIdx.x;
  dyn_i[t + static_cast<unsigned>(past)] = 1;
  out[t] = 1;
}

// Every block writes the same global cell: fine for the shared-memory checker (global memory is not
// checked), and a check that only shared memory is watched.
__global__ void global_only_kernel(int* out) {
  out[threadIdx.x] = static_cast<int>(blockIdx.x);
}

// Bytes of shared words: thread 0..15 write whole words, then each thread writes and reads its own
// byte of them (no race: each byte has its own history once a word is accessed in part); with
// `racy`, thread 1 also reads the byte that thread 2 writes, with no barrier in between.
__global__ void bytes_kernel(int* out, int racy) {
  __shared__ unsigned int words[16];
  const unsigned t = threadIdx.x;
  if (t < 16) words[t] = 0u;
  __syncthreads();
  unsigned char* bytes = reinterpret_cast<unsigned char*>(words);
  bytes[t] = static_cast<unsigned char>(t);
  int v = bytes[t];
  if (racy && t == 1) v += bytes[2];
  out[t] = v;
}
