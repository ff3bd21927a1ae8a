// cuBLAS as courses use it: a kernel fills the matrices, cuBLAS multiplies them (column-major, with
// and without transposes, batched and strided-batched), and the host checks every element against
// a float64 reference; level-1 and level-2 calls and a refused argument. Small integer values keep
// every float sum exact, whatever order a GPU adds in.
#include <cublas_v2.h>
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

__global__ void fill(float* a, int n, int seed) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[i] = (float)((i * 7 + seed) % 11 - 5);
}

// C (m x n) = op(A) op(B), column-major, op(A) m x k: element (r, c) of op(X) from X's storage.
static double at(const float* x, int ld, bool t, int r, int c) {
  return t ? x[c + r * ld] : x[r + c * ld];
}
static int check_gemm(const float* A, int lda, bool ta, const float* B, int ldb, bool tb,
                      const float* C, int ldc, int m, int n, int k, float alpha, float beta,
                      const float* C0) {
  int wrong = 0;
  for (int r = 0; r < m; ++r)
    for (int c = 0; c < n; ++c) {
      double sum = 0;
      for (int p = 0; p < k; ++p) sum += at(A, lda, ta, r, p) * at(B, ldb, tb, p, c);
      const double want = alpha * sum + beta * C0[r + c * ldc];
      wrong += std::fabs(C[r + c * ldc] - want) > 1e-6 * (1 + std::fabs(want));
    }
  return wrong;
}

int main() {
  const int m = 37, n = 23, k = 19, batch = 3;
  const int elems = 64 * 64 * batch;
  float *dA, *dB, *dC;
  cudaMalloc(&dA, elems * sizeof(float));
  cudaMalloc(&dB, elems * sizeof(float));
  cudaMalloc(&dC, elems * sizeof(float));
  fill<<<(elems + 255) / 256, 256>>>(dA, elems, 1);
  fill<<<(elems + 255) / 256, 256>>>(dB, elems, 4);
  fill<<<(elems + 255) / 256, 256>>>(dC, elems, 9);
  static float A[elems], B[elems], C0[elems], C[elems];
  cudaMemcpy(A, dA, sizeof A, cudaMemcpyDeviceToHost);
  cudaMemcpy(B, dB, sizeof B, cudaMemcpyDeviceToHost);
  cudaMemcpy(C0, dC, sizeof C0, cudaMemcpyDeviceToHost);

  cublasHandle_t h;
  CUBLAS_CHECK(cublasCreate(&h));
  const float alpha = 2.0f, beta = -1.0f;
  const cublasOperation_t ops[2] = {CUBLAS_OP_N, CUBLAS_OP_T};
  for (int ta = 0; ta < 2; ++ta)
    for (int tb = 0; tb < 2; ++tb) {
      const int lda = ta ? k + 3 : m + 1, ldb = tb ? n + 2 : k, ldc = m + 5;
      cudaMemcpy(dC, C0, sizeof C0, cudaMemcpyHostToDevice);
      CUBLAS_CHECK(
          cublasSgemm(h, ops[ta], ops[tb], m, n, k, &alpha, dA, lda, dB, ldb, &beta, dC, ldc));
      cudaMemcpy(C, dC, sizeof C, cudaMemcpyDeviceToHost);
      printf("Sgemm %c%c %dx%dx%d: %d wrong, C(0,0) = %g, C(%d,%d) = %g\n", ta ? 'T' : 'N',
             tb ? 'T' : 'N', m, n, k,
             check_gemm(A, lda, ta, B, ldb, tb, C, ldc, m, n, k, alpha, beta, C0), C[0], m - 1,
             n - 1, C[(m - 1) + (n - 1) * ldc]);
    }

  // Strided batched: batch i at A + i*stride.
  const long long sa = m * k, sb = k * n, sc = m * n;
  cudaMemcpy(dC, C0, sizeof C0, cudaMemcpyHostToDevice);
  CUBLAS_CHECK(cublasSgemmStridedBatched(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &alpha, dA, m, sa,
                                         dB, k, sb, &beta, dC, m, sc, batch));
  cudaMemcpy(C, dC, sizeof C, cudaMemcpyDeviceToHost);
  int wrong = 0;
  for (int i = 0; i < batch; ++i)
    wrong += check_gemm(A + i * sa, m, false, B + i * sb, k, false, C + i * sc, m, m, n, k, alpha,
                        beta, C0 + i * sc);
  printf("SgemmStridedBatched x%d: %d wrong\n", batch, wrong);

  // Batched: arrays of device pointers, themselves in device memory.
  float* ptrs[3 * batch];
  for (int i = 0; i < batch; ++i) {
    ptrs[i] = dA + i * sa;
    ptrs[batch + i] = dB + i * sb;
    ptrs[2 * batch + i] = dC + i * sc;
  }
  float** dptrs;
  cudaMalloc(&dptrs, sizeof ptrs);
  cudaMemcpy(dptrs, ptrs, sizeof ptrs, cudaMemcpyHostToDevice);
  cudaMemcpy(dC, C0, sizeof C0, cudaMemcpyHostToDevice);
  CUBLAS_CHECK(cublasSgemmBatched(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &alpha, dptrs, m,
                                  dptrs + batch, k, &beta, dptrs + 2 * batch, m, batch));
  cudaMemcpy(C, dC, sizeof C, cudaMemcpyDeviceToHost);
  wrong = 0;
  for (int i = 0; i < batch; ++i)
    wrong += check_gemm(A + i * sa, m, false, B + i * sb, k, false, C + i * sc, m, m, n, k, alpha,
                        beta, C0 + i * sc);
  printf("SgemmBatched x%d: %d wrong\n", batch, wrong);

  // Level 1 and 2 on the first 100 elements.
  const int len = 100;
  float dot = 0, nrm = 0, y[len];
  CUBLAS_CHECK(cublasSdot(h, len, dA, 1, dB, 1, &dot));
  CUBLAS_CHECK(cublasSnrm2(h, len, dA, 1, &nrm));
  double dot_ref = 0, nrm_ref = 0;
  for (int i = 0; i < len; ++i) {
    dot_ref += (double)A[i] * B[i];
    nrm_ref += (double)A[i] * A[i];
  }
  printf("Sdot %g (reference %g), Snrm2 %.4f (reference %.4f)\n", dot, dot_ref, nrm,
         std::sqrt(nrm_ref));
  const float three = 3.0f, half = 0.5f;
  CUBLAS_CHECK(cublasSaxpy(h, len, &three, dA, 1, dB, 1));  // B = 3A + B
  CUBLAS_CHECK(cublasSscal(h, len, &half, dB, 1));          // B = B / 2
  cudaMemcpy(y, dB, sizeof y, cudaMemcpyDeviceToHost);
  wrong = 0;
  for (int i = 0; i < len; ++i) wrong += y[i] != 0.5f * (3.0f * A[i] + B[i]);
  printf("Saxpy then Sscal: %d wrong\n", wrong);
  int imax = 0;
  CUBLAS_CHECK(cublasIsamax(h, len, dA, 1, &imax));
  printf("Isamax: %d (1-based), |x| = %g\n", imax, std::fabs(A[imax - 1]));
  // y = A^T x with A m x k (lda m): length k.
  const float one = 1.0f, zero = 0.0f;
  CUBLAS_CHECK(cublasSgemv(h, CUBLAS_OP_T, m, k, &one, dA, m, dB, 1, &zero, dC, 1));
  cudaMemcpy(y, dC, k * sizeof(float), cudaMemcpyDeviceToHost);
  wrong = 0;
  for (int c = 0; c < k; ++c) {
    double s = 0;
    for (int r = 0; r < m; ++r) s += (double)A[r + c * m] * (0.5f * (3.0f * A[r] + B[r]));
    wrong += std::fabs(y[c] - s) > 1e-6 * (1 + std::fabs(s));
  }
  printf("Sgemv T: %d wrong\n", wrong);
  // cuBLAS refuses a leading dimension smaller than the rows.
  printf("Sgemm with lda < m: status %d\n",
         (int)cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &alpha, dA, m - 1, dB, k, &beta, dC,
                          m));
  CUBLAS_CHECK(cublasDestroy(h));
  cudaFree(dptrs);
  cudaFree(dA);
  cudaFree(dB);
  cudaFree(dC);
  return 0;
}
