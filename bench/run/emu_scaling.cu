// gpulab run's emulator on every core: a vector add and a tiled matmul of 4096 blocks each, as a
// student would write them, timed with CUDA events (CPU time on the emulator); median of 3 after a
// warm-up. bench/emu_scaling.sh runs it with --emu-threads 1 and 16 and prints the ratios.
#include <algorithm>
#include <cstdio>
#include <vector>

#define TILE 16

__global__ void vector_add(const float* a, const float* b, float* c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}

__global__ void matmul(const float* a, const float* b, float* c, int n) {
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
    __syncthreads();
  }
  c[row * n + col] = acc;
}

template <class Launch>
float median_ms(Launch launch) {
  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  launch();  // warm-up
  std::vector<float> ms(3);
  for (float& m : ms) {
    cudaEventRecord(start);
    launch();
    cudaEventRecord(stop);
    cudaEventSynchronize(stop);
    cudaEventElapsedTime(&m, start, stop);
  }
  std::sort(ms.begin(), ms.end());
  return ms[1];
}

int main() {
  const int n = 1 << 20;  // 4096 blocks of 256
  const int m = 1024;     // 64 x 64 = 4096 blocks of 16 x 16
  std::vector<float> h(static_cast<size_t>(m) * m);
  for (size_t i = 0; i < h.size(); ++i) h[i] = static_cast<float>(i % 17) * 0.125f;
  float *a, *b, *c;
  cudaMalloc(&a, h.size() * sizeof(float));
  cudaMalloc(&b, h.size() * sizeof(float));
  cudaMalloc(&c, h.size() * sizeof(float));
  cudaMemcpy(a, h.data(), h.size() * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(b, h.data(), h.size() * sizeof(float), cudaMemcpyHostToDevice);
  const float add = median_ms([&] { vector_add<<<n / 256, 256>>>(a, b, c, n); });
  std::vector<float> out(n);
  cudaMemcpy(out.data(), c, n * sizeof(float), cudaMemcpyDeviceToHost);
  int wrong = 0;
  for (int i = 0; i < n; ++i) wrong += out[i] != 2 * h[i];
  const float mm =
      median_ms([&] { matmul<<<dim3(m / TILE, m / TILE), dim3(TILE, TILE)>>>(a, b, c, m); });
  std::vector<float> prod(static_cast<size_t>(m) * m);
  cudaMemcpy(prod.data(), c, prod.size() * sizeof(float), cudaMemcpyDeviceToHost);
  for (int r = 0; r < m; r += 255) {  // a few rows against the host's sums
    for (int col = 0; col < m; col += 127) {
      float want = 0.0f;
      for (int k = 0; k < m; ++k)
        want += h[static_cast<size_t>(r) * m + k] * h[static_cast<size_t>(k) * m + col];
      const float got = prod[static_cast<size_t>(r) * m + col];
      wrong += (got - want > 1e-3f * want || want - got > 1e-3f * want);
    }
  }
  printf("vector add, 4096 blocks of 256: median %.3f ms\n", add);
  printf("tiled matmul 1024x1024, 4096 blocks of 16x16: median %.3f ms\n", mm);
  printf("%d wrong\n", wrong);
  return wrong == 0 ? 0 : 1;
}
