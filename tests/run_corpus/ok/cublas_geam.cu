// cuBLAS's geam as courses use it: a transpose (beta 0, no B), C = alpha A + beta op(B), in place
// on A, and an argument cuBLAS refuses; each result checked against the host's. Small integers
// keep every sum exact.
#include <cublas_v2.h>
#include <cstdio>

__global__ void fill(float* a, int n, int seed) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[i] = (float)((i * 5 + seed) % 13 - 6);
}

int main() {
  const int m = 37, n = 23;  // A: m x n, column-major, lda = m
  float *A, *B, *C, *T;
  cudaMallocManaged(&A, m * n * sizeof(float));
  cudaMallocManaged(&B, m * n * sizeof(float));
  cudaMallocManaged(&C, m * n * sizeof(float));
  cudaMallocManaged(&T, m * n * sizeof(float));
  fill<<<(m * n + 127) / 128, 128>>>(A, m * n, 1);
  fill<<<(m * n + 127) / 128, 128>>>(B, m * n, 4);  // B: n x m, ldb = n
  cudaDeviceSynchronize();
  cublasHandle_t h;
  cublasCreate(&h);
  const float one = 1.0f, zero = 0.0f, two = 2.0f, three = 3.0f;
  int wrong = 0;
  // T (n x m) = A^T.
  cublasStatus_t s =
      cublasSgeam(h, CUBLAS_OP_T, CUBLAS_OP_N, n, m, &one, A, m, &zero, nullptr, n, T, n);
  cudaDeviceSynchronize();
  for (int r = 0; r < n; ++r)
    for (int c = 0; c < m; ++c) wrong += T[r + c * n] != A[c + r * m];
  printf("transpose: status %d, %d wrong, T[1] = %g\n", (int)s, wrong, T[1]);
  // C (m x n) = 2 A + 3 B^T.
  wrong = 0;
  s = cublasSgeam(h, CUBLAS_OP_N, CUBLAS_OP_T, m, n, &two, A, m, &three, B, n, C, m);
  cudaDeviceSynchronize();
  for (int r = 0; r < m; ++r)
    for (int c = 0; c < n; ++c) wrong += C[r + c * m] != 2.0f * A[r + c * m] + 3.0f * B[c + r * n];
  printf("sum: status %d, %d wrong, C[5] = %g\n", (int)s, wrong, C[5]);
  // In place: A = A - C.
  wrong = 0;
  const float minus = -1.0f;
  float before = A[7] - C[7];
  s = cublasSgeam(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, &one, A, m, &minus, C, m, A, m);
  cudaDeviceSynchronize();
  printf("in place: status %d, A[7] = %g (expected %g)\n", (int)s, A[7], before);
  // ldc smaller than m: refused.
  s = cublasSgeam(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, &one, A, m, &zero, nullptr, m, C, m - 1);
  printf("ldc < m: status %d\n", (int)s);
  cublasDestroy(h);
  cudaFree(A);
  cudaFree(B);
  cudaFree(C);
  cudaFree(T);
  return 0;
}
