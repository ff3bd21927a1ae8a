// The special-function unit, second look (bench/sfu_h100.cu is the first): how many fraction bits
// of x ex2.approx keeps (is ex2(x) == ex2(x cut to F bits) for every x in (-1, 1)?), and which
// rounding turns e + lg2.approx(m) into lg2.approx(m * 2^e). Results: docs/simt.md.
//   nvcc -arch=sm_90 -O2 -o sfu_bits bench/sfu_h100_bits.cu && ./sfu_bits
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>

#include "sfu_h100.cuh"

struct Counts {
  unsigned long long tested[16], wrong[16], noted[16];
  unsigned ex[16][4][3];
};

__device__ void note(Counts* c, unsigned long long* lt, unsigned long long* lw, int v, unsigned x,
                     float hw, float model) {
  ++lt[v];
  if (__float_as_uint(hw) == __float_as_uint(model)) return;
  ++lw[v];
  if (c->noted[v] >= 4) return;
  const unsigned long long k = atomicAdd(&c->noted[v], 1ull);
  if (k < 4) {
    c->ex[v][k][0] = x;
    c->ex[v][k][1] = __float_as_uint(hw);
    c->ex[v][k][2] = __float_as_uint(model);
  }
}

__global__ void probe(const unsigned* t_lg2, Counts* c) {
  unsigned long long lt[16] = {}, lw[16] = {};
  for (unsigned long long u = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;
       u < (1ull << 32); u += (unsigned long long)gridDim.x * blockDim.x) {
    const unsigned b = (unsigned)u;
    const float x = __uint_as_float(b);
    if (isnan(x)) continue;
    const unsigned e = (b >> 23) & 255;
    if (e != 0 && x > -1.0f && x < 1.0f) {
      const float hw = ex2(x);
      // variants 0-5: floor to F = 23..28 bits; 6-11: nearest
      for (int k = 0; k < 6; ++k) {
        const int F = 23 + k;
        const double s = ldexp((double)x, F);
        const double qf = ldexp(floor(s), -F), qn = ldexp(rint(s), -F);
        if ((double)(float)qf == qf) note(c, lt, lw, k, b, hw, ex2((float)qf));
        if ((double)(float)qn == qn) note(c, lt, lw, 6 + k, b, hw, ex2((float)qn));
      }
    }
    if (e >= 1 && e <= 254 && (b >> 31) == 0 && e != 127) {
      const double s = (double)((int)e - 127) + (double)__uint_as_float(t_lg2[b & 0x7FFFFF]);
      const float hw = lg2(x);
      note(c, lt, lw, 12, b, hw, __double2float_rn(s));
      note(c, lt, lw, 13, b, hw, __double2float_rz(s));
      note(c, lt, lw, 14, b, hw, __double2float_rd(s));
      note(c, lt, lw, 15, b, hw, __double2float_ru(s));
    }
  }
  for (int v = 0; v < 16; ++v) {
    if (lt[v]) atomicAdd(&c->tested[v], lt[v]);
    if (lw[v]) atomicAdd(&c->wrong[v], lw[v]);
  }
}

__global__ void lg2_table(unsigned* t) {
  for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < (1u << 23);
       i += gridDim.x * blockDim.x)
    t[i] = __float_as_uint(lg2(__uint_as_float(0x3F800000u | i)));
}

int main() {
  unsigned* t;
  CK(cudaMalloc(&t, (1u << 23) * 4));
  Counts* c;
  CK(cudaMallocManaged(&c, sizeof(Counts)));
  memset(c, 0, sizeof(Counts));
  lg2_table<<<4096, 256>>>(t);
  CK(cudaGetLastError());
  probe<<<132 * 16, 256>>>(t, c);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  const char* names[16] = {"ex2(x)==ex2(floor F=23)",
                           "F=24",
                           "F=25",
                           "F=26",
                           "F=27",
                           "F=28",
                           "ex2(x)==ex2(nearest F=23)",
                           "F=24",
                           "F=25",
                           "F=26",
                           "F=27",
                           "F=28",
                           "lg2 = RN(e + t)",
                           "lg2 = RZ(e + t)",
                           "lg2 = RD(e + t)",
                           "lg2 = RU(e + t)"};
  for (int v = 0; v < 16; ++v) {
    printf("%-28s tested %llu wrong %llu\n", names[v], c->tested[v], c->wrong[v]);
    for (unsigned k = 0; k < 4 && k < c->noted[v]; ++k)
      printf("   x %08x (%a) hw %08x (%a) model %08x (%a)\n", c->ex[v][k][0],
             as_float(c->ex[v][k][0]), c->ex[v][k][1], as_float(c->ex[v][k][1]), c->ex[v][k][2],
             as_float(c->ex[v][k][2]));
  }
  return 0;
}
