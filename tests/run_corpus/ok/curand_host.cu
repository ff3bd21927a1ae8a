// cuRAND's host API filling device memory, then a kernel using it: a Monte Carlo estimate of pi
// from XORWOW's uniforms, and the first integers and normals of Philox4_32_10 (the normals
// rounded to 4 decimals: a GPU's fast sine differs from the CPU's in the last bits).
#include <curand.h>
#include <cstdio>

#define CURAND_CHECK(call)                                                  \
  do {                                                                      \
    curandStatus_t s = (call);                                              \
    if (s != CURAND_STATUS_SUCCESS) {                                       \
      printf("%s failed: status %d at line %d\n", #call, (int)s, __LINE__); \
      return 1;                                                             \
    }                                                                       \
  } while (0)

__global__ void inside(const float* xy, int n, unsigned long long* hits) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const double x = xy[2 * i], y = xy[2 * i + 1];  // exact products: no rounding to differ
  if (x * x + y * y <= 1.0) atomicAdd(hits, 1ull);
}

int main() {
  const int n = 1 << 16;
  float* d_xy;
  unsigned long long* d_hits;
  cudaMalloc(&d_xy, 2 * n * sizeof(float));
  cudaMalloc(&d_hits, sizeof(unsigned long long));
  cudaMemset(d_hits, 0, sizeof(unsigned long long));

  curandGenerator_t gen;
  CURAND_CHECK(curandCreateGenerator(&gen, CURAND_RNG_PSEUDO_DEFAULT));
  CURAND_CHECK(curandSetPseudoRandomGeneratorSeed(gen, 1234ULL));
  CURAND_CHECK(curandGenerateUniform(gen, d_xy, 2 * n));
  inside<<<(n + 255) / 256, 256>>>(d_xy, n, d_hits);
  unsigned long long hits = 0;
  cudaMemcpy(&hits, d_hits, sizeof hits, cudaMemcpyDeviceToHost);
  printf("%llu of %d points inside: pi is about %.6f\n", hits, n, 4.0 * hits / n);
  float first[2];
  cudaMemcpy(first, d_xy, sizeof first, cudaMemcpyDeviceToHost);
  printf("XORWOW's first uniforms: %.9g %.9g\n", first[0], first[1]);
  CURAND_CHECK(curandDestroyGenerator(gen));

  CURAND_CHECK(curandCreateGenerator(&gen, CURAND_RNG_PSEUDO_PHILOX4_32_10));
  CURAND_CHECK(curandSetPseudoRandomGeneratorSeed(gen, 42ULL));
  unsigned* d_bits;
  cudaMalloc(&d_bits, 6 * sizeof(unsigned));
  CURAND_CHECK(curandGenerate(gen, d_bits, 6));
  unsigned bits[6];
  cudaMemcpy(bits, d_bits, sizeof bits, cudaMemcpyDeviceToHost);
  printf("Philox's first integers: %u %u %u %u %u %u\n", bits[0], bits[1], bits[2], bits[3],
         bits[4], bits[5]);
  float normals[4];
  CURAND_CHECK(curandGenerateNormal(gen, d_xy, 4, 10.0f, 2.0f));
  cudaMemcpy(normals, d_xy, sizeof normals, cudaMemcpyDeviceToHost);
  printf("then normals (mean 10, stddev 2): %.4f %.4f %.4f %.4f\n", normals[0], normals[1],
         normals[2], normals[3]);
  // An odd count of normals: Philox4_32_10 makes them four at a time and hands out any count (the
  // H100 and libcurand's host generator agree); the next call carries on after the fifth.
  float five[5];
  printf("5 normals from Philox: status %d\n", (int)curandGenerateNormal(gen, d_xy, 5, 0.0f, 1.0f));
  cudaMemcpy(five, d_xy, sizeof five, cudaMemcpyDeviceToHost);
  printf("  %.4f %.4f %.4f %.4f %.4f\n", five[0], five[1], five[2], five[3], five[4]);
  CURAND_CHECK(curandGenerateNormal(gen, d_xy, 4, 0.0f, 1.0f));
  cudaMemcpy(normals, d_xy, sizeof normals, cudaMemcpyDeviceToHost);
  printf("  then %.4f %.4f %.4f %.4f\n", normals[0], normals[1], normals[2], normals[3]);
  CURAND_CHECK(curandDestroyGenerator(gen));
  // XORWOW makes normals in pairs: an odd count is refused (CURAND_STATUS_LENGTH_NOT_MULTIPLE).
  CURAND_CHECK(curandCreateGenerator(&gen, CURAND_RNG_PSEUDO_XORWOW));
  printf("5 normals from XORWOW: status %d\n",
         (int)curandGenerateNormal(gen, d_xy, 5, 0.0f, 1.0f));
  CURAND_CHECK(curandDestroyGenerator(gen));
  cudaFree(d_bits);
  cudaFree(d_xy);
  cudaFree(d_hits);
  return 0;
}
