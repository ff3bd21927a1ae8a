// Dynamic shared memory through a templated accessor, as NVIDIA's reduction sample writes it
// (SharedMemory<T>: an extern __shared__ array declared inside a member function of a template),
// used by a templated kernel for int and double; and a host file (shared_template_host.cpp) that
// defines its own umin, as the samples' mergeSort_host.cpp does: nvcc compiles it as plain C++.
#include <cstdio>

template <class T>
struct SharedMemory {
  __device__ operator T*() {
    extern __shared__ int __smem[];
    return (T*)__smem;
  }
};
template <>
struct SharedMemory<double> {
  __device__ operator double*() {
    extern __shared__ double __smem_d[];
    return (double*)__smem_d;
  }
};

template <class T>
__global__ void block_sum(const T* in, T* out, unsigned n) {
  T* sdata = SharedMemory<T>();
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  sdata[threadIdx.x] = i < n ? in[i] : T(0);
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) sdata[threadIdx.x] += sdata[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0) out[blockIdx.x] = sdata[0];
}

unsigned smaller_of(unsigned a, unsigned b);  // shared_template_host.cpp

template <class T>
static bool check(const char* name, unsigned n) {
  const unsigned threads = 128, blocks = (n + threads - 1) / threads;
  T *h = new T[n], *d_in, *d_out;
  for (unsigned i = 0; i < n; ++i) h[i] = static_cast<T>(i % 10) / 2;
  cudaMalloc(&d_in, n * sizeof(T));
  cudaMalloc(&d_out, blocks * sizeof(T));
  cudaMemcpy(d_in, h, n * sizeof(T), cudaMemcpyHostToDevice);
  block_sum<T><<<blocks, threads, threads * sizeof(T)>>>(d_in, d_out, n);
  T* partial = new T[blocks];
  cudaMemcpy(partial, d_out, blocks * sizeof(T), cudaMemcpyDeviceToHost);
  T sum = 0, host = 0;
  for (unsigned b = 0; b < blocks; ++b) sum += partial[b];
  for (unsigned i = 0; i < n; ++i) host += h[i];
  printf("%s: %u blocks, sum %.1f (host %.1f)\n", name, blocks, static_cast<double>(sum),
         static_cast<double>(host));
  cudaFree(d_in);
  cudaFree(d_out);
  delete[] h;
  delete[] partial;
  return sum == host;
}

int main() {
  const unsigned n = smaller_of(5000, 7000);
  const bool ok = check<int>("int", n) && check<double>("double", n);
  printf("%s\n", ok ? "both match the host" : "MISMATCH");
  return ok ? 0 : 1;
}
