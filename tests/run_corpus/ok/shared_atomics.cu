// Atomics on shared memory (static and dynamic), which the emulator makes without a lock because
// only the block's own OS thread can reach them, next to atomics on global memory from every block.
// Every result is compared with the host's.
#include <cstdio>
#include <vector>

// Each thread takes a ticket from a shared counter: the tickets of a block are 0..n-1, once each.
__global__ void tickets(int* out, unsigned* global_count) {
  __shared__ int next;
  __shared__ unsigned bins[8];
  __shared__ float sum;
  __shared__ int lo, hi;
  if (threadIdx.x == 0) {
    next = 0;
    sum = 0.0f;
    lo = 1 << 30;
    hi = -1;
  }
  if (threadIdx.x < 8) bins[threadIdx.x] = 0;
  __syncthreads();
  const int t = atomicAdd(&next, 1);
  out[blockIdx.x * blockDim.x + t] = threadIdx.x;
  atomicAdd(&bins[threadIdx.x % 8], 2u);
  atomicSub(&bins[threadIdx.x % 8], 1u);
  atomicOr(&bins[0], threadIdx.x == 5 ? 0x100u : 0u);
  atomicAdd(&sum, 0.5f);
  atomicMin(&lo, static_cast<int>(threadIdx.x * 3 + blockIdx.x));
  atomicMax(&hi, static_cast<int>(threadIdx.x * 3 + blockIdx.x));
  __syncthreads();
  if (threadIdx.x == 0) {
    atomicAdd(global_count, static_cast<unsigned>(next));
    out[gridDim.x * blockDim.x + blockIdx.x] =
        static_cast<int>(bins[0]) + static_cast<int>(bins[7]) + static_cast<int>(sum) + lo + hi;
  }
}

// A histogram in dynamic shared memory.
__global__ void histogram(const unsigned char* data, int n, unsigned* histo) {
  extern __shared__ unsigned local[];
  for (int b = threadIdx.x; b < 16; b += blockDim.x) local[b] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    atomicAdd(&local[data[i] % 16], 1u);
  }
  __syncthreads();
  for (int b = threadIdx.x; b < 16; b += blockDim.x) atomicAdd(&histo[b], local[b]);
}

int main() {
  const int blocks = 24, threads = 128;
  int* out;
  unsigned* count;
  cudaMallocManaged(&out, (blocks * threads + blocks) * sizeof(int));
  cudaMallocManaged(&count, sizeof(unsigned));
  *count = 0;
  tickets<<<blocks, threads>>>(out, count);
  cudaDeviceSynchronize();
  int bad = 0;
  for (int b = 0; b < blocks; ++b) {
    std::vector<int> seen(threads, 0);
    for (int t = 0; t < threads; ++t) {
      const int who = out[b * threads + t];
      if (who < 0 || who >= threads || seen[who]++) ++bad;
    }
    // bins[0] and bins[7]: 16 threads each add 2 and take 1; bin 0 also holds 0x100; the sum is
    // threads / 2; lo and hi: 3 * 0 + b and 3 * 127 + b.
    const int expect = (16 + 0x100) + 16 + threads / 2 + b + (3 * (threads - 1) + b);
    if (out[blocks * threads + b] != expect) ++bad;
  }
  printf("tickets: %d blocks of %d, %d wrong, %u taken\n", blocks, threads, bad, *count);

  const int n = 100000;
  unsigned char* data;
  unsigned* histo;
  cudaMallocManaged(&data, n);
  cudaMallocManaged(&histo, 16 * sizeof(unsigned));
  std::vector<unsigned> host(16, 0);
  for (int i = 0; i < n; ++i) {
    data[i] = static_cast<unsigned char>((i * 37 + i / 5) % 251);
    ++host[data[i] % 16];
  }
  for (int b = 0; b < 16; ++b) histo[b] = 0;
  histogram<<<13, 96, 16 * sizeof(unsigned)>>>(data, n, histo);
  cudaDeviceSynchronize();
  int wrong = 0;
  for (int b = 0; b < 16; ++b) wrong += histo[b] != host[b];
  printf("histogram of %d bytes: %d bins wrong, bin 3 = %u\n", n, wrong, histo[3]);
  const bool right = bad == 0 && wrong == 0 && *count == blocks * threads;
  cudaFree(out);
  cudaFree(count);
  cudaFree(data);
  cudaFree(histo);
  return right ? 0 : 1;
}
