// CUDA's sinf, cosf, sincosf, logf, log2f and log10f as a GPU computes them: 2^20 threads apply
// each function to an input of their own (a head of special values, then random bits over the whole
// float range, then values a program typically passes: small angles and whole numbers, positive
// magnitudes) and the program prints, per function, a checksum of every result's bits and the
// results of the special inputs. Last, the error a program of NVIDIA's blog prints:
// max |sqrt(sinf(i)^2 + cosf(i)^2) - 1| over i < 2^22. The .out was recorded on an H100.
#include <cmath>
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

__device__ unsigned bits_of(float f) {
  unsigned u;
  memcpy(&u, &f, sizeof u);
  return u;
}

constexpr unsigned kSpecial = 24;

// The input of thread i: special values, then random bits, then typical arguments.
__device__ float input(unsigned i, bool angles) {
  const unsigned special[kSpecial] = {
      0x00000000u, 0x80000000u, 0x7f800000u, 0xff800000u, 0x7fc00000u, 0xffc00001u,
      0x00000001u, 0x807fffffu, 0x00800000u, 0x3f800000u, 0xbf800000u, 0x3fc90fdbu,
      0x40490fdbu, 0x40c90fdbu, 0x47ce477fu, 0x47ce4780u, 0xc7ce4780u, 0x4b800000u,
      0x7f7fffffu, 0xff7fffffu, 0x3f3504f3u, 0x3f2aaaabu, 0x3f7fffffu, 0x3f800001u};
  if (i < kSpecial) return as_float(special[i]);
  const unsigned w = mix(i, 0x5151u);
  if (i % 3 == 0) return as_float(w);
  if (i % 3 == 1) {
    if (!angles) return as_float(0x00800000u + w % (0x7f000000u));   // every positive normal
    return (static_cast<float>(w % 2000001u) - 1000000.0f) * 1e-4f;  // |x| <= 100
  }
  return static_cast<float>(angles ? static_cast<int>(w % 8388608u) - 4194304 : w % 1000000u + 1u);
}

constexpr int kFunctions = 10;

__global__ void apply(unsigned n, unsigned* out) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const float a = input(i, true), l = input(i, false);
  // A second operand: the special values against each other first, then another thread's input.
  // (__fmul_rn: nvcc at -O3 would fuse a plain l * 1e-7f - 1.0f into one fma, and -G would not.)
  const unsigned j = i < kSpecial * kSpecial ? i / kSpecial : mix(i, 7u) % n;
  const float a1 = i < kSpecial * kSpecial ? input(i % kSpecial, true) : a;
  const float b = input(j, true);
  const float small =
      i % 5 == 0 ? __fmul_rn(l, 1e-7f) - 1.0f : (i % 5 == 1 ? -l : l);  // log1pf's domain
  float s = 0.0f, c = 0.0f;
  sincosf(a, &s, &c);
  const unsigned r[kFunctions] = {
      bits_of(sinf(a)),       bits_of(cosf(a)),      bits_of(s),         bits_of(c),
      bits_of(logf(l)),       bits_of(log2f(l)),     bits_of(log10f(l)), bits_of(log1pf(small)),
      bits_of(atan2f(a1, b)), bits_of(hypotf(a1, b))};
  for (int k = 0; k < kFunctions; ++k) out[static_cast<size_t>(k) * n + i] = r[k];
}

// The blog's kernel: a[i] = sqrt(sinf(i)^2 + cosf(i)^2), whose distance from 1 shows the rounding.
__global__ void unit_circle(unsigned n, float* a) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const float x = static_cast<float>(i);
  const float s = sinf(x), c = cosf(x);
  a[i] = sqrtf(s * s + c * c);
}

#define CHECK(call)                                                          \
  do {                                                                       \
    cudaError_t e = (call);                                                  \
    if (e != cudaSuccess) {                                                  \
      std::printf("%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); \
      return 1;                                                              \
    }                                                                        \
  } while (0)

int main() {
  const char* names[kFunctions] = {"sinf",  "cosf",   "sincosf sin", "sincosf cos", "logf",
                                   "log2f", "log10f", "log1pf",      "atan2f",      "hypotf"};
  const unsigned n = 1u << 20;
  unsigned* d = nullptr;
  const size_t bytes = sizeof(unsigned) * kFunctions * n;
  CHECK(cudaMalloc(&d, bytes));
  apply<<<n / 256, 256>>>(n, d);
  CHECK(cudaGetLastError());
  static unsigned h[kFunctions << 20];
  CHECK(cudaMemcpy(h, d, bytes, cudaMemcpyDeviceToHost));
  for (int k = 0; k < kFunctions; ++k) {
    const unsigned* r = h + static_cast<size_t>(k) * n;
    unsigned long long sum = 0;
    for (unsigned i = 0; i < n; ++i) {
      sum = (sum ^ r[i]) * 1099511628211ull;
      sum ^= sum >> 29;
    }
    std::printf("%-12s checksum %016llx\n  special:", names[k], sum);
    for (unsigned i = 0; i < kSpecial; ++i)
      std::printf("%s%08x", i % 8 == 0 && i ? "\n          " : " ", r[i]);
    std::printf("\n");
  }
  CHECK(cudaFree(d));

  const unsigned m = 1u << 22;
  float* a = nullptr;
  CHECK(cudaMalloc(&a, sizeof(float) * m));
  unit_circle<<<m / 256, 256>>>(m, a);
  CHECK(cudaGetLastError());
  static float circle[1u << 22];
  CHECK(cudaMemcpy(circle, a, sizeof(float) * m, cudaMemcpyDeviceToHost));
  float max_error = 0.0f;
  for (unsigned i = 0; i < m; ++i) max_error = std::fmax(max_error, std::fabs(circle[i] - 1.0f));
  std::printf("unit circle over %u whole numbers: max error %e\n", m, max_error);
  CHECK(cudaFree(a));
  return 0;
}
