// Bug: a breadth-first step writes the next frontier into the shared array that holds the current
// one, with no barrier between: a thread that reads its vertex after another thread appended a
// vertex of the next level there takes the wrong vertex. On a GPU every thread of the warp reads
// its vertex before any appends, so the levels come out right for small frontiers.
__global__ void next_level(const int* frontier_in, const int* neighbour, int* level) {
  __shared__ int frontier[64];
  __shared__ int size;
  if (threadIdx.x == 0) size = 0;
  frontier[threadIdx.x] = frontier_in[threadIdx.x];
  __syncthreads();
  int v = frontier[threadIdx.x];
  int w = neighbour[v];
  if (atomicCAS(&level[w], -1, 1) == -1) frontier[atomicAdd(&size, 1)] = w;  // expect: shared_race
  __syncthreads();
  if (threadIdx.x < size) level[frontier[threadIdx.x]] += 10;
}
int main() {
  const int n = 64;
  int h_frontier[n], h_neighbour[n], h_level[n];
  for (int i = 0; i < n; ++i) {
    h_frontier[i] = i;
    h_neighbour[i] = i;
    h_level[i] = i == 0 ? 0 : -1;  // vertex 0 is visited: thread 0 appends nothing
  }
  int *frontier, *neighbour, *level;
  cudaMalloc(&frontier, sizeof h_frontier);
  cudaMalloc(&neighbour, sizeof h_neighbour);
  cudaMalloc(&level, sizeof h_level);
  cudaMemcpy(frontier, h_frontier, sizeof h_frontier, cudaMemcpyHostToDevice);
  cudaMemcpy(neighbour, h_neighbour, sizeof h_neighbour, cudaMemcpyHostToDevice);
  cudaMemcpy(level, h_level, sizeof h_level, cudaMemcpyHostToDevice);
  next_level<<<1, n>>>(frontier, neighbour, level);
  cudaMemcpy(h_level, level, sizeof h_level, cudaMemcpyDeviceToHost);
  cudaFree(frontier); cudaFree(neighbour); cudaFree(level);
  return 0;
}
