// A cooperative grid as large as the device holds, sized as NVIDIA's samples size it
// (cudaOccupancyMaxActiveBlocksPerMultiprocessor x multiProcessorCount: 132 SMs on an H100), for
// blocks of 256 and of 1024 threads. Three phases separated by grid.sync(): each block sums its
// part in double precision (static and dynamic shared memory), every block then adds all the
// blocks' sums, and block 0 checks that every block got the same total, which main compares with
// a host double-precision sum. Each block keeps its own index in static and dynamic shared memory
// across the grid syncs and counts any change. One block more than fits is refused with
// cudaErrorCooperativeLaunchTooLarge.
#include <cooperative_groups.h>
#include <cstdio>
namespace cg = cooperative_groups;

// At most 32 registers a thread (2 blocks of 1024 threads per SM), so that an H100 holds the
// blocks the emulator's occupancy calculator counts (it counts no registers).
__global__ void __launch_bounds__(1024, 2) grid_total(const float* in, int n, double* partial,
                                                      double* totals, int* changed, int* disagree) {
  cg::grid_group grid = cg::this_grid();
  __shared__ double sums[1024];
  __shared__ unsigned mine;
  extern __shared__ unsigned dyn[];
  const unsigned t = threadIdx.x;
  if (t == 0) mine = blockIdx.x;
  dyn[t] = blockIdx.x * 4096u + t;
  double s = 0.0;
  for (unsigned long long i = grid.thread_rank(); i < (unsigned long long)n; i += grid.size())
    s += in[i];
  sums[t] = s;
  __syncthreads();
  for (unsigned stride = blockDim.x / 2; stride > 0; stride /= 2) {
    if (t < stride) sums[t] += sums[t + stride];
    __syncthreads();
  }
  if (t == 0) partial[blockIdx.x] = sums[0];
  grid.sync();
  if (t == 0) {
    double total = 0.0;
    for (unsigned b = 0; b < gridDim.x; ++b) total += partial[b];
    totals[blockIdx.x] = total;
    if (mine != blockIdx.x) atomicAdd(changed, 1);
  }
  if (dyn[t] != blockIdx.x * 4096u + t) atomicAdd(changed, 1);
  grid.sync();
  if (blockIdx.x == 0 && t == 0) {
    for (unsigned b = 1; b < gridDim.x; ++b)
      if (totals[b] != totals[0]) ++*disagree;
  }
  if (t == 0 && mine != blockIdx.x) atomicAdd(changed, 1);
}

int main() {
  const int n = 1 << 21;
  float* h = new float[n];
  double reference = 0.0;
  for (int i = 0; i < n; ++i) {
    h[i] = (float)(i % 17) * 0.25f;
    reference += h[i];
  }
  cudaDeviceProp prop;
  cudaGetDeviceProperties(&prop, 0);
  printf("SMs: %d, compute capability %d.%d\n", prop.multiProcessorCount, prop.major, prop.minor);
  float* in;
  double *partial, *totals;
  int *changed, *disagree;
  cudaMalloc(&in, n * sizeof(float));
  cudaMalloc(&partial, 8192 * sizeof(double));
  cudaMalloc(&totals, 8192 * sizeof(double));
  cudaMalloc(&changed, sizeof(int));
  cudaMalloc(&disagree, sizeof(int));
  cudaMemcpy(in, h, n * sizeof(float), cudaMemcpyHostToDevice);
  const int sizes[] = {256, 1024};
  for (int threads : sizes) {
    const size_t dynamic = threads * sizeof(unsigned);
    int per_sm = 0;
    cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, grid_total, threads, dynamic);
    int blocks = per_sm * prop.multiProcessorCount;
    printf("%d threads a block: %d blocks per SM, grid of %d blocks\n", threads, per_sm, blocks);
    cudaMemset(changed, 0, sizeof(int));
    cudaMemset(disagree, 0, sizeof(int));
    int nn = n;
    void* args[] = {&in, &nn, &partial, &totals, &changed, &disagree};
    cudaError_t e =
        cudaLaunchCooperativeKernel((void*)grid_total, blocks, threads, args, dynamic, 0);
    printf("  launch: %s, synchronize: %s\n", cudaGetErrorName(e),
           cudaGetErrorName(cudaDeviceSynchronize()));
    double total = 0.0;
    int c = -1, d = -1;
    cudaMemcpy(&total, totals, sizeof total, cudaMemcpyDeviceToHost);
    cudaMemcpy(&c, changed, sizeof c, cudaMemcpyDeviceToHost);
    cudaMemcpy(&d, disagree, sizeof d, cudaMemcpyDeviceToHost);
    printf("  sum %.2f, host reference %.2f: %s\n", total, reference,
           total == reference ? "equal" : "DIFFERENT");
    printf("  shared memory changed across grid.sync: %d, blocks that disagree: %d\n", c, d);
    e = cudaLaunchCooperativeKernel((void*)grid_total, blocks + 1, threads, args, dynamic, 0);
    printf("  %d blocks: %s\n", blocks + 1, cudaGetErrorName(e));
    cudaGetLastError();
  }
  cudaFree(in);
  cudaFree(partial);
  cudaFree(totals);
  cudaFree(changed);
  cudaFree(disagree);
  delete[] h;
  return 0;
}
