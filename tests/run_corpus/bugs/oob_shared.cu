// Bug: the dynamic shared array holds blockDim.x floats, but thread t writes element t + 1.
__global__ void shift(const float* in, float* out) {
  extern __shared__ float buf[];
  buf[threadIdx.x + 1] = in[threadIdx.x];  // expect: kernel_fault
  __syncthreads();
  out[threadIdx.x] = buf[threadIdx.x];
}
int main() {
  float* in; float* out; float h[64] = {};
  cudaMalloc(&in, sizeof h); cudaMalloc(&out, sizeof h);
  cudaMemcpy(in, h, sizeof h, cudaMemcpyHostToDevice);
  shift<<<1, 64, 64 * sizeof(float)>>>(in, out);
  cudaDeviceSynchronize();
  cudaFree(in); cudaFree(out);
  return 0;
}
