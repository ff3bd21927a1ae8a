// cuRAND on gpulab's emulator: XORWOW's skip-ahead (the device API in curand_kernel.h calls it) and
// the host API (curandCreateGenerator, curandGenerate*, ...), whose generators fill memory with the
// same numbers, in the same order, as cuRAND's on a GPU.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <new>
#include <set>
#include <type_traits>
#include <vector>

#include "curand_kernel.h"
#include "simt/memory_check.hpp"

namespace gpulab::rt {
namespace {

// A 160x160 matrix over GF(2), stored as cuRAND stores its jump matrices: row i (5 words) is the
// image of the state whose only set bit is bit i (word i / 32, bit i % 32).
struct Matrix {
  unsigned int rows[160][5];
};

void apply(const Matrix& m, unsigned int v[5]) {
  unsigned int r[5] = {0, 0, 0, 0, 0};
  for (int i = 0; i < 160; ++i) {
    if ((v[i / 32] >> (i % 32)) & 1u) {
      for (int k = 0; k < 5; ++k) r[k] ^= m.rows[i][k];
    }
  }
  std::memcpy(v, r, sizeof r);
}

// a * a: the image of each basis vector under a, then under a again.
Matrix square(const Matrix& a) {
  Matrix out;
  for (int i = 0; i < 160; ++i) {
    unsigned int v[5];
    std::memcpy(v, a.rows[i], sizeof v);
    apply(a, v);
    std::memcpy(out.rows[i], v, sizeof v);
  }
  return out;
}

struct JumpTables {
  Matrix offset[64];    // A^(2^k)
  Matrix sequence[64];  // A^(2^67 * 2^k)
};

const JumpTables& tables() {
  static const JumpTables* t = [] {
    auto* j = new JumpTables;
    // One step of the recurrence on each basis state (curand's v update, without d).
    for (int i = 0; i < 160; ++i) {
      unsigned int v[5] = {0, 0, 0, 0, 0};
      v[i / 32] = 1u << (i % 32);
      const unsigned int t0 = v[0] ^ (v[0] >> 2);
      const unsigned int n4 = (v[4] ^ (v[4] << 4)) ^ (t0 ^ (t0 << 1));
      const unsigned int next[5] = {v[1], v[2], v[3], v[4], n4};
      std::memcpy(j->offset[0].rows[i], next, sizeof next);
    }
    for (int k = 1; k < 64; ++k) j->offset[k] = square(j->offset[k - 1]);
    Matrix m = square(j->offset[63]);  // A^(2^64)
    for (int k = 65; k < 67; ++k) m = square(m);
    m = square(m);  // A^(2^67)
    j->sequence[0] = m;
    for (int k = 1; k < 64; ++k) j->sequence[k] = square(j->sequence[k - 1]);
    return j;
  }();
  return *t;
}

}  // namespace

void curand_xorwow_jump(unsigned int v[5], unsigned long long n, bool sequence) {
  const JumpTables& t = tables();
  for (int k = 0; n != 0; ++k, n >>= 1) {
    if (n & 1) apply(sequence ? t.sequence[k] : t.offset[k], v);
  }
}

}  // namespace gpulab::rt

// ---- The host API

struct curandGenerator_st {
  curandRngType_t type = CURAND_RNG_PSEUDO_XORWOW;
  unsigned long long seed = 0;
  unsigned long long offset = 0;
  // Results handed out since the offset was set (XORWOW: visits of a state; Philox: 32-bit
  // values): a new seed carries on from there, as cuRAND's does.
  unsigned long long handed = 0;
  bool fresh = true;  // states not made yet for the current seed and offset
  // XORWOW: cuRAND's generator runs 4096 states (subsequence t for state t) and hands out its
  // results round robin, starting where the last call stopped.
  std::vector<curandStateXORWOW_t> states;
  std::size_t next = 0;
  // Philox: a counter-based generator; `position` is offset + handed.
  unsigned long long position = 0;
};

namespace {

constexpr std::size_t kXorwowStates = 4096;
constexpr unsigned long long kPhiloxStates = 65536;

bool supported(curandRngType_t type) {
  return type == CURAND_RNG_PSEUDO_DEFAULT || type == CURAND_RNG_PSEUDO_XORWOW ||
         type == CURAND_RNG_PSEUDO_PHILOX4_32_10;
}

void prepare(curandGenerator_st& g) {
  if (!g.fresh) return;
  g.fresh = false;
  if (g.type == CURAND_RNG_PSEUDO_PHILOX4_32_10) {
    g.position = g.offset + g.handed;
    return;
  }
  // Result r of the whole stream (r = offset + k) comes from state r % 4096, its (r / 4096)-th.
  g.states.assign(kXorwowStates, curandStateXORWOW_t{});
  const unsigned long long start = g.offset + g.handed;
  const unsigned long long rounds = start / kXorwowStates;
  const std::size_t first = static_cast<std::size_t>(start % kXorwowStates);
  for (std::size_t t = 0; t < kXorwowStates; ++t) {
    curand_init(g.seed, t, rounds + (t < first ? 1 : 0), &g.states[t]);
  }
  g.next = first;
}

curandStateXORWOW_t& next_state(curandGenerator_st& g) {
  curandStateXORWOW_t& s = g.states[g.next];
  g.next = (g.next + 1) % kXorwowStates;
  ++g.handed;
  return s;
}

// Philox's quad q of the stream: state q % 65536 (subsequence), its (q / 65536)-th block of four.
uint4 philox_quad(const curandGenerator_st& g, unsigned long long q) {
  const unsigned long long t = q % kPhiloxStates, i = q / kPhiloxStates;
  const uint4 ctr{static_cast<unsigned>(i), static_cast<unsigned>(i >> 32),
                  static_cast<unsigned>(t), static_cast<unsigned>(t >> 32)};
  const uint2 key{static_cast<unsigned>(g.seed), static_cast<unsigned>(g.seed >> 32)};
  return gpulab::rt::philox4x32_10(ctr, key);
}
unsigned philox_value(const curandGenerator_st& g, unsigned long long r) {
  const uint4 q = philox_quad(g, r / 4);
  switch (r % 4) {
    case 0:
      return q.x;
    case 1:
      return q.y;
    case 2:
      return q.z;
    default:
      return q.w;
  }
}

// The generators curandCreateGenerator made that curandDestroyGenerator has not destroyed. A
// handle that is none of them (destroyed, or a variable never set) is never read: cuRAND reads it,
// and on an H200 curandGenerateUniform with a destroyed or garbage handle returns
// CURAND_STATUS_INTERNAL_ERROR while curandSetPseudoRandomGeneratorSeed returns success (one
// probe, cuRAND of CUDA 13); the emulator answers the same without touching the memory.
struct LiveGenerators {
  std::mutex mutex;
  std::set<const curandGenerator_st*> handles;
};
LiveGenerators& live_generators() {
  static LiveGenerators live;
  return live;
}
bool live(const curandGenerator_st* g) {
  LiveGenerators& l = live_generators();
  const std::lock_guard lock(l.mutex);
  return l.handles.contains(g);
}
// What a call on a handle that is no live generator returns: CURAND_STATUS_NOT_INITIALIZED for
// none at all, `otherwise` for one that is not (or no longer) a generator.
curandStatus_t not_live(const curandGenerator_st* g, curandStatus_t otherwise) {
  return g == nullptr ? CURAND_STATUS_NOT_INITIALIZED : otherwise;
}

// Fills `n` results, each made by `one` from the generator (XORWOW: a state; Philox: the quad's
// values), in cuRAND's order.
template <class T, class Xorwow, class Philox>
curandStatus_t fill(curandGenerator_t g, T* out, std::size_t n, std::size_t per_unit, Xorwow xorwow,
                    Philox philox) {
  if (!live(g)) return not_live(g, CURAND_STATUS_INTERNAL_ERROR);
  if (out == nullptr && n != 0) return CURAND_STATUS_LAUNCH_FAILURE;
  // XORWOW makes normals in pairs (Box-Muller) and refuses an odd count, as libcurand does;
  // Philox hands out any count (libcurand 10's host generator, checked: 1, 3, 5, 7 normals).
  if (n % per_unit != 0 && g->type != CURAND_RNG_PSEUDO_PHILOX4_32_10) {
    return CURAND_STATUS_LENGTH_NOT_MULTIPLE;
  }
  prepare(*g);
  if (g->type == CURAND_RNG_PSEUDO_PHILOX4_32_10) {
    philox(*g, out, n);
    g->handed += n;
  } else {
    for (std::size_t k = 0; k < n; k += per_unit) xorwow(next_state(*g), out + k);
  }
  // Written by the library, as cuRAND's kernels write it: no longer uninitialized for --check.
  gpulab::simt::mark_initialized(out, n * sizeof(T));
  return CURAND_STATUS_SUCCESS;
}

// One result from each 32-bit value of the generator (curand, curand_uniform).
template <class T, class FromValue>
curandStatus_t fill_from_values(curandGenerator_t g, T* out, std::size_t n, FromValue from) {
  return fill(
      g, out, n, 1, [=](curandStateXORWOW_t& s, T* o) { *o = from(curand(&s)); },
      [=](curandGenerator_st& gen, T* o, std::size_t count) {
        for (std::size_t k = 0; k < count; ++k) o[k] = from(philox_value(gen, gen.position + k));
        gen.position += count;
      });
}

// Doubles take two values each, so a double's quad is two quads of one Philox state
// (curand_uniform4_double, curand_normal4_double): double v comes from state (v / 4) % 65536.
uint4 philox_double_quad(const curandGenerator_st& gen, unsigned long long v) {
  const unsigned long long unit = v / 4;
  const unsigned long long t = unit % kPhiloxStates, round = unit / kPhiloxStates;
  return philox_quad(gen, (2 * round + (v % 4) / 2) * kPhiloxStates + t);
}

// curandGenerateNormal and its double form: pairs from a XORWOW state (curand_normal2), four
// normals from each Philox quad (curand_normal4) or double's quad (curand_normal4_double).
template <class T>
curandStatus_t generate_normal(curandGenerator_t g, T* out, std::size_t n, T mean, T stddev) {
  constexpr bool is_float = std::is_same_v<T, float>;
  return fill(
      g, out, n, 2,
      [=](curandStateXORWOW_t& s, T* o) {
        const auto v = [&] {
          if constexpr (is_float) {
            return curand_normal2(&s);
          } else {
            return curand_normal2_double(&s);
          }
        }();
        o[0] = mean + stddev * v.x;
        o[1] = mean + stddev * v.y;
      },
      [=](curandGenerator_st& gen, T* o, std::size_t count) {
        for (std::size_t k = 0; k < count; ++k) {
          const unsigned long long r = gen.position + k;
          const auto v = [&] {
            if constexpr (is_float) {
              const uint4 q = philox_quad(gen, r / 4);
              return r % 4 < 2 ? gpulab::rt::box_muller(q.x, q.y)
                               : gpulab::rt::box_muller(q.z, q.w);
            } else {
              const uint4 q = philox_double_quad(gen, r);
              return gpulab::rt::box_muller_double(q.x, q.y, q.z, q.w);
            }
          }();
          o[k] = mean + stddev * (r % 2 == 0 ? v.x : v.y);
        }
        gen.position += count;
      });
}

// curandGenerateLogNormal and its double form: the normals' exponentials, once `normals` (the
// status of generating them) succeeded.
template <class T>
curandStatus_t exponentials(curandStatus_t normals, T* out, std::size_t n) {
  if (normals == CURAND_STATUS_SUCCESS) {
    for (std::size_t k = 0; k < n; ++k) out[k] = std::exp(out[k]);
  }
  return normals;
}

}  // namespace

curandStatus_t curandCreateGenerator(curandGenerator_t* generator, curandRngType_t rng_type) {
  if (generator == nullptr) return CURAND_STATUS_NOT_INITIALIZED;
  if (!supported(rng_type)) return CURAND_STATUS_TYPE_ERROR;
  auto* g = new (std::nothrow) curandGenerator_st;
  if (g == nullptr) return CURAND_STATUS_ALLOCATION_FAILED;
  g->type = rng_type == CURAND_RNG_PSEUDO_DEFAULT ? CURAND_RNG_PSEUDO_XORWOW : rng_type;
  g->seed = 0;
  {
    LiveGenerators& l = live_generators();
    const std::lock_guard lock(l.mutex);
    l.handles.insert(g);
  }
  *generator = g;
  return CURAND_STATUS_SUCCESS;
}
curandStatus_t curandCreateGeneratorHost(curandGenerator_t* generator, curandRngType_t rng_type) {
  return curandCreateGenerator(generator, rng_type);
}
curandStatus_t curandDestroyGenerator(curandGenerator_t generator) {
  {
    LiveGenerators& l = live_generators();
    const std::lock_guard lock(l.mutex);
    if (l.handles.erase(generator) == 0) return CURAND_STATUS_NOT_INITIALIZED;
  }
  delete generator;
  return CURAND_STATUS_SUCCESS;
}
curandStatus_t curandGetVersion(int* version) {
  if (version == nullptr) return CURAND_STATUS_OUT_OF_RANGE;
  *version = CURAND_VERSION;
  return CURAND_STATUS_SUCCESS;
}
curandStatus_t curandSetStream(curandGenerator_t generator, cudaStream_t) {
  return not_live(generator, CURAND_STATUS_SUCCESS);
}
curandStatus_t curandSetPseudoRandomGeneratorSeed(curandGenerator_t generator,
                                                  unsigned long long seed) {
  if (!live(generator)) return not_live(generator, CURAND_STATUS_SUCCESS);
  generator->seed = seed;
  generator->fresh = true;
  return CURAND_STATUS_SUCCESS;
}
curandStatus_t curandSetGeneratorOffset(curandGenerator_t generator, unsigned long long offset) {
  if (!live(generator)) return not_live(generator, CURAND_STATUS_SUCCESS);
  generator->offset = offset;
  generator->handed = 0;
  generator->fresh = true;
  return CURAND_STATUS_SUCCESS;
}
curandStatus_t curandSetGeneratorOrdering(curandGenerator_t generator, curandOrdering_t order) {
  if (!live(generator)) return not_live(generator, CURAND_STATUS_SUCCESS);
  // Only the default order (which for these two generators is also the legacy one) is produced.
  if (order != CURAND_ORDERING_PSEUDO_DEFAULT && order != CURAND_ORDERING_PSEUDO_LEGACY &&
      order != CURAND_ORDERING_PSEUDO_BEST)
    return CURAND_STATUS_OUT_OF_RANGE;
  return CURAND_STATUS_SUCCESS;
}
curandStatus_t curandGenerateSeeds(curandGenerator_t generator) {
  if (!live(generator)) return not_live(generator, CURAND_STATUS_INTERNAL_ERROR);
  prepare(*generator);
  return CURAND_STATUS_SUCCESS;
}

curandStatus_t curandGenerate(curandGenerator_t g, unsigned int* out, size_t n) {
  return fill_from_values(g, out, n, [](unsigned x) { return x; });
}
curandStatus_t curandGenerateUniform(curandGenerator_t g, float* out, size_t n) {
  // curand_uniform's float from each value
  return fill_from_values(g, out, n, [](unsigned x) { return gpulab::rt::uniform_from(x); });
}
curandStatus_t curandGenerateUniformDouble(curandGenerator_t g, double* out, size_t n) {
  return fill(
      g, out, n, 1, [](curandStateXORWOW_t& s, double* o) { *o = curand_uniform_double(&s); },
      [](curandGenerator_st& gen, double* o, std::size_t count) {
        for (std::size_t k = 0; k < count; ++k) {
          const unsigned long long v = gen.position + k;
          const uint4 q = philox_double_quad(gen, v);
          o[k] = v % 2 == 0 ? gpulab::rt::uniform_double_from(q.x, q.y)
                            : gpulab::rt::uniform_double_from(q.z, q.w);
        }
        gen.position += count;
      });
}
curandStatus_t curandGenerateNormal(curandGenerator_t g, float* out, size_t n, float mean,
                                    float stddev) {
  return generate_normal(g, out, n, mean, stddev);
}
curandStatus_t curandGenerateNormalDouble(curandGenerator_t g, double* out, size_t n, double mean,
                                          double stddev) {
  return generate_normal(g, out, n, mean, stddev);
}
curandStatus_t curandGenerateLogNormal(curandGenerator_t g, float* out, size_t n, float mean,
                                       float stddev) {
  return exponentials(generate_normal(g, out, n, mean, stddev), out, n);
}
curandStatus_t curandGenerateLogNormalDouble(curandGenerator_t g, double* out, size_t n,
                                             double mean, double stddev) {
  return exponentials(generate_normal(g, out, n, mean, stddev), out, n);
}
