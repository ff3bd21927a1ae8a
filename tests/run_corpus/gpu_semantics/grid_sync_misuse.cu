// grid.sync() in a kernel launched with <<<>>>, not cudaLaunchCooperativeKernel: nothing keeps
// the grid's blocks resident together, so they cannot wait for each other. gpulab stops the launch
// and says why; what a GPU does is recorded by bench/run_semantics.sh.
#include <cooperative_groups.h>
#include <cstdio>
namespace cg = cooperative_groups;

__global__ void k(int* out) {
  cg::grid_group grid = cg::this_grid();
  out[blockIdx.x] = grid.is_valid() ? 1 : 2;
  grid.sync();
  out[blockIdx.x] = 3;
}

int main() {
  int* out;
  cudaMalloc(&out, 2 * sizeof(int));
  k<<<2, 32>>>(out);
  printf("launch: %s\n", cudaGetErrorName(cudaGetLastError()));
  cudaError_t e = cudaDeviceSynchronize();
  printf("synchronize: %s\n", e == cudaSuccess ? "cudaSuccess" : "an error (the launch failed)");
  return 0;
}
