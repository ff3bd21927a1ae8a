// A matrixMul-style program as NVIDIA's matrixMul sample runs it (issue 23's target: under 5 s on
// 2 cores under gpulab run): C = A * B with A 320x320 and B 320x640, 32x32 tiles through shared
// memory, one warm-up launch and 300 timed ones, the result checked on the host. Written for
// this project's benchmark (docs/performance.md, "Region loops"):
//   /usr/bin/time -f "%e s %U user" build/cpu-only/bin/gpulab run --backend cpu
//   bench/simt/matrixmul_sample.cu
#include <cmath>
#include <cstdio>
#include <vector>

constexpr int kBlock = 32;

template <int BLOCK>
__global__ void matrix_mul(float* c, const float* a, const float* b, int wa, int wb) {
  __shared__ float as[BLOCK][BLOCK];
  __shared__ float bs[BLOCK][BLOCK];
  const int bx = blockIdx.x, by = blockIdx.y;
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int a_begin = wa * BLOCK * by, a_end = a_begin + wa - 1, a_step = BLOCK;
  const int b_begin = BLOCK * bx, b_step = BLOCK * wb;
  float sum = 0.0f;
  for (int ia = a_begin, ib = b_begin; ia <= a_end; ia += a_step, ib += b_step) {
    as[ty][tx] = a[ia + wa * ty + tx];
    bs[ty][tx] = b[ib + wb * ty + tx];
    __syncthreads();
    for (int k = 0; k < BLOCK; ++k) sum += as[ty][k] * bs[k][tx];
    __syncthreads();
  }
  c[wb * BLOCK * by + BLOCK * bx + wb * ty + tx] = sum;
}

int main() {
  const int ha = 320, wa = 320, wb = 640;
  std::vector<float> h_a(ha * wa, 1.0f), h_b(wa * wb, 0.01f), h_c(ha * wb);
  float *a, *b, *c;
  cudaMalloc(&a, h_a.size() * sizeof(float));
  cudaMalloc(&b, h_b.size() * sizeof(float));
  cudaMalloc(&c, h_c.size() * sizeof(float));
  cudaMemcpy(a, h_a.data(), h_a.size() * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(b, h_b.data(), h_b.size() * sizeof(float), cudaMemcpyHostToDevice);
  const dim3 threads(kBlock, kBlock), grid(wb / kBlock, ha / kBlock);
  matrix_mul<kBlock><<<grid, threads>>>(c, a, b, wa, wb);
  cudaDeviceSynchronize();
  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  cudaEventRecord(start);
  const int iterations = 300;
  for (int i = 0; i < iterations; ++i) matrix_mul<kBlock><<<grid, threads>>>(c, a, b, wa, wb);
  cudaEventRecord(stop);
  cudaEventSynchronize(stop);
  float ms = 0;
  cudaEventElapsedTime(&ms, start, stop);
  cudaMemcpy(h_c.data(), c, h_c.size() * sizeof(float), cudaMemcpyDeviceToHost);
  int wrong = 0;
  for (float v : h_c) wrong += std::fabs(v - wa * 0.01f) > 1e-3f;
  std::printf("%d launches of 320x320 * 320x640: %.1f ms each; %d wrong elements\n", iterations + 1,
              ms / iterations, wrong);
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  cudaFree(a);
  cudaFree(b);
  cudaFree(c);
  return wrong != 0;
}
