// A kernel that reads far past its cudaMalloc allocation (a book's hash table reads an array of
// ints as an array of pointers, twice its size): the GPU stops the launch with
// cudaErrorIllegalAddress at the next synchronising call, and every later call fails with it.
#include <cstdio>

__global__ void gather(const unsigned* keys, void** values, int n, unsigned long long* sum) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    atomicAdd(sum, (unsigned long long)values[i] + keys[i]);  // 8 bytes each: past the end
  }
}

int main() {
  const int n = 4 << 20;  // 16 MiB of keys, read as 32 MiB of pointers
  unsigned* keys;
  unsigned long long* sum;
  cudaMalloc(&keys, n * sizeof(unsigned));
  cudaMalloc(&sum, sizeof(unsigned long long));
  cudaMemset(keys, 0, n * sizeof(unsigned));
  cudaMemset(sum, 0, sizeof(unsigned long long));
  gather<<<64, 256>>>(keys, (void**)keys, n, sum);
  printf("launch: %s\n", cudaGetErrorName(cudaGetLastError()));
  cudaError_t e = cudaDeviceSynchronize();
  printf("synchronize: %s (%s)\n", cudaGetErrorName(e), cudaGetErrorString(e));
  unsigned long long h = 0;
  printf("after: Memcpy %s\n", cudaGetErrorName(cudaMemcpy(&h, sum, sizeof h, cudaMemcpyDeviceToHost)));
  printf("after: Free %s\n", cudaGetErrorName(cudaFree(keys)));
  gather<<<1, 1>>>(keys, (void**)keys, 1, sum);
  printf("after: launch then GetLastError %s\n", cudaGetErrorName(cudaGetLastError()));
  return 0;
}
