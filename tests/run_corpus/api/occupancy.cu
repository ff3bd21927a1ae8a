// The occupancy API as the samples use it (simpleOccupancy): blocks per SM for block sizes and
// dynamic shared memory, the block size with the most threads per SM, the dynamic shared memory
// that still fits, and a kernel's attributes. The kernels need few registers, so that shared
// memory, warps and blocks are what limit them, on an H100 as on the emulator (whose answers come
// from gpulab's occupancy calculator: compare `gpulab occupancy --cc 9.0`).
#include <cstdio>

__global__ void plain(float* out) {
  out[blockIdx.x * blockDim.x + threadIdx.x] = 1.0f;
}

__global__ void tiled(float* out) {
  __shared__ float tile[3072];  // 12 KiB of static shared memory
  tile[threadIdx.x] = threadIdx.x;
  __syncthreads();
  out[blockIdx.x * blockDim.x + threadIdx.x] = tile[(threadIdx.x + 1) % blockDim.x];
}

__global__ void dynamic(float* out) {
  extern __shared__ float buffer[];
  buffer[threadIdx.x] = threadIdx.x;
  __syncthreads();
  out[blockIdx.x * blockDim.x + threadIdx.x] = buffer[(threadIdx.x + 1) % blockDim.x];
}

// Dynamic shared memory per block for a block size (cudaOccupancyMaxPotentialBlockSizeVariableSMem).
static size_t sixteen_bytes_per_thread(int threads) {
  return static_cast<size_t>(threads) * 16;
}

int main() {
  int blocks = 0;
  for (int size : {32, 64, 128, 256, 512, 768, 1024}) {
    cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, plain, size, 0);
    printf("plain, %4d threads: %2d blocks per SM\n", size, blocks);
  }
  for (int size : {64, 256, 1024}) {
    cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, tiled, size, 0);
    printf("tiled (12 KiB static), %4d threads: %2d blocks per SM\n", size, blocks);
  }
  for (size_t shared : {0, 4096, 16384, 40000}) {
    cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, dynamic, 128, shared);
    printf("dynamic, 128 threads, %5zu bytes: %2d blocks per SM\n", shared, blocks);
  }
  cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(&blocks, tiled, 256, 0,
                                                         cudaOccupancyDisableCachingOverride);
  printf("with cudaOccupancyDisableCachingOverride: %d\n", blocks);

  int sms = 0, min_grid = 0, block = 0;
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  cudaOccupancyMaxPotentialBlockSize(&min_grid, &block, tiled, 0, 0);
  printf("best block for tiled: %d threads, %d blocks per SM\n", block, min_grid / sms);
  cudaOccupancyMaxPotentialBlockSizeVariableSMem(&min_grid, &block, dynamic,
                                                 sixteen_bytes_per_thread);
  printf("best block for dynamic at 16 B per thread: %d threads, %d blocks per SM\n", block,
         min_grid / sms);
  cudaOccupancyMaxPotentialBlockSize(&min_grid, &block, plain, 0, 200);
  printf("best block for plain, at most 200 threads: %d threads, %d blocks per SM\n", block,
         min_grid / sms);

  size_t available = 0;
  for (int n : {1, 8, 16}) {
    cudaOccupancyAvailableDynamicSMemPerBlock(&available, dynamic, n, 128);
    printf("dynamic shared memory for %d blocks of 128: %zu bytes\n", n, available);
  }
  cudaFuncSetAttribute(dynamic, cudaFuncAttributeMaxDynamicSharedMemorySize, 100 * 1024);
  cudaOccupancyAvailableDynamicSMemPerBlock(&available, dynamic, 1, 128);
  printf("after opting in to 100 KiB, for 1 block: %zu bytes\n", available);

  cudaFuncAttributes attributes;
  cudaFuncGetAttributes(&attributes, tiled);
  printf("tiled: %zu bytes of static shared memory, up to %d threads per block\n",
         attributes.sharedSizeBytes, attributes.maxThreadsPerBlock);
  cudaFuncGetAttributes(&attributes, dynamic);
  printf("dynamic: up to %d bytes of dynamic shared memory\n",
         attributes.maxDynamicSharedSizeBytes);
  printf("0 threads: %s\n", cudaGetErrorName(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
                                 &blocks, plain, 0, 0)));
  cudaGetLastError();
  return 0;
}
