// CUDA's sinf, cosf, sincosf, logf, log2f, log10f, log1pf, atan2f and hypotf, operation for
// operation as nvcc 13 compiles them for sm_90: every step below is one PTX instruction (fma.rn,
// mul.rn, add.rn, an integer operation or a conversion), with its constants as bit patterns. This
// file is compiled without floating-point contraction, so that no multiply and add are fused where
// the GPU rounds twice.
#include "simt/cuda_math.hpp"

#include "simt/device_api.hpp"  // __fadd_rz, __float2int_rn, gpulab_gpu_nan

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <limits>

namespace gpulab::simt {

namespace {

float from_bits(std::uint32_t b) {
  return std::bit_cast<float>(b);
}

std::uint32_t bits_of(float x) {
  return std::bit_cast<std::uint32_t>(x);
}

// 2/pi in binary, 192 bits, the least significant 32-bit word first.
constexpr std::uint32_t kTwoOverPi[6] = {0x3C439041u, 0xDB629599u, 0xF534DDC0u,
                                         0xFC2757D1u, 0x4E441529u, 0xA2F9836Eu};

// x = quadrant * pi/2 + r, |r| <= about pi/4.
struct Reduced {
  float r;
  std::uint32_t quadrant;  // modulo 4 is what counts
};

// Below 105615 a three-part pi/2 in fma steps; above, the product of x's mantissa with 2/pi's bits
// (Payne and Hanek's reduction), whose fraction becomes r through a double.
Reduced reduce_quadrant(float x) {
  const std::int32_t j = __float2int_rn(x * from_bits(0x3F22F983u));  // x * 2/pi
  const float fj = static_cast<float>(j);
  float r = std::fma(fj, from_bits(0xBFC90FDAu), x);
  r = std::fma(fj, from_bits(0xB3A22168u), r);
  r = std::fma(fj, from_bits(0xA7C234C5u), r);
  Reduced out{r, static_cast<std::uint32_t>(j)};
  const float ax = std::fabs(x);
  if (ax < from_bits(0x47CE4780u) || std::isnan(ax)) return out;
  if (std::isinf(ax)) return {x * 0.0f, 0};

  const std::uint32_t xb = bits_of(x);
  const std::uint32_t e = ((xb >> 23) & 255u) - 128u;  // at least 16 here
  const std::uint32_t mantissa = (xb << 8) | 0x80000000u;
  const std::uint32_t word = e >> 5;
  std::uint32_t product[7];
  std::uint64_t carry = 0;
  for (int i = 0; i < 6; ++i) {
    const std::uint64_t p = std::uint64_t{kTwoOverPi[i]} * mantissa + carry;
    product[i] = static_cast<std::uint32_t>(p);
    carry = p >> 32;
  }
  product[6] = static_cast<std::uint32_t>(carry);
  std::uint32_t hi = product[6 - word], lo = product[5 - word];
  const std::uint32_t shift = e & 31u;
  if (shift != 0) {
    const std::uint32_t next = product[4 - word];
    hi = (lo >> (32 - shift)) + (hi << shift);
    lo = (next >> (32 - shift)) + (lo << shift);
  }
  const std::uint32_t sign = xb & 0x80000000u;
  const std::uint32_t fraction = (lo >> 30) | (hi << 2);
  const std::uint32_t round_up = fraction >> 31;
  const std::uint32_t q = round_up + (hi >> 30);
  out.quadrant = sign == 0 ? q : 0u - q;
  const std::uint32_t flip = round_up != 0 ? 0xffffffffu : 0u;
  const std::uint32_t r_sign = round_up != 0 ? (sign ^ 0x80000000u) : sign;
  const std::uint64_t fixed =
      (std::uint64_t{fraction ^ flip} << 32) | std::uint64_t{(lo << 2) ^ flip};
  const double d = static_cast<double>(static_cast<std::int64_t>(fixed)) *
                   std::bit_cast<double>(0x3BF921FB54442D19ull);  // pi/2 * 2^-62
  const float fr = static_cast<float>(d);
  out.r = r_sign == 0 ? fr : -fr;
  return out;
}

// sin(r) for an even quadrant, cos(r) for an odd one, negated in quadrants 2 and 3.
float sine_polynomial(float r, std::uint32_t quadrant) {
  const bool even = (quadrant & 1u) == 0;
  const float base = even ? r : 1.0f;
  const float r2 = r * r;
  float p =
      even ? from_bits(0xB94D4153u) : std::fma(from_bits(0x37CBAC00u), r2, from_bits(0xBAB607EDu));
  p = std::fma(p, r2, even ? from_bits(0x3C0885E4u) : from_bits(0x3D2AAABBu));
  p = std::fma(p, r2, even ? from_bits(0xBE2AAAA8u) : from_bits(0xBEFFFFFFu));
  const float scaled = std::fma(r2, base, 0.0f);
  float out = std::fma(p, scaled, base);
  if ((quadrant & 2u) != 0) out = std::fma(out, -1.0f, 0.0f);
  return gpulab_gpu_nan(out);
}

// What logf, log2f and log10f share: subnormals scaled by 2^23, x = 2^e * m with m in
// [2/3, 4/3) (logf, log10f) or [1/sqrt 2, sqrt 2) (log2f), t = m - 1.
struct LogParts {
  float x;  // x, scaled when subnormal
  float e;  // its exponent
  float t;
};

LogParts log_parts(float x, std::uint32_t split) {
  const bool subnormal = x < from_bits(0x00800000u);
  LogParts out{};
  out.x = subnormal ? x * from_bits(0x4B000000u) : x;
  const float e0 = subnormal ? from_bits(0xC1B80000u) : 0.0f;  // -23
  const std::uint32_t b = bits_of(out.x);
  const std::uint32_t exponent = (b - split) & 0xFF800000u;
  out.e = std::fma(static_cast<float>(static_cast<std::int32_t>(exponent)), from_bits(0x34000000u),
                   e0);  // * 2^-23
  out.t = from_bits(b - exponent) + from_bits(0xBF800000u);
  return out;
}

// Infinity, NaN and negative inputs (all of them at or above infinity's bits), and zero.
float log_ends(const LogParts& p, float finite) {
  if (!(bits_of(p.x) < 0x7F800000u)) {
    const float inf = std::numeric_limits<float>::infinity();
    finite = std::fma(p.x, inf, inf);
  }
  return finite;
}

float natural_log(float x) {
  const LogParts p = log_parts(x, 0x3F2AAAABu);
  const float t = p.t;
  float s = std::fma(from_bits(0xBE055027u), t, from_bits(0x3E1039F6u));
  for (const std::uint32_t c : {0xBDF8CDCCu, 0x3E0F2955u, 0xBE2AD8B9u, 0x3E4CED0Bu, 0xBE7FFF22u,
                                0x3EAAAA78u, 0xBF000000u}) {
    s = std::fma(s, t, from_bits(c));
  }
  const float u = std::fma(t * s, t, t);
  return log_ends(p, std::fma(p.e, from_bits(0x3F317218u), u));
}

}  // namespace

float cuda_sinf(float x) {
  const Reduced a = reduce_quadrant(x);
  return sine_polynomial(a.r, a.quadrant);
}

float cuda_cosf(float x) {
  const Reduced a = reduce_quadrant(x);
  return sine_polynomial(a.r, a.quadrant + 1u);
}

void cuda_sincosf(float x, float* s, float* c) {
  const Reduced a = reduce_quadrant(x);
  *s = sine_polynomial(a.r, a.quadrant);
  *c = sine_polynomial(a.r, a.quadrant + 1u);
}

float cuda_logf(float x) {
  const float r = natural_log(x);
  return gpulab_gpu_nan(x == 0.0f ? -std::numeric_limits<float>::infinity() : r);
}

float cuda_log10f(float x) {
  const float r = natural_log(x) * from_bits(0x3EDE5BD9u);  // log10(e)
  return gpulab_gpu_nan(x == 0.0f ? -std::numeric_limits<float>::infinity() : r);
}

float cuda_log2f(float x) {
  const LogParts p = log_parts(x, 0x3F3504F3u);
  const float t = p.t;
  float s = std::fma(from_bits(0x3DC6B27Fu), t, from_bits(0xBE2C7F30u));
  for (const std::uint32_t c : {0x3E2FCF2Au, 0xBE374E43u, 0x3E520BF4u, 0xBE763C8Bu, 0x3E93BF99u,
                                0xBEB8AA49u, 0x3EF6384Au, 0xBF38AA3Bu}) {
    s = std::fma(s, t, from_bits(c));
  }
  const float q = t * (t * s);
  const float r = log_ends(p, p.e + std::fma(t, from_bits(0x3FB8AA3Bu), q));
  return gpulab_gpu_nan(x == 0.0f ? -std::numeric_limits<float>::infinity() : r);
}

float cuda_log1pf(float x) {
  const std::uint32_t xb = bits_of(x);
  // 1 + x = 2^e * m, m in [3/4, 3/2), rounded toward zero; t = x * 2^-e + (2^-e - 1) = m - 1.
  const std::uint32_t exponent = (bits_of(__fadd_rz(x, 1.0f)) - 0x3F400000u) & 0xFF800000u;
  const float t =
      std::fma(0.25f, from_bits(0x40800000u - exponent), -1.0f) + from_bits(xb - exponent);
  const float e = static_cast<float>(static_cast<std::int32_t>(exponent)) * from_bits(0x34000000u);
  float s = std::fma(from_bits(0xBD39BF78u), t, from_bits(0x3DD80012u));
  for (const std::uint32_t c : {0xBE0778E0u, 0x3E146475u, 0xBE2A68DDu, 0x3E4CAF9Eu, 0xBE800042u,
                                0x3EAAAAE6u, 0xBF000000u}) {
    s = std::fma(s, t, from_bits(c));
  }
  float r = std::fma(e, from_bits(0x3F317218u), std::fma(t * s, t, t));
  if (!(xb < 0x7F800000u)) {                               // infinities, NaN, negative x
    if (!(static_cast<std::int32_t>(xb) < -1082130431)) {  // not in [-1, -0]
      const float inf = std::numeric_limits<float>::infinity();
      r = std::fma(x, inf, inf);
    }
    if (x == 0.0f) r = -0.0f;
  }
  return gpulab_gpu_nan(r);
}

float cuda_atan2f(float y, float x) {
  const float ax = std::fabs(x), ay = std::fabs(y);
  const bool steep = ay > ax;
  const float big = steep ? ay : ax;
  const float t = (steep ? ax : ay) / big;  // in [0, 1]
  const float t2 = t * t;
  float s = std::fma(from_bits(0x3B33710Bu), t2, from_bits(0xBC807748u));
  for (const std::uint32_t c :
       {0x3D2CDAB2u, 0xBD992D10u, 0x3DD9EA6Cu, 0xBE117CB1u, 0x3E4CBCE0u, 0xBEAAAA7Du}) {
    s = std::fma(s, t2, from_bits(c));
  }
  float r = std::fma(t2 * s, t, t);  // atan(t)
  const bool x_negative = (bits_of(x) >> 31) != 0;
  const float pi_part = from_bits(0x3FD774EBu);
  if (steep) {
    r = std::fma(from_bits(0x3F6EE581u), pi_part, x_negative ? r : -r);  // pi/2 -+ atan(t)
  } else if (x_negative) {
    r = std::fma(from_bits(0x3FEEE581u), pi_part, -r);  // pi - atan(t)
  }
  if (ax == ay) r = x_negative ? from_bits(0x4016CBE4u) : from_bits(0x3F490FDBu);  // 3pi/4, pi/4
  if (big == 0.0f) r = x_negative ? from_bits(0x40490FDBu) : 0.0f;                 // pi, 0
  const float sum = ax + ay;
  return std::isnan(sum) ? gpulab_gpu_nan(sum) : std::copysign(r, y);
}

float cuda_hypotf(float a, float b) {
  const std::uint32_t ba = bits_of(std::fabs(a)), bb = bits_of(std::fabs(b));
  const float lo = from_bits(std::min(ba, bb)), hi = from_bits(std::max(ba, bb));
  // Both scaled by a power of two that brings the larger near 1, then scaled back.
  const std::uint32_t exponent = std::max(ba, bb) & 0xFE000000u;
  const float scale = from_bits(0x7E800000u - exponent);
  const float slo = lo * scale, shi = hi * scale;
  const float r = std::sqrt(std::fma(shi, shi, slo * slo)) * from_bits(exponent | 0x00800000u);
  float out = lo == 0.0f ? hi : r;
  if (lo == std::numeric_limits<float>::infinity()) out = lo;
  return gpulab_gpu_nan(out);
}

}  // namespace gpulab::simt
