// nvcc compiles device code with --fmad=true: a * b + c becomes one fused multiply-add, rounded
// once, where host code rounds the product and then the sum. Each line is a checksum of one
// expression's bits over 2^16 operand triples, computed in a kernel; the host's own results of
// the same expressions follow, then one case worked by hand. The
// expected output is an H100's (nvcc 13, default flags): the emulator gives the same bits.
#include <cstdint>
#include <cstdio>
#include <cstring>

#define CHECK(call)                                                           \
  do {                                                                        \
    cudaError_t e_ = (call);                                                  \
    if (e_ != cudaSuccess) {                                                  \
      std::printf("%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); \
      return 1;                                                               \
    }                                                                         \
  } while (0)

constexpr int kN = 1 << 16;
constexpr int kForms = 9;

__host__ __device__ float mad(float a, float b, float c) {
  return a * b + c;
}

__device__ void forms(const float* a, const float* b, const float* c, const double* x,
                      const double* y, const double* z, int i, float* f, double* d) {
  f[0] = a[i] * b[i] + c[i];
  f[1] = a[i] * b[i] - c[i];
  f[2] = c[i] - a[i] * b[i];
  f[3] = a[i] * b[i] + c[i] * a[i];
  f[4] = mad(a[i], b[i], c[i]);
  f[5] = __fadd_rn(__fmul_rn(a[i], b[i]), c[i]);  // never fused
  float sum = 0.0f;
  for (int k = 0; k < 8; ++k) sum += a[(i + k) % kN] * b[(i + 3 * k) % kN];
  f[6] = sum;
  d[0] = x[i] * y[i] + z[i];
  d[1] = x[i] * y[i] - z[i] * x[i];
}

// The same expressions in host code, which nvcc's host compiler does not fuse. (mad() is not
// called here: on the emulator a __host__ __device__ function that host code calls fuses too.)
void host_forms(const float* a, const float* b, const float* c, const double* x, const double* y,
                const double* z, int i, float* f, double* d) {
  f[0] = a[i] * b[i] + c[i];
  f[1] = a[i] * b[i] - c[i];
  f[2] = c[i] - a[i] * b[i];
  f[3] = a[i] * b[i] + c[i] * a[i];
  f[4] = a[i] * b[i] + c[i];
  f[5] = a[i] * b[i] + c[i];
  float sum = 0.0f;
  for (int k = 0; k < 8; ++k) sum += a[(i + k) % kN] * b[(i + 3 * k) % kN];
  f[6] = sum;
  d[0] = x[i] * y[i] + z[i];
  d[1] = x[i] * y[i] - z[i] * x[i];
}

__global__ void on_gpu(const float* a, const float* b, const float* c, const double* x,
                       const double* y, const double* z, float* fout, double* dout) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < kN) forms(a, b, c, x, y, z, i, fout + i * 7, dout + i * 2);
}

std::uint64_t mix(std::uint64_t h, std::uint64_t bits) {
  h ^= bits + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
  return h;
}

std::uint64_t sum_of(const float* f, const double* d, int form) {
  std::uint64_t h = 0;
  for (int i = 0; i < kN; ++i) {
    std::uint64_t bits = 0;
    if (form < 7) {
      std::uint32_t u;
      std::memcpy(&u, &f[i * 7 + form], 4);
      bits = u;
    } else {
      std::memcpy(&bits, &d[i * 2 + form - 7], 8);
    }
    h = mix(h, bits);
  }
  return h;
}

int main() {
  static float a[kN], b[kN], c[kN], fout[kN * 7], host_f[kN * 7];
  static double x[kN], y[kN], z[kN], dout[kN * 2], host_d[kN * 2];
  std::uint64_t s = 12345;
  const auto next = [&s] {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<double>(s >> 11) / 9007199254740992.0;  // [0, 1)
  };
  for (int i = 0; i < kN; ++i) {
    a[i] = static_cast<float>(next() * 4 - 2);
    b[i] = static_cast<float>(next() * 4 - 2);
    c[i] = static_cast<float>(next() * 4 - 2);
    x[i] = next() * 4 - 2;
    y[i] = next() * 4 - 2;
    z[i] = next() * 4 - 2;
  }
  float *da, *db, *dc, *df;
  double *dx, *dy, *dz, *dd;
  CHECK(cudaMalloc(&da, sizeof a));
  CHECK(cudaMalloc(&db, sizeof b));
  CHECK(cudaMalloc(&dc, sizeof c));
  CHECK(cudaMalloc(&df, sizeof fout));
  CHECK(cudaMalloc(&dx, sizeof x));
  CHECK(cudaMalloc(&dy, sizeof y));
  CHECK(cudaMalloc(&dz, sizeof z));
  CHECK(cudaMalloc(&dd, sizeof dout));
  CHECK(cudaMemcpy(da, a, sizeof a, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(db, b, sizeof b, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dc, c, sizeof c, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dx, x, sizeof x, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dy, y, sizeof y, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dz, z, sizeof z, cudaMemcpyHostToDevice));
  on_gpu<<<kN / 256, 256>>>(da, db, dc, dx, dy, dz, df, dd);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(fout, df, sizeof fout, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(dout, dd, sizeof dout, cudaMemcpyDeviceToHost));
  for (int i = 0; i < kN; ++i) host_forms(a, b, c, x, y, z, i, host_f + i * 7, host_d + i * 2);

  const char* names[kForms] = {"a*b+c",    "a*b-c", "c-a*b",
                               "a*b+c*a",  "mad()", "__fadd_rn(__fmul_rn)",
                               "dot of 8", "x*y+z", "x*y-z*x"};
  for (int f = 0; f < kForms; ++f) {
    int differ = 0;
    for (int i = 0; i < kN; ++i) {
      const bool same = f < 7 ? std::memcmp(&fout[i * 7 + f], &host_f[i * 7 + f], 4) == 0
                              : std::memcmp(&dout[i * 2 + f - 7], &host_d[i * 2 + f - 7], 8) == 0;
      differ += same ? 0 : 1;
    }
    std::printf("%-22s device %016llx  host %016llx  results that differ: %d\n", names[f],
                static_cast<unsigned long long>(sum_of(fout, dout, f)),
                static_cast<unsigned long long>(sum_of(host_f, host_d, f)), differ);
  }

  // (1 + 2^-12)^2 - (1 + 2^-11): the product's 2^-24 is lost when it is rounded on its own.
  static float p[3] = {1.0f + 0x1p-12f, 1.0f + 0x1p-12f, -(1.0f + 0x1p-11f)};
  CHECK(cudaMemcpy(da, p, sizeof p, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(db, p + 1, 4, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dc, p + 2, 4, cudaMemcpyHostToDevice));
  on_gpu<<<1, 1>>>(da, db, dc, dx, dy, dz, df, dd);
  CHECK(cudaGetLastError());
  float one[7];
  CHECK(cudaMemcpy(one, df, sizeof one, cudaMemcpyDeviceToHost));
  std::printf("(1+2^-12)*(1+2^-12) - (1+2^-11): device %g, host %g\n", one[0], p[0] * p[1] + p[2]);
  CHECK(cudaFree(da));
  CHECK(cudaFree(db));
  CHECK(cudaFree(dc));
  CHECK(cudaFree(df));
  CHECK(cudaFree(dx));
  CHECK(cudaFree(dy));
  CHECK(cudaFree(dz));
  CHECK(cudaFree(dd));
  return 0;
}
