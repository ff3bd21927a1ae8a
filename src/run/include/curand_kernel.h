// cuRAND's device API on gpulab's emulator: XORWOW (curandState, the default) and Philox4_32_10,
// with curand_init(seed, subsequence, offset, &state), curand, curand4, curand_uniform(4/_double),
// curand_normal(2/4/_double), curand_log_normal, skipahead and skipahead_sequence.
//
// The integer sequences are cuRAND's own: the same seed, subsequence and offset give the same
// numbers as on an NVIDIA GPU (XORWOW's skip-ahead uses the jump matrices of the generator's linear
// recurrence, computed by gpulab's runtime; Philox is counter-based). Uniform floats are computed
// with the fused multiply-add a GPU uses, so they are bit-equal too. Normal floats use the CPU's
// sinf/cosf/logf where the GPU uses its fast __sincosf: they agree to about 1e-6, not bit for bit.
// MRG32k3a, MTGP32 and the quasi-random (Sobol) generators are not there: gpulab names them before
// compiling.
#pragma once

#include <cmath>

#include "cuda_runtime.h"
#include "curand.h"

#define CURAND_KERNEL_H_

struct curandStateXORWOW {
  unsigned int d, v[5];
  int boxmuller_flag;
  int boxmuller_flag_double;
  float boxmuller_extra;
  double boxmuller_extra_double;
};
typedef struct curandStateXORWOW curandStateXORWOW_t;
typedef struct curandStateXORWOW curandState_t;
typedef struct curandStateXORWOW curandState;

struct curandStatePhilox4_32_10 {
  uint4 ctr;
  uint4 output;
  uint2 key;
  unsigned int STATE;
  int boxmuller_flag;
  int boxmuller_flag_double;
  float boxmuller_extra;
  double boxmuller_extra_double;
};
typedef struct curandStatePhilox4_32_10 curandStatePhilox4_32_10_t;

namespace gpulab::rt {
// v <- A^n v, where A is XORWOW's one-step matrix over GF(2) (`sequence`: A^(n * 2^67), n whole
// subsequences). Implemented in the runtime (src/run/runtime/curand.cpp).
void curand_xorwow_jump(unsigned int v[5], unsigned long long n, bool sequence);

inline uint4 philox4x32_10(uint4 c, uint2 k) {
  for (int round = 0; round < 10; ++round) {
    if (round > 0) {
      k.x += 0x9E3779B9u;
      k.y += 0xBB67AE85u;
    }
    const unsigned long long p0 = 0xD2511F53ull * c.x;
    const unsigned long long p1 = 0xCD9E8D57ull * c.z;
    const unsigned hi0 = static_cast<unsigned>(p0 >> 32), lo0 = static_cast<unsigned>(p0);
    const unsigned hi1 = static_cast<unsigned>(p1 >> 32), lo1 = static_cast<unsigned>(p1);
    c = uint4{hi1 ^ c.y ^ k.x, lo1, hi0 ^ c.w ^ k.y, lo0};
  }
  return c;
}
// Adds n to two words of the counter (lo, hi) as cuRAND does; true when hi carried out.
inline bool philox_add(unsigned& lo, unsigned& hi, unsigned long long n) {
  const unsigned nlo = static_cast<unsigned>(n);
  unsigned nhi = static_cast<unsigned>(n >> 32);
  lo += nlo;
  if (lo < nlo) ++nhi;
  hi += nhi;
  return nhi > hi;
}
inline void philox_increment(curandStatePhilox4_32_10_t* s, unsigned long long n) {
  if (!philox_add(s->ctr.x, s->ctr.y, n)) return;
  if (++s->ctr.z) return;
  ++s->ctr.w;
}
inline void philox_increment_high(curandStatePhilox4_32_10_t* s, unsigned long long n) {
  philox_add(s->ctr.z, s->ctr.w, n);
}

// As the GPU computes them: one fused multiply-add from the 32-bit integer.
constexpr float kCurand2Pow32Inv = 2.3283064e-10f;
constexpr double kCurand2Pow32InvDouble = 2.3283064365386963e-10;
constexpr double kCurand2Pow53InvDouble = 1.1102230246251565e-16;
inline float uniform_from(unsigned x) {
  return std::fma(static_cast<float>(x), kCurand2Pow32Inv, kCurand2Pow32Inv / 2.0f);
}
inline double uniform_double_from(unsigned x) {
  return std::fma(static_cast<double>(x), kCurand2Pow32InvDouble, kCurand2Pow32InvDouble);
}
inline double uniform_double_from(unsigned x, unsigned y) {
  const unsigned long long z =
      static_cast<unsigned long long>(x) ^ (static_cast<unsigned long long>(y) << (53 - 32));
  return std::fma(static_cast<double>(z), kCurand2Pow53InvDouble, kCurand2Pow53InvDouble / 2.0);
}
inline float2 box_muller(unsigned x, unsigned y) {
  const float u = std::fma(static_cast<float>(x), kCurand2Pow32Inv, kCurand2Pow32Inv / 2.0f);
  const float v = std::fma(static_cast<float>(y), kCurand2Pow32Inv * 6.2831855f,
                           (kCurand2Pow32Inv * 6.2831855f) / 2.0f);
  const float s = std::sqrt(-2.0f * std::log(u));
  return float2{std::sin(v) * s, std::cos(v) * s};
}
inline double2 box_muller_double(unsigned x0, unsigned x1, unsigned y0, unsigned y1) {
  const unsigned long long zx =
      static_cast<unsigned long long>(x0) ^ (static_cast<unsigned long long>(x1) << (53 - 32));
  const unsigned long long zy =
      static_cast<unsigned long long>(y0) ^ (static_cast<unsigned long long>(y1) << (53 - 32));
  const double u =
      std::fma(static_cast<double>(zx), kCurand2Pow53InvDouble, kCurand2Pow53InvDouble / 2.0);
  const double v =
      std::fma(static_cast<double>(zy), kCurand2Pow53InvDouble * 2.0, kCurand2Pow53InvDouble);
  const double s = std::sqrt(-2.0 * std::log(u));
  return double2{std::sin(v * 3.1415926535897932) * s, std::cos(v * 3.1415926535897932) * s};
}
// One of a pair of normals (Box-Muller gives two): made by make_pair() and the other kept in
// `extra` for the next call, or the one kept.
template <class T, class MakePair>
inline T one_of_pair(int& flag, T& extra, MakePair make_pair) {
  if (flag != 1) {
    const auto v = make_pair();
    extra = v.y;
    flag = 1;
    return v.x;
  }
  flag = 0;
  return extra;
}
// Part of curand_init for both generators: no Box-Muller value is kept for the next call.
template <class State>
inline void forget_box_muller(State* state) {
  state->boxmuller_flag = 0;
  state->boxmuller_flag_double = 0;
  state->boxmuller_extra = 0.f;
  state->boxmuller_extra_double = 0.;
}
}  // namespace gpulab::rt

// ---- XORWOW

inline void skipahead(unsigned long long n, curandStateXORWOW_t* state) {
  gpulab::rt::curand_xorwow_jump(state->v, n, false);
  state->d += 362437u * static_cast<unsigned>(n);
}
inline void skipahead_sequence(unsigned long long n, curandStateXORWOW_t* state) {
  gpulab::rt::curand_xorwow_jump(state->v, n, true);  // d moves by a multiple of 2^32: unchanged
}
inline void curand_init(unsigned long long seed, unsigned long long subsequence,
                        unsigned long long offset, curandStateXORWOW_t* state) {
  const unsigned s0 = static_cast<unsigned>(seed) ^ 0xaad26b49u;
  const unsigned s1 = static_cast<unsigned>(seed >> 32) ^ 0xf7dcefddu;
  const unsigned t0 = 1099087573u * s0;
  const unsigned t1 = 2591861531u * s1;
  state->d = 6615241u + t1 + t0;
  state->v[0] = 123456789u + t0;
  state->v[1] = 362436069u ^ t0;
  state->v[2] = 521288629u + t1;
  state->v[3] = 88675123u ^ t1;
  state->v[4] = 5783321u + t0;
  skipahead_sequence(subsequence, state);
  skipahead(offset, state);
  gpulab::rt::forget_box_muller(state);
}
inline unsigned int curand(curandStateXORWOW_t* state) {
  const unsigned t = state->v[0] ^ (state->v[0] >> 2);
  state->v[0] = state->v[1];
  state->v[1] = state->v[2];
  state->v[2] = state->v[3];
  state->v[3] = state->v[4];
  state->v[4] = (state->v[4] ^ (state->v[4] << 4)) ^ (t ^ (t << 1));
  state->d += 362437u;
  return state->v[4] + state->d;
}

// ---- Philox4_32_10

inline void skipahead(unsigned long long n, curandStatePhilox4_32_10_t* state) {
  state->STATE += static_cast<unsigned>(n & 3);
  n /= 4;
  if (state->STATE > 3) {
    n += 1;
    state->STATE -= 4;
  }
  gpulab::rt::philox_increment(state, n);
  state->output = gpulab::rt::philox4x32_10(state->ctr, state->key);
}
inline void skipahead_sequence(unsigned long long n, curandStatePhilox4_32_10_t* state) {
  gpulab::rt::philox_increment_high(state, n);
  state->output = gpulab::rt::philox4x32_10(state->ctr, state->key);
}
inline void curand_init(unsigned long long seed, unsigned long long subsequence,
                        unsigned long long offset, curandStatePhilox4_32_10_t* state) {
  state->ctr = make_uint4(0, 0, 0, 0);
  state->key.x = static_cast<unsigned>(seed);
  state->key.y = static_cast<unsigned>(seed >> 32);
  state->STATE = 0;
  gpulab::rt::forget_box_muller(state);
  skipahead_sequence(subsequence, state);
  skipahead(offset, state);
}
inline unsigned int curand(curandStatePhilox4_32_10_t* state) {
  unsigned ret;
  switch (state->STATE++) {
    default:
      ret = state->output.x;
      break;
    case 1:
      ret = state->output.y;
      break;
    case 2:
      ret = state->output.z;
      break;
    case 3:
      ret = state->output.w;
      break;
  }
  if (state->STATE == 4) {
    gpulab::rt::philox_increment(state, 1);
    state->output = gpulab::rt::philox4x32_10(state->ctr, state->key);
    state->STATE = 0;
  }
  return ret;
}
inline uint4 curand4(curandStatePhilox4_32_10_t* state) {
  const uint4 tmp = state->output;
  gpulab::rt::philox_increment(state, 1);
  state->output = gpulab::rt::philox4x32_10(state->ctr, state->key);
  const uint4 o = state->output;
  switch (state->STATE) {
    case 1:
      return uint4{tmp.y, tmp.z, tmp.w, o.x};
    case 2:
      return uint4{tmp.z, tmp.w, o.x, o.y};
    case 3:
      return uint4{tmp.w, o.x, o.y, o.z};
    default:
      return tmp;
  }
}

// ---- Distributions (the same calls for both generators)

template <class State>
concept gpulab_curand_state =
    std::is_same_v<State, curandStateXORWOW_t> || std::is_same_v<State, curandStatePhilox4_32_10_t>;

template <gpulab_curand_state State>
inline float curand_uniform(State* state) {
  return gpulab::rt::uniform_from(curand(state));
}
inline float4 curand_uniform4(curandStatePhilox4_32_10_t* state) {
  const uint4 x = curand4(state);
  return float4{gpulab::rt::uniform_from(x.x), gpulab::rt::uniform_from(x.y),
                gpulab::rt::uniform_from(x.z), gpulab::rt::uniform_from(x.w)};
}
inline double curand_uniform_double(curandStateXORWOW_t* state) {
  const unsigned x = curand(state);
  const unsigned y = curand(state);
  return gpulab::rt::uniform_double_from(x, y);
}
inline double curand_uniform_double(curandStatePhilox4_32_10_t* state) {
  return gpulab::rt::uniform_double_from(curand(state));
}
inline double2 curand_uniform2_double(curandStatePhilox4_32_10_t* state) {
  const uint4 x = curand4(state);
  return double2{gpulab::rt::uniform_double_from(x.x, x.y),
                 gpulab::rt::uniform_double_from(x.z, x.w)};
}
template <gpulab_curand_state State>
inline float2 curand_normal2(State* state) {
  const unsigned x = curand(state);
  const unsigned y = curand(state);
  return gpulab::rt::box_muller(x, y);
}
template <gpulab_curand_state State>
inline float curand_normal(State* state) {
  return gpulab::rt::one_of_pair(state->boxmuller_flag, state->boxmuller_extra,
                                 [state] { return curand_normal2(state); });
}
inline float4 curand_normal4(curandStatePhilox4_32_10_t* state) {
  const uint4 x = curand4(state);
  const float2 a = gpulab::rt::box_muller(x.x, x.y);
  const float2 b = gpulab::rt::box_muller(x.z, x.w);
  return float4{a.x, a.y, b.x, b.y};
}
inline double2 curand_normal2_double(curandStateXORWOW_t* state) {
  const unsigned x0 = curand(state), x1 = curand(state);
  const unsigned y0 = curand(state), y1 = curand(state);
  return gpulab::rt::box_muller_double(x0, x1, y0, y1);
}
inline double2 curand_normal2_double(curandStatePhilox4_32_10_t* state) {
  const uint4 x = curand4(state);
  return gpulab::rt::box_muller_double(x.x, x.y, x.z, x.w);
}
template <gpulab_curand_state State>
inline double curand_normal_double(State* state) {
  return gpulab::rt::one_of_pair(state->boxmuller_flag_double, state->boxmuller_extra_double,
                                 [state] { return curand_normal2_double(state); });
}
template <gpulab_curand_state State>
inline float curand_log_normal(State* state, float mean, float stddev) {
  return std::exp(mean + stddev * curand_normal(state));
}
template <gpulab_curand_state State>
inline double curand_log_normal_double(State* state, double mean, double stddev) {
  return std::exp(mean + stddev * curand_normal_double(state));
}
