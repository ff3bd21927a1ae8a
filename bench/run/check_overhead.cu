// What gpulab run --check costs, and what it finds, at full size (issue 23): a vector add of 2^24
// floats and a 512x512 tiled matmul, each timed with CUDA events (CPU time on the emulator), median
// of 3 after a warm-up. bench/run_check_overhead.sh runs it with and without --check.
//   check_overhead            correct kernels
//   check_overhead oob        the vector add reads one element past its inputs (last thread)
//   check_overhead nosync     the matmul leaves out its second __syncthreads()
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <vector>

#define TILE 16

__global__ void vector_add(const float* a, const float* b, float* c, int n, int past) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i + (i == n - 1 ? past : 0)] + b[i];
}

__global__ void matmul(const float* a, const float* b, float* c, int n, int second_sync) {
  __shared__ float as[TILE][TILE];
  __shared__ float bs[TILE][TILE];
  int tx = threadIdx.x, ty = threadIdx.y;
  int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;
  float acc = 0.0f;
  for (int k0 = 0; k0 < n; k0 += TILE) {
    as[ty][tx] = a[row * n + k0 + tx];
    bs[ty][tx] = b[(k0 + ty) * n + col];
    __syncthreads();
    for (int k = 0; k < TILE; ++k) acc += as[ty][k] * bs[k][tx];
    if (second_sync) __syncthreads();
  }
  c[row * n + col] = acc;
}

template <class Launch>
float median_ms(Launch launch) {
  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  launch();  // warm-up
  std::vector<float> ms;
  for (int r = 0; r < 3; ++r) {
    cudaEventRecord(start);
    launch();
    cudaEventRecord(stop);
    cudaEventSynchronize(stop);
    float t = 0;
    cudaEventElapsedTime(&t, start, stop);
    ms.push_back(t);
  }
  std::sort(ms.begin(), ms.end());
  return ms[1];
}

int main(int argc, char** argv) {
  const bool oob = argc > 1 && std::strcmp(argv[1], "oob") == 0;
  const bool nosync = argc > 1 && std::strcmp(argv[1], "nosync") == 0;
  const int n = 1 << 24;
  float *a, *b, *c;
  cudaMalloc(&a, n * sizeof(float));
  cudaMalloc(&b, n * sizeof(float));
  cudaMalloc(&c, n * sizeof(float));
  std::vector<float> h(n, 1.0f);
  cudaMemcpy(a, h.data(), n * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(b, h.data(), n * sizeof(float), cudaMemcpyHostToDevice);
  const float add = median_ms([&] { vector_add<<<n / 256, 256>>>(a, b, c, n, oob ? 1 : 0); });
  printf("vector add 2^24: median %.2f ms\n", add);

  const int m = 512;
  dim3 block(TILE, TILE), grid(m / TILE, m / TILE);
  const float mul = median_ms([&] { matmul<<<grid, block>>>(a, b, c, m, nosync ? 0 : 1); });
  cudaMemcpy(h.data(), c, m * m * sizeof(float), cudaMemcpyDeviceToHost);
  printf("matmul 512: median %.2f ms, c[0] = %.0f\n", mul, h[0]);
  cudaFree(a);
  cudaFree(b);
  cudaFree(c);
  return 0;
}
