// cuRAND's device API: each thread seeds its own XORWOW and Philox4_32_10 state (seed 2025,
// subsequence = thread index) and draws integers, uniforms and normals. The integers and uniforms
// are printed (bit-exact on a GPU and on the emulator); the normals are compared with cuRAND's own
// values within 1e-5 (a GPU's __sincosf and the CPU's sinf differ in the last bits).
#include <curand_kernel.h>
#include <cmath>
#include <cstdio>

constexpr int kThreads = 256;

struct Draws {
  unsigned xorwow[3], philox[3], xorwow_skipped, philox_skipped;
  float xorwow_uniform, philox_uniform, xorwow_normal[2], philox_normal[2];
};

__global__ void draw(Draws* out) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  curandState x;
  curandStatePhilox4_32_10_t p;
  curand_init(2025, t, 0, &x);
  curand_init(2025, t, 0, &p);
  Draws d;
  for (int j = 0; j < 3; ++j) d.xorwow[j] = curand(&x);
  for (int j = 0; j < 3; ++j) d.philox[j] = curand(&p);
  curand_init(2025, t, 0, &x);
  curand_init(2025, t, 0, &p);
  d.xorwow_normal[0] = curand_normal(&x);
  d.xorwow_normal[1] = curand_normal(&x);
  d.philox_normal[0] = curand_normal(&p);
  d.philox_normal[1] = curand_normal(&p);
  d.xorwow_uniform = curand_uniform(&x);
  d.philox_uniform = curand_uniform(&p);
  curand_init(2025, t, 2, &x);  // offset 2: the third number of the subsequence
  curand_init(2025, t, 2, &p);
  d.xorwow_skipped = curand(&x);
  d.philox_skipped = curand(&p);
  out[t] = d;
}

int main() {
  Draws* d_draws;
  cudaMalloc(&d_draws, kThreads * sizeof(Draws));
  draw<<<kThreads / 64, 64>>>(d_draws);
  static Draws h[kThreads];
  cudaMemcpy(h, d_draws, sizeof h, cudaMemcpyDeviceToHost);
  // cuRAND's values for these threads (its host generator gives the same streams).
  const int threads[4] = {0, 1, 37, 255};
  const unsigned xorwow_ref[4][3] = {{982131294u, 3319479855u, 3255626105u},
                                     {1655653111u, 2577118911u, 973012261u},
                                     {1870109229u, 1288097201u, 2686840471u},
                                     {1291775435u, 3317064286u, 2674045251u}};
  const unsigned philox_ref[4][3] = {{2706570075u, 4166357120u, 3367625288u},
                                     {2437388062u, 182610196u, 2360085988u},
                                     {3502513823u, 334595640u, 1119158980u},
                                     {140139315u, 3839203996u, 2597434172u}};
  const float xorwow_normal_ref[4][2] = {{-1.7001172f, 0.2460689f},
                                         {-0.8118165f, -1.1168933f},
                                         {1.2266471f, -0.3977824f},
                                         {-1.5349032f, 0.2166215f}};
  const float philox_normal_ref[4][2] = {{-0.1797436f, 0.9440422f},
                                         {0.2809885f, 1.0266836f},
                                         {0.3002947f, 0.5636923f},
                                         {-1.6180117f, 2.0560064f}};
  int wrong = 0;
  for (int i = 0; i < 4; ++i) {
    const Draws& d = h[threads[i]];
    printf("thread %3d  XORWOW %10u %10u %10u  Philox %10u %10u %10u\n", threads[i], d.xorwow[0],
           d.xorwow[1], d.xorwow[2], d.philox[0], d.philox[1], d.philox[2]);
    printf("            uniform %.9g %.9g  offset 2: %u %u\n", d.xorwow_uniform, d.philox_uniform,
           d.xorwow_skipped, d.philox_skipped);
    for (int j = 0; j < 3; ++j) {
      wrong += d.xorwow[j] != xorwow_ref[i][j];
      wrong += d.philox[j] != philox_ref[i][j];
    }
    wrong += d.xorwow_skipped != d.xorwow[2];
    wrong += d.philox_skipped != d.philox[2];
    for (int j = 0; j < 2; ++j) {
      wrong += std::fabs(d.xorwow_normal[j] - xorwow_normal_ref[i][j]) > 1e-5f;
      wrong += std::fabs(d.philox_normal[j] - philox_normal_ref[i][j]) > 1e-5f;
    }
  }
  printf("%s\n", wrong == 0 ? "all draws equal cuRAND's" : "draws differ from cuRAND's");
  cudaFree(d_draws);
  return wrong == 0 ? 0 : 1;
}
