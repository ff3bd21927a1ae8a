// A warp's radix sort through a volatile ping-pong buffer in shared memory, as Learn CUDA
// Programming's radix_warp_sort writes it: each lane loads its key, then for each bit reads a key
// before a ballot and writes it to its place after the ballot, with no __syncwarp(). A converged
// warp takes each read and write in step; the emulator runs the buffer's accesses in rounds
// (docs/simt.md, "Warp-synchronous volatile code"). The output is an H200's.
#include <cstdio>
#include <cstdlib>

constexpr int kBits = 12;

__global__ void warp_sort(const unsigned* in, unsigned* out) {
  __shared__ volatile unsigned buffer[4][64];
  const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  volatile unsigned* b = buffer[warp];
  b[lane] = in[blockIdx.x * blockDim.x + threadIdx.x];
  unsigned side = 0;
  const unsigned below = (1u << lane) - 1u;
  for (int bit = 0; bit < kBits; ++bit) {
    const unsigned key = b[side + lane];
    const unsigned ones = __ballot_sync(0xffffffffu, (key >> bit) & 1u);
    const unsigned zeros = ~ones;
    side ^= 32u;
    const unsigned place =
        (key >> bit) & 1u ? __popc(zeros) + __popc(ones & below) : __popc(zeros & below);
    b[side + place] = key;
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = b[side + lane];
}

int main() {
  const int blocks = 8, threads = 128, n = blocks * threads;
  unsigned h[n], sorted[n];
  srand(11);
  for (int i = 0; i < n; ++i) h[i] = static_cast<unsigned>(rand()) % (1u << kBits);
  unsigned *in, *out;
  cudaMalloc(&in, sizeof h);
  cudaMalloc(&out, sizeof h);
  cudaMemcpy(in, h, sizeof h, cudaMemcpyHostToDevice);
  warp_sort<<<blocks, threads>>>(in, out);
  const cudaError_t e = cudaMemcpy(sorted, out, sizeof sorted, cudaMemcpyDeviceToHost);
  int unsorted = 0;
  unsigned long long sum_in = 0, sum_out = 0;
  for (int i = 0; i < n; ++i) {
    sum_in += h[i];
    sum_out += sorted[i];
    if (i % 32 != 31 && sorted[i] > sorted[i + 1]) ++unsorted;
  }
  printf("%s: %d neighbours out of order in %d warps; keys' sum %llu, in %llu\n",
         cudaGetErrorString(e), unsorted, n / 32, sum_out, sum_in);
  printf("warp 0: %u %u %u ... %u\n", sorted[0], sorted[1], sorted[2], sorted[31]);
  cudaFree(in);
  cudaFree(out);
  return 0;
}
