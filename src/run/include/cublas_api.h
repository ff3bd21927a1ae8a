// cuBLAS on gpulab's emulator: the handle, the level-1/2/3 routines courses use (axpy, dot, nrm2,
// asum, scal, copy, swap, iamax/iamin, gemv, ger, gemm and its batched and strided-batched forms)
// in single and double precision (and gemm in half precision, cublasHgemm), with cuBLAS's
// column-major layout, transposes, argument checks and status codes. The arithmetic is OpenBLAS's
// on the CPU (sums may round in another order than on a GPU). Complex routines and the rest of
// cuBLAS are named by gpulab before compiling.
#pragma once

#include <cstddef>
#include <cstdint>

#include "cuda_fp16.h"
#include "cuda_runtime.h"

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
