// What the GPU answers where gpulab's emulator follows CUDA's documentation without a recording
// (bench/run_api_h100.sh runs it with nvcc on the GPU and on the emulator, side by side): flags and
// defaults, misuse of host and managed memory, the occupancy API for larger dynamic shared memory,
// cuBLAS's report of invalid arguments of its batched and double-precision routines, and cuRAND's
// odd counts. Each line is "what: answer", for diff.
#include <cublas_v2.h>
#include <curand.h>

#include <cstdio>
#include <cstdlib>

__global__ void dynamic(float* out) {
  extern __shared__ float buffer[];
  buffer[threadIdx.x] = threadIdx.x;
  __syncthreads();
  out[threadIdx.x] = buffer[(threadIdx.x + 1) % blockDim.x];
}

int main() {
  unsigned flags = 0;
  cudaGetDeviceFlags(&flags);
  printf("cudaGetDeviceFlags before any: %#x\n", flags);
  void* pinned = nullptr;
  cudaMallocHost(&pinned, 4096);
  cudaHostGetFlags(&flags, pinned);
  printf("cudaHostGetFlags of cudaMallocHost memory: %#x\n", flags);
  void* dptr = nullptr;
  void* own = malloc(4096);
  printf("cudaHostGetDevicePointer of malloc memory: %s\n",
         cudaGetErrorName(cudaHostGetDevicePointer(&dptr, own, 0)));
  cudaGetLastError();
  printf("cudaHostRegister of 0 bytes: %s\n", cudaGetErrorName(cudaHostRegister(own, 0, 0)));
  cudaGetLastError();
  printf("cudaHostRegister with IoMemory: %s\n",
         cudaGetErrorName(cudaHostRegister(own, 4096, cudaHostRegisterIoMemory)));
  cudaGetLastError();
  cudaHostUnregister(own);
  cudaGetLastError();
  printf("cudaHostRegister of cudaMallocHost memory: %s\n",
         cudaGetErrorName(cudaHostRegister(pinned, 4096, 0)));
  cudaGetLastError();
  void* device = nullptr;
  cudaMalloc(&device, 4096);
  cudaMemLocation gpu = {cudaMemLocationTypeDevice, 0};
  printf("cudaMemAdvise on cudaMalloc memory: %s\n",
         cudaGetErrorName(cudaMemAdvise(device, 4096, cudaMemAdviseSetReadMostly, gpu)));
  cudaGetLastError();
  printf("cudaMemPrefetchAsync of cudaMalloc memory: %s\n",
         cudaGetErrorName(cudaMemPrefetchAsync(device, 4096, gpu, 0, 0)));
  cudaGetLastError();
  printf("cudaMemAdvise on pinned memory: %s\n",
         cudaGetErrorName(cudaMemAdvise(pinned, 4096, cudaMemAdviseSetReadMostly, gpu)));
  cudaGetLastError();
  printf("cudaMemAdvise on malloc memory: %s\n",
         cudaGetErrorName(cudaMemAdvise(own, 4096, cudaMemAdviseSetReadMostly, gpu)));
  cudaGetLastError();
  size_t limit = 0;
  cudaDeviceGetLimit(&limit, cudaLimitMaxL2FetchGranularity);
  printf("cudaLimitMaxL2FetchGranularity: %zu\n", limit);
  cudaDeviceGetLimit(&limit, cudaLimitStackSize);
  printf("cudaLimitStackSize: %zu\n", limit);
  printf("cudaDeviceGetLimit(cudaLimitDevRuntimeSyncDepth): %s\n",
         cudaGetErrorName(cudaDeviceGetLimit(&limit, cudaLimitDevRuntimeSyncDepth)));
  cudaGetLastError();
  int value = 0;
  cudaDeviceGetAttribute(&value, cudaDevAttrSingleToDoublePrecisionPerfRatio, 0);
  printf("cudaDevAttrSingleToDoublePrecisionPerfRatio: %d\n", value);
  size_t pitch = 0;
  cudaMallocPitch(&dptr, &pitch, 100, 4);
  printf("cudaMallocPitch of 100 bytes: pitch %zu\n", pitch);
  cudaFree(dptr);

  size_t available = 0;
  for (int blocks : {1, 2, 3, 7, 8, 16, 32}) {
    const cudaError_t e = cudaOccupancyAvailableDynamicSMemPerBlock(&available, dynamic, blocks, 64);
    printf("cudaOccupancyAvailableDynamicSMemPerBlock(%d blocks of 64): %s %zu\n", blocks,
           cudaGetErrorName(e), available);
  }
  cudaGetLastError();
  int blocks = 0;
  for (size_t shared : {49152, 65536, 100000}) {
    const cudaError_t e =
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, dynamic, 128, shared);
    printf("blocks per SM at %zu bytes before opting in: %s %d\n", shared, cudaGetErrorName(e),
           blocks);
  }
  cudaFuncSetAttribute(dynamic, cudaFuncAttributeMaxDynamicSharedMemorySize, 200 * 1024);
  for (size_t shared : {49152, 65536, 100000}) {
    cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, dynamic, 128, shared);
    printf("blocks per SM at %zu bytes after opting in: %d\n", shared, blocks);
  }
  cudaOccupancyAvailableDynamicSMemPerBlock(&available, dynamic, 1, 64);
  printf("available for 1 block after opting in: %zu\n", available);
  cudaOccupancyAvailableDynamicSMemPerBlock(&available, dynamic, 2, 64);
  printf("available for 2 blocks after opting in: %zu\n", available);

  // cuBLAS's report of invalid arguments (stdout), batched and double precision.
  cublasHandle_t h;
  cublasCreate(&h);
  float* m = nullptr;
  cudaMalloc(&m, 64 * sizeof(float));
  const float alpha = 1, beta = 0;
  const float* arrays[1] = {m};
  float* out_arrays[1] = {m};
  fflush(stdout);
  printf("SgemmBatched lda 1 < m 4: %d\n",
         (int)cublasSgemmBatched(h, CUBLAS_OP_N, CUBLAS_OP_N, 4, 4, 4, &alpha, arrays, 1, arrays,
                                 4, &beta, out_arrays, 4, 1));
  printf("SgemmStridedBatched ldc 1 < m 4: %d\n",
         (int)cublasSgemmStridedBatched(h, CUBLAS_OP_N, CUBLAS_OP_N, 4, 4, 4, &alpha, m, 4, 16, m,
                                        4, 16, &beta, m, 1, 16, 1));
  const double dalpha = 1, dbeta = 0;
  double* dm = nullptr;
  cudaMalloc(&dm, 64 * sizeof(double));
  printf("Dgemm ldb 2 < k 4: %d\n", (int)cublasDgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, 4, 4, 4, &dalpha,
                                                    dm, 4, dm, 2, &dbeta, dm, 4));
  printf("Sgemv incx 0: %d\n", (int)cublasSgemv(h, CUBLAS_OP_N, 4, 4, &alpha, m, 4, m, 0, &beta,
                                               m, 1));
  printf("Sgemm m -1: %d\n", (int)cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, -1, 4, 4, &alpha, m, 4,
                                             m, 4, &beta, m, 4));
  printf("Sger lda 1: %d\n", (int)cublasSger(h, 4, 4, &alpha, m, 1, m, 1, m, 1));
  printf("Saxpy n -1: %d\n", (int)cublasSaxpy(h, -1, &alpha, m, 1, m, 1));
  cublasDestroy(h);

  // cuRAND: odd counts of normals and log-normals, doubles, per generator.
  curandGenerator_t g;
  float* f = nullptr;
  double* d = nullptr;
  cudaMalloc(&f, 16 * sizeof(float));
  cudaMalloc(&d, 16 * sizeof(double));
  for (curandRngType_t t : {CURAND_RNG_PSEUDO_XORWOW, CURAND_RNG_PSEUDO_PHILOX4_32_10}) {
    curandCreateGenerator(&g, t);
    curandSetPseudoRandomGeneratorSeed(g, 7ULL);
    const int s1 = curandGenerateNormal(g, f, 3, 0.0f, 1.0f);
    const int s2 = curandGenerateNormalDouble(g, d, 3, 0.0, 1.0);
    const int s3 = curandGenerateLogNormal(g, f, 7, 0.0f, 1.0f);
    float hf[7] = {0};
    cudaMemcpy(hf, f, sizeof hf, cudaMemcpyDeviceToHost);
    printf("generator %d: 3 normals %d, 3 double normals %d, 7 log-normals %d: %.4f %.4f\n",
           (int)t, s1, s2, s3, hf[0], hf[6]);
    curandDestroyGenerator(g);
  }
  cudaFree(f);
  cudaFree(d);
  cudaFree(m);
  cudaFree(dm);
  cudaFree(device);
  cudaFreeHost(pinned);
  free(own);
  return 0;
}
