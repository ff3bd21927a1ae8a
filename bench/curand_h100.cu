// Prints cuRAND reference sequences (device and host API) as JSON lines: run on a GPU,
// nvcc -arch=sm_90 -O2 bench/curand_h100.cu -lcurand; its H100 output (host arrays cut to 8192
// values) is tests/run_corpus/curand_h100.jsonl.
#include <cstdio>
#include <cstdlib>
#include <curand.h>
#include <curand_kernel.h>
#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); exit(1);} } while (0)
#define CR(x) do { curandStatus_t s = (x); if (s != CURAND_STATUS_SUCCESS) { fprintf(stderr, "%s:%d curand %d\n", __FILE__, __LINE__, (int)s); exit(1);} } while (0)
struct Case { unsigned long long seed, subseq, offset; };
__constant__ Case cases[6] = {{1234,0,0},{1234,1,0},{1234,5,3},{0,0,0},{42,1000,17},{987654321ULL,65537,100001}};
template <class S>
__global__ void dev(unsigned* u, float* f, float* n, float* n2, double* ud, double* nd, float* ln, unsigned* u4) {
  int c = threadIdx.x;
  S s;
  curand_init(cases[c].seed, cases[c].subseq, cases[c].offset, &s);
  for (int i = 0; i < 8; ++i) u[c * 8 + i] = curand(&s);
  for (int i = 0; i < 4; ++i) f[c * 4 + i] = curand_uniform(&s);
  for (int i = 0; i < 4; ++i) n[c * 4 + i] = curand_normal(&s);
  for (int i = 0; i < 2; ++i) { float2 v = curand_normal2(&s); n2[c * 4 + 2 * i] = v.x; n2[c * 4 + 2 * i + 1] = v.y; }
  for (int i = 0; i < 2; ++i) ud[c * 2 + i] = curand_uniform_double(&s);
  for (int i = 0; i < 2; ++i) nd[c * 2 + i] = curand_normal_double(&s);
  ln[c] = curand_log_normal(&s, 1.0f, 0.5f);
  u4[c] = curand(&s);
}
__global__ void philox4(uint4* out, float4* f4) {
  int c = threadIdx.x;
  curandStatePhilox4_32_10_t s;
  curand_init(cases[c].seed, cases[c].subseq, cases[c].offset, &s);
  out[c] = curand4(&s);
  f4[c] = curand_uniform4(&s);
}
template <class S>
void device_api(const char* name) {
  const int C = 6;
  unsigned *u, *u4; float *f, *n, *n2, *ln; double *ud, *nd;
  CK(cudaMallocManaged(&u, C * 8 * 4)); CK(cudaMallocManaged(&f, C * 4 * 4)); CK(cudaMallocManaged(&n, C * 4 * 4));
  CK(cudaMallocManaged(&n2, C * 4 * 4)); CK(cudaMallocManaged(&ud, C * 2 * 8)); CK(cudaMallocManaged(&nd, C * 2 * 8));
  CK(cudaMallocManaged(&ln, C * 4)); CK(cudaMallocManaged(&u4, C * 4));
  dev<S><<<1, C>>>(u, f, n, n2, ud, nd, ln, u4);
  CK(cudaGetLastError()); CK(cudaDeviceSynchronize());
  Case hc[6]; CK(cudaMemcpyFromSymbol(hc, cases, sizeof hc));
  for (int c = 0; c < C; ++c) {
    printf("{\"api\":\"device\",\"gen\":\"%s\",\"seed\":%llu,\"subsequence\":%llu,\"offset\":%llu,\"curand\":[", name, hc[c].seed, hc[c].subseq, hc[c].offset);
    for (int i = 0; i < 8; ++i) printf("%s%u", i ? "," : "", u[c * 8 + i]);
    printf("],\"uniform\":["); for (int i = 0; i < 4; ++i) printf("%s%.9g", i ? "," : "", f[c * 4 + i]);
    printf("],\"normal\":["); for (int i = 0; i < 4; ++i) printf("%s%.9g", i ? "," : "", n[c * 4 + i]);
    printf("],\"normal2\":["); for (int i = 0; i < 4; ++i) printf("%s%.9g", i ? "," : "", n2[c * 4 + i]);
    printf("],\"uniform_double\":["); for (int i = 0; i < 2; ++i) printf("%s%.17g", i ? "," : "", ud[c * 2 + i]);
    printf("],\"normal_double\":["); for (int i = 0; i < 2; ++i) printf("%s%.17g", i ? "," : "", nd[c * 2 + i]);
    printf("],\"log_normal_1_0.5\":%.9g,\"curand_after\":%u}\n", ln[c], u4[c]);
  }
}
void host_api(curandRngType_t t, const char* name, size_t N) {
  curandGenerator_t g;
  unsigned* du; float* df; double* dd;
  CK(cudaMalloc(&du, N * 4)); CK(cudaMalloc(&df, N * 4)); CK(cudaMalloc(&dd, N * 8));
  unsigned* hu = (unsigned*)malloc(N * 4); float* hf = (float*)malloc(N * 4); float* hn = (float*)malloc(N * 4); double* hd = (double*)malloc(N * 8);
  const char* what[4] = {"generate", "uniform", "normal", "uniform_double"};
  for (int k = 0; k < 4; ++k) {
    CR(curandCreateGenerator(&g, t));
    CR(curandSetPseudoRandomGeneratorSeed(g, 1234ULL));
    if (k == 0) { CR(curandGenerate(g, du, N)); CK(cudaMemcpy(hu, du, N * 4, cudaMemcpyDeviceToHost)); }
    if (k == 1) { CR(curandGenerateUniform(g, df, N)); CK(cudaMemcpy(hf, df, N * 4, cudaMemcpyDeviceToHost)); }
    if (k == 2) { CR(curandGenerateNormal(g, df, N, 0.0f, 1.0f)); CK(cudaMemcpy(hn, df, N * 4, cudaMemcpyDeviceToHost)); }
    if (k == 3) { CR(curandGenerateUniformDouble(g, dd, N)); CK(cudaMemcpy(hd, dd, N * 8, cudaMemcpyDeviceToHost)); }
    CR(curandDestroyGenerator(g));
    printf("{\"api\":\"host\",\"gen\":\"%s\",\"seed\":1234,\"n\":%zu,\"call\":\"%s\",\"values\":[", name, N, what[k]);
    for (size_t i = 0; i < N; ++i) {
      if (k == 0) printf("%s%u", i ? "," : "", hu[i]);
      if (k == 1) printf("%s%.9g", i ? "," : "", hf[i]);
      if (k == 2) printf("%s%.9g", i ? "," : "", hn[i]);
      if (k == 3) printf("%s%.17g", i ? "," : "", hd[i]);
    }
    printf("]}\n");
  }
  cudaFree(du); cudaFree(df); cudaFree(dd);
}
int main() {
  device_api<curandStateXORWOW_t>("XORWOW");
  device_api<curandStatePhilox4_32_10_t>("PHILOX4_32_10");
  uint4* o; float4* f4; CK(cudaMallocManaged(&o, 6 * 16)); CK(cudaMallocManaged(&f4, 6 * 16));
  philox4<<<1, 6>>>(o, f4); CK(cudaGetLastError()); CK(cudaDeviceSynchronize());
  for (int c = 0; c < 6; ++c) printf("{\"api\":\"device\",\"gen\":\"PHILOX4_32_10\",\"case\":%d,\"curand4\":[%u,%u,%u,%u],\"uniform4\":[%.9g,%.9g,%.9g,%.9g]}\n", c, o[c].x, o[c].y, o[c].z, o[c].w, f4[c].x, f4[c].y, f4[c].z, f4[c].w);
  host_api(CURAND_RNG_PSEUDO_XORWOW, "XORWOW", 20000);
  host_api(CURAND_RNG_PSEUDO_PHILOX4_32_10, "PHILOX4_32_10", 20000);
  host_api(CURAND_RNG_PSEUDO_DEFAULT, "DEFAULT", 20000);
  return 0;
}
