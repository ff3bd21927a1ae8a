// Tests of __half and __half2 on the emulator: bit patterns, every value, rounding, arithmetic.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <utility>
#include <vector>

#include "kernels/prelude.cuh"
#include "simt/half.hpp"
#include "simt/simt.hpp"
#include "test_util.hpp"

namespace simt_test::half_kernels {
#include "half.cuh"
}  // namespace simt_test::half_kernels

namespace {

using gpulab::simt::launch;
using gpulab::simt::detail::half_bits_from;
using gpulab::simt::detail::HalfRound;
using simt_test::DeviceArray;
namespace k = simt_test::half_kernels;
__extension__ typedef __float128 quad;

// The value of a finite binary16 pattern, from its definition.
double half_value(std::uint16_t h) {
  const int e = (h >> 10) & 0x1f;
  const int m = h & 0x3ff;
  const double magnitude = e == 0 ? std::ldexp(m, -24) : std::ldexp(1024 + m, e - 25);
  return (h & 0x8000u) != 0 ? -magnitude : magnitude;
}

bool is_nan_bits(std::uint16_t h) {
  return (h & 0x7fffu) > 0x7c00u;
}

// The binary16 nearest to x by search over the ordered patterns (ties to the even pattern), or
// rounded in a directed mode: an independent reference for the emulator's bit manipulation.
std::uint16_t reference_round(quad x, HalfRound mode = HalfRound::nearest_even) {
  if (x != x) return 0x7fff;
  const bool negative = x < 0 || (x == 0 && std::signbit(static_cast<double>(x)));
  const std::uint16_t sign = negative ? 0x8000 : 0;
  const quad a = negative ? -x : x;
  // Largest finite pattern whose value is <= a.
  std::uint16_t lo = 0, hi = 0x7bff;
  if (static_cast<quad>(half_value(0x7bff)) <= a) {
    lo = 0x7bff;
  } else {
    while (lo < hi) {
      const auto mid = static_cast<std::uint16_t>((lo + hi + 1) / 2);
      if (static_cast<quad>(half_value(mid)) <= a) {
        lo = mid;
      } else {
        hi = static_cast<std::uint16_t>(mid - 1);
      }
    }
  }
  const quad below = half_value(lo);
  if (below == a) return static_cast<std::uint16_t>(sign | lo);
  // The pattern above lo; past 65504 it is infinity, at 65536 for the purpose of rounding.
  const quad above = lo == 0x7bff ? quad(65536) : static_cast<quad>(half_value(lo + 1));
  const auto up = static_cast<std::uint16_t>(lo + 1);  // 0x7c00 is infinity
  const bool away = mode == HalfRound::up ? !negative : (mode == HalfRound::down && negative);
  switch (mode) {
    case HalfRound::nearest_even: {
      const quad d_lo = a - below, d_hi = above - a;
      if (d_lo < d_hi) return static_cast<std::uint16_t>(sign | lo);
      if (d_hi < d_lo) return static_cast<std::uint16_t>(sign | up);
      return static_cast<std::uint16_t>(sign | ((lo & 1u) == 0 ? lo : up));
    }
    default:
      return static_cast<std::uint16_t>(sign | (away ? up : lo));
  }
}

std::uint16_t bits(__half h) {
  return __half_as_ushort(h);
}

// Hand-worked patterns, checked at compile time too.
static_assert(half_bits_from(1.0) == 0x3c00);
static_assert(half_bits_from(-2.0) == 0xc000);
static_assert(half_bits_from(65504.0) == 0x7bff);
static_assert(half_bits_from(65520.0) == 0x7c00);  // halfway to 2^16: to even, which is infinity
static_assert(half_bits_from(0x1p-24) == 0x0001);  // the smallest subnormal
static_assert(half_bits_from(0x1p-25) == 0x0000);  // halfway to it: to even, 0
static_assert(half_bits_from(0x1.8p-25) == 0x0001);
static_assert(half_bits_from(1.0 + 0x1p-11) == 0x3c00);      // tie: the even neighbour, 1
static_assert(half_bits_from(1.0 + 3 * 0x1p-11) == 0x3c02);  // tie: the even neighbour, above
static_assert(half_bits_from(0x1p-14) == 0x0400);            // the smallest normal
static_assert(half_bits_from(0x1.ff8p-15) == 0x03ff);        // the largest subnormal
static_assert(half_bits_from(0x1.ffcp-15) == 0x0400);  // its tie with the smallest normal: even
static_assert(half_bits_from(-0.0) == 0x8000);

}  // namespace

TEST_CASE("half: hand-worked conversions", "[simt][half]") {
  CHECK(bits(__float2half(0.1f)) == 0x2e66);
  CHECK(bits(__float2half(1.0f / 3.0f)) == 0x3555);
  CHECK(bits(__float2half(-65519.99f)) == 0xfbff);
  CHECK(bits(__float2half(1e6f)) == 0x7c00);
  CHECK(bits(__float2half(std::numeric_limits<float>::infinity())) == 0x7c00);
  CHECK(bits(__float2half(-std::numeric_limits<float>::infinity())) == 0xfc00);
  CHECK(bits(__float2half(std::nanf(""))) == 0x7fff);  // CUDA's canonical NaN
  CHECK(bits(__float2half(1e-10f)) == 0x0000);
  CHECK(bits(__double2half(1.0 + 0x1p-11 + 0x1p-40)) == 0x3c01);  // no rounding through float
  CHECK(__half2float(__ushort_as_half(0x3555)) == 0.333251953125f);
  CHECK(__half2float(__ushort_as_half(0x0001)) == 0x1p-24f);
  CHECK(__half2float(__ushort_as_half(0x7bff)) == 65504.0f);
  CHECK(std::isnan(__half2float(__ushort_as_half(0xfe01))));
  CHECK(bits(__float2half_rz(1.9999f)) == 0x3fff);
  CHECK(bits(__float2half_ru(1.0001f)) == 0x3c01);
  CHECK(bits(__float2half_rd(-1.0001f)) == 0xbc01);
  CHECK(bits(__float2half_rz(1e6f)) == 0x7bff);
  CHECK(bits(__float2half_ru(-1e6f)) == 0xfbff);
  CHECK(bits(__int2half_rn(2049)) == 0x6800);  // 2049 is a tie between 2048 and 2050
  CHECK(__half2int_rz(__float2half(-2.75f)) == -2);
  CHECK(__low2float(__floats2half2_rn(1.5f, -3.0f)) == 1.5f);
  CHECK(__high2float(__floats2half2_rn(1.5f, -3.0f)) == -3.0f);
  static_assert(sizeof(__half) == 2 && alignof(__half) == 2);
  static_assert(sizeof(__half2) == 4 && alignof(__half2) == 4);
}

TEST_CASE("half: all 65536 values round-trip through float", "[simt][half]") {
  for (std::uint32_t h = 0; h < 0x10000; ++h) {
    const auto b = static_cast<std::uint16_t>(h);
    const float f = __half2float(__ushort_as_half(b));
    if (is_nan_bits(b)) {
      REQUIRE(std::isnan(f));
      REQUIRE(bits(__float2half(f)) == 0x7fff);
      continue;
    }
    if ((b & 0x7fffu) == 0x7c00u) {
      REQUIRE(std::isinf(f));
    } else if (static_cast<double>(f) != half_value(b)) {
      INFO("pattern " << h);
      REQUIRE(static_cast<double>(f) == half_value(b));
    }
    if (bits(__float2half(f)) != b) {
      INFO("pattern " << h);
      REQUIRE(bits(__float2half(f)) == b);
    }
  }
}

TEST_CASE("half: every tie between neighbours rounds to even, and one float ulp decides",
          "[simt][half]") {
  for (std::uint16_t h = 0; h < 0x7bff; ++h) {
    const auto mid = static_cast<float>((half_value(h) + half_value(h + 1)) / 2);  // exact
    const std::uint16_t even = (h & 1u) == 0 ? h : static_cast<std::uint16_t>(h + 1);
    for (const float sign : {1.0f, -1.0f}) {
      const std::uint16_t s = sign < 0 ? 0x8000 : 0;
      const float m = sign * mid;
      const bool ok = bits(__float2half(m)) == (s | even) &&
                      bits(__float2half(std::nextafter(m, 0.0f))) == (s | h) &&
                      bits(__float2half(std::nextafter(m, sign * 1e9f))) == (s | (h + 1));
      if (!ok) {
        INFO("between patterns " << h << " and " << h + 1 << ", sign " << sign);
        REQUIRE(ok);
      }
    }
  }
  CHECK(bits(__float2half(65520.0f)) == 0x7c00);
  CHECK(bits(__float2half(std::nextafter(65520.0f, 0.0f))) == 0x7bff);
}

TEST_CASE("half: random floats and doubles against a search for the nearest", "[simt][half]") {
  const std::uint64_t seed = simt_test::fresh_seed();
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  for (int i = 0; i < 200000; ++i) {
    // Floats of every exponent that a half can reach, and a few beyond.
    const std::uint32_t fb = (static_cast<std::uint32_t>(rng()) & 0x807fffffu) |
                             ((static_cast<std::uint32_t>(rng() % 46) + 97u) << 23);
    const float f = std::bit_cast<float>(fb);
    const double d =
        std::ldexp(static_cast<double>(rng() >> 11) * 0x1p-53, static_cast<int>(rng() % 46) - 28) *
        ((rng() & 1) != 0 ? 1 : -1);
    const std::uint16_t want_f = reference_round(f);
    const std::uint16_t want_d = reference_round(d);
    if (bits(__float2half(f)) != want_f || bits(__double2half(d)) != want_d) {
      INFO("float bits " << fb << ", double " << d);
      REQUIRE(bits(__float2half(f)) == want_f);
      REQUIRE(bits(__double2half(d)) == want_d);
    }
    for (const HalfRound mode : {HalfRound::toward_zero, HalfRound::down, HalfRound::up}) {
      const std::uint16_t want = reference_round(f, mode);
      const std::uint16_t got = half_bits_from(f, mode);
      if (got != want) {
        INFO("float bits " << fb << ", mode " << static_cast<int>(mode));
        REQUIRE(got == want);
      }
    }
  }
}

TEST_CASE("half: arithmetic in a kernel is correctly rounded", "[simt][half]") {
  const std::uint64_t seed = simt_test::fresh_seed();
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  constexpr int kN = 1 << 15;
  std::vector<__half> a(kN), b(kN), c(kN);
  for (int i = 0; i < kN; ++i) {
    // Any pattern, NaNs and infinities included; every 4th b is near a to make cancellations.
    a[static_cast<std::size_t>(i)] = __ushort_as_half(static_cast<unsigned short>(rng()));
    b[static_cast<std::size_t>(i)] =
        i % 4 == 0 ? __ushort_as_half(static_cast<unsigned short>(
                         __half_as_ushort(a[static_cast<std::size_t>(i)]) ^ (rng() & 0x800f)))
                   : __ushort_as_half(static_cast<unsigned short>(rng()));
    c[static_cast<std::size_t>(i)] = __ushort_as_half(static_cast<unsigned short>(rng()));
  }
  DeviceArray<__half> da(a), db(b), dc(c), out(kN), ops(kN);
  for (int op = 0; op < k::kHalfOps; ++op) {
    CAPTURE(op);
    launch(k::half_ops_kernel, kN / 256, 256, 0, {}, da.get(), db.get(), dc.get(), out.get(),
           ops.get(), op, kN);
    for (std::size_t i = 0; i < kN; ++i) {
      const quad x = __half2float(a[i]), y = __half2float(b[i]), z = __half2float(c[i]);
      std::uint16_t want = 0;
      switch (op) {
        case k::kHAdd:
          want = reference_round(x + y);
          break;
        case k::kHSub:
          want = reference_round(x - y);
          break;
        case k::kHMul:
          want = reference_round(x * y);
          break;
        case k::kHDiv:
          want =
              reference_round(static_cast<quad>(static_cast<double>(x) / static_cast<double>(y)));
          break;
        case k::kHFma:
          want = reference_round(x * y + z);  // exact in 113 bits
          break;
        case k::kHSqrt:
          want = reference_round(static_cast<quad>(std::sqrt(static_cast<double>(x))));
          break;
        case k::kHMax:
        case k::kHMin: {
          const bool nx = x != x, ny = y != y;
          if (nx && ny) {
            want = 0x7fff;
          } else if (nx || ny) {
            want = __half_as_ushort(nx ? b[i] : a[i]);
          } else {
            want = __half_as_ushort(((op == k::kHMax) == (x < y)) ? b[i] : a[i]);
          }
          break;
        }
        case k::kHNeg:
          want = static_cast<std::uint16_t>(__half_as_ushort(a[i]) ^ 0x8000u);
          break;
        default:
          want = static_cast<std::uint16_t>(__half_as_ushort(a[i]) & 0x7fffu);
          break;
      }
      const std::uint16_t got = bits(out[i]);
      // A NaN is any NaN pattern for the reference; the emulator gives CUDA's canonical one, for
      // negation and absolute value too (what an H100 returned).
      const bool same = is_nan_bits(want)
                            ? got == 0x7fff
                            : (got == want || ((op == k::kHMax || op == k::kHMin) &&
                                               (got & 0x7fffu) == 0 && (want & 0x7fffu) == 0));
      if (!same || bits(ops[i]) != got) {
        INFO("a " << __half_as_ushort(a[i]) << " b " << __half_as_ushort(b[i]) << " c "
                  << __half_as_ushort(c[i]) << ": got " << got << ", operator " << bits(ops[i])
                  << ", want " << want);
        REQUIRE(same);
        REQUIRE(bits(ops[i]) == got);
      }
    }
  }
}

TEST_CASE("half: conversions and comparisons in a kernel", "[simt][half]") {
  const std::vector<float> f{1.0f, 0.5f,  2.0f,          -0.0f,           65504.0f,
                             1e9f, -1e9f, std::nanf(""), 1.0f + 0x1p-11f, 1.0f + 0x1p-10f};
  const int n = static_cast<int>(f.size());
  DeviceArray<float> df(f), back(f.size());
  DeviceArray<unsigned short> hb(f.size());
  DeviceArray<int> cmp(f.size());
  launch(k::half_convert_kernel, 1, 32, 0, {}, df.get(), hb.get(), back.get(), cmp.get(), n);
  const std::vector<unsigned short> want_bits{0x3c00, 0x3800, 0x4000, 0x8000, 0x7bff,
                                              0x7c00, 0xfc00, 0x7fff, 0x3c00, 0x3c01};
  // Bits: <, <=, >, >=, ==, !=, isnan, isinf (all against 1.0).
  const std::vector<int> want_cmp{0x1a, 0x23, 0x2c, 0x23, 0x2c, 0xac, 0xa3, 0x60, 0x1a, 0x2c};
  for (std::size_t i = 0; i < f.size(); ++i) {
    CAPTURE(i);
    CHECK(hb[i] == want_bits[i]);
    CHECK(cmp[i] == want_cmp[i]);
    if (i < 5 || i > 7) CHECK(back[i] == static_cast<float>(half_value(want_bits[i])));
  }
}

TEST_CASE("half: __half2 lane by lane, shuffles and atomicAdd in a kernel", "[simt][half]") {
  constexpr unsigned kThreads = 64;
  std::vector<float> f(2 * kThreads);
  for (unsigned i = 0; i < 2 * kThreads; ++i) f[i] = 0.25f * static_cast<float>(i) - 7.0f;
  DeviceArray<float> df(f), out(8 * kThreads);
  DeviceArray<__half> total(1, __float2half(0.0f));
  launch(k::half2_kernel, 1, kThreads, 0, {}, df.get(), out.get(), total.get());
  for (unsigned t = 0; t < kThreads; ++t) {
    CAPTURE(t);
    const float lo = f[2 * t], hi = f[2 * t + 1];  // quarters: exact in half
    CHECK(out[8 * t] == lo + 0.5f);
    CHECK(out[8 * t + 1] == hi - 2.0f);
    CHECK(out[8 * t + 2] == lo * 0.5f);
    CHECK(out[8 * t + 3] == hi * -2.0f);
    CHECK(out[8 * t + 4] == lo * 0.5f + lo);
    CHECK(out[8 * t + 5] == hi * -2.0f + hi);
    const unsigned down = t % 32 == 31 ? t : t + 1;
    CHECK(out[8 * t + 6] == f[2 * down]);
    CHECK(out[8 * t + 7] == f[2 * (t ^ 1u) + 1]);
  }
  CHECK(__half2float(total[0]) == static_cast<float>(kThreads));
}

TEST_CASE("half: rounding functions and reciprocals on every value", "[simt][half]") {
  for (std::uint32_t h = 0; h < 0x10000; ++h) {
    const __half x = __ushort_as_half(static_cast<unsigned short>(h));
    if (is_nan_bits(static_cast<std::uint16_t>(h))) {
      REQUIRE(__hisnan(hfloor(x)));
      continue;
    }
    const double v = __half2float(x);
    CAPTURE(h);
    // Integral results of a half are halves: these are exact.
    REQUIRE(bits(hfloor(x)) == reference_round(std::floor(v)));
    REQUIRE(bits(hceil(x)) == reference_round(std::ceil(v)));
    REQUIRE(bits(htrunc(x)) == reference_round(std::trunc(v)));
    REQUIRE(bits(hrint(x)) == reference_round(std::nearbyint(v)));
    // 1/x and 1/sqrt(x) in float, rounded once: within one unit of the last place of the exact.
    const std::uint16_t rcp = bits(hrcp(x)), want_rcp = reference_round(1.0 / v);
    REQUIRE((rcp == want_rcp || (rcp ^ want_rcp) == 1));
    if (v > 0) {
      const std::uint16_t rs = bits(hrsqrt(x)), want_rs = reference_round(1.0 / std::sqrt(v));
      REQUIRE((rs == want_rs || rs + 1 == want_rs || rs == want_rs + 1));
    }
  }
}

TEST_CASE("half: the remaining conversions, __half2 helpers and operators", "[simt][half]") {
  CHECK(__half2int_rn(__float2half(2.5f)) == 2);  // to even
  CHECK(__half2int_rn(__float2half(3.5f)) == 4);
  CHECK(__half2int_rd(__float2half(-2.5f)) == -3);
  CHECK(__half2int_ru(__float2half(-2.5f)) == -2);
  CHECK(__half2uint_rz(__float2half(7.75f)) == 7u);
  CHECK(bits(__short2half_rn(-3)) == 0xc200);
  CHECK(bits(__ll2half_rn(4097)) == 0x6c00);  // 4097 lies between 4096 and 4100: nearer 4096
  CHECK(bits(__uint2half_rn(70000u)) == 0x7c00);
  CHECK(__hisinf(__float2half(-1e9f)) == -1);
  CHECK(__hisinf(__float2half(1e9f)) == 1);
  CHECK(__hisinf(__float2half(1.0f)) == 0);

  const __half2 a = __floats2half2_rn(1.5f, -4.0f), b = __floats2half2_rn(0.5f, 2.0f);
  const auto pair = [](__half2 h) { return std::make_pair(__low2float(h), __high2float(h)); };
  using P = std::pair<float, float>;
  CHECK(pair(__hsub2(a, b)) == P(1.0f, -6.0f));
  CHECK(pair(__h2div(a, b)) == P(3.0f, -2.0f));
  CHECK(pair(__hneg2(a)) == P(-1.5f, 4.0f));
  CHECK(pair(__habs2(a)) == P(1.5f, 4.0f));
  CHECK(pair(__hmax2(a, b)) == P(1.5f, 2.0f));
  CHECK(pair(__hmin2(a, b)) == P(0.5f, -4.0f));
  CHECK(pair(h2sqrt(__floats2half2_rn(2.25f, 16.0f))) == P(1.5f, 4.0f));
  CHECK(pair(__lows2half2(a, b)) == P(1.5f, 0.5f));
  CHECK(pair(__highs2half2(a, b)) == P(-4.0f, 2.0f));
  CHECK(pair(__lowhigh2highlow(a)) == P(-4.0f, 1.5f));
  CHECK(pair(__half2half2(__float2half(3.0f))) == P(3.0f, 3.0f));
  CHECK(pair(__float2half2_rn(0.25f)) == P(0.25f, 0.25f));
  CHECK(pair(__float22half2_rn(float2{1.0f, 2.0f})) == P(1.0f, 2.0f));
  CHECK(__half22float2(a).y == -4.0f);
  CHECK(pair(a / b) == P(3.0f, -2.0f));
  CHECK(pair(-a) == P(-1.5f, 4.0f));
  __half2 c = a;
  c += b;
  c *= b;
  c -= b;
  c /= b;
  CHECK(pair(c) == P(1.0f, -3.0f));  // ((a + b) * b - b) / b = a + b - 1
  CHECK(c == __floats2half2_rn(1.0f, -3.0f));
  CHECK(c != a);

  __half h = __float2half(1.0f);
  CHECK(__half2float(h++) == 1.0f);
  CHECK(__half2float(++h) == 3.0f);
  CHECK(__half2float(h--) == 3.0f);
  CHECK(__half2float(--h) == 1.0f);
  h += __float2half(0.5f);
  h -= __float2half(0.25f);
  h *= __float2half(4.0f);
  h /= __float2half(2.0f);
  CHECK(__half2float(h) == 2.5f);
  CHECK(__half2float(+h) == 2.5f);
  CHECK(bits(__hmax(__ushort_as_half(0x7e00), __ushort_as_half(0x7d00))) == 0x7fff);
  CHECK(bits(__hmin(__ushort_as_half(0x7e00), __float2half(2.0f))) == 0x4000);
  CHECK(__hne(__float2half(1.0f), __float2half(2.0f)));
  CHECK_FALSE(__hne(__float2half(1.0f), __ushort_as_half(0x7e00)));  // ordered: false with NaN
  CHECK(__half2float(hexp(__float2half(0.0f))) == 1.0f);
  CHECK(__half2float(hlog(__float2half(1.0f))) == 0.0f);
  CHECK(__half2float(hsin(__float2half(0.0f))) == 0.0f);
  CHECK(__half2float(hcos(__float2half(0.0f))) == 1.0f);
  CHECK(bits(__float2half_rz(-1e-10f)) == 0x8000);
  constexpr __half kConst =
      __float2half(0.5f);  // conversions are constexpr, as __half globals need
  static_assert(__half_as_ushort(kConst) == 0x3800);
}
