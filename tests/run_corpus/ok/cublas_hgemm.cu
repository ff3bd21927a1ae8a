// cublasHgemm as a course uses it: half-precision matrices filled by a kernel, multiplied by cuBLAS
// (column-major, with and without transposes, leading dimensions larger than the rows, beta 0 over
// a C that holds NaNs, beta -1, alpha and beta in device memory), every element checked against a
// float64 reference. Small integer values keep every partial sum a half exactly, whatever order a
// GPU adds in.
#include <cublas_v2.h>
#include <cuda_fp16.h>
#include <cmath>
#include <cstdio>

#define CUBLAS_CHECK(call)                                                  \
  do {                                                                      \
    cublasStatus_t s = (call);                                              \
    if (s != CUBLAS_STATUS_SUCCESS) {                                       \
      printf("%s failed: status %d at line %d\n", #call, (int)s, __LINE__); \
      return 1;                                                             \
    }                                                                       \
  } while (0)

__global__ void fill(__half* a, int n, int seed) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[i] = __int2half_rn((i * 7 + seed) % 11 - 5);
}

__global__ void fill_nan(__half* a, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[i] = __float2half(nanf(""));
}

// Element (r, c) of op(X), X column-major with leading dimension ld.
static double at(const __half* x, int ld, bool t, int r, int c) {
  return __half2float(t ? x[c + r * ld] : x[r + c * ld]);
}

int main() {
  const int m = 12, n = 10, k = 16, ld = 20;
  const int elems = ld * 20;
  __half *A, *B, *C, *scalars;
  cudaMallocManaged(&A, elems * sizeof(__half));
  cudaMallocManaged(&B, elems * sizeof(__half));
  cudaMallocManaged(&C, elems * sizeof(__half));
  cudaMallocManaged(&scalars, 2 * sizeof(__half));
  fill<<<(elems + 127) / 128, 128>>>(A, elems, 1);
  fill<<<(elems + 127) / 128, 128>>>(B, elems, 4);
  cudaDeviceSynchronize();
  static __half C0[20 * 20];
  cublasHandle_t h;
  CUBLAS_CHECK(cublasCreate(&h));
  struct Case {
    bool ta, tb;
    float alpha, beta;
    bool device_scalars;
  };
  const Case cases[] = {{false, false, 1.0f, 0.0f, false},
                        {true, false, 2.0f, 0.0f, false},
                        {false, true, 1.0f, -1.0f, false},
                        {true, true, -1.0f, 1.0f, true}};
  int case_no = 0;
  for (const Case& t : cases) {
    if (t.beta == 0.0f) {
      fill_nan<<<(elems + 127) / 128, 128>>>(C, elems);  // not read when beta is 0
    } else {
      fill<<<(elems + 127) / 128, 128>>>(C, elems, 9);
    }
    cudaDeviceSynchronize();
    for (int i = 0; i < elems; ++i) C0[i] = C[i];
    const __half alpha = __float2half(t.alpha), beta = __float2half(t.beta);
    const __half* pa = &alpha;
    const __half* pb = &beta;
    if (t.device_scalars) {
      scalars[0] = alpha;
      scalars[1] = beta;
      CUBLAS_CHECK(cublasSetPointerMode(h, CUBLAS_POINTER_MODE_DEVICE));
      pa = scalars;
      pb = scalars + 1;
    }
    CUBLAS_CHECK(cublasHgemm(h, t.ta ? CUBLAS_OP_T : CUBLAS_OP_N, t.tb ? CUBLAS_OP_T : CUBLAS_OP_N,
                             m, n, k, pa, A, ld, B, ld, pb, C, ld));
    CUBLAS_CHECK(cublasSetPointerMode(h, CUBLAS_POINTER_MODE_HOST));
    cudaDeviceSynchronize();
    int wrong = 0;
    double checksum = 0;
    for (int c = 0; c < n; ++c) {
      for (int r = 0; r < m; ++r) {
        double want = 0;
        for (int i = 0; i < k; ++i) want += at(A, ld, t.ta, r, i) * at(B, ld, t.tb, i, c);
        want *= t.alpha;
        if (t.beta != 0.0f) want += t.beta * __half2float(C0[r + c * ld]);
        const double got = __half2float(C[r + c * ld]);
        wrong += got == want ? 0 : 1;
        checksum += got * (r + 1) * (c + 3);
      }
    }
    // Rows past m in each column are left as they were.
    int touched = 0;
    for (int c = 0; c < n; ++c) {
      for (int r = m; r < ld; ++r) {
        const __half before = C0[r + c * ld], after = C[r + c * ld];
        touched += __half_as_ushort(before) == __half_as_ushort(after) ? 0 : 1;
      }
    }
    printf(
        "case %d (op A %c, op B %c, alpha %g, beta %g%s): %d wrong, checksum %.0f, %d untouched "
        "elements changed\n",
        case_no++, t.ta ? 'T' : 'N', t.tb ? 'T' : 'N', t.alpha, t.beta,
        t.device_scalars ? ", scalars on the device" : "", wrong, checksum, touched);
  }
  CUBLAS_CHECK(cublasDestroy(h));
  cudaFree(A);
  cudaFree(B);
  cudaFree(C);
  cudaFree(scalars);
  return 0;
}
