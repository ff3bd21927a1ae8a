// Graph memory nodes: allocation and free nodes made explicitly and by capturing cudaMallocAsync
// and cudaFreeAsync; an allocation after a free in the graph's order reuses the freed address; a
// graph's allocation freed outside it (cudaFree) and the graph launched again; two calls CUDA
// refuses. Each step prints what the program sees; the expected output is an H100's.
#include <cstdio>

#define CHECK(call)                                                            \
  do {                                                                         \
    cudaError_t e_ = (call);                                                   \
    if (e_ != cudaSuccess) {                                                   \
      std::printf("line %d: %s: %s\n", __LINE__, #call, cudaGetErrorName(e_)); \
      return 1;                                                                \
    }                                                                          \
  } while (0)

__global__ void iota(int* a, int n, int base) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[i] = base + i;
}

__global__ void twice(const int* a, int* b, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) b[i] = 2 * a[i];
}

int sum(const int* h, int n) {
  int s = 0;
  for (int i = 0; i < n; ++i) s += h[i];
  return s;
}

int main() {
  const int n = 1000;
  const size_t bytes = n * sizeof(int);
  static int h[n];
  cudaStream_t stream;
  CHECK(cudaStreamCreate(&stream));

  // Explicit: alloc a, alloc b, fill a, b = 2a, free a, alloc c (after the free), c = 2b, copy
  // c out, free b and c.
  cudaGraph_t graph;
  CHECK(cudaGraphCreate(&graph, 0));
  cudaMemAllocNodeParams params = {};
  params.poolProps.allocType = cudaMemAllocationTypePinned;
  params.poolProps.location.type = cudaMemLocationTypeDevice;
  params.poolProps.location.id = 0;
  params.bytesize = bytes;
  cudaGraphNode_t alloc_a, alloc_b, alloc_c, fill, dbl, dbl2, free_a, free_b, free_c, copy;
  CHECK(cudaGraphAddMemAllocNode(&alloc_a, graph, nullptr, 0, &params));
  int* a = static_cast<int*>(params.dptr);
  CHECK(cudaGraphAddMemAllocNode(&alloc_b, graph, &alloc_a, 1, &params));
  int* b = static_cast<int*>(params.dptr);
  int count = n, base = 5;
  cudaKernelNodeParams k = {};
  k.gridDim = dim3((n + 255) / 256);
  k.blockDim = dim3(256);
  void* fill_args[] = {&a, &count, &base};
  k.func = reinterpret_cast<void*>(iota);
  k.kernelParams = fill_args;
  CHECK(cudaGraphAddKernelNode(&fill, graph, &alloc_b, 1, &k));
  void* dbl_args[] = {&a, &b, &count};
  k.func = reinterpret_cast<void*>(twice);
  k.kernelParams = dbl_args;
  CHECK(cudaGraphAddKernelNode(&dbl, graph, &fill, 1, &k));
  CHECK(cudaGraphAddMemFreeNode(&free_a, graph, &dbl, 1, a));
  CHECK(cudaGraphAddMemAllocNode(&alloc_c, graph, &free_a, 1, &params));
  int* c = static_cast<int*>(params.dptr);
  std::printf("explicit graph: a and b differ: %s; c reuses a's address: %s\n",
              a != b ? "yes" : "no", c == a ? "yes" : "no");
  void* dbl2_args[] = {&b, &c, &count};
  k.kernelParams = dbl2_args;
  CHECK(cudaGraphAddKernelNode(&dbl2, graph, &alloc_c, 1, &k));
  CHECK(cudaGraphAddMemcpyNode1D(&copy, graph, &dbl2, 1, h, c, bytes, cudaMemcpyDeviceToHost));
  CHECK(cudaGraphAddMemFreeNode(&free_b, graph, &copy, 1, b));
  CHECK(cudaGraphAddMemFreeNode(&free_c, graph, &free_b, 1, c));
  size_t nodes = 0;
  CHECK(cudaGraphGetNodes(graph, nullptr, &nodes));
  cudaGraphNodeType type;
  CHECK(cudaGraphNodeGetType(alloc_a, &type));
  std::printf("nodes: %zu; an allocation node's type: %d", nodes, static_cast<int>(type));
  CHECK(cudaGraphNodeGetType(free_c, &type));
  std::printf(", a free node's: %d\n", static_cast<int>(type));
  cudaGraphExec_t exec;
  CHECK(cudaGraphInstantiate(&exec, graph, 0));
  for (int launch = 0; launch < 3; ++launch) {
    CHECK(cudaGraphLaunch(exec, stream));
    CHECK(cudaStreamSynchronize(stream));
    std::printf("launch %d: sum of c = %d (4 * (5 + ... + 1004) = %d)\n", launch, sum(h, n),
                4 * (n * 5 + n * (n - 1) / 2));
  }

  // Captured: cudaMallocAsync and cudaFreeAsync become allocation and free nodes; the last
  // allocation is left to the program, which frees it with cudaFree after each launch.
  cudaGraph_t captured;
  int *x, *y;
  CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
  CHECK(cudaMallocAsync(&x, bytes, stream));
  CHECK(cudaMallocAsync(&y, bytes, stream));
  iota<<<(n + 255) / 256, 256, 0, stream>>>(x, n, 1);
  twice<<<(n + 255) / 256, 256, 0, stream>>>(x, y, n);
  CHECK(cudaFreeAsync(x, stream));
  CHECK(cudaMemcpyAsync(h, y, bytes, cudaMemcpyDeviceToHost, stream));
  CHECK(cudaStreamEndCapture(stream, &captured));
  CHECK(cudaGraphGetNodes(captured, nullptr, &nodes));
  std::printf("captured graph: %zu nodes; x and y differ: %s\n", nodes, x != y ? "yes" : "no");
  cudaGraphExec_t captured_exec;
  CHECK(cudaGraphInstantiate(&captured_exec, captured, 0));
  for (int launch = 0; launch < 2; ++launch) {
    CHECK(cudaGraphLaunch(captured_exec, stream));
    CHECK(cudaStreamSynchronize(stream));
    CHECK(cudaFree(y));  // the graph's allocation, freed outside it
    std::printf("captured launch %d: sum of y = %d (expected %d)\n", launch, sum(h, n),
                2 * (n + n * (n - 1) / 2));
  }

  // Refused: a free node for memory no graph allocated; an allocation on no device.
  int* plain;
  CHECK(cudaMalloc(&plain, bytes));
  cudaGraphNode_t refused;
  cudaError_t e = cudaGraphAddMemFreeNode(&refused, graph, nullptr, 0, plain);
  std::printf("free node for cudaMalloc's memory: %s\n", cudaGetErrorName(e));
  cudaGetLastError();
  params.poolProps.location.type = cudaMemLocationTypeHost;
  e = cudaGraphAddMemAllocNode(&refused, graph, nullptr, 0, &params);
  std::printf("allocation node on the host: %s\n", cudaGetErrorName(e));
  cudaGetLastError();

  CHECK(cudaFree(plain));
  CHECK(cudaGraphExecDestroy(exec));
  CHECK(cudaGraphExecDestroy(captured_exec));
  CHECK(cudaGraphDestroy(graph));
  CHECK(cudaGraphDestroy(captured));
  CHECK(cudaStreamDestroy(stream));
  std::printf("done\n");
  return 0;
}
