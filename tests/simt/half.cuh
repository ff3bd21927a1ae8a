// Test kernels for __half and __half2: plain CUDA (nvcc or the emulator), no namespace of their
// own.
#include "kernels/prelude.cuh"
#if defined(__CUDACC__)
#include <cuda_fp16.h>
#else
#include "simt/half.hpp"
#endif

enum HalfOp { kHAdd, kHSub, kHMul, kHDiv, kHFma, kHSqrt, kHMax, kHMin, kHNeg, kHAbs, kHalfOps };

// out[i] = op(a[i], b[i], c[i]) through the intrinsics; ops[i] = the same through the operators
// where there is one (else the intrinsic again).
__global__ void half_ops_kernel(const __half* a, const __half* b, const __half* c, __half* out,
                                __half* ops, int op, int n) {
  const int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (i >= n) return;
  const __half x = a[i], y = b[i], z = c[i];
  __half r, s;
  switch (op) {
    case kHAdd:
      r = __hadd(x, y);
      s = x + y;
      break;
    case kHSub:
      r = __hsub(x, y);
      s = x - y;
      break;
    case kHMul:
      r = __hmul(x, y);
      s = x;
      s *= y;
      break;
    case kHDiv:
      r = __hdiv(x, y);
      s = x / y;
      break;
    case kHFma:
      r = __hfma(x, y, z);
      s = r;
      break;
    case kHSqrt:
      r = hsqrt(x);
      s = r;
      break;
    case kHMax:
      r = __hmax(x, y);
      s = r;
      break;
    case kHMin:
      r = __hmin(x, y);
      s = r;
      break;
    case kHNeg:
      r = __hneg(x);
      s = -x;
      break;
    default:
      r = __habs(x);
      s = r;
      break;
  }
  out[i] = r;
  ops[i] = s;
}

// Conversions on the device: float to half and back, and comparisons packed in bits.
__global__ void half_convert_kernel(const float* f, unsigned short* bits, float* back,
                                    int* compares, int n) {
  const int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (i >= n) return;
  const __half h = __float2half(f[i]);
  bits[i] = __half_as_ushort(h);
  back[i] = __half2float(h);
  const __half one = __float2half(1.0f);
  compares[i] = (h < one) | (h <= one) << 1 | (h > one) << 2 | (h >= one) << 3 | (h == one) << 4 |
                (h != one) << 5 | __hisnan(h) << 6 | (__hisinf(h) != 0) << 7;
}

// __half2 lane by lane, a __half shuffle and atomicAdd on __half.
__global__ void half2_kernel(const float* f, float* out, __half* total) {
  const unsigned t = threadIdx.x;
  const __half2 p = __floats2half2_rn(f[2 * t], f[2 * t + 1]);
  const __half2 q = __halves2half2(__float2half(0.5f), __float2half(-2.0f));
  const __half2 sum = __hadd2(p, q);
  const __half2 prod = __hmul2(p, q);
  const __half2 fma = __hfma2(p, q, p);
  out[8 * t] = __low2float(sum);
  out[8 * t + 1] = __high2float(sum);
  out[8 * t + 2] = __low2float(prod);
  out[8 * t + 3] = __high2float(prod);
  out[8 * t + 4] = __low2float(fma);
  out[8 * t + 5] = __high2float(fma);
  out[8 * t + 6] = __half2float(__shfl_down_sync(0xffffffffu, __low2half(p), 1));
  out[8 * t + 7] = __half2float(__high2half(__shfl_xor_sync(0xffffffffu, p, 1)));
  atomicAdd(total, __float2half(1.0f));
}
