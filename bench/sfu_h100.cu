// Measures a GPU's special-function-unit approximations (ex2, rcp, rsqrt, lg2 .approx.ftz.f32),
// the instructions under __expf, expf, __logf, __fdividef and rsqrtf: a table over one binade (or
// two) per function, its distance from the correctly rounded result, and, over all 2^32 inputs,
// whether each function is its table scaled by a power of two (ex2: under four ways of turning x
// into a fixed-point fraction of 23 bits). Writes the tables as ex2.delta, rcp.delta, rsq.delta
// and lg2.delta in the current folder (each entry less the one before, a byte; -128 escapes a
// full 4-byte entry). Results: docs/simt.md ("Arithmetic and intrinsics").
//   nvcc -arch=sm_90 -O2 -o sfu bench/sfu_h100.cu && ./sfu
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "sfu_h100.cuh"

constexpr unsigned kM = 1u << 23;

// Tables: ex2 over x = i/2^23 in [0,1); rcp and lg2 over [1,2); rsq over [1,4).
__global__ void tables(unsigned* t_ex2, unsigned* t_rcp, unsigned* t_rsq, unsigned* t_lg2,
                       unsigned long long* hist) {
  for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < 2 * kM;
       i += gridDim.x * blockDim.x) {
    if (i < kM) {
      const float x = (float)i * (1.0f / 8388608.0f);
      const float y = ex2(x);
      t_ex2[i] = __float_as_uint(y);
      const int d = (int)(__float_as_uint(y) - __float_as_uint((float)exp2((double)x)));
      atomicAdd(&hist[0 * 16 + min(max(d + 8, 0), 15)], 1ull);
      const float xr = __uint_as_float(0x3F800000u | i);
      const float yr = rcp(xr);
      t_rcp[i] = __float_as_uint(yr);
      const int dr = (int)(__float_as_uint(yr) - __float_as_uint((float)(1.0 / (double)xr)));
      atomicAdd(&hist[1 * 16 + min(max(dr + 8, 0), 15)], 1ull);
      const float yl = lg2(xr);
      t_lg2[i] = __float_as_uint(yl);
      const int dl = (int)(__float_as_uint(yl) - __float_as_uint((float)log2((double)xr)));
      atomicAdd(&hist[3 * 16 + min(max(dl + 8, 0), 15)], 1ull);
    }
    const float xs = __uint_as_float(0x3F800000u + i);
    const float ys = rsq(xs);
    t_rsq[i] = __float_as_uint(ys);
    const int ds = (int)(__float_as_uint(ys) - __float_as_uint((float)(1.0 / sqrt((double)xs))));
    atomicAdd(&hist[2 * 16 + min(max(ds + 8, 0), 15)], 1ull);
  }
}

__device__ float scaled(float t, int n) {  // t * 2^n with flush to zero
  const int e = (int)((__float_as_uint(t) >> 23) & 255) + n;
  if (e <= 0) return 0.0f;
  if (e >= 255) return __uint_as_float(0x7F800000u);
  return __uint_as_float((__float_as_uint(t) & 0x807FFFFFu) | ((unsigned)e << 23));
}

struct Counts {
  unsigned long long tested[8], wrong[8], noted[8];
  unsigned examples[8][8][3];
};

struct Local {
  unsigned long long tested[8] = {}, wrong[8] = {};
};

__device__ void note(Counts* c, Local& l, int v, unsigned x, float hw, float model) {
  ++l.tested[v];
  if (__float_as_uint(hw) == __float_as_uint(model)) return;
  ++l.wrong[v];
  if (c->noted[v] >= 8) return;
  const unsigned long long k = atomicAdd(&c->noted[v], 1ull);
  if (k < 8) {
    c->examples[v][k][0] = x;
    c->examples[v][k][1] = __float_as_uint(hw);
    c->examples[v][k][2] = __float_as_uint(model);
  }
}

__device__ float ex2_model(const unsigned* t, float x, int variant) {
  const double xd = x;
  long long n, f;
  if (variant == 0 || variant == 2) {  // two's complement: floor, nearest
    const double s = variant == 0 ? floor(xd * 8388608.0) : rint(xd * 8388608.0);
    const long long xi = (long long)s;
    n = xi >> 23;
    f = xi & (kM - 1);
  } else {  // sign and magnitude: truncate, nearest
    const double a = fabs(xd) * 8388608.0;
    const long long m = (long long)(variant == 1 ? trunc(a) : rint(a));
    if (xd >= 0) {
      n = m >> 23;
      f = m & (kM - 1);
    } else if ((m & (kM - 1)) == 0) {
      n = -(m >> 23);
      f = 0;
    } else {
      n = -(m >> 23) - 1;
      f = kM - (m & (kM - 1));
    }
  }
  return scaled(__uint_as_float(t[f]), (int)n);
}

__global__ void exhaustive(const unsigned* t_ex2, const unsigned* t_rcp, const unsigned* t_rsq,
                           const unsigned* t_lg2, Counts* c) {
  Local l;
  for (unsigned long long u = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;
       u < (1ull << 32); u += (unsigned long long)gridDim.x * blockDim.x) {
    const unsigned b = (unsigned)u;
    const float x = __uint_as_float(b);
    if (isnan(x)) continue;
    // ex2 where the result is a normal float: -126 <= x < 128.
    if (x >= -125.0f && x < 127.0f) {
      const float hw = ex2(x);
      for (int v = 0; v < 4; ++v) note(c, l, v, b, hw, ex2_model(t_ex2, x, v));
    }
    const unsigned e = (b >> 23) & 255, m = b & (kM - 1);
    if (e >= 2 && e <= 252) {  // normal, with a normal reciprocal
      const float hw = rcp(x);
      const float t = __uint_as_float(t_rcp[m] | (b & 0x80000000u));
      note(c, l, 4, b, hw, scaled(t, 127 - (int)e));
      if ((b >> 31) == 0) {
        const int p = (int)(e - 127) & 1, k = ((int)e - 127 - p) / 2;
        note(c, l, 5, b, rsq(x), scaled(__uint_as_float(t_rsq[((unsigned)p << 23) | m]), -k));
        const float lt = __uint_as_float(t_lg2[m]);
        note(c, l, 6, b, lg2(x), (float)((double)((int)e - 127) + (double)lt));
      }
    }
  }
  for (int v = 0; v < 8; ++v) {
    if (l.tested[v] != 0) atomicAdd(&c->tested[v], l.tested[v]);
    if (l.wrong[v] != 0) atomicAdd(&c->wrong[v], l.wrong[v]);
  }
}

int main() {
  unsigned* t[4];
  const size_t sizes[4] = {kM, kM, 2 * kM, kM};
  for (int i = 0; i < 4; ++i) CK(cudaMalloc(&t[i], sizes[i] * 4));
  unsigned long long* hist;
  CK(cudaMalloc(&hist, 64 * 8));
  CK(cudaMemset(hist, 0, 64 * 8));
  Counts* c;
  CK(cudaMallocManaged(&c, sizeof(Counts)));
  memset(c, 0, sizeof(Counts));
  tables<<<4096, 256>>>(t[0], t[1], t[2], t[3], hist);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  exhaustive<<<132 * 16, 256>>>(t[0], t[1], t[2], t[3], c);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  unsigned long long h[64];
  CK(cudaMemcpy(h, hist, sizeof h, cudaMemcpyDeviceToHost));
  const char* names[4] = {"ex2 [0,1)", "rcp [1,2)", "rsqrt [1,4)", "lg2 [1,2)"};
  printf("table - correctly rounded, in ulps (-8 or less ... +7 or more):\n");
  for (int f = 0; f < 4; ++f) {
    printf("%-12s", names[f]);
    for (int k = 0; k < 16; ++k) printf(" %d:%llu", k - 8, h[f * 16 + k]);
    printf("\n");
  }
  const char* vn[7] = {"ex2 twos-floor",      "ex2 signmag-trunc", "ex2 twos-nearest",
                       "ex2 signmag-nearest", "rcp = table*2^-e",  "rsqrt = table*2^-k",
                       "lg2 = e + table (RN)"};
  for (int v = 0; v < 7; ++v) {
    printf("%-22s tested %llu wrong %llu\n", vn[v], c->tested[v], c->wrong[v]);
    for (unsigned k = 0; k < 8 && k < c->noted[v]; ++k)
      printf("   x %08x (%a) hw %08x (%a) model %08x (%a)\n", c->examples[v][k][0],
             as_float(c->examples[v][k][0]), c->examples[v][k][1], as_float(c->examples[v][k][1]),
             c->examples[v][k][2], as_float(c->examples[v][k][2]));
  }
  // The tables, each entry less the one before (small numbers), for analysis elsewhere.
  for (int i = 0; i < 4; ++i) {
    std::vector<unsigned> host(sizes[i]);
    CK(cudaMemcpy(host.data(), t[i], sizes[i] * 4, cudaMemcpyDeviceToHost));
    const char* files[4] = {"ex2.delta", "rcp.delta", "rsq.delta", "lg2.delta"};
    FILE* out = fopen(files[i], "wb");
    unsigned prev = 0;
    for (size_t k = 0; k < sizes[i]; ++k) {
      const int d = (int)(host[k] - prev);
      prev = host[k];
      if (d >= -127 && d <= 127) {
        const signed char b = (signed char)d;
        fwrite(&b, 1, 1, out);
      } else {
        const signed char esc = -128;
        fwrite(&esc, 1, 1, out);
        fwrite(&host[k], 4, 1, out);
      }
    }
    fclose(out);
  }
  return 0;
}
