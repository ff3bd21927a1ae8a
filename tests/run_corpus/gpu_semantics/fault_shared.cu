// A scan that reads one element past its dynamic shared memory (the bug of a public Kogge-Stone
// scan): the GPU stops the launch with "an illegal memory access was encountered" at the next
// synchronising call, the error is sticky, and the program goes on.
#include <cstdio>

__global__ void scan(const float* in, float* out, int n) {
  extern __shared__ float xy[];
  const int t = threadIdx.x;
  xy[t] = t < n ? in[t] : 0.0f;
  for (int stride = 1; stride < blockDim.x; stride *= 2) {
    __syncthreads();
    const float add = t >= stride ? xy[t - stride] : 0.0f;
    __syncthreads();
    xy[t] += add;
  }
  __syncthreads();
  if (t < n) out[t] = (xy[t] + xy[t + 1]) / 2;  // the last thread reads xy[blockDim.x]: past the end
}

int main() {
  const int n = 256;
  float h[n];
  for (int i = 0; i < n; ++i) h[i] = 1.0f;
  float *in, *out;
  cudaMalloc(&in, sizeof h);
  cudaMalloc(&out, sizeof h);
  cudaMemcpy(in, h, sizeof h, cudaMemcpyHostToDevice);
  scan<<<1, n, n * sizeof(float)>>>(in, out, n);
  printf("launch: %s\n", cudaGetErrorName(cudaGetLastError()));
  cudaError_t e = cudaDeviceSynchronize();
  printf("synchronize: %s (%s)\n", cudaGetErrorName(e), cudaGetErrorString(e));
  printf("after: GetLastError %s\n", cudaGetErrorName(cudaGetLastError()));
  printf("after: GetLastError again %s\n", cudaGetErrorName(cudaGetLastError()));
  printf("after: Memcpy %s\n", cudaGetErrorName(cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost)));
  printf("after: PeekAtLastError %s\n", cudaGetErrorName(cudaPeekAtLastError()));
  printf("the program goes on\n");
  return 0;
}
