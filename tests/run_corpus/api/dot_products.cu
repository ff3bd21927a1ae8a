// sm_61's packed dot products (__dp4a, __dp2a_lo, __dp2a_hi), signed and unsigned, in their word
// and vector forms, against a host computation of the same sums (Learn CUDA Programming's
// mixed_precision_int includes <sm_61_intrinsics.h> for them).
#include <sm_61_intrinsics.h>

#include <cstdio>
#include <cstring>

__global__ void dots(const unsigned* a, const unsigned* b, int* out) {
  const int i = threadIdx.x;
  const int sa = static_cast<int>(a[i]), sb = static_cast<int>(b[i]);
  char4 ca, cb;
  uchar4 ua, ub;
  short2 ha;
  memcpy(&ca, &a[i], 4);
  memcpy(&cb, &b[i], 4);
  memcpy(&ua, &a[i], 4);
  memcpy(&ub, &b[i], 4);
  memcpy(&ha, &a[i], 4);
  out[8 * i + 0] = __dp4a(sa, sb, 7);
  out[8 * i + 1] = static_cast<int>(__dp4a(a[i], b[i], 7u));
  out[8 * i + 2] = __dp4a(ca, cb, -3);
  out[8 * i + 3] = static_cast<int>(__dp4a(ua, ub, 3u));
  out[8 * i + 4] = __dp2a_lo(sa, sb, 11);
  out[8 * i + 5] = __dp2a_hi(sa, sb, 11);
  out[8 * i + 6] = static_cast<int>(__dp2a_lo(a[i], b[i], 5u));
  out[8 * i + 7] = __dp2a_hi(ha, cb, -1);
}

int byte_of(unsigned w, int k, bool is_signed) {
  const unsigned v = (w >> (8 * k)) & 0xffu;
  return is_signed ? static_cast<signed char>(v) : static_cast<int>(v);
}
int half_of(unsigned w, int k, bool is_signed) {
  const unsigned v = (w >> (16 * k)) & 0xffffu;
  return is_signed ? static_cast<short>(v) : static_cast<int>(v);
}

int main() {
  const int n = 64;
  unsigned a[n], b[n];
  unsigned x = 12345u;
  for (int i = 0; i < n; ++i) {
    x = x * 1664525u + 1013904223u;
    a[i] = x;
    x = x * 1664525u + 1013904223u;
    b[i] = x;
  }
  unsigned *da, *db;
  int *dout, out[8 * n];
  cudaMalloc(&da, sizeof a);
  cudaMalloc(&db, sizeof b);
  cudaMalloc(&dout, sizeof out);
  cudaMemcpy(da, a, sizeof a, cudaMemcpyHostToDevice);
  cudaMemcpy(db, b, sizeof b, cudaMemcpyHostToDevice);
  dots<<<1, n>>>(da, db, dout);
  cudaMemcpy(out, dout, sizeof out, cudaMemcpyDeviceToHost);
  int wrong = 0;
  for (int i = 0; i < n; ++i) {
    long long dp4s = 7, dp4u = 7, dp4c = -3, dp4uc = 3;
    for (int k = 0; k < 4; ++k) {
      dp4s += byte_of(a[i], k, true) * byte_of(b[i], k, true);
      dp4u += byte_of(a[i], k, false) * byte_of(b[i], k, false);
      dp4c += byte_of(a[i], k, true) * byte_of(b[i], k, true);
      dp4uc += byte_of(a[i], k, false) * byte_of(b[i], k, false);
    }
    long long lo = 11, hi = 11, lou = 5, hiv = -1;
    for (int k = 0; k < 2; ++k) {
      lo += half_of(a[i], k, true) * byte_of(b[i], k, true);
      hi += half_of(a[i], k, true) * byte_of(b[i], 2 + k, true);
      lou += half_of(a[i], k, false) * byte_of(b[i], k, false);
      hiv += half_of(a[i], k, true) * byte_of(b[i], 2 + k, true);
    }
    const long long expect[8] = {dp4s, dp4u, dp4c, dp4uc, lo, hi, lou, hiv};
    for (int k = 0; k < 8; ++k) wrong += out[8 * i + k] != static_cast<int>(expect[k]);
  }
  printf("%d of %d dot products differ from the host's\n", wrong, 8 * n);
  printf("__dp4a(0x%08x, 0x%08x, 7) = %d\n", a[0], b[0], out[0]);
  cudaFree(da);
  cudaFree(db);
  cudaFree(dout);
  return wrong != 0;
}
