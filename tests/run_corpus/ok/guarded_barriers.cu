// Barriers behind a bounds check, as students and several courses write them: gpulab run runs
// such a kernel as region loops when every thread of a block agrees on the check, and as written
// (on fibers) when they do not (docs/simt.md, "A bounds check around the barriers"). Each result is
// compared with the host's.
#include <cstdio>
#include <cstdlib>

const int tile = 16;  // a file-scope constant, as OLCF's exercises declare their block size

// The whole tiled product under `if (row < n && col < n)`.
__global__ void matmul(const float* a, const float* b, float* c, int n) {
  __shared__ float as[tile][tile];
  __shared__ float bs[tile][tile];
  int col = threadIdx.x + blockDim.x * blockIdx.x;
  int row = threadIdx.y + blockDim.y * blockIdx.y;
  if (row < n && col < n) {
    float acc = 0.0f;
    for (int m = 0; m < n / tile; ++m) {
      as[threadIdx.y][threadIdx.x] = a[row * n + m * tile + threadIdx.x];
      bs[threadIdx.y][threadIdx.x] = b[(m * tile + threadIdx.y) * n + col];
      __syncthreads();
      for (int k = 0; k < tile; ++k) acc += as[threadIdx.y][k] * bs[k][threadIdx.x];
      __syncthreads();
    }
    c[row * n + col] = acc;
  }
}

// A tree reduction of two elements a thread, after `if (...) return;` (PMPP's segmented sum).
__global__ void segmented_sum(const float* in, float* out, int n) {
  __shared__ float s[128];
  unsigned int segment = 2 * blockDim.x * blockIdx.x;
  unsigned int i = segment + threadIdx.x;
  unsigned int t = threadIdx.x;
  if (i >= n || i + blockDim.x >= n) {
    return;
  }
  s[t] = in[i] + in[i + blockDim.x];
  for (unsigned int stride = blockDim.x / 2; stride >= 1; stride /= 2) {
    __syncthreads();
    if (t < stride) s[t] += s[t + stride];
  }
  if (t == 0) atomicAdd(out, s[0]);
}

int main() {
  const int n = 64;
  float *a, *b, *c;
  cudaMallocManaged(&a, n * n * sizeof(float));
  cudaMallocManaged(&b, n * n * sizeof(float));
  cudaMallocManaged(&c, n * n * sizeof(float));
  srand(7);
  for (int i = 0; i < n * n; ++i) {
    a[i] = static_cast<float>(rand() % 9 - 4);
    b[i] = static_cast<float>(rand() % 7 - 3);
  }
  matmul<<<dim3(n / tile, n / tile), dim3(tile, tile)>>>(a, b, c, n);
  cudaDeviceSynchronize();
  int wrong = 0;
  for (int r = 0; r < n; ++r) {
    for (int col = 0; col < n; ++col) {
      double s = 0;
      for (int k = 0; k < n; ++k) s += static_cast<double>(a[r * n + k]) * b[k * n + col];
      if (s != c[r * n + col]) ++wrong;
    }
  }
  printf("matmul %dx%d: %d wrong, c[0] = %.0f, c[last] = %.0f\n", n, n, wrong, c[0], c[n * n - 1]);

  const int m = 8 * 256;
  float *in, *sum;
  cudaMallocManaged(&in, m * sizeof(float));
  cudaMallocManaged(&sum, sizeof(float));
  double host = 0;
  for (int i = 0; i < m; ++i) {
    in[i] = static_cast<float>(i % 13);
    host += in[i];
  }
  *sum = 0;
  segmented_sum<<<m / 256, 128>>>(in, sum, m);
  cudaDeviceSynchronize();
  printf("segmented sum of %d: %.0f (host %.0f)\n", m, *sum, host);
  const bool right = wrong == 0 && *sum == host;
  cudaFree(a);
  cudaFree(b);
  cudaFree(c);
  cudaFree(in);
  cudaFree(sum);
  return right ? 0 : 1;
}
