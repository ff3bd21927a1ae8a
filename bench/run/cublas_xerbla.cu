// On the GPU machine: how cuBLAS words an invalid argument for routine names of four, five and
// more letters (SGER, SGEMV, SGEMM, the strided batched GEMM), to compare with gpulab's cuBLAS
// (src/run/runtime/cublas.cpp). Build: nvcc -o xerbla cublas_xerbla.cu -lcublas; run: ./xerbla
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cstdio>

int main() {
  cublasHandle_t h;
  if (cublasCreate(&h) != CUBLAS_STATUS_SUCCESS) return 1;
  float* d = nullptr;
  if (cudaMalloc(&d, 1024 * sizeof(float)) != cudaSuccess) return 1;
  const float one = 1.0f;
  std::printf("sger: %d\n", (int)cublasSger(h, 4, 4, &one, d, 0, d, 1, d, 4));
  std::printf("sgemv: %d\n", (int)cublasSgemv(h, CUBLAS_OP_N, 4, 4, &one, d, 1, d, 1, &one, d, 1));
  std::printf("sgemm: %d\n",
              (int)cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, 4, 4, 4, &one, d, 1, d, 4, &one, d, 4));
  std::printf("dgemm: %d\n", (int)cublasDgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, 4, 4, 4, nullptr,
                                              nullptr, 1, nullptr, 4, nullptr, nullptr, 4));
  std::printf("batched: %d\n",
              (int)cublasSgemmStridedBatched(h, CUBLAS_OP_N, CUBLAS_OP_N, 4, 4, 4, &one, d, 1, 16,
                                             d, 4, 16, &one, d, 4, 16, 2));
  cudaFree(d);
  cublasDestroy(h);
  return 0;
}
