// cuBLAS on gpulab's emulator (see cublas_api.h): cuBLAS's argument checks and status codes in
// front of OpenBLAS's CBLAS, column-major as cuBLAS is. The "device" memory is host memory, so
// pointers (and scalars in either pointer mode) are used as they are.
#include <cblas.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <new>
#include <tuple>
#include <vector>

#include "cublas_api.h"
#include "run/runtime/code_text.hpp"
#include "run/runtime/graph.hpp"
#include "simt/memory_check.hpp"

struct cublasContext {
  cudaStream_t stream = nullptr;
  cublasPointerMode_t pointer_mode = CUBLAS_POINTER_MODE_HOST;
  cublasMath_t math_mode = CUBLAS_DEFAULT_MATH;
};

namespace {

int max1(int v) {
  return v > 1 ? v : 1;
}

// cuBLAS's report of an invalid argument of a level-2 or level-3 routine, on stdout, as the BLAS
// error handler (xerbla) words it, with the routine's Fortran name and the argument's position in
// the Fortran interface (no handle): `cublasSgemm` with a too small lda says parameter number 8.
// The name is padded to six columns and followed by a space, as the H100's cuBLAS 13 prints it
// (" ** On entry to SGEMM  parameter number 8 ...", recorded by bench/run_check.sh).
cublasStatus_t illegal(const char* routine, int parameter) {
  std::printf(" ** On entry to %-6s parameter number %d had an illegal value\n", routine,
              parameter);
  return CUBLAS_STATUS_INVALID_VALUE;
}
template <class T>
const char* blas_name(const char* single, const char* double_precision) {
  return sizeof(T) == sizeof(float) ? single : double_precision;
}

bool valid_op(cublasOperation_t op) {
  return op == CUBLAS_OP_N || op == CUBLAS_OP_T || op == CUBLAS_OP_C;
}
CBLAS_TRANSPOSE to_cblas(cublasOperation_t op) {
  return op == CUBLAS_OP_N ? CblasNoTrans : CblasTrans;  // real types: C is T
}

// The bytes a strided vector of n elements spans.
std::size_t span_bytes(int n, int inc, std::size_t elem) {
  if (n <= 0) return 0;
  const long long step = inc < 0 ? -static_cast<long long>(inc) : inc;
  return (static_cast<std::size_t>(n - 1) * static_cast<std::size_t>(step) + 1) * elem;
}
// Written by the library: no longer uninitialized for --check. Negative increments start at the
// other end, as in BLAS, but span the same bytes from the pointer given.
void written(const void* p, std::size_t bytes) {
  if (p != nullptr && bytes != 0) gpulab::simt::mark_initialized(p, bytes);
}

// CBLAS's routines for one real type: Blas<float> calls cblas_s*, Blas<double> cblas_d*.
template <class T>
struct Blas;
#define GPULAB_BLAS_FOR(T, p)                                                                      \
  template <>                                                                                      \
  struct Blas<T> {                                                                                 \
    static void axpy(int n, T a, const T* x, int ix, T* y, int iy) {                               \
      cblas_##p##axpy(n, a, x, ix, y, iy);                                                         \
    }                                                                                              \
    static T dot(int n, const T* x, int ix, const T* y, int iy) {                                  \
      return cblas_##p##dot(n, x, ix, y, iy);                                                      \
    }                                                                                              \
    static T nrm2(int n, const T* x, int ix) { return cblas_##p##nrm2(n, x, ix); }                 \
    static T asum(int n, const T* x, int ix) { return cblas_##p##asum(n, x, ix); }                 \
    static void scal(int n, T a, T* x, int ix) { cblas_##p##scal(n, a, x, ix); }                   \
    static void copy(int n, const T* x, int ix, T* y, int iy) {                                    \
      cblas_##p##copy(n, x, ix, y, iy);                                                            \
    }                                                                                              \
    static void swap(int n, T* x, int ix, T* y, int iy) { cblas_##p##swap(n, x, ix, y, iy); }      \
    static void gemv(CBLAS_TRANSPOSE t, int m, int n, T a, const T* A, int lda, const T* x,        \
                     int ix, T b, T* y, int iy) {                                                  \
      cblas_##p##gemv(CblasColMajor, t, m, n, a, A, lda, x, ix, b, y, iy);                         \
    }                                                                                              \
    static void ger(int m, int n, T a, const T* x, int ix, const T* y, int iy, T* A, int lda) {    \
      cblas_##p##ger(CblasColMajor, m, n, a, x, ix, y, iy, A, lda);                                \
    }                                                                                              \
    static void gemm(CBLAS_TRANSPOSE ta, CBLAS_TRANSPOSE tb, int m, int n, int k, T a, const T* A, \
                     int lda, const T* B, int ldb, T b, T* C, int ldc) {                           \
      cblas_##p##gemm(CblasColMajor, ta, tb, m, n, k, a, A, lda, B, ldb, b, C, ldc);               \
    }                                                                                              \
  };
GPULAB_BLAS_FOR(float, s)
GPULAB_BLAS_FOR(double, d)
#undef GPULAB_BLAS_FOR

// A scalar argument (alpha, beta): read at the call where the pointer mode is host, as cuBLAS
// reads it; where it is device, when the work runs.
template <class T>
struct Scalar {
  T value;
  const T* device;
  T get() const { return device != nullptr ? *device : value; }
};
template <class T>
Scalar<T> scalar(cublasHandle_t h, const T* p) {
  if (h->pointer_mode == CUBLAS_POINTER_MODE_DEVICE) return {T(), p};
  return {*p, nullptr};
}

// The work of a call that writes memory. On a stream being captured into a graph
// (cudaStreamBeginCapture) it becomes a node of that graph, run each time the graph runs, as
// cuBLAS's kernels are captured; otherwise it runs now.
template <class Work>
cublasStatus_t run(cublasHandle_t h, Work work) {
  if (!gpulab::rt::graph_record_work(h->stream, work)) work();
  return CUBLAS_STATUS_SUCCESS;
}

template <class T>
cublasStatus_t axpy(cublasHandle_t h, int n, const T* alpha, const T* x, int incx, T* y, int incy) {
  if (h == nullptr) return CUBLAS_STATUS_NOT_INITIALIZED;
  if (n <= 0) return CUBLAS_STATUS_SUCCESS;
  if (alpha == nullptr || x == nullptr || y == nullptr) return CUBLAS_STATUS_INVALID_VALUE;
  const Scalar<T> a = scalar(h, alpha);
  return run(h, [=] {
    Blas<T>::axpy(n, a.get(), x, incx, y, incy);
    written(y, span_bytes(n, incy, sizeof(T)));
  });
}

template <class T, class F>
cublasStatus_t reduce(cublasHandle_t h, int n, const T* x, int incx, T* result, F f) {
  if (h == nullptr) return CUBLAS_STATUS_NOT_INITIALIZED;
  if (result == nullptr) return CUBLAS_STATUS_INVALID_VALUE;
  // cuBLAS: n <= 0 or incx <= 0 gives 0.
  *result = n <= 0 || incx <= 0 ? T(0) : f();
  written(result, sizeof(T));
  return CUBLAS_STATUS_SUCCESS;
}

template <class T>
cublasStatus_t dot(cublasHandle_t h, int n, const T* x, int incx, const T* y, int incy, T* result) {
  if (h == nullptr) return CUBLAS_STATUS_NOT_INITIALIZED;
  if (result == nullptr) return CUBLAS_STATUS_INVALID_VALUE;
  *result = n <= 0 ? T(0) : Blas<T>::dot(n, x, incx, y, incy);
  written(result, sizeof(T));
  return CUBLAS_STATUS_SUCCESS;
}

template <class T>
cublasStatus_t scal(cublasHandle_t h, int n, const T* alpha, T* x, int incx) {
  if (h == nullptr) return CUBLAS_STATUS_NOT_INITIALIZED;
  if (n <= 0 || incx <= 0) return CUBLAS_STATUS_SUCCESS;
  if (alpha == nullptr || x == nullptr) return CUBLAS_STATUS_INVALID_VALUE;
  const Scalar<T> a = scalar(h, alpha);
  return run(h, [=] { Blas<T>::scal(n, a.get(), x, incx); });
}

template <class T>
cublasStatus_t copy(cublasHandle_t h, int n, const T* x, int incx, T* y, int incy) {
  if (h == nullptr) return CUBLAS_STATUS_NOT_INITIALIZED;
  if (n <= 0) return CUBLAS_STATUS_SUCCESS;
  return run(h, [=] {
    Blas<T>::copy(n, x, incx, y, incy);
    written(y, span_bytes(n, incy, sizeof(T)));
  });
}

template <class T>
cublasStatus_t swap(cublasHandle_t h, int n, T* x, int incx, T* y, int incy) {
  if (h == nullptr) return CUBLAS_STATUS_NOT_INITIALIZED;
  if (n <= 0) return CUBLAS_STATUS_SUCCESS;
  return run(h, [=] { Blas<T>::swap(n, x, incx, y, incy); });
}

// Isamax/Isamin: the 1-based index of the first element of largest (smallest) magnitude.
template <class T>
cublasStatus_t iamax(cublasHandle_t h, int n, const T* x, int incx, int* result, bool largest) {
  if (h == nullptr) return CUBLAS_STATUS_NOT_INITIALIZED;
  if (result == nullptr) return CUBLAS_STATUS_INVALID_VALUE;
  int best = 0;
  if (n > 0 && incx > 0) {
    T best_value = x[0] < 0 ? -x[0] : x[0];
    best = 1;
    for (int i = 1; i < n; ++i) {
      const T v = x[static_cast<std::size_t>(i) * incx];
      const T a = v < 0 ? -v : v;
      if (largest ? a > best_value : a < best_value) {
        best_value = a;
        best = i + 1;
      }
    }
  }
  *result = best;
  written(result, sizeof(int));
  return CUBLAS_STATUS_SUCCESS;
}

template <class T>
cublasStatus_t gemv(cublasHandle_t h, cublasOperation_t trans, int m, int n, const T* alpha,
                    const T* A, int lda, const T* x, int incx, const T* beta, T* y, int incy) {
  if (h == nullptr) return CUBLAS_STATUS_NOT_INITIALIZED;
  // The H100's cuBLAS 13 returns CUBLAS_STATUS_INVALID_VALUE for these without a word
  // (bench/run/cublas_xerbla.cu), unlike gemm and ger.
  if (!valid_op(trans) || m < 0 || n < 0 || lda < max1(m) || incx == 0 || incy == 0)
    return CUBLAS_STATUS_INVALID_VALUE;
  if (m == 0 || n == 0) return CUBLAS_STATUS_SUCCESS;
  if (alpha == nullptr || beta == nullptr) return CUBLAS_STATUS_INVALID_VALUE;
  const Scalar<T> a = scalar(h, alpha), b = scalar(h, beta);
  return run(h, [=] {
    Blas<T>::gemv(to_cblas(trans), m, n, a.get(), A, lda, x, incx, b.get(), y, incy);
    written(y, span_bytes(trans == CUBLAS_OP_N ? m : n, incy, sizeof(T)));
  });
}

template <class T>
cublasStatus_t ger(cublasHandle_t h, int m, int n, const T* alpha, const T* x, int incx, const T* y,
                   int incy, T* A, int lda) {
  if (h == nullptr) return CUBLAS_STATUS_NOT_INITIALIZED;
  const char* name = blas_name<T>("SGER", "DGER");
  if (m < 0) return illegal(name, 1);
  if (n < 0) return illegal(name, 2);
  if (incx == 0) return illegal(name, 5);
  if (incy == 0) return illegal(name, 7);
  if (lda < max1(m)) return illegal(name, 9);
  if (m == 0 || n == 0) return CUBLAS_STATUS_SUCCESS;
  const Scalar<T> a = scalar(h, alpha);
  return run(h, [=] { Blas<T>::ger(m, n, a.get(), x, incx, y, incy, A, lda); });
}

// `name`: the routine's name in cuBLAS's report of an invalid argument, as the H100's cuBLAS 13
// prints it (bench/run/cublas_xerbla.cu: "SGEMM", "SgemmStridedBatched"); nullptr for
// cublas<t>gemmBatched, whose report is not recorded (it returns the status alone here).
template <class T>
cublasStatus_t gemm_check(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m,
                          int n, int k, int lda, int ldb, int ldc, const char* name) {
  if (h == nullptr) return CUBLAS_STATUS_NOT_INITIALIZED;
  const auto bad = [&](int parameter) {
    return name != nullptr ? illegal(name, parameter) : CUBLAS_STATUS_INVALID_VALUE;
  };
  if (!valid_op(ta)) return bad(1);
  if (!valid_op(tb)) return bad(2);
  if (m < 0) return bad(3);
  if (n < 0) return bad(4);
  if (k < 0) return bad(5);
  if (lda < max1(ta == CUBLAS_OP_N ? m : k)) return bad(8);
  if (ldb < max1(tb == CUBLAS_OP_N ? k : n)) return bad(10);
  if (ldc < max1(m)) return bad(13);
  return CUBLAS_STATUS_SUCCESS;
}

template <class T>
void gemm_one(cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k, T alpha, const T* A,
              int lda, const T* B, int ldb, T beta, T* C, int ldc) {
  if (m == 0 || n == 0) return;
  Blas<T>::gemm(to_cblas(ta), to_cblas(tb), m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
  written(C, (static_cast<std::size_t>(n - 1) * ldc + m) * sizeof(T));
}

// `batch` products C = alpha op(A) op(B) + beta C, the i-th on the matrices at(i) gives ({A, B, C}:
// from an array of pointers or at a stride); `name` is the BLAS routine that reports a bad
// argument.
template <class T, class At>
cublasStatus_t gemm_each(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m, int n,
                         int k, const T* alpha, int lda, int ldb, const T* beta, int ldc, int batch,
                         const char* name, At at) {
  if (const auto s = gemm_check<T>(h, ta, tb, m, n, k, lda, ldb, ldc, name);
      s != CUBLAS_STATUS_SUCCESS)
    return s;
  if (batch < 0 || alpha == nullptr || beta == nullptr) return CUBLAS_STATUS_INVALID_VALUE;
  const Scalar<T> a = scalar(h, alpha), b = scalar(h, beta);
  return run(h, [=] {
    for (int i = 0; i < batch; ++i) {
      const auto [A, B, C] = at(i);
      gemm_one(ta, tb, m, n, k, a.get(), A, lda, B, ldb, b.get(), C, ldc);
    }
  });
}

template <class T>
cublasStatus_t gemm(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m, int n,
                    int k, const T* alpha, const T* A, int lda, const T* B, int ldb, const T* beta,
                    T* C, int ldc) {
  return gemm_each(h, ta, tb, m, n, k, alpha, lda, ldb, beta, ldc, 1,
                   blas_name<T>("SGEMM", "DGEMM"), [=](int) {
                     return std::tuple{A, B, C};
                   });
}

template <class T>
cublasStatus_t gemm_batched(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m,
                            int n, int k, const T* alpha, const T* const A[], int lda,
                            const T* const B[], int ldb, const T* beta, T* const C[], int ldc,
                            int batch) {
  return gemm_each(h, ta, tb, m, n, k, alpha, lda, ldb, beta, ldc, batch, nullptr, [=](int i) {
    return std::tuple{A[i], B[i], C[i]};
  });
}

template <class T>
cublasStatus_t gemm_strided(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m,
                            int n, int k, const T* alpha, const T* A, int lda, long long sa,
                            const T* B, int ldb, long long sb, const T* beta, T* C, int ldc,
                            long long sc, int batch) {
  return gemm_each(h, ta, tb, m, n, k, alpha, lda, ldb, beta, ldc, batch,
                   blas_name<T>("SgemmStridedBatched", "DgemmStridedBatched"), [=](int i) {
                     return std::tuple{A + i * sa, B + i * sb, C + i * sc};
                   });
}

// cuBLAS's extension C = alpha op(A) + beta op(B) (m x n, column-major): a transpose or a sum of
// matrices in one call. A (B) is not read where alpha (beta) is 0, as cuBLAS documents; C may be A
// (or B) when its leading dimension is the same and it is not transposed. Each element as
// fma(alpha, a, beta b).
template <class T>
cublasStatus_t geam(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m, int n,
                    const T* alpha, const T* A, int lda, const T* beta, const T* B, int ldb, T* C,
                    int ldc) {
  if (h == nullptr) return CUBLAS_STATUS_NOT_INITIALIZED;
  // Reported as the H100's cuBLAS reports them (an H200's, recorded: " ** On entry to SGEAM
  // parameter number 12" for ldc), numbered as in gemm's Fortran interface.
  const char* name = blas_name<T>("SGEAM", "DGEAM");
  if (!valid_op(ta)) return illegal(name, 1);
  if (!valid_op(tb)) return illegal(name, 2);
  if (m < 0) return illegal(name, 3);
  if (n < 0) return illegal(name, 4);
  if (lda < max1(ta == CUBLAS_OP_N ? m : n)) return illegal(name, 7);
  if (ldb < max1(tb == CUBLAS_OP_N ? m : n)) return illegal(name, 10);
  if (ldc < max1(m)) return illegal(name, 12);
  if (alpha == nullptr || beta == nullptr || (C == A && (ta != CUBLAS_OP_N || lda != ldc)) ||
      (C == B && (tb != CUBLAS_OP_N || ldb != ldc))) {
    return CUBLAS_STATUS_INVALID_VALUE;
  }
  if (m == 0 || n == 0) return CUBLAS_STATUS_SUCCESS;
  const Scalar<T> a = scalar(h, alpha), b = scalar(h, beta);
  return run(h, [=] {
    const T av = a.get(), bv = b.get();
    const auto element = [](const T* X, int ld, cublasOperation_t op, int r, int c) {
      return op == CUBLAS_OP_N ? X[r + static_cast<std::size_t>(c) * ld]
                               : X[c + static_cast<std::size_t>(r) * ld];
    };
    for (int c = 0; c < n; ++c) {
      for (int r = 0; r < m; ++r) {
        const T x = av == T(0) ? T(0) : element(A, lda, ta, r, c);
        const T y = bv == T(0) ? T(0) : bv * element(B, ldb, tb, r, c);
        C[r + static_cast<std::size_t>(c) * ldc] = std::fma(av, x, y);
      }
    }
    written(C, (static_cast<std::size_t>(n - 1) * ldc + m) * sizeof(T));
  });
}

cublasStatus_t copy_strided(int n, int elem, const void* x, int incx, void* y, int incy) {
  if (n < 0 || elem <= 0 || incx <= 0 || incy <= 0) return CUBLAS_STATUS_INVALID_VALUE;
  if (x == nullptr || y == nullptr)
    return n == 0 ? CUBLAS_STATUS_SUCCESS : CUBLAS_STATUS_INVALID_VALUE;
  const auto* src = static_cast<const unsigned char*>(x);
  auto* dst = static_cast<unsigned char*>(y);
  for (int i = 0; i < n; ++i) {
    std::memcpy(dst + static_cast<std::size_t>(i) * incy * elem,
                src + static_cast<std::size_t>(i) * incx * elem, static_cast<std::size_t>(elem));
  }
  written(y, span_bytes(n, incy, static_cast<std::size_t>(elem)));
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t copy_matrix(int rows, int cols, int elem, const void* a, int lda, void* b, int ldb) {
  if (rows < 0 || cols < 0 || elem <= 0 || lda <= 0 || ldb <= 0 || lda < rows || ldb < rows)
    return CUBLAS_STATUS_INVALID_VALUE;
  if (rows == 0 || cols == 0) return CUBLAS_STATUS_SUCCESS;
  if (a == nullptr || b == nullptr) return CUBLAS_STATUS_INVALID_VALUE;
  for (int c = 0; c < cols; ++c) {
    std::memcpy(static_cast<unsigned char*>(b) + static_cast<std::size_t>(c) * ldb * elem,
                static_cast<const unsigned char*>(a) + static_cast<std::size_t>(c) * lda * elem,
                static_cast<std::size_t>(rows) * elem);
  }
  written(b, (static_cast<std::size_t>(cols - 1) * ldb + rows) * elem);
  return CUBLAS_STATUS_SUCCESS;
}

// cuBLAS's status codes: the name and the words cublasGetStatusName/String give.
constexpr gpulab::rt::CodeText<cublasStatus_t> kStatuses[] = {
    GPULAB_CODE_TEXT(CUBLAS_STATUS_SUCCESS, "success"),
    GPULAB_CODE_TEXT(CUBLAS_STATUS_NOT_INITIALIZED, "the library was not initialized"),
    GPULAB_CODE_TEXT(CUBLAS_STATUS_ALLOC_FAILED, "the resource allocation failed"),
    GPULAB_CODE_TEXT(CUBLAS_STATUS_INVALID_VALUE,
                     "an invalid numeric value was used as an argument"),
    GPULAB_CODE_TEXT(CUBLAS_STATUS_ARCH_MISMATCH,
                     "an absent device architectural feature is required"),
    GPULAB_CODE_TEXT(CUBLAS_STATUS_MAPPING_ERROR, "an access to GPU memory space failed"),
    GPULAB_CODE_TEXT(CUBLAS_STATUS_EXECUTION_FAILED, "the GPU program failed to execute"),
    GPULAB_CODE_TEXT(CUBLAS_STATUS_INTERNAL_ERROR, "an internal operation failed"),
    GPULAB_CODE_TEXT(CUBLAS_STATUS_NOT_SUPPORTED, "the functionality requested is not supported"),
    GPULAB_CODE_TEXT(CUBLAS_STATUS_LICENSE_ERROR, "error detected trying to check the license"),
};

// A handle's setting read back (cublasGet*): NOT_INITIALIZED without a handle, INVALID_VALUE
// without a place to put it.
template <class T>
cublasStatus_t read_setting(cublasHandle_t handle, T cublasContext::*setting, T* out) {
  if (handle == nullptr) return CUBLAS_STATUS_NOT_INITIALIZED;
  if (out == nullptr) return CUBLAS_STATUS_INVALID_VALUE;
  *out = handle->*setting;
  return CUBLAS_STATUS_SUCCESS;
}
// A handle's setting changed (cublasSet*): NOT_INITIALIZED without a handle.
template <class T>
cublasStatus_t write_setting(cublasHandle_t handle, T cublasContext::*setting, T value) {
  if (handle == nullptr) return CUBLAS_STATUS_NOT_INITIALIZED;
  handle->*setting = value;
  return CUBLAS_STATUS_SUCCESS;
}

}  // namespace

cublasStatus_t cublasCreate(cublasHandle_t* handle) {
  if (handle == nullptr) return CUBLAS_STATUS_INVALID_VALUE;
  *handle = new (std::nothrow) cublasContext;
  return *handle == nullptr ? CUBLAS_STATUS_ALLOC_FAILED : CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t cublasDestroy(cublasHandle_t handle) {
  if (handle == nullptr) return CUBLAS_STATUS_NOT_INITIALIZED;
  delete handle;
  return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t cublasGetVersion(cublasHandle_t handle, int* version) {
  if (handle == nullptr) return CUBLAS_STATUS_NOT_INITIALIZED;
  if (version == nullptr) return CUBLAS_STATUS_INVALID_VALUE;
  *version = CUBLAS_VERSION;
  return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t cublasSetStream(cublasHandle_t handle, cudaStream_t stream) {
  return write_setting(handle, &cublasContext::stream, stream);
}
cublasStatus_t cublasGetStream(cublasHandle_t handle, cudaStream_t* stream) {
  return read_setting(handle, &cublasContext::stream, stream);
}
cublasStatus_t cublasSetPointerMode(cublasHandle_t handle, cublasPointerMode_t mode) {
  if (handle != nullptr && mode != CUBLAS_POINTER_MODE_HOST && mode != CUBLAS_POINTER_MODE_DEVICE)
    return CUBLAS_STATUS_INVALID_VALUE;
  return write_setting(handle, &cublasContext::pointer_mode, mode);
}
cublasStatus_t cublasGetPointerMode(cublasHandle_t handle, cublasPointerMode_t* mode) {
  return read_setting(handle, &cublasContext::pointer_mode, mode);
}
cublasStatus_t cublasSetMathMode(cublasHandle_t handle, cublasMath_t mode) {
  // The emulator computes in the type's own precision in every mode.
  return write_setting(handle, &cublasContext::math_mode, mode);
}
cublasStatus_t cublasGetMathMode(cublasHandle_t handle, cublasMath_t* mode) {
  return read_setting(handle, &cublasContext::math_mode, mode);
}
cublasStatus_t cublasSetAtomicsMode(cublasHandle_t handle, cublasAtomicsMode_t) {
  return handle == nullptr ? CUBLAS_STATUS_NOT_INITIALIZED : CUBLAS_STATUS_SUCCESS;
}
const char* cublasGetStatusName(cublasStatus_t status) {
  return gpulab::rt::code_name(kStatuses, status, "CUBLAS_STATUS_UNKNOWN");
}
const char* cublasGetStatusString(cublasStatus_t status) {
  return gpulab::rt::code_words(kStatuses, status, "unknown error");
}

cublasStatus_t cublasSetVector(int n, int e, const void* x, int ix, void* y, int iy) {
  return copy_strided(n, e, x, ix, y, iy);
}
cublasStatus_t cublasGetVector(int n, int e, const void* x, int ix, void* y, int iy) {
  return copy_strided(n, e, x, ix, y, iy);
}
cublasStatus_t cublasSetMatrix(int r, int c, int e, const void* a, int lda, void* b, int ldb) {
  return copy_matrix(r, c, e, a, lda, b, ldb);
}
cublasStatus_t cublasGetMatrix(int r, int c, int e, const void* a, int lda, void* b, int ldb) {
  return copy_matrix(r, c, e, a, lda, b, ldb);
}
cublasStatus_t cublasSetVectorAsync(int n, int e, const void* x, int ix, void* y, int iy,
                                    cudaStream_t) {
  return copy_strided(n, e, x, ix, y, iy);
}
cublasStatus_t cublasGetVectorAsync(int n, int e, const void* x, int ix, void* y, int iy,
                                    cudaStream_t) {
  return copy_strided(n, e, x, ix, y, iy);
}
cublasStatus_t cublasSetMatrixAsync(int r, int c, int e, const void* a, int lda, void* b, int ldb,
                                    cudaStream_t) {
  return copy_matrix(r, c, e, a, lda, b, ldb);
}
cublasStatus_t cublasGetMatrixAsync(int r, int c, int e, const void* a, int lda, void* b, int ldb,
                                    cudaStream_t) {
  return copy_matrix(r, c, e, a, lda, b, ldb);
}

#define GPULAB_CUBLAS_DEFINE(T, P, p)                                                              \
  cublasStatus_t cublas##P##axpy(cublasHandle_t h, int n, const T* alpha, const T* x, int incx,    \
                                 T* y, int incy) {                                                 \
    return axpy(h, n, alpha, x, incx, y, incy);                                                    \
  }                                                                                                \
  cublasStatus_t cublas##P##dot(cublasHandle_t h, int n, const T* x, int incx, const T* y,         \
                                int incy, T* result) {                                             \
    return dot(h, n, x, incx, y, incy, result);                                                    \
  }                                                                                                \
  cublasStatus_t cublas##P##nrm2(cublasHandle_t h, int n, const T* x, int incx, T* result) {       \
    return reduce(h, n, x, incx, result, [&] { return Blas<T>::nrm2(n, x, incx); });               \
  }                                                                                                \
  cublasStatus_t cublas##P##asum(cublasHandle_t h, int n, const T* x, int incx, T* result) {       \
    return reduce(h, n, x, incx, result, [&] { return Blas<T>::asum(n, x, incx); });               \
  }                                                                                                \
  cublasStatus_t cublas##P##scal(cublasHandle_t h, int n, const T* alpha, T* x, int incx) {        \
    return scal(h, n, alpha, x, incx);                                                             \
  }                                                                                                \
  cublasStatus_t cublas##P##copy(cublasHandle_t h, int n, const T* x, int incx, T* y, int incy) {  \
    return copy(h, n, x, incx, y, incy);                                                           \
  }                                                                                                \
  cublasStatus_t cublas##P##swap(cublasHandle_t h, int n, T* x, int incx, T* y, int incy) {        \
    return swap(h, n, x, incx, y, incy);                                                           \
  }                                                                                                \
  cublasStatus_t cublasI##p##amax(cublasHandle_t h, int n, const T* x, int incx, int* result) {    \
    return iamax(h, n, x, incx, result, true);                                                     \
  }                                                                                                \
  cublasStatus_t cublasI##p##amin(cublasHandle_t h, int n, const T* x, int incx, int* result) {    \
    return iamax(h, n, x, incx, result, false);                                                    \
  }                                                                                                \
  cublasStatus_t cublas##P##gemv(cublasHandle_t h, cublasOperation_t trans, int m, int n,          \
                                 const T* alpha, const T* A, int lda, const T* x, int incx,        \
                                 const T* beta, T* y, int incy) {                                  \
    return gemv(h, trans, m, n, alpha, A, lda, x, incx, beta, y, incy);                            \
  }                                                                                                \
  cublasStatus_t cublas##P##ger(cublasHandle_t h, int m, int n, const T* alpha, const T* x,        \
                                int incx, const T* y, int incy, T* A, int lda) {                   \
    return ger(h, m, n, alpha, x, incx, y, incy, A, lda);                                          \
  }                                                                                                \
  cublasStatus_t cublas##P##gemm(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb,     \
                                 int m, int n, int k, const T* alpha, const T* A, int lda,         \
                                 const T* B, int ldb, const T* beta, T* C, int ldc) {              \
    return gemm(h, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);                          \
  }                                                                                                \
  cublasStatus_t cublas##P##gemmBatched(cublasHandle_t h, cublasOperation_t ta,                    \
                                        cublasOperation_t tb, int m, int n, int k, const T* alpha, \
                                        const T* const A[], int lda, const T* const B[], int ldb,  \
                                        const T* beta, T* const C[], int ldc, int batch) {         \
    return gemm_batched(h, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, batch);           \
  }                                                                                                \
  cublasStatus_t cublas##P##gemmStridedBatched(                                                    \
      cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k,           \
      const T* alpha, const T* A, int lda, long long sa, const T* B, int ldb, long long sb,        \
      const T* beta, T* C, int ldc, long long sc, int batch) {                                     \
    return gemm_strided(h, ta, tb, m, n, k, alpha, A, lda, sa, B, ldb, sb, beta, C, ldc, sc,       \
                        batch);                                                                    \
  }                                                                                                \
  cublasStatus_t cublas##P##geam(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb,     \
                                 int m, int n, const T* alpha, const T* A, int lda, const T* beta, \
                                 const T* B, int ldb, T* C, int ldc) {                             \
    return geam(h, ta, tb, m, n, alpha, A, lda, beta, B, ldb, C, ldc);                             \
  }
GPULAB_CUBLAS_DEFINE(float, S, s)
GPULAB_CUBLAS_DEFINE(double, D, d)

// Mixed precision (cublasGemmEx and its batched forms; cublasHgemm is its all-half case). The
// operands are widened to the compute type exactly (float for cuBLAS's 16F and 32F compute types,
// double for 64F), the product is OpenBLAS's sgemm or dgemm (an integer sum for 32I), and each
// element of C is rounded to its type once. A GPU's tensor cores may round partial sums
// otherwise: results agree exactly where every partial sum is exact (small integers), elsewhere to
// about the precision of the narrowest type.
namespace {

enum class Precision { f32, f64, i32, none };

// What cuBLAS's table of cublasGemmEx's real types allows for this compute type (A and B of one
// type), and the precision it is computed in here.
Precision gemm_ex_precision(cudaDataType a, cudaDataType b, cudaDataType c,
                            cublasComputeType_t compute) {
  if (a != b) return Precision::none;
  switch (compute) {
    case CUBLAS_COMPUTE_16F:
    case CUBLAS_COMPUTE_16F_PEDANTIC:
      return a == CUDA_R_16F && c == CUDA_R_16F ? Precision::f32 : Precision::none;
    case CUBLAS_COMPUTE_32F:
    case CUBLAS_COMPUTE_32F_PEDANTIC:
    case CUBLAS_COMPUTE_32F_FAST_16F:
    case CUBLAS_COMPUTE_32F_FAST_16BF:
    case CUBLAS_COMPUTE_32F_FAST_TF32:
    case CUBLAS_COMPUTE_32F_EMULATED_16BFX9:
      if ((a == CUDA_R_16F || a == CUDA_R_16BF) && (c == a || c == CUDA_R_32F))
        return Precision::f32;
      return (a == CUDA_R_32F || a == CUDA_R_8I) && c == CUDA_R_32F ? Precision::f32
                                                                    : Precision::none;
    case CUBLAS_COMPUTE_64F:
    case CUBLAS_COMPUTE_64F_PEDANTIC:
    case CUBLAS_COMPUTE_64F_EMULATED_FIXEDPOINT:
      return a == CUDA_R_64F && c == CUDA_R_64F ? Precision::f64 : Precision::none;
    case CUBLAS_COMPUTE_32I:
    case CUBLAS_COMPUTE_32I_PEDANTIC:
      return a == CUDA_R_8I && c == CUDA_R_32I ? Precision::i32 : Precision::none;
  }
  return Precision::none;
}

std::size_t element_bytes(cudaDataType t) {
  switch (t) {
    case CUDA_R_8I:
      return 1;
    case CUDA_R_16F:
    case CUDA_R_16BF:
      return 2;
    case CUDA_R_64F:
      return 8;
    default:
      return 4;  // CUDA_R_32F, CUDA_R_32I
  }
}

// Element `at` of a matrix of type t, exactly as a double.
double load_element(cudaDataType t, const void* base, std::size_t at) {
  switch (t) {
    case CUDA_R_8I:
      return static_cast<const std::int8_t*>(base)[at];
    case CUDA_R_16F:
      return __half2float(static_cast<const __half*>(base)[at]);
    case CUDA_R_16BF: {  // the upper half of a float's bits
      const std::uint32_t bits = std::uint32_t{static_cast<const std::uint16_t*>(base)[at]} << 16;
      float f;
      std::memcpy(&f, &bits, sizeof f);
      return f;
    }
    case CUDA_R_64F:
      return static_cast<const double*>(base)[at];
    case CUDA_R_32I:
      return static_cast<const std::int32_t*>(base)[at];
    default:
      return static_cast<const float*>(base)[at];
  }
}

// An element of a float or double product's C (16F, 16BF, 32F, 64F; 32I results are written by
// gemm_ex_int): `v` rounded to nearest even into t.
void store_element(cudaDataType t, void* base, std::size_t at, double v) {
  switch (t) {
    case CUDA_R_16F:
      static_cast<__half*>(base)[at] = __float2half(static_cast<float>(v));
      return;
    case CUDA_R_16BF: {
      const float f = static_cast<float>(v);
      std::uint32_t bits;
      std::memcpy(&bits, &f, sizeof bits);
      const std::uint16_t out =
          std::isnan(f) ? std::uint16_t{0x7fc0}
                        : static_cast<std::uint16_t>((bits + 0x7fffu + ((bits >> 16) & 1u)) >> 16);
      static_cast<std::uint16_t*>(base)[at] = out;
      return;
    }
    case CUDA_R_64F:
      static_cast<double*>(base)[at] = v;
      return;
    default:
      static_cast<float*>(base)[at] = static_cast<float>(v);
      return;
  }
}

// alpha or beta of a mixed-precision gemm, whose type follows the compute type (half for 16F,
// float for 32F, double for 64F, int for 32I): its bytes copied at the call in host pointer mode,
// read when the work runs in device mode.
struct ScalarEx {
  unsigned char bytes[8] = {};
  const void* device = nullptr;
  cudaDataType type = CUDA_R_32F;
  double get() const { return load_element(type, device != nullptr ? device : bytes, 0); }
};
ScalarEx scalar_ex(cublasHandle_t h, const void* p, cudaDataType type) {
  ScalarEx s;
  s.type = type;
  if (h->pointer_mode == CUBLAS_POINTER_MODE_DEVICE) {
    s.device = p;
  } else {
    std::memcpy(s.bytes, p, element_bytes(type));
  }
  return s;
}
cudaDataType scalar_type(cublasComputeType_t compute) {
  switch (compute) {
    case CUBLAS_COMPUTE_16F:
    case CUBLAS_COMPUTE_16F_PEDANTIC:
      return CUDA_R_16F;
    case CUBLAS_COMPUTE_64F:
    case CUBLAS_COMPUTE_64F_PEDANTIC:
    case CUBLAS_COMPUTE_64F_EMULATED_FIXEDPOINT:
      return CUDA_R_64F;
    case CUBLAS_COMPUTE_32I:
    case CUBLAS_COMPUTE_32I_PEDANTIC:
      return CUDA_R_32I;
    default:
      return CUDA_R_32F;
  }
}

// The stored part of a column-major matrix (rows x columns, leading dimension ld) widened to T.
template <class T>
std::vector<T> widen(cudaDataType type, const void* x, int rows, int columns, int ld) {
  std::vector<T> out(static_cast<std::size_t>(ld) * static_cast<std::size_t>(columns));
  for (int c = 0; c < columns; ++c) {
    for (int r = 0; r < rows; ++r) {
      const std::size_t at = static_cast<std::size_t>(c) * ld + r;
      out[at] = static_cast<T>(load_element(type, x, at));
    }
  }
  return out;
}

struct GemmEx {
  cublasOperation_t ta, tb;
  int m, n, k, lda, ldb, ldc;
  cudaDataType at, bt, ct;
  Precision precision;
};

// One product C = alpha op(A) op(B) + beta C. Where beta is 0, C is not read (it may hold NaNs),
// as in BLAS.
template <class T>
void gemm_ex_float(const GemmEx& g, double alpha, const void* A, const void* B, double beta,
                   void* C) {
  const bool an = g.ta == CUBLAS_OP_N, bn = g.tb == CUBLAS_OP_N;
  const std::vector<T> fa = widen<T>(g.at, A, an ? g.m : g.k, an ? g.k : g.m, g.lda);
  const std::vector<T> fb = widen<T>(g.bt, B, bn ? g.k : g.n, bn ? g.n : g.k, g.ldb);
  std::vector<T> fc = beta == 0.0 ? std::vector<T>(static_cast<std::size_t>(g.ldc) * g.n)
                                  : widen<T>(g.ct, C, g.m, g.n, g.ldc);
  Blas<T>::gemm(to_cblas(g.ta), to_cblas(g.tb), g.m, g.n, g.k, static_cast<T>(alpha), fa.data(),
                g.lda, fb.data(), g.ldb, static_cast<T>(beta), fc.data(), g.ldc);
  for (int c = 0; c < g.n; ++c) {
    for (int r = 0; r < g.m; ++r) {
      const std::size_t at = static_cast<std::size_t>(c) * g.ldc + r;
      store_element(g.ct, C, at, fc[at]);
    }
  }
}

// 8-bit integers into 32-bit ones: exact sums, C = alpha sum + beta C wrapping as int32 does.
void gemm_ex_int(const GemmEx& g, double alpha, const void* A, const void* B, double beta,
                 void* C) {
  const auto* a = static_cast<const std::int8_t*>(A);
  const auto* b = static_cast<const std::int8_t*>(B);
  auto* out = static_cast<std::int32_t*>(C);
  const bool an = g.ta == CUBLAS_OP_N, bn = g.tb == CUBLAS_OP_N;
  for (int c = 0; c < g.n; ++c) {
    for (int r = 0; r < g.m; ++r) {
      std::int64_t sum = 0;
      for (int i = 0; i < g.k; ++i) {
        const std::int64_t x = a[an ? static_cast<std::size_t>(i) * g.lda + r
                                    : static_cast<std::size_t>(r) * g.lda + i];
        const std::int64_t y = b[bn ? static_cast<std::size_t>(c) * g.ldb + i
                                    : static_cast<std::size_t>(i) * g.ldb + c];
        sum += x * y;
      }
      const std::size_t at = static_cast<std::size_t>(c) * g.ldc + r;
      const std::int64_t old = beta == 0.0 ? 0 : out[at];
      const auto v = static_cast<std::uint64_t>(static_cast<std::int64_t>(alpha) * sum +
                                                static_cast<std::int64_t>(beta) * old);
      out[at] = static_cast<std::int32_t>(static_cast<std::uint32_t>(v));
    }
  }
}

// `batch` mixed-precision products, the i-th on the matrices at(i) gives ({A, B, C}).
template <class At>
cublasStatus_t gemm_ex_each(cublasHandle_t h, const GemmEx& g, cublasComputeType_t compute,
                            const void* alpha, const void* beta, int batch, At at) {
  if (const auto s = gemm_check<float>(h, g.ta, g.tb, g.m, g.n, g.k, g.lda, g.ldb, g.ldc, nullptr);
      s != CUBLAS_STATUS_SUCCESS)
    return s;
  if (batch < 0 || alpha == nullptr || beta == nullptr) return CUBLAS_STATUS_INVALID_VALUE;
  if (g.precision == Precision::none) return CUBLAS_STATUS_NOT_SUPPORTED;
  const ScalarEx a = scalar_ex(h, alpha, scalar_type(compute));
  const ScalarEx b = scalar_ex(h, beta, scalar_type(compute));
  return run(h, [=] {
    if (g.m == 0 || g.n == 0) return;
    for (int i = 0; i < batch; ++i) {
      const auto [A, B, C] = at(i);
      if (g.precision == Precision::f64) {
        gemm_ex_float<double>(g, a.get(), A, B, b.get(), C);
      } else if (g.precision == Precision::f32) {
        gemm_ex_float<float>(g, a.get(), A, B, b.get(), C);
      } else {
        gemm_ex_int(g, a.get(), A, B, b.get(), C);
      }
      written(C, (static_cast<std::size_t>(g.n - 1) * g.ldc + g.m) * element_bytes(g.ct));
    }
  });
}

}  // namespace

cublasStatus_t cublasGemmEx(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m,
                            int n, int k, const void* alpha, const void* A, cudaDataType at,
                            int lda, const void* B, cudaDataType bt, int ldb, const void* beta,
                            void* C, cudaDataType ct, int ldc, cublasComputeType_t compute,
                            cublasGemmAlgo_t) {
  const GemmEx g{ta,  tb,  m,  n,  k,  lda,
                 ldb, ldc, at, bt, ct, gemm_ex_precision(at, bt, ct, compute)};
  return gemm_ex_each(h, g, compute, alpha, beta, 1, [=](int) { return std::tuple{A, B, C}; });
}

cublasStatus_t cublasGemmBatchedEx(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb,
                                   int m, int n, int k, const void* alpha, const void* const A[],
                                   cudaDataType at, int lda, const void* const B[], cudaDataType bt,
                                   int ldb, const void* beta, void* const C[], cudaDataType ct,
                                   int ldc, int batch, cublasComputeType_t compute,
                                   cublasGemmAlgo_t) {
  const GemmEx g{ta,  tb,  m,  n,  k,  lda,
                 ldb, ldc, at, bt, ct, gemm_ex_precision(at, bt, ct, compute)};
  return gemm_ex_each(h, g, compute, alpha, beta, batch, [=](int i) {
    return std::tuple{A[i], B[i], C[i]};
  });
}

cublasStatus_t cublasGemmStridedBatchedEx(cublasHandle_t h, cublasOperation_t ta,
                                          cublasOperation_t tb, int m, int n, int k,
                                          const void* alpha, const void* A, cudaDataType at,
                                          int lda, long long sa, const void* B, cudaDataType bt,
                                          int ldb, long long sb, const void* beta, void* C,
                                          cudaDataType ct, int ldc, long long sc, int batch,
                                          cublasComputeType_t compute, cublasGemmAlgo_t) {
  const GemmEx g{ta,  tb,  m,  n,  k,  lda,
                 ldb, ldc, at, bt, ct, gemm_ex_precision(at, bt, ct, compute)};
  const std::size_t ea = element_bytes(at), eb = element_bytes(bt), ec = element_bytes(ct);
  return gemm_ex_each(h, g, compute, alpha, beta, batch, [=](int i) {
    const auto step = [i](long long stride, std::size_t bytes) {
      return static_cast<std::ptrdiff_t>(i * stride * static_cast<long long>(bytes));
    };
    return std::tuple{static_cast<const char*>(A) + step(sa, ea),
                      static_cast<const char*>(B) + step(sb, eb),
                      static_cast<char*>(C) + step(sc, ec)};
  });
}

cublasStatus_t cublasHgemm(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m,
                           int n, int k, const __half* alpha, const __half* A, int lda,
                           const __half* B, int ldb, const __half* beta, __half* C, int ldc) {
  return cublasGemmEx(h, ta, tb, m, n, k, alpha, A, CUDA_R_16F, lda, B, CUDA_R_16F, ldb, beta, C,
                      CUDA_R_16F, ldc, CUBLAS_COMPUTE_16F, CUBLAS_GEMM_DEFAULT);
}
