// The exact integer and conversion intrinsics, and the correctly rounded float and double ones, as
// a GPU computes them: each of 2^16 threads applies every intrinsic to its own inputs (random bits
// after a head of special values: 0, -0, 1, -1, the largest and smallest ints, infinities, NaN,
// subnormals, halfway cases) and the program prints, per intrinsic, a checksum of every result's
// bits and the results of the special inputs. The .out was recorded on an H100.
#include <cstdio>
#include <cstring>

__host__ __device__ unsigned mix(unsigned i, unsigned salt) {
  unsigned x = i * 2654435761u + salt;
  x ^= x >> 13;
  x *= 0x5bd1e995u;
  x ^= x >> 15;
  return x;
}

__device__ float as_float(unsigned u) {
  float f;
  memcpy(&f, &u, sizeof f);
  return f;
}

__device__ double as_double(unsigned long long u) {
  double d;
  memcpy(&d, &u, sizeof d);
  return d;
}

__device__ unsigned bits_of(float f) {
  unsigned u;
  memcpy(&u, &f, sizeof u);
  return u;
}

__device__ unsigned long long bits_of(double d) {
  unsigned long long u;
  memcpy(&u, &d, sizeof u);
  return u;
}

// The first inputs are special: every intrinsic sees them as both its first and second operand.
__device__ unsigned word(unsigned i, unsigned salt) {
  const unsigned special[] = {0u,          1u,          0xffffffffu, 0x80000000u, 0x7fffffffu,
                              0x3f800000u, 0xbf800000u, 0x7f800000u, 0xff800000u, 0x7fc00000u,
                              0x00000001u, 0x807fffffu, 0x4f000000u, 0xcf000000u, 0x3f000000u,
                              0x3fc00000u, 0x40200000u, 0xbfc00000u, 0x5f800000u, 0x4b800001u};
  const unsigned n_special = sizeof special / sizeof special[0];
  if (i < n_special * n_special) return special[salt & 1u ? i / n_special : i % n_special];
  return mix(i, salt);
}

__device__ float finite_or_special(unsigned i, unsigned salt) {
  return as_float(word(i, salt));
}

// A float whose value is in int range about half the time, so conversions round, not saturate.
__device__ float moderate(unsigned i, unsigned salt) {
  const unsigned w = word(i, salt);
  if (i < 400) return as_float(w);
  const unsigned exponent = 100u + (w >> 8) % 70u;  // 2^-27 .. 2^42
  return as_float((w & 0x807fffffu) | exponent << 23);
}

constexpr int kOps = 53;

__global__ void apply(unsigned n, unsigned long long* out) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const unsigned a = word(i, 0x1234u), b = word(i, 0x9876u | 1u), c = mix(i, 77u);
  const int sa = static_cast<int>(a), sb = static_cast<int>(b);
  const unsigned long long la = (static_cast<unsigned long long>(a) << 32) | mix(i, 5u);
  const unsigned long long lb = (static_cast<unsigned long long>(mix(i, 6u)) << 32) | b;
  const float fa = finite_or_special(i, 0x1234u), fb = finite_or_special(i, 0x9877u);
  const float fc = as_float(mix(i, 99u) & 0xbfffffffu);  // |fc| < 2, no overflow in fma
  const float ma = moderate(i, 0x1234u);
  const double da = as_double(la), db = as_double(lb);
  const double dm = static_cast<double>(ma) * 1.0000001;
  unsigned long long r[kOps] = {
      static_cast<unsigned>(__popc(a)),
      static_cast<unsigned>(__clz(sa)),
      static_cast<unsigned>(__ffs(sa)),
      __brev(a),
      __byte_perm(a, b, c),
      __funnelshift_l(a, b, c),
      __funnelshift_r(a, b, c),
      static_cast<unsigned>(__mulhi(sa, sb)),
      __umulhi(a, b),
      static_cast<unsigned>(__mul24(sa, sb)),
      __umul24(a, b),
      __sad(sa, sb, c),
      __usad(a, b, c),
      static_cast<unsigned>(__hadd(sa, sb)),
      static_cast<unsigned>(__rhadd(sa, sb)),
      __uhadd(a, b),
      __urhadd(a, b),
      static_cast<unsigned>(__popcll(la)),
      static_cast<unsigned>(__clzll(static_cast<long long>(la))),
      static_cast<unsigned>(__ffsll(static_cast<long long>(lb))),
      __brevll(la),
      static_cast<unsigned long long>(
          __mul64hi(static_cast<long long>(la), static_cast<long long>(lb))),
      __umul64hi(la, lb),
      static_cast<unsigned>(__float2int_rn(ma)),
      static_cast<unsigned>(__float2int_rz(ma)),
      static_cast<unsigned>(__float2int_ru(ma)),
      static_cast<unsigned>(__float2int_rd(ma)),
      __float2uint_rn(ma),
      __float2uint_rz(ma),
      static_cast<unsigned long long>(__float2ll_rn(ma)),
      static_cast<unsigned long long>(__float2ll_rz(ma)),
      bits_of(__int2float_rn(sa)),
      bits_of(__uint2float_rn(a)),
      bits_of(__ll2float_rn(static_cast<long long>(la))),
      bits_of(__double2float_rn(da)),
      static_cast<unsigned>(__double2int_rn(dm)),
      static_cast<unsigned>(__double2int_rz(dm)),
      bits_of(__saturatef(fa)),
      bits_of(__fadd_rn(fa, fb)),
      bits_of(__fsub_rn(fa, fb)),
      bits_of(__fmul_rn(fa, fb)),
      bits_of(__fmaf_rn(fa, fc, fb)),
      bits_of(__fdiv_rn(fa, fb)),
      bits_of(__fsqrt_rn(fa)),
      bits_of(__frcp_rn(fa)),
      bits_of(__frsqrt_rn(fa)),
      bits_of(__fadd_rz(fa, fb)),
      bits_of(__fmul_rz(fa, fb)),
      __float2ull_ru(ma),
      static_cast<unsigned long long>(__double2ll_rd(dm)),
      __double2uint_ru(dm),
      __double2ull_rn(dm),
      bits_of(__dsqrt_rn(da < 0 ? -da : da)) ^ bits_of(__drcp_rn(db)) ^
          bits_of(__fma_rn(da, db, 1.0)) ^ bits_of(__dadd_rn(da, db)) ^ bits_of(__dmul_rn(da, db)),
  };
  for (int k = 0; k < kOps; ++k) out[static_cast<unsigned long long>(k) * n + i] = r[k];
}

int main(int argc, char** argv) {
  const bool dump = argc > 1;  // any argument: every result of the special inputs, one per line
  const char* names[kOps] = {"__popc",
                             "__clz",
                             "__ffs",
                             "__brev",
                             "__byte_perm",
                             "__funnelshift_l",
                             "__funnelshift_r",
                             "__mulhi",
                             "__umulhi",
                             "__mul24",
                             "__umul24",
                             "__sad",
                             "__usad",
                             "__hadd",
                             "__rhadd",
                             "__uhadd",
                             "__urhadd",
                             "__popcll",
                             "__clzll",
                             "__ffsll",
                             "__brevll",
                             "__mul64hi",
                             "__umul64hi",
                             "__float2int_rn",
                             "__float2int_rz",
                             "__float2int_ru",
                             "__float2int_rd",
                             "__float2uint_rn",
                             "__float2uint_rz",
                             "__float2ll_rn",
                             "__float2ll_rz",
                             "__int2float_rn",
                             "__uint2float_rn",
                             "__ll2float_rn",
                             "__double2float_rn",
                             "__double2int_rn",
                             "__double2int_rz",
                             "__saturatef",
                             "__fadd_rn",
                             "__fsub_rn",
                             "__fmul_rn",
                             "__fmaf_rn",
                             "__fdiv_rn",
                             "__fsqrt_rn",
                             "__frcp_rn",
                             "__frsqrt_rn",
                             "__fadd_rz",
                             "__fmul_rz",
                             "__float2ull_ru",
                             "__double2ll_rd",
                             "__double2uint_ru",
                             "__double2ull_rn",
                             "double _rn ops"};
  const unsigned n = 1u << 16;
  unsigned long long* d = nullptr;
  const size_t bytes = sizeof(unsigned long long) * kOps * n;
  if (cudaMalloc(&d, bytes) != cudaSuccess) return 1;
  apply<<<n / 128, 128>>>(n, d);
  if (cudaGetLastError() != cudaSuccess) return 1;
  static unsigned long long h[kOps << 16];
  if (cudaMemcpy(h, d, bytes, cudaMemcpyDeviceToHost) != cudaSuccess) return 1;
  for (int k = 0; k < kOps; ++k) {
    const unsigned long long* r = h + static_cast<size_t>(k) * n;
    // The special inputs are the first 400 (every pair of 20 special values); a difference in any
    // bit of any result changes a checksum (each step folds the high bits down).
    unsigned long long sum = 0, special = 0;
    for (unsigned i = 0; i < n; ++i) {
      sum = (sum ^ r[i]) * 1099511628211ull;
      sum ^= sum >> 29;
      if (i == 399) special = sum;
    }
    if (dump)
      for (unsigned i = 0; i < 400; ++i) printf("%s %u %016llx\n", names[k], i, r[i]);
    printf("%-18s checksum %016llx, special inputs %016llx\n", names[k], sum, special);
  }
  cudaFree(d);
  return 0;
}
