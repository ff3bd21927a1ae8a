// Bug: thread 0 leaves the block's range in two slots of the tile, which the tile's load then
// overwrites with no barrier between: a thread that reads the range after its neighbours loaded
// their elements takes data for bounds and reads far past the tile. On a GPU the warps read the
// range before the loads land, so the result comes out right: the race is the bug a GPU hides.
__global__ void tile_sum(const int* in, int* out) {
  extern __shared__ int tile[];
  if (threadIdx.x == 0) { tile[0] = 0; tile[1] = blockDim.x; }
  __syncthreads();
  int begin = tile[0], end = tile[1];  // expect: shared_race
  tile[threadIdx.x] = in[blockIdx.x * blockDim.x + threadIdx.x];  // expect: shared_race
  __syncthreads();
  int sum = 0;
  for (int i = begin; i < end; ++i) sum += tile[i];  // expect: kernel_fault
  out[blockIdx.x * blockDim.x + threadIdx.x] = sum;
}
int main() {
  const int n = 64;
  int h[n];
  for (int i = 0; i < n; ++i) h[i] = 200 + i;
  int *in, *out;
  cudaMalloc(&in, sizeof h); cudaMalloc(&out, sizeof h);
  cudaMemcpy(in, h, sizeof h, cudaMemcpyHostToDevice);
  tile_sum<<<1, n, n * sizeof(int)>>>(in, out);
  cudaDeviceSynchronize();
  cudaFree(in); cudaFree(out);
  return 0;
}
