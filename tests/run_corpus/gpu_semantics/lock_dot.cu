// CUDA by Example's dot product with a lock: each block sums its part in shared memory, then its
// thread 0 takes a spin lock (atomicCAS) to add the block's sum to the total. The lock struct is
// passed by value and frees its memory in its destructor. Checked against a host reference.
#include <cstdio>

struct Lock {
  int* mutex;
  Lock() {
    cudaMalloc(&mutex, sizeof(int));
    cudaMemset(mutex, 0, sizeof(int));
  }
  ~Lock() { cudaFree(mutex); }
  __device__ void lock() {
    while (atomicCAS(mutex, 0, 1) != 0) {
    }
    __threadfence();
  }
  __device__ void unlock() {
    __threadfence();
    atomicExch(mutex, 0);
  }
};

const int kThreads = 256;

__global__ void dot(Lock lock, const float* a, const float* b, float* c, int n) {
  __shared__ float cache[kThreads];
  float sum = 0;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    sum += a[i] * b[i];
  cache[threadIdx.x] = sum;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s /= 2) {
    if (threadIdx.x < s) cache[threadIdx.x] += cache[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    lock.lock();
    *c += cache[0];
    lock.unlock();
  }
}

int main() {
  const int n = 33 * 1024, blocks = 32;
  static float a[n], b[n];
  double expected = 0;
  for (int i = 0; i < n; ++i) {
    a[i] = static_cast<float>(i % 16);
    b[i] = 2.0f;
    expected += a[i] * b[i];
  }
  float *da, *db, *dc;
  cudaMalloc(&da, sizeof a);
  cudaMalloc(&db, sizeof b);
  cudaMalloc(&dc, sizeof(float));
  cudaMemcpy(da, a, sizeof a, cudaMemcpyHostToDevice);
  cudaMemcpy(db, b, sizeof b, cudaMemcpyHostToDevice);
  cudaMemset(dc, 0, sizeof(float));
  {
    Lock lock;
    dot<<<blocks, kThreads>>>(lock, da, db, dc, n);
    float c = 0;
    cudaMemcpy(&c, dc, sizeof c, cudaMemcpyDeviceToHost);
    printf("dot %.0f, host %.0f: %s\n", c, expected, c == expected ? "same" : "DIFFERENT");
  }
  cudaFree(da);
  cudaFree(db);
  cudaFree(dc);
  return 0;
}
