// __fadd_rz and __fmul_rz round toward zero on a GPU: each thread adds and multiplies a pair of
// floats (spread over the whole exponent range, subnormals and overflows included) both ways, and
// the program prints the bits of a few and how many of 2^20 pairs round differently than to
// nearest, with a checksum of every result's bits. The .out was recorded on an H100.
#include <cstdio>
#include <cstring>

__host__ __device__ float pick(unsigned i, unsigned salt) {
  unsigned x = i * 2654435761u + salt;  // a float's bits, spread: sign, exponent, mantissa
  x ^= x >> 13;
  x *= 0x5bd1e995u;
  x ^= x >> 15;
  x &= 0xff7fffffu;  // no infinity or NaN: exponent at most 254
  float f;
  memcpy(&f, &x, sizeof f);
  return f;
}

__global__ void round_both(unsigned n, unsigned* bits) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const float a = pick(i, 17u), b = i % 3 == 0 ? a * pick(i, 5u) : pick(i, 91u);
  const float r[4] = {__fadd_rz(a, b), __fadd_rn(a, b), __fmul_rz(a, b), __fmul_rn(a, b)};
  for (int k = 0; k < 4; ++k) memcpy(&bits[4 * i + k], &r[k], sizeof(unsigned));
}

int main() {
  const unsigned n = 1u << 20;
  unsigned* d = nullptr;
  if (cudaMalloc(&d, 4ull * n * sizeof(unsigned)) != cudaSuccess) return 1;
  round_both<<<n / 256, 256>>>(n, d);
  static unsigned h[4u << 20];
  if (cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost) != cudaSuccess) return 1;
  unsigned add_differs = 0, mul_differs = 0, sum = 0;
  for (unsigned i = 0; i < n; ++i) {
    add_differs += h[4 * i] != h[4 * i + 1];
    mul_differs += h[4 * i + 2] != h[4 * i + 3];
    for (int k = 0; k < 4; ++k) sum = sum * 31u + h[4 * i + k];
  }
  for (unsigned i = 0; i < 4; ++i)
    printf("pair %u: add rz %08x rn %08x, mul rz %08x rn %08x\n", i, h[4 * i], h[4 * i + 1],
           h[4 * i + 2], h[4 * i + 3]);
  printf("round differently: add %u, mul %u of %u; checksum %08x\n", add_differs, mul_differs, n,
         sum);
  cudaFree(d);
  return 0;
}
