// Kernels whose barriers every thread reaches together: gpulab run runs them as region loops
// (docs/simt.md, "Region loops"). Each result is compared with the host's.
#include <cstdio>
#include <cstdlib>

#define TILE 16

// A __syncthreads tree: one partial sum per block of 256.
__global__ void reduce(const float* in, float* partial, int n) {
  __shared__ float s[256];
  const unsigned t = threadIdx.x;
  const unsigned i = blockIdx.x * blockDim.x + t;
  s[t] = i < static_cast<unsigned>(n) ? in[i] : 0.0f;
  __syncthreads();
  for (unsigned stride = blockDim.x / 2; stride > 0; stride >>= 1) {
    if (t < stride) s[t] += s[t + stride];
    __syncthreads();
  }
  if (t == 0) partial[blockIdx.x] = s[0];
}

// C = A * B through shared-memory tiles, 2-D blocks.
__global__ void matmul(const float* a, const float* b, float* c, int n) {
  __shared__ float as[TILE][TILE];
  __shared__ float bs[TILE][TILE];
  int tx = threadIdx.x, ty = threadIdx.y;
  int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;
  float acc = 0.0f;
  for (int m = 0; m < n / TILE; ++m) {
    as[ty][tx] = a[row * n + m * TILE + tx];
    bs[ty][tx] = b[(m * TILE + ty) * n + col];
    __syncthreads();
    for (int k = 0; k < TILE; ++k) acc += as[ty][k] * bs[k][tx];
    __syncthreads();
  }
  c[row * n + col] = acc;
}

// A local carried across barriers and loop rounds, and nested barrier loops.
__global__ void carried(int* out, int rounds) {
  __shared__ int s[128];
  const int t = threadIdx.x;
  int acc = t;
  for (int r = 0; r < rounds; ++r) {
    for (int half = 0; half < 2; ++half) {
      s[t] = acc + half;
      __syncthreads();
      acc += s[(t + 1 + r) % blockDim.x];
      __syncthreads();
    }
  }
  out[blockIdx.x * blockDim.x + t] = acc;
}

// Threads leave after the last barrier.
__global__ void reverse_some(const int* in, int* out, int valid) {
  __shared__ int s[64];
  int t = threadIdx.x;
  s[t] = in[blockIdx.x * 64 + t];
  __syncthreads();
  if (t >= valid) return;
  out[blockIdx.x * 64 + t] = s[63 - t];
}

// A 4x4x4 block: threadIdx in three dimensions.
__global__ void mirror3d(int* out) {
  __shared__ int s[64];
  int lin = threadIdx.x + 4 * (threadIdx.y + 4 * threadIdx.z);
  s[lin] = lin * (blockIdx.x + 1) + threadIdx.z;
  __syncthreads();
  out[blockIdx.x * 64 + lin] = s[63 - lin];
}

int main() {
  int bad = 0;
  {
    const int n = 100000, blocks = (n + 255) / 256;
    float *in, *partial;
    cudaMallocManaged(&in, n * sizeof(float));
    cudaMallocManaged(&partial, blocks * sizeof(float));
    for (int i = 0; i < n; ++i) in[i] = static_cast<float>(i % 7);
    reduce<<<blocks, 256>>>(in, partial, n);
    cudaDeviceSynchronize();
    for (int b = 0; b < blocks; ++b) {
      float want = 0;
      for (int i = b * 256; i < n && i < (b + 1) * 256; ++i) want += in[i];
      if (partial[b] != want) ++bad;
    }
    std::printf("reduce: %s\n", bad == 0 ? "ok" : "WRONG");
    cudaFree(in);
    cudaFree(partial);
  }
  {
    const int n = 64;
    float *a, *b, *c;
    cudaMallocManaged(&a, n * n * sizeof(float));
    cudaMallocManaged(&b, n * n * sizeof(float));
    cudaMallocManaged(&c, n * n * sizeof(float));
    for (int i = 0; i < n * n; ++i) {
      a[i] = static_cast<float>(i % 5);
      b[i] = static_cast<float>(i % 3);
    }
    matmul<<<dim3(n / TILE, n / TILE), dim3(TILE, TILE)>>>(a, b, c, n);
    cudaDeviceSynchronize();
    int wrong = 0;
    for (int i = 0; i < n; ++i) {
      for (int j = 0; j < n; ++j) {
        float want = 0;
        for (int k = 0; k < n; ++k) want += a[i * n + k] * b[k * n + j];
        if (c[i * n + j] != want) ++wrong;
      }
    }
    std::printf("matmul: %s\n", wrong == 0 ? "ok" : "WRONG");
    bad += wrong;
    cudaFree(a);
    cudaFree(b);
    cudaFree(c);
  }
  {
    const int threads = 128, blocks = 3, rounds = 3;
    int* out;
    cudaMallocManaged(&out, threads * blocks * sizeof(int));
    carried<<<blocks, threads>>>(out, rounds);
    cudaDeviceSynchronize();
    int acc[threads], s[threads];
    for (int t = 0; t < threads; ++t) acc[t] = t;
    for (int r = 0; r < rounds; ++r) {
      for (int half = 0; half < 2; ++half) {
        for (int t = 0; t < threads; ++t) s[t] = acc[t] + half;
        for (int t = 0; t < threads; ++t) acc[t] += s[(t + 1 + r) % threads];
      }
    }
    int wrong = 0;
    for (int b = 0; b < blocks; ++b) {
      for (int t = 0; t < threads; ++t) wrong += out[b * threads + t] != acc[t];
    }
    std::printf("carried: %s\n", wrong == 0 ? "ok" : "WRONG");
    bad += wrong;
    cudaFree(out);
  }
  {
    const int blocks = 2, valid = 40;
    int *in, *out;
    cudaMallocManaged(&in, blocks * 64 * sizeof(int));
    cudaMallocManaged(&out, blocks * 64 * sizeof(int));
    for (int i = 0; i < blocks * 64; ++i) {
      in[i] = i * 3;
      out[i] = -1;
    }
    reverse_some<<<blocks, 64>>>(in, out, valid);
    cudaDeviceSynchronize();
    int wrong = 0;
    for (int b = 0; b < blocks; ++b) {
      for (int t = 0; t < 64; ++t) {
        wrong += out[b * 64 + t] != (t < valid ? in[b * 64 + 63 - t] : -1);
      }
    }
    std::printf("reverse_some: %s\n", wrong == 0 ? "ok" : "WRONG");
    bad += wrong;
    cudaFree(in);
    cudaFree(out);
  }
  {
    const int blocks = 3;
    int* out;
    cudaMallocManaged(&out, blocks * 64 * sizeof(int));
    mirror3d<<<blocks, dim3(4, 4, 4)>>>(out);
    cudaDeviceSynchronize();
    int wrong = 0;
    for (int b = 0; b < blocks; ++b) {
      for (int lin = 0; lin < 64; ++lin) {
        const int other = 63 - lin;
        wrong += out[b * 64 + lin] != other * (b + 1) + other / 16;
      }
    }
    std::printf("mirror3d: %s\n", wrong == 0 ? "ok" : "WRONG");
    bad += wrong;
    cudaFree(out);
  }
  return bad == 0 ? 0 : 1;
}
