// The directed-rounding intrinsics (_rz toward zero, _rd down, _ru up) of add, sub, mul, div, sqrt
// and rcp, float and double, as a GPU computes them: 2^18 threads apply each to operands of their
// own (special values against each other first, then random bits and nearby values, whose sums
// and quotients are inexact) and the program prints, per intrinsic, a checksum of every result's
// bits. Interval arithmetic (NVIDIA's interval sample) is built on them. The .out was recorded on
// a GPU.
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

__device__ unsigned long long bits_of(double d) {
  unsigned long long u;
  memcpy(&u, &d, sizeof u);
  return u;
}

__device__ unsigned long long bits_of(float f) {
  unsigned u;
  memcpy(&u, &f, sizeof u);
  return u;
}

constexpr unsigned kSpecial = 16;

__device__ float operand_f(unsigned i, unsigned salt) {
  const unsigned special[kSpecial] = {0x00000000u, 0x80000000u, 0x3f800000u, 0xbf800000u,
                                      0x7f800000u, 0xff800000u, 0x00000001u, 0x80000001u,
                                      0x7f7fffffu, 0xff7fffffu, 0x00800000u, 0x3fc00000u,
                                      0x40400000u, 0x33800000u, 0x4b800001u, 0x3eaaaaabu};
  if (i < kSpecial * kSpecial) return as_float(special[salt & 1u ? i / kSpecial : i % kSpecial]);
  const unsigned w = mix(i, salt);
  // A third random bits, a third moderate magnitudes, a third near 1 (cancellation).
  if (i % 3 == 0) return as_float(w);
  if (i % 3 == 1) return as_float((w & 0x807fffffu) | (100u + (w >> 8) % 60u) << 23);
  return as_float((w & 0x800fffffu) | 0x3f800000u);
}

__device__ double operand_d(unsigned i, unsigned salt) {
  const float f = operand_f(i, salt);
  if (i < kSpecial * kSpecial) return static_cast<double>(f);
  const unsigned long long w =
      static_cast<unsigned long long>(mix(i, salt ^ 0x55u)) << 32 | mix(i, salt + 9u);
  if (i % 3 == 0) return as_double(w);
  return static_cast<double>(f) *
         (1.0 + as_double((w & 0x000fffffffffffffull) | 0x3cb0000000000000ull));
}

constexpr int kOps = 36;

__global__ void apply(unsigned n, unsigned long long* out) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const float a = operand_f(i, 0x1234u), b = operand_f(i, 0x9877u);
  const double c = operand_d(i, 0x1234u), d = operand_d(i, 0x9877u);
  const float sa = a < 0 ? -a : a;
  const double sc = c < 0 ? -c : c;
  const unsigned long long r[kOps] = {
      bits_of(__fadd_rz(a, b)), bits_of(__fadd_rd(a, b)), bits_of(__fadd_ru(a, b)),
      bits_of(__fsub_rz(a, b)), bits_of(__fsub_rd(a, b)), bits_of(__fsub_ru(a, b)),
      bits_of(__fmul_rz(a, b)), bits_of(__fmul_rd(a, b)), bits_of(__fmul_ru(a, b)),
      bits_of(__fdiv_rz(a, b)), bits_of(__fdiv_rd(a, b)), bits_of(__fdiv_ru(a, b)),
      bits_of(__fsqrt_rz(sa)),  bits_of(__fsqrt_rd(sa)),  bits_of(__fsqrt_ru(sa)),
      bits_of(__frcp_rz(a)),    bits_of(__frcp_rd(a)),    bits_of(__frcp_ru(a)),
      bits_of(__dadd_rz(c, d)), bits_of(__dadd_rd(c, d)), bits_of(__dadd_ru(c, d)),
      bits_of(__dsub_rz(c, d)), bits_of(__dsub_rd(c, d)), bits_of(__dsub_ru(c, d)),
      bits_of(__dmul_rz(c, d)), bits_of(__dmul_rd(c, d)), bits_of(__dmul_ru(c, d)),
      bits_of(__ddiv_rz(c, d)), bits_of(__ddiv_rd(c, d)), bits_of(__ddiv_ru(c, d)),
      bits_of(__dsqrt_rz(sc)),  bits_of(__dsqrt_rd(sc)),  bits_of(__dsqrt_ru(sc)),
      bits_of(__drcp_rz(c)),    bits_of(__drcp_rd(c)),    bits_of(__drcp_ru(c)),
  };
  for (int k = 0; k < kOps; ++k) out[static_cast<unsigned long long>(k) * n + i] = r[k];
}

int main() {
  const char* ops[6] = {"add", "sub", "mul", "div", "sqrt", "rcp"};
  const char* modes[3] = {"rz", "rd", "ru"};
  const unsigned n = 1u << 18;
  unsigned long long* dev = nullptr;
  const size_t bytes = sizeof(unsigned long long) * kOps * n;
  if (cudaMalloc(&dev, bytes) != cudaSuccess) return 1;
  apply<<<n / 256, 256>>>(n, dev);
  if (cudaGetLastError() != cudaSuccess) return 1;
  static unsigned long long h[kOps << 18];
  if (cudaMemcpy(h, dev, bytes, cudaMemcpyDeviceToHost) != cudaSuccess) return 1;
  for (int k = 0; k < kOps; ++k) {
    const unsigned long long* r = h + static_cast<size_t>(k) * n;
    unsigned long long sum = 0, special = 0;
    for (unsigned i = 0; i < n; ++i) {
      sum = (sum ^ r[i]) * 1099511628211ull;
      sum ^= sum >> 29;
      if (i + 1 == kSpecial * kSpecial) special = sum;
    }
    std::printf("__%s%s_%s %*s checksum %016llx, special inputs %016llx\n", k < 18 ? "f" : "d",
                ops[k / 3 % 6], modes[k % 3], 6 - static_cast<int>(std::strlen(ops[k / 3 % 6])), "",
                sum, special);
  }
  cudaFree(dev);
  return 0;
}
