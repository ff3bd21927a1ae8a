// The warp functions without a mask that CUDA 9 removed for compute capability 7.0 and newer
// (nvcc 13 refuses them), as Professional CUDA C Programming's simpleShfl uses them: a block of
// 16 threads (half a warp) and a block of 64 with barriers. Each result is checked on the host.
#include <cstdio>

__global__ void half_warp(int* out) {
  const int lane = threadIdx.x;
  int v = lane * 3;
  out[lane] = __shfl(v, 2, 16);              // 6 everywhere
  out[16 + lane] = __shfl_up(v, 1, 16);      // lane 0 keeps 0
  out[32 + lane] = __shfl_down(v, 1, 16);    // lane 15 keeps 45
  out[48 + lane] = __shfl_xor(v, 1, 16);     // neighbours swap
  out[64 + lane] = __ballot(lane % 2 == 0);  // 0x5555
  out[80 + lane] = __any(lane == 7) + 2 * __all(lane < 16) + 4 * __all(lane < 8);
}

__global__ void block_sum(const float* in, float* out) {
  __shared__ float warp_sums[2];
  float v = in[blockIdx.x * blockDim.x + threadIdx.x];
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down(v, offset);
  if (threadIdx.x % 32 == 0) warp_sums[threadIdx.x / 32] = v;
  __syncthreads();
  if (threadIdx.x == 0) out[blockIdx.x] = warp_sums[0] + warp_sums[1];
}

int main() {
  int *d, h[96];
  cudaMalloc(&d, sizeof h);
  half_warp<<<1, 16>>>(d);
  cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
  int wrong = 0;
  for (int lane = 0; lane < 16; ++lane) {
    const int v = lane * 3;
    const int expect[6] = {
        6, lane == 0 ? v : v - 3, lane == 15 ? v : v + 3, (lane ^ 1) * 3, 0x5555, 1 + 2};
    for (int k = 0; k < 6; ++k) wrong += h[16 * k + lane] != expect[k];
  }
  printf("half warp: %d of 96 values differ from the host's\n", wrong);

  const int blocks = 4, threads = 64;
  float hin[blocks * threads], hout[blocks], *in, *out;
  for (int i = 0; i < blocks * threads; ++i) hin[i] = static_cast<float>(i % 9);
  cudaMalloc(&in, sizeof hin);
  cudaMalloc(&out, sizeof hout);
  cudaMemcpy(in, hin, sizeof hin, cudaMemcpyHostToDevice);
  block_sum<<<blocks, threads>>>(in, out);
  cudaMemcpy(hout, out, sizeof hout, cudaMemcpyDeviceToHost);
  for (int b = 0; b < blocks; ++b) {
    double host = 0;
    for (int t = 0; t < threads; ++t) host += hin[b * threads + t];
    printf("block %d: %.1f, host %.1f\n", b, hout[b], host);
  }
  cudaFree(d);
  cudaFree(in);
  cudaFree(out);
  return 0;
}
