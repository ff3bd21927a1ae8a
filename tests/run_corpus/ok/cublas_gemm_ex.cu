// cuBLAS's mixed-precision products (cublasGemmEx, cublasGemmBatchedEx, cublasGemmStridedBatchedEx)
// as the books call them: half inputs into a float result (the compute type given the old way, as
// a cudaDataType, and the new way), half into half, bfloat16 into bfloat16, 8-bit integers into
// 32-bit ones, double, and a combination cuBLAS's table does not allow. Every element is checked
// against a float64 reference; small integer values keep every sum exact in each type.
#include <cublas_v2.h>
#include <cuda_fp16.h>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>

// bfloat16 by hand (the upper half of a float's bits): these values are exact in it.
static unsigned short to_bf16(float f) {
  unsigned u;
  std::memcpy(&u, &f, sizeof u);
  return (unsigned short)(u >> 16);
}
static float from_bf16(unsigned short b) {
  const unsigned u = (unsigned)b << 16;
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

__host__ __device__ static int value(int i, int seed, int range) {
  return (i * 7 + seed) % (2 * range + 1) - range;
}

__global__ void fill_int8(int8_t* x, int n, int seed) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = (int8_t)value(i, seed, 100);
}

// Element (r, c) of op(X), X column-major with leading dimension ld, as a double.
template <class Load>
static double op_at(Load load, int ld, bool t, int r, int c) {
  return t ? load(c + r * ld) : load(r + c * ld);
}

// How many elements of C differ from alpha op(A) op(B) + beta C0 (exact sums).
template <class LA, class LB, class LC>
static int wrong(LA a, int lda, bool ta, LB b, int ldb, bool tb, LC c, const double* c0, int ldc,
                 int m, int n, int k, double alpha, double beta) {
  int bad = 0;
  for (int r = 0; r < m; ++r)
    for (int col = 0; col < n; ++col) {
      double sum = 0;
      for (int p = 0; p < k; ++p) sum += op_at(a, lda, ta, r, p) * op_at(b, ldb, tb, p, col);
      bad += c(r + col * ldc) != alpha * sum + beta * c0[r + col * ldc];
    }
  return bad;
}

int main() {
  cublasHandle_t h;
  cublasCreate(&h);
  const int m = 36, n = 20, k = 24, ld = 40, elems = ld * ld;
  double c0[elems];

  // Half inputs, float result; the compute type as a cudaDataType (CUDA 10's form).
  __half *ha, *hb, *hc;
  float* fc;
  cudaMallocManaged(&ha, elems * sizeof(__half));
  cudaMallocManaged(&hb, elems * sizeof(__half));
  cudaMallocManaged(&hc, elems * sizeof(__half));
  cudaMallocManaged(&fc, elems * sizeof(float));
  for (int i = 0; i < elems; ++i) {
    ha[i] = __float2half((float)value(i, 1, 5));
    hb[i] = __float2half((float)value(i, 4, 5));
    c0[i] = value(i, 9, 5);
    fc[i] = (float)c0[i];
    hc[i] = __float2half((float)c0[i]);
  }
  const auto lh = [](const __half* x) { return [x](int i) { return (double)__half2float(x[i]); }; };
  const auto lf = [](const float* x) { return [x](int i) { return (double)x[i]; }; };
  float alpha = 1.0f, beta = 0.0f;
  cudaDataType compute_old = CUDA_R_32F;
  cublasStatus_t s =
      cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &alpha, ha, CUDA_R_16F, ld, hb, CUDA_R_16F,
                   ld, &beta, fc, CUDA_R_32F, ld, compute_old, CUBLAS_GEMM_DEFAULT_TENSOR_OP);
  cudaDeviceSynchronize();
  double zero[elems] = {};
  printf("half x half -> float (compute CUDA_R_32F): status %d, %d wrong\n", (int)s,
         wrong(lh(ha), ld, false, lh(hb), ld, false, lf(fc), zero, ld, m, n, k, 1, 0));

  // The same with transposes, beta = 2 and the compute type as cublasComputeType_t.
  beta = 2.0f;
  s = cublasGemmEx(h, CUBLAS_OP_T, CUBLAS_OP_N, m, n, k, &alpha, ha, CUDA_R_16F, ld, hb, CUDA_R_16F,
                   ld, &beta, fc, CUDA_R_32F, ld, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
  cudaDeviceSynchronize();
  // C held the first product; the reference is alpha op(A) op(B) + 2 (that product).
  double first[elems] = {};
  for (int r = 0; r < m; ++r)
    for (int c = 0; c < n; ++c) {
      double sum = 0;
      for (int p = 0; p < k; ++p)
        sum += (double)__half2float(ha[r + p * ld]) * __half2float(hb[p + c * ld]);
      first[r + c * ld] = sum;
    }
  printf("half^T x half + 2 C -> float (CUBLAS_COMPUTE_32F): status %d, %d wrong\n", (int)s,
         wrong(lh(ha), ld, true, lh(hb), ld, false, lf(fc), first, ld, m, n, k, 1, 2));

  // Half into half, half scalars.
  const __half h_alpha = __float2half(1.0f), h_beta = __float2half(-1.0f);
  s = cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_T, m, n, k, &h_alpha, ha, CUDA_R_16F, ld, hb,
                   CUDA_R_16F, ld, &h_beta, hc, CUDA_R_16F, ld, CUBLAS_COMPUTE_16F,
                   CUBLAS_GEMM_DEFAULT);
  cudaDeviceSynchronize();
  printf("half x half^T - C -> half (CUBLAS_COMPUTE_16F): status %d, %d wrong\n", (int)s,
         wrong(lh(ha), ld, false, lh(hb), ld, true, lh(hc), c0, ld, m, n, k, 1, -1));

  // bfloat16 into bfloat16 (values -3..3: every sum below 256, exact in its 8 bits).
  unsigned short *ba, *bb, *bc;
  cudaMallocManaged(&ba, elems * sizeof(unsigned short));
  cudaMallocManaged(&bb, elems * sizeof(unsigned short));
  cudaMallocManaged(&bc, elems * sizeof(unsigned short));
  for (int i = 0; i < elems; ++i) {
    ba[i] = to_bf16((float)value(i, 2, 3));
    bb[i] = to_bf16((float)value(i, 5, 3));
    bc[i] = to_bf16(0.0f);
  }
  const auto lb = [](const unsigned short* x) {
    return [x](int i) { return (double)from_bf16(x[i]); };
  };
  beta = 0.0f;
  s = cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &alpha, ba, CUDA_R_16BF, ld, bb,
                   CUDA_R_16BF, ld, &beta, bc, CUDA_R_16BF, ld, CUBLAS_COMPUTE_32F,
                   CUBLAS_GEMM_DEFAULT);
  cudaDeviceSynchronize();
  printf("bfloat16 x bfloat16 -> bfloat16: status %d, %d wrong\n", (int)s,
         wrong(lb(ba), ld, false, lb(bb), ld, false, lb(bc), zero, ld, m, n, k, 1, 0));

  // 8-bit integers into 32-bit ones, int scalars: C = 2 A^T B + C.
  int8_t *ia, *ib;
  int32_t* ic;
  cudaMallocManaged(&ia, elems);
  cudaMallocManaged(&ib, elems);
  cudaMallocManaged(&ic, elems * sizeof(int32_t));
  fill_int8<<<(elems + 255) / 256, 256>>>(ia, elems, 3);
  fill_int8<<<(elems + 255) / 256, 256>>>(ib, elems, 6);
  cudaDeviceSynchronize();
  for (int i = 0; i < elems; ++i) ic[i] = (int32_t)c0[i];
  const int i_alpha = 2, i_beta = 1;
  s = cublasGemmEx(h, CUBLAS_OP_T, CUBLAS_OP_N, 32, 16, 32, &i_alpha, ia, CUDA_R_8I, ld, ib,
                   CUDA_R_8I, ld, &i_beta, ic, CUDA_R_32I, ld, CUBLAS_COMPUTE_32I,
                   CUBLAS_GEMM_DEFAULT);
  cudaDeviceSynchronize();
  const auto li = [](const int8_t* x) { return [x](int i) { return (double)x[i]; }; };
  const auto l32 = [](const int32_t* x) { return [x](int i) { return (double)x[i]; }; };
  printf("int8^T x int8 -> int32 (CUBLAS_COMPUTE_32I): status %d, %d wrong\n", (int)s,
         wrong(li(ia), ld, true, li(ib), ld, false, l32(ic), c0, ld, 32, 16, 32, 2, 1));

  // Double, three products at a stride.
  const int batch = 3, stride = elems;
  double *da, *db, *dc;
  cudaMallocManaged(&da, batch * stride * sizeof(double));
  cudaMallocManaged(&db, batch * stride * sizeof(double));
  cudaMallocManaged(&dc, batch * stride * sizeof(double));
  for (int i = 0; i < batch * stride; ++i) {
    da[i] = value(i, 7, 9) * 0.5;
    db[i] = value(i, 8, 9) * 0.25;
    dc[i] = 0;
  }
  const double d_alpha = 1.0, d_beta = 0.0;
  s = cublasGemmStridedBatchedEx(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &d_alpha, da, CUDA_R_64F, ld,
                                 stride, db, CUDA_R_64F, ld, stride, &d_beta, dc, CUDA_R_64F, ld,
                                 stride, batch, CUBLAS_COMPUTE_64F, CUBLAS_GEMM_DEFAULT);
  cudaDeviceSynchronize();
  int bad = 0;
  const auto ld64 = [](const double* x) { return [x](int i) { return x[i]; }; };
  for (int b = 0; b < batch; ++b)
    bad += wrong(ld64(da + b * stride), ld, false, ld64(db + b * stride), ld, false,
                 ld64(dc + b * stride), zero, ld, m, n, k, 1, 0);
  printf("double, 3 products at a stride: status %d, %d wrong\n", (int)s, bad);

  // Float through an array of pointers: two products.
  float *fa, *fb, *fd;
  cudaMallocManaged(&fa, 2 * elems * sizeof(float));
  cudaMallocManaged(&fb, 2 * elems * sizeof(float));
  cudaMallocManaged(&fd, 2 * elems * sizeof(float));
  for (int i = 0; i < 2 * elems; ++i) {
    fa[i] = (float)value(i, 1, 6);
    fb[i] = (float)value(i, 2, 6);
    fd[i] = 0;
  }
  const void** as;
  const void** bs;
  void** cs;
  cudaMallocManaged(&as, 2 * sizeof(void*));
  cudaMallocManaged(&bs, 2 * sizeof(void*));
  cudaMallocManaged(&cs, 2 * sizeof(void*));
  for (int b = 0; b < 2; ++b) {
    as[b] = fa + b * elems;
    bs[b] = fb + b * elems;
    cs[b] = fd + b * elems;
  }
  s = cublasGemmBatchedEx(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &alpha, as, CUDA_R_32F, ld, bs,
                          CUDA_R_32F, ld, &beta, cs, CUDA_R_32F, ld, 2, CUBLAS_COMPUTE_32F,
                          CUBLAS_GEMM_DEFAULT);
  cudaDeviceSynchronize();
  bad = 0;
  for (int b = 0; b < 2; ++b)
    bad += wrong(lf(fa + b * elems), ld, false, lf(fb + b * elems), ld, false, lf(fd + b * elems),
                 zero, ld, m, n, k, 1, 0);
  printf("float, 2 products through pointers: status %d, %d wrong\n", (int)s, bad);

  // Half times float: not in cuBLAS's table.
  s = cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &alpha, ha, CUDA_R_16F, ld, fa, CUDA_R_32F,
                   ld, &beta, fc, CUDA_R_32F, ld, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
  printf("half x float: status %d\n", (int)s);

  cublasDestroy(h);
  for (void* p : {(void*)ha, (void*)hb, (void*)hc, (void*)fc, (void*)ba, (void*)bb, (void*)bc,
                  (void*)ia, (void*)ib, (void*)ic, (void*)da, (void*)db, (void*)dc, (void*)fa,
                  (void*)fb, (void*)fd, (void*)as, (void*)bs, (void*)cs})
    cudaFree(p);
  printf("%s\n", cudaGetErrorString(cudaGetLastError()));
  return 0;
}
