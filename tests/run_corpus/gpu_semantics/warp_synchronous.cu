// Warp-synchronous code from before Volta: the last 64 values of a block reduced, and a warp's
// values scanned, through a volatile pointer with no barrier between the steps. A converged warp
// takes each load and store together, so every lane reads s[t + 16] before any lane writes s[t];
// CUDA's memory model since Volta promises it only with __syncwarp(), yet GPUs still run this code
// as its authors meant, and books and courses still teach it. Each line compares the kernel's
// integers with the host's sums.
#include <cstdio>
#include <cstdlib>

#define CHECK(call)                                                           \
  do {                                                                        \
    cudaError_t e_ = (call);                                                  \
    if (e_ != cudaSuccess) {                                                  \
      std::printf("%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); \
      return 1;                                                               \
    }                                                                         \
  } while (0)

constexpr int kBlock = 256;
constexpr int kBlocks = 24;
constexpr int kN = kBlocks * kBlock;

// The last warp of a tree reduction, in a device function.
__device__ void warp_reduce(volatile int* s, int t) {
  s[t] += s[t + 32];
  s[t] += s[t + 16];
  s[t] += s[t + 8];
  s[t] += s[t + 4];
  s[t] += s[t + 2];
  s[t] += s[t + 1];
}

__global__ void reduce_device_function(const int* in, int* out) {
  __shared__ int s[kBlock];
  const int t = threadIdx.x;
  s[t] = in[blockIdx.x * blockDim.x + t];
  __syncthreads();
  for (int stride = blockDim.x / 2; stride > 32; stride >>= 1) {
    if (t < stride) s[t] += s[t + stride];
    __syncthreads();
  }
  if (t < 32) warp_reduce(s, t);
  if (t == 0) out[blockIdx.x] = s[0];
}

// The same steps written in the kernel, through a local volatile pointer.
__global__ void reduce_in_kernel(const int* in, int* out) {
  __shared__ int s[kBlock];
  const int t = threadIdx.x;
  s[t] = in[blockIdx.x * blockDim.x + t];
  __syncthreads();
  for (int stride = blockDim.x / 2; stride > 32; stride >>= 1) {
    if (t < stride) s[t] += s[t + stride];
    __syncthreads();
  }
  if (t < 32) {
    volatile int* v = s;
    v[t] = v[t] + v[t + 32];
    v[t] = v[t] + v[t + 16];
    v[t] = v[t] + v[t + 8];
    v[t] = v[t] + v[t + 4];
    v[t] = v[t] + v[t + 2];
    v[t] = v[t] + v[t + 1];
  }
  if (t == 0) out[blockIdx.x] = s[0];
}

// An inclusive scan of each warp (each lane reads what the lane below it had before the step).
__global__ void warp_scan(const int* in, int* out) {
  __shared__ volatile int s[kBlock];
  const int t = threadIdx.x;
  const int lane = t % 32;
  s[t] = in[blockIdx.x * blockDim.x + t];
  if (lane >= 1) s[t] = s[t - 1] + s[t];
  if (lane >= 2) s[t] = s[t - 2] + s[t];
  if (lane >= 4) s[t] = s[t - 4] + s[t];
  if (lane >= 8) s[t] = s[t - 8] + s[t];
  if (lane >= 16) s[t] = s[t - 16] + s[t];
  out[blockIdx.x * blockDim.x + t] = s[t];
  if (blockIdx.x == 0 && t == kBlock - 1) printf("block 0, thread %d: %d\n", t, s[t]);
}

int main() {
  int* h = static_cast<int*>(std::malloc(kN * sizeof(int)));
  for (int i = 0; i < kN; ++i) h[i] = (i * 37 + 11) % 101 - 50;
  int *in, *out;
  CHECK(cudaMalloc(&in, kN * sizeof(int)));
  CHECK(cudaMalloc(&out, kN * sizeof(int)));
  CHECK(cudaMemcpy(in, h, kN * sizeof(int), cudaMemcpyHostToDevice));
  int* got = static_cast<int*>(std::malloc(kN * sizeof(int)));

  const char* names[2] = {"reduce, device function", "reduce, in the kernel"};
  for (int form = 0; form < 2; ++form) {
    if (form == 0) reduce_device_function<<<kBlocks, kBlock>>>(in, out);
    if (form == 1) reduce_in_kernel<<<kBlocks, kBlock>>>(in, out);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(got, out, kBlocks * sizeof(int), cudaMemcpyDeviceToHost));
    int wrong = 0;
    long long total = 0;
    for (int b = 0; b < kBlocks; ++b) {
      int want = 0;
      for (int i = 0; i < kBlock; ++i) want += h[b * kBlock + i];
      wrong += got[b] != want;
      total += got[b];
    }
    std::printf("%s: %d of %d block sums wrong, total %lld\n", names[form], wrong, kBlocks, total);
  }

  warp_scan<<<kBlocks, kBlock>>>(in, out);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(got, out, kN * sizeof(int), cudaMemcpyDeviceToHost));
  int wrong = 0;
  for (int w = 0; w < kN / 32; ++w) {
    int sum = 0;
    for (int l = 0; l < 32; ++l) {
      sum += h[w * 32 + l];
      wrong += got[w * 32 + l] != sum;
    }
  }
  std::printf("warp scan: %d of %d prefix sums wrong, last %d\n", wrong, kN, got[kN - 1]);
  CHECK(cudaFree(in));
  CHECK(cudaFree(out));
  std::free(h);
  std::free(got);
  return 0;
}
