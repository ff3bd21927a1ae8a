// cuBLAS on gpulab's emulator: the handle, the level-1/2/3 routines courses use (axpy, dot, nrm2,
// asum, scal, copy, swap, iamax/iamin, gemv, ger, gemm and its batched and strided-batched forms)
// in single and double precision (and gemm in half precision, cublasHgemm, and in mixed
// precision, cublasGemmEx and its batched and strided-batched forms), with cuBLAS's
// column-major layout, transposes, argument checks and status codes. The arithmetic is OpenBLAS's
// on the CPU (sums may round in another order than on a GPU). Complex routines and the rest of
// cuBLAS are named by gpulab before compiling.
#pragma once

#include <cstddef>
#include <cstdint>

#include "cuda_fp16.h"
#include "cuda_runtime.h"
#include "library_types.h"

#define CUBLAS_API_H_
#define CUBLAS_V2_H_
#define CUBLASAPI
#define CUBLASWINAPI
#define CUBLAS_VER_MAJOR 13
#define CUBLAS_VER_MINOR 0
#define CUBLAS_VER_PATCH 0
#define CUBLAS_VERSION (CUBLAS_VER_MAJOR * 10000 + CUBLAS_VER_MINOR * 100 + CUBLAS_VER_PATCH)

typedef enum {
  CUBLAS_STATUS_SUCCESS = 0,
  CUBLAS_STATUS_NOT_INITIALIZED = 1,
  CUBLAS_STATUS_ALLOC_FAILED = 3,
  CUBLAS_STATUS_INVALID_VALUE = 7,
  CUBLAS_STATUS_ARCH_MISMATCH = 8,
  CUBLAS_STATUS_MAPPING_ERROR = 11,
  CUBLAS_STATUS_EXECUTION_FAILED = 13,
  CUBLAS_STATUS_INTERNAL_ERROR = 14,
  CUBLAS_STATUS_NOT_SUPPORTED = 15,
  CUBLAS_STATUS_LICENSE_ERROR = 16
} cublasStatus_t;
typedef enum {
  CUBLAS_FILL_MODE_LOWER = 0,
  CUBLAS_FILL_MODE_UPPER = 1,
  CUBLAS_FILL_MODE_FULL = 2
} cublasFillMode_t;
typedef enum { CUBLAS_DIAG_NON_UNIT = 0, CUBLAS_DIAG_UNIT = 1 } cublasDiagType_t;
typedef enum { CUBLAS_SIDE_LEFT = 0, CUBLAS_SIDE_RIGHT = 1 } cublasSideMode_t;
typedef enum {
  CUBLAS_OP_N = 0,
  CUBLAS_OP_T = 1,
  CUBLAS_OP_C = 2,
  CUBLAS_OP_HERMITAN = 2,
  CUBLAS_OP_CONJG = 3
} cublasOperation_t;
typedef enum { CUBLAS_POINTER_MODE_HOST = 0, CUBLAS_POINTER_MODE_DEVICE = 1 } cublasPointerMode_t;
typedef enum { CUBLAS_ATOMICS_NOT_ALLOWED = 0, CUBLAS_ATOMICS_ALLOWED = 1 } cublasAtomicsMode_t;
typedef enum {
  CUBLAS_DEFAULT_MATH = 0,
  CUBLAS_TENSOR_OP_MATH = 1,
  CUBLAS_PEDANTIC_MATH = 2,
  CUBLAS_TF32_TENSOR_OP_MATH = 3,
  CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION = 16
} cublasMath_t;

typedef enum {
  CUBLAS_COMPUTE_16F = 64,
  CUBLAS_COMPUTE_16F_PEDANTIC = 65,
  CUBLAS_COMPUTE_32F = 68,
  CUBLAS_COMPUTE_32F_PEDANTIC = 69,
  CUBLAS_COMPUTE_32F_FAST_16F = 74,
  CUBLAS_COMPUTE_32F_FAST_16BF = 75,
  CUBLAS_COMPUTE_32F_FAST_TF32 = 77,
  CUBLAS_COMPUTE_32F_EMULATED_16BFX9 = 78,
  CUBLAS_COMPUTE_64F = 70,
  CUBLAS_COMPUTE_64F_PEDANTIC = 71,
  CUBLAS_COMPUTE_64F_EMULATED_FIXEDPOINT = 79,
  CUBLAS_COMPUTE_32I = 72,
  CUBLAS_COMPUTE_32I_PEDANTIC = 73
} cublasComputeType_t;
// The algorithm a gemm may choose: a hint on a GPU, without effect here (one product).
typedef enum {
  CUBLAS_GEMM_DFALT = -1,
  CUBLAS_GEMM_DEFAULT = -1,
  CUBLAS_GEMM_ALGO0 = 0,
  CUBLAS_GEMM_ALGO1 = 1,
  CUBLAS_GEMM_ALGO2 = 2,
  CUBLAS_GEMM_ALGO3 = 3,
  CUBLAS_GEMM_ALGO4 = 4,
  CUBLAS_GEMM_ALGO5 = 5,
  CUBLAS_GEMM_ALGO6 = 6,
  CUBLAS_GEMM_ALGO7 = 7,
  CUBLAS_GEMM_ALGO8 = 8,
  CUBLAS_GEMM_ALGO9 = 9,
  CUBLAS_GEMM_ALGO10 = 10,
  CUBLAS_GEMM_ALGO11 = 11,
  CUBLAS_GEMM_ALGO12 = 12,
  CUBLAS_GEMM_ALGO13 = 13,
  CUBLAS_GEMM_ALGO14 = 14,
  CUBLAS_GEMM_ALGO15 = 15,
  CUBLAS_GEMM_ALGO16 = 16,
  CUBLAS_GEMM_ALGO17 = 17,
  CUBLAS_GEMM_ALGO18 = 18,
  CUBLAS_GEMM_ALGO19 = 19,
  CUBLAS_GEMM_ALGO20 = 20,
  CUBLAS_GEMM_ALGO21 = 21,
  CUBLAS_GEMM_ALGO22 = 22,
  CUBLAS_GEMM_ALGO23 = 23,
  CUBLAS_GEMM_DEFAULT_TENSOR_OP = 99,
  CUBLAS_GEMM_DFALT_TENSOR_OP = 99,
  CUBLAS_GEMM_ALGO0_TENSOR_OP = 100,
  CUBLAS_GEMM_ALGO1_TENSOR_OP = 101,
  CUBLAS_GEMM_ALGO2_TENSOR_OP = 102,
  CUBLAS_GEMM_ALGO3_TENSOR_OP = 103,
  CUBLAS_GEMM_ALGO4_TENSOR_OP = 104,
  CUBLAS_GEMM_ALGO5_TENSOR_OP = 105,
  CUBLAS_GEMM_ALGO6_TENSOR_OP = 106,
  CUBLAS_GEMM_ALGO7_TENSOR_OP = 107,
  CUBLAS_GEMM_ALGO8_TENSOR_OP = 108,
  CUBLAS_GEMM_ALGO9_TENSOR_OP = 109,
  CUBLAS_GEMM_ALGO10_TENSOR_OP = 110,
  CUBLAS_GEMM_ALGO11_TENSOR_OP = 111,
  CUBLAS_GEMM_ALGO12_TENSOR_OP = 112,
  CUBLAS_GEMM_ALGO13_TENSOR_OP = 113,
  CUBLAS_GEMM_ALGO14_TENSOR_OP = 114,
  CUBLAS_GEMM_ALGO15_TENSOR_OP = 115
} cublasGemmAlgo_t;

struct cublasContext;
typedef struct cublasContext* cublasHandle_t;

cublasStatus_t cublasCreate(cublasHandle_t* handle);
cublasStatus_t cublasDestroy(cublasHandle_t handle);
cublasStatus_t cublasGetVersion(cublasHandle_t handle, int* version);
cublasStatus_t cublasSetStream(cublasHandle_t handle, cudaStream_t stream);
cublasStatus_t cublasGetStream(cublasHandle_t handle, cudaStream_t* stream);
cublasStatus_t cublasSetPointerMode(cublasHandle_t handle, cublasPointerMode_t mode);
cublasStatus_t cublasGetPointerMode(cublasHandle_t handle, cublasPointerMode_t* mode);
cublasStatus_t cublasSetMathMode(cublasHandle_t handle, cublasMath_t mode);
cublasStatus_t cublasGetMathMode(cublasHandle_t handle, cublasMath_t* mode);
cublasStatus_t cublasSetAtomicsMode(cublasHandle_t handle, cublasAtomicsMode_t mode);
const char* cublasGetStatusName(cublasStatus_t status);
const char* cublasGetStatusString(cublasStatus_t status);

cublasStatus_t cublasSetVector(int n, int elem_size, const void* x, int incx, void* y, int incy);
cublasStatus_t cublasGetVector(int n, int elem_size, const void* x, int incx, void* y, int incy);
cublasStatus_t cublasSetMatrix(int rows, int cols, int elem_size, const void* a, int lda, void* b,
                               int ldb);
cublasStatus_t cublasGetMatrix(int rows, int cols, int elem_size, const void* a, int lda, void* b,
                               int ldb);
cublasStatus_t cublasSetVectorAsync(int n, int elem_size, const void* x, int incx, void* y,
                                    int incy, cudaStream_t stream);
cublasStatus_t cublasGetVectorAsync(int n, int elem_size, const void* x, int incx, void* y,
                                    int incy, cudaStream_t stream);
cublasStatus_t cublasSetMatrixAsync(int rows, int cols, int elem_size, const void* a, int lda,
                                    void* b, int ldb, cudaStream_t stream);
cublasStatus_t cublasGetMatrixAsync(int rows, int cols, int elem_size, const void* a, int lda,
                                    void* b, int ldb, cudaStream_t stream);

#define GPULAB_CUBLAS_REAL(T, P, p)                                                              \
  cublasStatus_t cublas##P##axpy(cublasHandle_t h, int n, const T* alpha, const T* x, int incx,  \
                                 T* y, int incy);                                                \
  cublasStatus_t cublas##P##dot(cublasHandle_t h, int n, const T* x, int incx, const T* y,       \
                                int incy, T* result);                                            \
  cublasStatus_t cublas##P##nrm2(cublasHandle_t h, int n, const T* x, int incx, T* result);      \
  cublasStatus_t cublas##P##asum(cublasHandle_t h, int n, const T* x, int incx, T* result);      \
  cublasStatus_t cublas##P##scal(cublasHandle_t h, int n, const T* alpha, T* x, int incx);       \
  cublasStatus_t cublas##P##copy(cublasHandle_t h, int n, const T* x, int incx, T* y, int incy); \
  cublasStatus_t cublas##P##swap(cublasHandle_t h, int n, T* x, int incx, T* y, int incy);       \
  cublasStatus_t cublasI##p##amax(cublasHandle_t h, int n, const T* x, int incx, int* result);   \
  cublasStatus_t cublasI##p##amin(cublasHandle_t h, int n, const T* x, int incx, int* result);   \
  cublasStatus_t cublas##P##gemv(cublasHandle_t h, cublasOperation_t trans, int m, int n,        \
                                 const T* alpha, const T* A, int lda, const T* x, int incx,      \
                                 const T* beta, T* y, int incy);                                 \
  cublasStatus_t cublas##P##ger(cublasHandle_t h, int m, int n, const T* alpha, const T* x,      \
                                int incx, const T* y, int incy, T* A, int lda);                  \
  cublasStatus_t cublas##P##gemm(                                                                \
      cublasHandle_t h, cublasOperation_t transa, cublasOperation_t transb, int m, int n, int k, \
      const T* alpha, const T* A, int lda, const T* B, int ldb, const T* beta, T* C, int ldc);   \
  cublasStatus_t cublas##P##gemmBatched(                                                         \
      cublasHandle_t h, cublasOperation_t transa, cublasOperation_t transb, int m, int n, int k, \
      const T* alpha, const T* const Aarray[], int lda, const T* const Barray[], int ldb,        \
      const T* beta, T* const Carray[], int ldc, int batch_count);                               \
  cublasStatus_t cublas##P##gemmStridedBatched(                                                  \
      cublasHandle_t h, cublasOperation_t transa, cublasOperation_t transb, int m, int n, int k, \
      const T* alpha, const T* A, int lda, long long int stride_a, const T* B, int ldb,          \
      long long int stride_b, const T* beta, T* C, int ldc, long long int stride_c,              \
      int batch_count);                                                                          \
  cublasStatus_t cublas##P##geam(                                                                \
      cublasHandle_t h, cublasOperation_t transa, cublasOperation_t transb, int m, int n,        \
      const T* alpha, const T* A, int lda, const T* beta, const T* B, int ldb, T* C, int ldc);
GPULAB_CUBLAS_REAL(float, S, s)
GPULAB_CUBLAS_REAL(double, D, d)
#undef GPULAB_CUBLAS_REAL
// Half precision, computed in float and rounded to half once (runtime/cublas.cpp).
cublasStatus_t cublasHgemm(cublasHandle_t h, cublasOperation_t transa, cublasOperation_t transb,
                           int m, int n, int k, const __half* alpha, const __half* A, int lda,
                           const __half* B, int ldb, const __half* beta, __half* C, int ldc);

// Mixed precision (runtime/cublas.cpp): the element types and compute types of cuBLAS's table
// for real matrices (16F, 16BF, 32F, 64F; 8I into 32I or 32F); the others give
// CUBLAS_STATUS_NOT_SUPPORTED. The algorithm is not used.
cublasStatus_t cublasGemmEx(cublasHandle_t h, cublasOperation_t transa, cublasOperation_t transb,
                            int m, int n, int k, const void* alpha, const void* A,
                            cudaDataType Atype, int lda, const void* B, cudaDataType Btype, int ldb,
                            const void* beta, void* C, cudaDataType Ctype, int ldc,
                            cublasComputeType_t compute, cublasGemmAlgo_t algo);
cublasStatus_t cublasGemmBatchedEx(cublasHandle_t h, cublasOperation_t transa,
                                   cublasOperation_t transb, int m, int n, int k, const void* alpha,
                                   const void* const Aarray[], cudaDataType Atype, int lda,
                                   const void* const Barray[], cudaDataType Btype, int ldb,
                                   const void* beta, void* const Carray[], cudaDataType Ctype,
                                   int ldc, int batch_count, cublasComputeType_t compute,
                                   cublasGemmAlgo_t algo);
cublasStatus_t cublasGemmStridedBatchedEx(cublasHandle_t h, cublasOperation_t transa,
                                          cublasOperation_t transb, int m, int n, int k,
                                          const void* alpha, const void* A, cudaDataType Atype,
                                          int lda, long long int stride_a, const void* B,
                                          cudaDataType Btype, int ldb, long long int stride_b,
                                          const void* beta, void* C, cudaDataType Ctype, int ldc,
                                          long long int stride_c, int batch_count,
                                          cublasComputeType_t compute, cublasGemmAlgo_t algo);

#ifdef __cplusplus
// Older programs give the compute type as a cudaDataType (CUDA 10's form); cuBLAS's header maps
// it as these do: CUDA_R_32F to CUBLAS_COMPUTE_32F (_PEDANTIC in pedantic math mode), and so on.
inline cublasStatus_t cublasMigrateComputeType(cublasHandle_t h, cudaDataType type,
                                               cublasComputeType_t* compute) {
  cublasMath_t mode = CUBLAS_DEFAULT_MATH;
  if (const cublasStatus_t s = cublasGetMathMode(h, &mode); s != CUBLAS_STATUS_SUCCESS) return s;
  const bool pedantic = (mode & 0xf) == CUBLAS_PEDANTIC_MATH;
  switch (type) {
    case CUDA_R_32F:
    case CUDA_C_32F:
      *compute = pedantic ? CUBLAS_COMPUTE_32F_PEDANTIC : CUBLAS_COMPUTE_32F;
      return CUBLAS_STATUS_SUCCESS;
    case CUDA_R_64F:
    case CUDA_C_64F:
      *compute = pedantic ? CUBLAS_COMPUTE_64F_PEDANTIC : CUBLAS_COMPUTE_64F;
      return CUBLAS_STATUS_SUCCESS;
    case CUDA_R_16F:
      *compute = pedantic ? CUBLAS_COMPUTE_16F_PEDANTIC : CUBLAS_COMPUTE_16F;
      return CUBLAS_STATUS_SUCCESS;
    case CUDA_R_32I:
      *compute = pedantic ? CUBLAS_COMPUTE_32I_PEDANTIC : CUBLAS_COMPUTE_32I;
      return CUBLAS_STATUS_SUCCESS;
    default:
      return CUBLAS_STATUS_NOT_SUPPORTED;
  }
}
inline cublasStatus_t cublasGemmEx(cublasHandle_t h, cublasOperation_t transa,
                                   cublasOperation_t transb, int m, int n, int k, const void* alpha,
                                   const void* A, cudaDataType Atype, int lda, const void* B,
                                   cudaDataType Btype, int ldb, const void* beta, void* C,
                                   cudaDataType Ctype, int ldc, cudaDataType compute,
                                   cublasGemmAlgo_t algo) {
  cublasComputeType_t c = CUBLAS_COMPUTE_32F;
  if (const cublasStatus_t s = cublasMigrateComputeType(h, compute, &c); s != CUBLAS_STATUS_SUCCESS)
    return s;
  return cublasGemmEx(h, transa, transb, m, n, k, alpha, A, Atype, lda, B, Btype, ldb, beta, C,
                      Ctype, ldc, c, algo);
}
inline cublasStatus_t cublasGemmBatchedEx(
    cublasHandle_t h, cublasOperation_t transa, cublasOperation_t transb, int m, int n, int k,
    const void* alpha, const void* const Aarray[], cudaDataType Atype, int lda,
    const void* const Barray[], cudaDataType Btype, int ldb, const void* beta, void* const Carray[],
    cudaDataType Ctype, int ldc, int batch_count, cudaDataType compute, cublasGemmAlgo_t algo) {
  cublasComputeType_t c = CUBLAS_COMPUTE_32F;
  if (const cublasStatus_t s = cublasMigrateComputeType(h, compute, &c); s != CUBLAS_STATUS_SUCCESS)
    return s;
  return cublasGemmBatchedEx(h, transa, transb, m, n, k, alpha, Aarray, Atype, lda, Barray, Btype,
                             ldb, beta, Carray, Ctype, ldc, batch_count, c, algo);
}
inline cublasStatus_t cublasGemmStridedBatchedEx(
    cublasHandle_t h, cublasOperation_t transa, cublasOperation_t transb, int m, int n, int k,
    const void* alpha, const void* A, cudaDataType Atype, int lda, long long int stride_a,
    const void* B, cudaDataType Btype, int ldb, long long int stride_b, const void* beta, void* C,
    cudaDataType Ctype, int ldc, long long int stride_c, int batch_count, cudaDataType compute,
    cublasGemmAlgo_t algo) {
  cublasComputeType_t c = CUBLAS_COMPUTE_32F;
  if (const cublasStatus_t s = cublasMigrateComputeType(h, compute, &c); s != CUBLAS_STATUS_SUCCESS)
    return s;
  return cublasGemmStridedBatchedEx(h, transa, transb, m, n, k, alpha, A, Atype, lda, stride_a, B,
                                    Btype, ldb, stride_b, beta, C, Ctype, ldc, stride_c,
                                    batch_count, c, algo);
}
#endif

// The _v2 names cuBLAS's own header maps these to.
#define cublasCreate_v2 cublasCreate
#define cublasDestroy_v2 cublasDestroy
#define cublasGetVersion_v2 cublasGetVersion
#define cublasSetStream_v2 cublasSetStream
#define cublasGetStream_v2 cublasGetStream
#define cublasSetPointerMode_v2 cublasSetPointerMode
#define cublasGetPointerMode_v2 cublasGetPointerMode
#define cublasSaxpy_v2 cublasSaxpy
#define cublasDaxpy_v2 cublasDaxpy
#define cublasSdot_v2 cublasSdot
#define cublasDdot_v2 cublasDdot
#define cublasSnrm2_v2 cublasSnrm2
#define cublasDnrm2_v2 cublasDnrm2
#define cublasSasum_v2 cublasSasum
#define cublasDasum_v2 cublasDasum
#define cublasSscal_v2 cublasSscal
#define cublasDscal_v2 cublasDscal
#define cublasScopy_v2 cublasScopy
#define cublasDcopy_v2 cublasDcopy
#define cublasSswap_v2 cublasSswap
#define cublasDswap_v2 cublasDswap
#define cublasIsamax_v2 cublasIsamax
#define cublasIdamax_v2 cublasIdamax
#define cublasIsamin_v2 cublasIsamin
#define cublasIdamin_v2 cublasIdamin
#define cublasSgemv_v2 cublasSgemv
#define cublasDgemv_v2 cublasDgemv
#define cublasSger_v2 cublasSger
#define cublasDger_v2 cublasDger
#define cublasSgemm_v2 cublasSgemm
#define cublasDgemm_v2 cublasDgemm
