// Bug: the barrier between filling the shared array and reading a neighbour's element is missing.
__global__ void neighbour_sum(const int* in, int* out) {
  __shared__ int s[128];
  s[threadIdx.x] = in[threadIdx.x];  // expect: shared_race
  int right = s[(threadIdx.x + 1) % blockDim.x];
  out[threadIdx.x] = s[threadIdx.x] + right;
}
int main() {
  int h[128] = {};
  int *in, *out;
  cudaMalloc(&in, sizeof h); cudaMalloc(&out, sizeof h);
  cudaMemcpy(in, h, sizeof h, cudaMemcpyHostToDevice);
  neighbour_sum<<<1, 128>>>(in, out);
  cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost);
  cudaFree(in); cudaFree(out);
  return 0;
}
