// The kernels of the emulator benchmark (emu_bench.cpp), in plain CUDA. emu_bench includes them as
// gpulab run compiles a student's file: through src/run/split (bench/simt/split_kernels.cpp), so
// that kernels with barriers run as coroutines; emu_bench_fibers includes them as they are (the
// fiber path); the HIP-CPU build includes them as they are.
#pragma once

namespace emu_bench_kernels {

__global__ void vecadd(const float* a, const float* b, float* c, int n) {
  const int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (i < n) c[i] = a[i] + b[i];
}

// C = A * B, n x n, 16 x 16 tiles through shared memory (n a multiple of 16).
constexpr int kTile = 16;
__global__ void matmul_tiled(const float* a, const float* b, float* c, int n) {
  __shared__ float as[kTile][kTile];
  __shared__ float bs[kTile][kTile];
  const int tx = static_cast<int>(threadIdx.x), ty = static_cast<int>(threadIdx.y);
  const int row = static_cast<int>(blockIdx.y) * kTile + ty;
  const int col = static_cast<int>(blockIdx.x) * kTile + tx;
  float acc = 0.0f;
  for (int k0 = 0; k0 < n; k0 += kTile) {
    as[ty][tx] = a[row * n + k0 + tx];
    bs[ty][tx] = b[(k0 + ty) * n + col];
    __syncthreads();
    for (int k = 0; k < kTile; ++k) acc += as[ty][k] * bs[k][tx];
    __syncthreads();
  }
  c[row * n + col] = acc;
}

// One partial sum per block: the classic __syncthreads tree in shared memory (block 256).
__global__ void reduce_tree(const float* in, float* partial, int n) {
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

// One partial sum per warp, through __shfl_down_sync (no shared memory, no barrier).
__global__ void reduce_shfl(const float* in, float* partial, int n) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = i < static_cast<unsigned>(n) ? in[i] : 0.0f;
  for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_down_sync(0xffffffffu, v, offset);
  if ((threadIdx.x & 31) == 0) partial[i / 32] = v;
}

// NVIDIA's matrixMul sample's kernel shape: C = A * B with A hA x wA and B wA x wB, BLOCK x BLOCK
// tiles, one thread per element of C.
template <int BLOCK>
__global__ void matrix_mul(float* c, const float* a, const float* b, int wa, int wb) {
  __shared__ float as[BLOCK][BLOCK];
  __shared__ float bs[BLOCK][BLOCK];
  const int bx = static_cast<int>(blockIdx.x), by = static_cast<int>(blockIdx.y);
  const int tx = static_cast<int>(threadIdx.x), ty = static_cast<int>(threadIdx.y);
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

}  // namespace emu_bench_kernels
