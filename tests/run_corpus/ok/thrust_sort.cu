// thrust as the samples use it: device_vector, transform with a functor, reduce, inclusive and
// exclusive scans, sort and sort_by_key, and raw-pointer interop with memory from cudaMalloc that
// a kernel wrote; each result checked against the host's std:: algorithms.
#include <algorithm>
#include <cstdio>
#include <numeric>
#include <vector>

#include <thrust/device_ptr.h>
#include <thrust/device_vector.h>
#include <thrust/functional.h>
#include <thrust/host_vector.h>
#include <thrust/reduce.h>
#include <thrust/scan.h>
#include <thrust/sequence.h>
#include <thrust/sort.h>
#include <thrust/transform.h>

struct saxpy {
  float a;
  __host__ __device__ float operator()(float x, float y) const { return a * x + y; }
};

__global__ void scramble(unsigned* keys, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) keys[i] = (i * 2654435761u) >> 8;
}

int main() {
  const int n = 1 << 14;
  // Keys a kernel wrote into cudaMalloc'd memory, sorted in place through a device_ptr.
  unsigned* d_keys;
  cudaMalloc(&d_keys, n * sizeof(unsigned));
  scramble<<<(n + 255) / 256, 256>>>(d_keys, n);
  std::vector<unsigned> expected(n);
  for (int i = 0; i < n; ++i) expected[i] = (i * 2654435761u) >> 8;
  std::sort(expected.begin(), expected.end());
  thrust::device_ptr<unsigned> keys(d_keys);
  thrust::sort(keys, keys + n);
  std::vector<unsigned> sorted(n);
  cudaMemcpy(sorted.data(), d_keys, n * sizeof(unsigned), cudaMemcpyDeviceToHost);
  printf("sort of %d keys: %s, smallest %u, largest %u\n", n,
         sorted == expected ? "matches std::sort" : "WRONG", sorted[0], sorted[n - 1]);

  // sort_by_key: values follow their keys.
  thrust::device_vector<int> k(8), v(8);
  const int hk[8] = {5, 1, 4, 1, 5, 9, 2, 6};
  for (int i = 0; i < 8; ++i) {
    k[i] = hk[i];
    v[i] = i;
  }
  thrust::stable_sort_by_key(k.begin(), k.end(), v.begin());
  printf("stable_sort_by_key:");
  for (int i = 0; i < 8; ++i) printf(" %d:%d", (int)k[i], (int)v[i]);
  printf("\n");

  // transform, reduce, scans (1000 halves: every partial sum is exact in float, in any order).
  const int m = 1000;
  thrust::device_vector<float> x(m), y(m, 2.0f);
  thrust::sequence(x.begin(), x.end());
  thrust::transform(x.begin(), x.end(), y.begin(), y.begin(), saxpy{0.5f});
  const float sum = thrust::reduce(y.begin(), y.end(), 0.0f, thrust::plus<float>());
  double sum_ref = 0;
  for (int i = 0; i < m; ++i) sum_ref += 0.5 * i + 2.0;
  printf("saxpy then reduce: %.1f (float64 reference %.1f)\n", sum, sum_ref);
  thrust::device_vector<int> ones(10, 1), inc(10), exc(10);
  thrust::inclusive_scan(ones.begin(), ones.end(), inc.begin());
  thrust::exclusive_scan(ones.begin(), ones.end(), exc.begin());
  thrust::host_vector<int> hi = inc, he = exc;
  printf("inclusive_scan ends at %d, exclusive_scan at %d\n", (int)hi[9], (int)he[9]);
  const int max_key = thrust::reduce(keys, keys + n, 0u, thrust::maximum<unsigned>());
  printf("reduce with maximum over the raw pointer: %s\n",
         (unsigned)max_key == expected[n - 1] ? "the largest key" : "WRONG");
  cudaFree(d_keys);
  return 0;
}
