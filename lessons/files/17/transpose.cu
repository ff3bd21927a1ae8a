// Three transposes of a 64x64 matrix, each checked: run it with `gpulab profile transpose.cu`.
#include <cstdio>
#include <vector>

constexpr int N = 64;

// Reads rows (consecutive threads, consecutive addresses), writes columns (addresses N floats
// apart): the stores are not coalesced.
__global__ void transpose_naive(const float* in, float* out) {
  int x = blockIdx.x * 32 + threadIdx.x;
  int y = blockIdx.y * 32 + threadIdx.y;
  out[x * N + y] = in[y * N + x];
}

// Through shared memory: rows in, rows out. The tile is read by columns.
__global__ void transpose_tiled(const float* in, float* out) {
  __shared__ float tile[32][32];
  int x = blockIdx.x * 32 + threadIdx.x;
  int y = blockIdx.y * 32 + threadIdx.y;
  tile[threadIdx.y][threadIdx.x] = in[y * N + x];
  __syncthreads();
  x = blockIdx.y * 32 + threadIdx.x;
  y = blockIdx.x * 32 + threadIdx.y;
  out[y * N + x] = tile[threadIdx.x][threadIdx.y];
}

// The same with one unused column: each row of the tile starts one bank further on.
__global__ void transpose_padded(const float* in, float* out) {
  __shared__ float tile[32][33];
  int x = blockIdx.x * 32 + threadIdx.x;
  int y = blockIdx.y * 32 + threadIdx.y;
  tile[threadIdx.y][threadIdx.x] = in[y * N + x];
  __syncthreads();
  x = blockIdx.y * 32 + threadIdx.x;
  y = blockIdx.x * 32 + threadIdx.y;
  out[y * N + x] = tile[threadIdx.x][threadIdx.y];
}

int main() {
  std::vector<float> h_in(N * N), h_out(N * N);
  for (int i = 0; i < N * N; ++i) h_in[i] = float(i);
  float *in, *out;
  cudaMalloc(&in, N * N * sizeof(float));
  cudaMalloc(&out, N * N * sizeof(float));
  cudaMemcpy(in, h_in.data(), N * N * sizeof(float), cudaMemcpyHostToDevice);
  dim3 grid(N / 32, N / 32), block(32, 32);
  const char* names[] = {"naive", "tiled", "padded"};
  for (int k = 0; k < 3; ++k) {
    cudaMemset(out, 0, N * N * sizeof(float));
    if (k == 0) transpose_naive<<<grid, block>>>(in, out);
    if (k == 1) transpose_tiled<<<grid, block>>>(in, out);
    if (k == 2) transpose_padded<<<grid, block>>>(in, out);
    cudaMemcpy(h_out.data(), out, N * N * sizeof(float), cudaMemcpyDeviceToHost);
    int wrong = 0;
    for (int r = 0; r < N; ++r)
      for (int c = 0; c < N; ++c)
        if (h_out[c * N + r] != h_in[r * N + c]) ++wrong;
    std::printf("%s: %s\n", names[k], wrong == 0 ? "correct" : "WRONG");
  }
  cudaFree(in);
  cudaFree(out);
  return 0;
}
