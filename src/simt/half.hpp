// CUDA's __half and __half2 (<cuda_fp16.h>) for the SIMT emulator: IEEE binary16 storage, exact
// round-to-nearest-even conversions, arithmetic, comparisons, shuffles and atomicAdd.
//
// Arithmetic computes in float (double for fma) and rounds once to binary16: float's 24-bit
// significand is more than twice half's 11 bits plus 2, so that double rounding cannot occur and
// +, -, *, / and sqrt are correctly rounded, as on a GPU. NaN results are CUDA's canonical NaN
// (0x7fff). The transcendental functions (hexp, hlog, ...) round the float result: a GPU's are
// approximate, so the last bit may differ.
#pragma once

#include <bit>
#include <cmath>
#include <cstdint>
#include <source_location>

#include "simt/device_api.hpp"

namespace gpulab::simt::detail {

enum class HalfRound : std::uint8_t { nearest_even, toward_zero, down, up };

// Rounds a double (every float is one, exactly) to binary16 bits.
constexpr std::uint16_t half_bits_from(double value, HalfRound mode = HalfRound::nearest_even) {
  const auto b = std::bit_cast<std::uint64_t>(value);
  const auto sign = static_cast<std::uint16_t>((b >> 48) & 0x8000u);
  const int biased = static_cast<int>((b >> 52) & 0x7ffu);
  const std::uint64_t frac = b & ((std::uint64_t{1} << 52) - 1);
  if (biased == 0x7ff) return frac != 0 ? std::uint16_t{0x7fff} : std::uint16_t(sign | 0x7c00u);
  const bool negative = sign != 0;
  // Whether a value beyond the last representable magnitude goes to it (or to 0) or past it.
  const bool away = mode == HalfRound::nearest_even || (mode == HalfRound::up && !negative) ||
                    (mode == HalfRound::down && negative);
  const int e = biased - 1023;
  if (e > 15) return static_cast<std::uint16_t>(sign | (away ? 0x7c00u : 0x7bffu));
  if (biased == 0 && frac == 0) return sign;
  // value = m * 2^(e-52); a normal half keeps 11 significant bits (quantum 2^(e-10)), a subnormal
  // one counts in units of 2^-24.
  const std::uint64_t m = biased == 0 ? frac : frac | (std::uint64_t{1} << 52);
  const int shift = e >= -14 ? 42 : 28 - e;
  std::uint64_t q = 0, rem = m;
  if (shift < 64) {
    q = m >> shift;
    rem = m & ((std::uint64_t{1} << shift) - 1);
  }
  const std::uint64_t halfway = shift <= 64 ? std::uint64_t{1} << (shift - 1) : ~std::uint64_t{0};
  bool increment = false;
  switch (mode) {
    case HalfRound::nearest_even:
      increment = shift <= 64 && (rem > halfway || (rem == halfway && (q & 1u) != 0));
      break;
    case HalfRound::toward_zero:
      break;
    case HalfRound::down:
      increment = negative && rem != 0;
      break;
    case HalfRound::up:
      increment = !negative && rem != 0;
      break;
  }
  if (increment) ++q;
  // A normal significand that rounds up to 2^11 carries into the exponent (up to infinity).
  const std::uint64_t bits = e >= -14 ? (static_cast<std::uint64_t>(e + 14) << 10) + q : q;
  return static_cast<std::uint16_t>(sign | bits);
}

constexpr float float_from_half_bits(std::uint16_t h) {
  const std::uint32_t sign = static_cast<std::uint32_t>(h & 0x8000u) << 16;
  const std::uint32_t exponent = (h >> 10) & 0x1fu;
  const std::uint32_t mantissa = h & 0x3ffu;
  if (exponent == 0x1f) {
    return std::bit_cast<float>(mantissa != 0 ? 0x7fffffffu : sign | 0x7f800000u);
  }
  if (exponent == 0) {
    const float magnitude = static_cast<float>(mantissa) * 0x1p-24f;
    return sign != 0 ? -magnitude : magnitude;
  }
  return std::bit_cast<float>(sign | ((exponent + 112u) << 23) | (mantissa << 13));
}

}  // namespace gpulab::simt::detail

struct __half_raw {
  unsigned short x;
};
struct __half2_raw {
  unsigned short x, y;
};

struct alignas(2) __half {
  __half() = default;
  constexpr __half(const __half_raw& raw) : __x(raw.x) {}
  constexpr __half(float f) : __x(gpulab::simt::detail::half_bits_from(f)) {}
  constexpr __half(double d) : __x(gpulab::simt::detail::half_bits_from(d)) {}
  constexpr __half(int i) : __x(gpulab::simt::detail::half_bits_from(i)) {}
  constexpr __half(unsigned int i) : __x(gpulab::simt::detail::half_bits_from(i)) {}
  constexpr __half(short i) : __x(gpulab::simt::detail::half_bits_from(i)) {}
  constexpr __half(unsigned short i) : __x(gpulab::simt::detail::half_bits_from(i)) {}
  constexpr __half(long i) : __x(gpulab::simt::detail::half_bits_from(static_cast<double>(i))) {}
  constexpr __half(unsigned long i)
      : __x(gpulab::simt::detail::half_bits_from(static_cast<double>(i))) {}
  constexpr __half(long long i)
      : __x(gpulab::simt::detail::half_bits_from(static_cast<double>(i))) {}
  constexpr __half(unsigned long long i)
      : __x(gpulab::simt::detail::half_bits_from(static_cast<double>(i))) {}

  constexpr operator float() const { return gpulab::simt::detail::float_from_half_bits(__x); }
  constexpr operator __half_raw() const { return __half_raw{__x}; }

 protected:
  unsigned short __x;
};

struct alignas(4) __half2 {
  __half x, y;
  __half2() = default;
  constexpr __half2(const __half& a, const __half& b) : x(a), y(b) {}
  constexpr __half2(const __half2_raw& raw) : x(__half_raw{raw.x}), y(__half_raw{raw.y}) {}
  constexpr operator __half2_raw() const {
    return __half2_raw{static_cast<__half_raw>(x).x, static_cast<__half_raw>(y).x};
  }
};

typedef __half half;
typedef __half2 half2;

// ---- Conversions and reinterpretations ----------------------------------------------------------

constexpr __half __float2half(float f) {
  return __half(f);
}
constexpr __half __float2half_rn(float f) {
  return __half(f);
}
constexpr __half __float2half_rz(float f) {
  return __half_raw{
      gpulab::simt::detail::half_bits_from(f, gpulab::simt::detail::HalfRound::toward_zero)};
}
constexpr __half __float2half_rd(float f) {
  return __half_raw{gpulab::simt::detail::half_bits_from(f, gpulab::simt::detail::HalfRound::down)};
}
constexpr __half __float2half_ru(float f) {
  return __half_raw{gpulab::simt::detail::half_bits_from(f, gpulab::simt::detail::HalfRound::up)};
}
constexpr __half __double2half(double d) {
  return __half(d);
}
constexpr float __half2float(__half h) {
  return static_cast<float>(h);
}
constexpr __half __int2half_rn(int i) {
  return __half(i);
}
constexpr __half __uint2half_rn(unsigned int i) {
  return __half(i);
}
constexpr __half __short2half_rn(short i) {
  return __half(i);
}
constexpr __half __ll2half_rn(long long i) {
  return __half(i);
}
inline int __half2int_rz(__half h) {
  return static_cast<int>(static_cast<float>(h));
}
inline int __half2int_rn(__half h) {
  return static_cast<int>(std::nearbyint(static_cast<float>(h)));
}
inline int __half2int_rd(__half h) {
  return static_cast<int>(std::floor(static_cast<float>(h)));
}
inline int __half2int_ru(__half h) {
  return static_cast<int>(std::ceil(static_cast<float>(h)));
}
inline unsigned int __half2uint_rz(__half h) {
  return static_cast<unsigned int>(static_cast<float>(h));
}
constexpr short __half_as_short(__half h) {
  return static_cast<short>(static_cast<__half_raw>(h).x);
}
constexpr unsigned short __half_as_ushort(__half h) {
  return static_cast<__half_raw>(h).x;
}
constexpr __half __short_as_half(short i) {
  return __half_raw{static_cast<unsigned short>(i)};
}
constexpr __half __ushort_as_half(unsigned short i) {
  return __half_raw{i};
}

constexpr __half2 __halves2half2(__half lo, __half hi) {
  return __half2(lo, hi);
}
constexpr __half2 make_half2(__half x, __half y) {
  return __half2(x, y);
}
constexpr __half2 __half2half2(__half h) {
  return __half2(h, h);
}
constexpr __half2 __float2half2_rn(float f) {
  return __half2(__half(f), __half(f));
}
constexpr __half2 __floats2half2_rn(float lo, float hi) {
  return __half2(__half(lo), __half(hi));
}
constexpr __half2 __float22half2_rn(float2 f) {
  return __half2(__half(f.x), __half(f.y));
}
constexpr float2 __half22float2(__half2 h) {
  return float2{static_cast<float>(h.x), static_cast<float>(h.y)};
}
constexpr float __low2float(__half2 h) {
  return static_cast<float>(h.x);
}
constexpr float __high2float(__half2 h) {
  return static_cast<float>(h.y);
}
constexpr __half __low2half(__half2 h) {
  return h.x;
}
constexpr __half __high2half(__half2 h) {
  return h.y;
}
constexpr __half2 __lows2half2(__half2 a, __half2 b) {
  return __half2(a.x, b.x);
}
constexpr __half2 __highs2half2(__half2 a, __half2 b) {
  return __half2(a.y, b.y);
}
constexpr __half2 __lowhigh2highlow(__half2 h) {
  return __half2(h.y, h.x);
}

// ---- Arithmetic
// ----------------------------------------------------------------------------------

constexpr __half __hadd(__half a, __half b) {
  return __half(static_cast<float>(a) + static_cast<float>(b));
}
constexpr __half __hsub(__half a, __half b) {
  return __half(static_cast<float>(a) - static_cast<float>(b));
}
constexpr __half __hmul(__half a, __half b) {
  return __half(static_cast<float>(a) * static_cast<float>(b));
}
constexpr __half __hdiv(__half a, __half b) {
  return __half(static_cast<float>(a) / static_cast<float>(b));
}
// a*b is exact in double and the sum is rounded once more: still correctly rounded, because the
// double result differs from the exact one only far below half's rounding boundaries.
inline __half __hfma(__half a, __half b, __half c) {
  return __half(std::fma(static_cast<double>(static_cast<float>(a)),
                         static_cast<double>(static_cast<float>(b)),
                         static_cast<double>(static_cast<float>(c))));
}
// Sign flips, except that a NaN comes back as the canonical NaN: PTX leaves the NaN of neg.f16 and
// abs.f16 unspecified, and an H100 (CUDA 13) returned 0x7fff for every NaN payload and sign.
constexpr __half __hneg(__half a) {
  const unsigned short bits = __half_as_ushort(a);
  return __half_raw{
      static_cast<unsigned short>((bits & 0x7fffu) > 0x7c00u ? 0x7fffu : bits ^ 0x8000u)};
}
constexpr __half __habs(__half a) {
  const unsigned short bits = __half_as_ushort(a) & 0x7fffu;
  return __half_raw{static_cast<unsigned short>(bits > 0x7c00u ? 0x7fffu : bits)};
}
constexpr bool __hisnan(__half a) {
  return (__half_as_ushort(a) & 0x7fffu) > 0x7c00u;
}
constexpr int __hisinf(__half a) {
  return __half_as_ushort(a) == 0x7c00u ? 1 : (__half_as_ushort(a) == 0xfc00u ? -1 : 0);
}
// NaN loses to a number, as in fmaxf; two NaNs give the canonical NaN.
constexpr __half __hmax(__half a, __half b) {
  if (__hisnan(a) && __hisnan(b)) return __ushort_as_half(0x7fff);
  if (__hisnan(a)) return b;
  if (__hisnan(b)) return a;
  return static_cast<float>(a) < static_cast<float>(b) ? b : a;
}
constexpr __half __hmin(__half a, __half b) {
  if (__hisnan(a) && __hisnan(b)) return __ushort_as_half(0x7fff);
  if (__hisnan(a)) return b;
  if (__hisnan(b)) return a;
  return static_cast<float>(b) < static_cast<float>(a) ? b : a;
}
// The maths functions: computed in float from x, the argument, and rounded back to half.
#define GPULAB_SIMT_HALF_MATH(name, expr)  \
  inline __half name(__half a) {           \
    const float x = static_cast<float>(a); \
    return __half(expr);                   \
  }
GPULAB_SIMT_HALF_MATH(hsqrt, std::sqrt(x))
GPULAB_SIMT_HALF_MATH(hrsqrt, 1.0f / std::sqrt(x))
GPULAB_SIMT_HALF_MATH(hrcp, 1.0f / x)
GPULAB_SIMT_HALF_MATH(hfloor, std::floor(x))
GPULAB_SIMT_HALF_MATH(hceil, std::ceil(x))
GPULAB_SIMT_HALF_MATH(htrunc, std::trunc(x))
GPULAB_SIMT_HALF_MATH(hrint, std::nearbyint(x))
GPULAB_SIMT_HALF_MATH(hexp, std::exp(x))
GPULAB_SIMT_HALF_MATH(hlog, std::log(x))
GPULAB_SIMT_HALF_MATH(hsin, std::sin(x))
GPULAB_SIMT_HALF_MATH(hcos, std::cos(x))
#undef GPULAB_SIMT_HALF_MATH

// The ordered comparisons, as float compares them (false with a NaN).
#define GPULAB_SIMT_HALF_COMPARE(name, op)                 \
  constexpr bool name(__half a, __half b) {                \
    return static_cast<float>(a) op static_cast<float>(b); \
  }
GPULAB_SIMT_HALF_COMPARE(__heq, ==)
GPULAB_SIMT_HALF_COMPARE(__hlt, <)
GPULAB_SIMT_HALF_COMPARE(__hle, <=)
GPULAB_SIMT_HALF_COMPARE(__hgt, >)
GPULAB_SIMT_HALF_COMPARE(__hge, >=)
#undef GPULAB_SIMT_HALF_COMPARE
constexpr bool __hne(__half a, __half b) {
  return !__hisnan(a) && !__hisnan(b) && static_cast<float>(a) != static_cast<float>(b);
}

// The arithmetic operators of H (__half, or __half2 lane by lane) through its functions.
#define GPULAB_SIMT_HALF_OPERATORS(H, add, sub, mul, div, neg) \
  constexpr H operator+(H a, H b) {                            \
    return add(a, b);                                          \
  }                                                            \
  constexpr H operator-(H a, H b) {                            \
    return sub(a, b);                                          \
  }                                                            \
  constexpr H operator*(H a, H b) {                            \
    return mul(a, b);                                          \
  }                                                            \
  constexpr H operator/(H a, H b) {                            \
    return div(a, b);                                          \
  }                                                            \
  constexpr H operator-(H a) {                                 \
    return neg(a);                                             \
  }                                                            \
  constexpr H& operator+=(H& a, H b) {                         \
    return a = add(a, b);                                      \
  }                                                            \
  constexpr H& operator-=(H& a, H b) {                         \
    return a = sub(a, b);                                      \
  }                                                            \
  constexpr H& operator*=(H& a, H b) {                         \
    return a = mul(a, b);                                      \
  }                                                            \
  constexpr H& operator/=(H& a, H b) {                         \
    return a = div(a, b);                                      \
  }
GPULAB_SIMT_HALF_OPERATORS(__half, __hadd, __hsub, __hmul, __hdiv, __hneg)
constexpr __half operator+(__half a) {
  return a;
}
constexpr __half& operator++(__half& a) {
  return a = __hadd(a, __half(1.0f));
}
constexpr __half& operator--(__half& a) {
  return a = __hsub(a, __half(1.0f));
}
constexpr __half operator++(__half& a, int) {
  const __half old = a;
  ++a;
  return old;
}
constexpr __half operator--(__half& a, int) {
  const __half old = a;
  --a;
  return old;
}
// Ordered comparisons, false with a NaN; != is the unordered one, as for float.
constexpr bool operator==(__half a, __half b) {
  return __heq(a, b);
}
constexpr bool operator!=(__half a, __half b) {
  return !__heq(a, b);
}
constexpr bool operator<(__half a, __half b) {
  return __hlt(a, b);
}
constexpr bool operator<=(__half a, __half b) {
  return __hle(a, b);
}
constexpr bool operator>(__half a, __half b) {
  return __hgt(a, b);
}
constexpr bool operator>=(__half a, __half b) {
  return __hge(a, b);
}

// ---- __half2: the same, lane by lane
// -------------------------------------------------------------

constexpr __half2 __hadd2(__half2 a, __half2 b) {
  return __half2(__hadd(a.x, b.x), __hadd(a.y, b.y));
}
constexpr __half2 __hsub2(__half2 a, __half2 b) {
  return __half2(__hsub(a.x, b.x), __hsub(a.y, b.y));
}
constexpr __half2 __hmul2(__half2 a, __half2 b) {
  return __half2(__hmul(a.x, b.x), __hmul(a.y, b.y));
}
constexpr __half2 __h2div(__half2 a, __half2 b) {
  return __half2(__hdiv(a.x, b.x), __hdiv(a.y, b.y));
}
inline __half2 __hfma2(__half2 a, __half2 b, __half2 c) {
  return __half2(__hfma(a.x, b.x, c.x), __hfma(a.y, b.y, c.y));
}
constexpr __half2 __hneg2(__half2 a) {
  return __half2(__hneg(a.x), __hneg(a.y));
}
constexpr __half2 __habs2(__half2 a) {
  return __half2(__habs(a.x), __habs(a.y));
}
constexpr __half2 __hmax2(__half2 a, __half2 b) {
  return __half2(__hmax(a.x, b.x), __hmax(a.y, b.y));
}
constexpr __half2 __hmin2(__half2 a, __half2 b) {
  return __half2(__hmin(a.x, b.x), __hmin(a.y, b.y));
}
inline __half2 h2sqrt(__half2 a) {
  return __half2(hsqrt(a.x), hsqrt(a.y));
}
GPULAB_SIMT_HALF_OPERATORS(__half2, __hadd2, __hsub2, __hmul2, __h2div, __hneg2)
#undef GPULAB_SIMT_HALF_OPERATORS
constexpr bool operator==(__half2 a, __half2 b) {
  return a.x == b.x && a.y == b.y;
}
constexpr bool operator!=(__half2 a, __half2 b) {
  return !(a == b);
}

// ---- Warp shuffles and atomics
// ---------------------------------------------------------------------

#define GPULAB_SIMT_HALF_SHUFFLE(T, name, op, U)                                                 \
  inline T name(unsigned mask, T var, U arg, int width = warpSize,                               \
                std::source_location where = std::source_location::current()) {                  \
    return std::bit_cast<T>(                                                                     \
        static_cast<std::conditional_t<sizeof(T) == 2, std::uint16_t, std::uint32_t>>(           \
            gpulab::simt::detail::warp_collective(                                               \
                gpulab::simt::detail::WarpOp::op, mask,                                          \
                std::bit_cast<std::conditional_t<sizeof(T) == 2, std::uint16_t, std::uint32_t>>( \
                    var),                                                                        \
                static_cast<int>(arg), width, where)));                                          \
  }
GPULAB_SIMT_HALF_SHUFFLE(__half, __shfl_sync, shfl_idx, int)
GPULAB_SIMT_HALF_SHUFFLE(__half, __shfl_up_sync, shfl_up, unsigned int)
GPULAB_SIMT_HALF_SHUFFLE(__half, __shfl_down_sync, shfl_down, unsigned int)
GPULAB_SIMT_HALF_SHUFFLE(__half, __shfl_xor_sync, shfl_xor, int)
GPULAB_SIMT_HALF_SHUFFLE(__half2, __shfl_sync, shfl_idx, int)
GPULAB_SIMT_HALF_SHUFFLE(__half2, __shfl_up_sync, shfl_up, unsigned int)
GPULAB_SIMT_HALF_SHUFFLE(__half2, __shfl_down_sync, shfl_down, unsigned int)
GPULAB_SIMT_HALF_SHUFFLE(__half2, __shfl_xor_sync, shfl_xor, int)
#undef GPULAB_SIMT_HALF_SHUFFLE

inline __half atomicAdd(__half* address, __half val) {
  return gpulab::simt::detail::atomic_update(address, [val](__half old) { return old + val; });
}
// One atomic on the pair, as sm_60 and later do (the two halves are not added separately).
inline __half2 atomicAdd(__half2* address, __half2 val) {
  return gpulab::simt::detail::atomic_update(address, [val](__half2 old) { return old + val; });
}
