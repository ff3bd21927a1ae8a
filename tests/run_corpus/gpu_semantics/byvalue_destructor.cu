// A struct passed by value to a kernel is copied as bytes once per launch: its constructor and
// destructor do not run in the kernel (CUDA by Example's lock struct frees its memory in its
// destructor). Counted with a host reference.
#include <cstdio>

struct Counter {
  int* total;
  Counter() { cudaMalloc(&total, sizeof(int)); cudaMemset(total, 0, sizeof(int)); }
  Counter(const Counter& other) : total(other.total) {}
  ~Counter() {}  // user-provided: a class a kernel gets as bytes, not by its copy constructor
  __device__ void add(int v) { atomicAdd(total, v); }
};

int destroyed = 0;  // host code counts the destructor calls
struct Tracked {
  int* data;
  explicit Tracked(int* d) : data(d) {}
  Tracked(const Tracked& other) : data(other.data) {}
  ~Tracked() { ++destroyed; }  // runs on the host for the launch's own copies, never per thread
};

__global__ void sum(Counter c, const int* v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c.add(v[i]);
}

__global__ void store(Tracked t, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) t.data[i] = i;
}

int main() {
  const int n = 1000;
  int h[n];
  long long expected = 0;
  for (int i = 0; i < n; ++i) {
    h[i] = i % 7;
    expected += h[i];
  }
  int* d = nullptr;
  cudaMalloc(&d, sizeof h);
  cudaMemcpy(d, h, sizeof h, cudaMemcpyHostToDevice);
  Counter c;
  sum<<<(n + 255) / 256, 256>>>(c, d, n);
  int total = 0;
  cudaMemcpy(&total, c.total, sizeof total, cudaMemcpyDeviceToHost);
  printf("sum %d, host %lld: %s\n", total, expected, total == expected ? "same" : "DIFFERENT");

  int* out = nullptr;
  cudaMalloc(&out, n * sizeof(int));
  {
    Tracked t(out);
    store<<<4, 256>>>(t, n);
    printf("synchronize: %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
  }
  printf("destructor calls: %s\n", destroyed >= 1 && destroyed <= 8 ? "a few, on the host"
                                                                     : "one per thread");
  int back[n];
  cudaMemcpy(back, out, sizeof back, cudaMemcpyDeviceToHost);
  int wrong = 0;
  for (int i = 0; i < n; ++i) wrong += back[i] != i;
  printf("written: %d wrong\n", wrong);
  cudaFree(out);
  cudaFree(c.total);
  cudaFree(d);
  return 0;
}
