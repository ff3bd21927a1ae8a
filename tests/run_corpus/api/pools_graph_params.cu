// Stream-ordered memory pools (NVIDIA's streamOrderedAllocation sample) and a kernel node's
// parameters changed after the graph was made or instantiated (jacobiCudaGraphs): what a program
// sees, printed so that a GPU's run and the emulator's compare line for line.
#include <cstdio>

#define CHECK(call)                                                \
  do {                                                             \
    cudaError_t e = (call);                                        \
    if (e != cudaSuccess) {                                        \
      std::printf("line %d: %s\n", __LINE__, cudaGetErrorName(e)); \
      return 1;                                                    \
    }                                                              \
  } while (0)

__global__ void scale(const float* in, float* out, float k, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] * k;
}

int sum_of(const float* d, int n, double* total) {
  static float h[4096];
  if (cudaMemcpy(h, d, sizeof(float) * n, cudaMemcpyDeviceToHost) != cudaSuccess) return 1;
  *total = 0;
  for (int i = 0; i < n; ++i) *total += h[i];
  return 0;
}

int main() {
  const int n = 4096;
  int supported = 0;
  CHECK(cudaDeviceGetAttribute(&supported, cudaDevAttrMemoryPoolsSupported, 0));
  std::printf("memory pools supported: %d\n", supported);

  cudaMemPool_t pool = nullptr, current = nullptr;
  CHECK(cudaDeviceGetDefaultMemPool(&pool, 0));
  CHECK(cudaDeviceGetMemPool(&current, 0));
  std::printf("the current pool is the default one: %s\n", pool == current ? "yes" : "no");
  unsigned long long threshold = 64ull << 20, back = 0;
  CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &threshold));
  CHECK(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &back));
  std::printf("release threshold: %llu\n", back);
  int follow = -1;
  CHECK(cudaMemPoolGetAttribute(pool, cudaMemPoolReuseFollowEventDependencies, &follow));
  std::printf("reuse follows event dependencies: %d\n", follow);

  cudaStream_t s;
  CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  float *a = nullptr, *b = nullptr;
  CHECK(cudaMallocAsync(&a, sizeof(float) * n, s));
  CHECK(cudaMallocAsync(&b, sizeof(float) * n, s));
  unsigned long long used = 0, reserved = 0;
  CHECK(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemCurrent, &used));
  CHECK(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReservedMemCurrent, &reserved));
  std::printf("in use after two allocations: at least %zu bytes: %s; reserved >= used: %s\n",
              2 * sizeof(float) * n, used >= 2 * sizeof(float) * n ? "yes" : "no",
              reserved >= used ? "yes" : "no");
  static float h[n];
  for (int i = 0; i < n; ++i) h[i] = static_cast<float>(i % 100);
  CHECK(cudaMemcpyAsync(a, h, sizeof(float) * n, cudaMemcpyHostToDevice, s));
  scale<<<n / 256, 256, 0, s>>>(a, b, 2.0f, n);
  CHECK(cudaGetLastError());
  double total = 0;
  CHECK(cudaStreamSynchronize(s));
  if (sum_of(b, n, &total) != 0) return 1;
  std::printf("sum of 2x: %.1f\n", total);

  // A pool of the program's own.
  cudaMemPoolProps props = {};
  props.allocType = cudaMemAllocationTypePinned;
  props.location.type = cudaMemLocationTypeDevice;
  props.location.id = 0;
  cudaMemPool_t mine = nullptr;
  CHECK(cudaMemPoolCreate(&mine, &props));
  float* c = nullptr;
  CHECK(cudaMallocFromPoolAsync(&c, sizeof(float) * n, mine, s));
  scale<<<n / 256, 256, 0, s>>>(a, c, 3.0f, n);
  CHECK(cudaStreamSynchronize(s));
  if (sum_of(c, n, &total) != 0) return 1;
  std::printf("sum of 3x from the program's pool: %.1f\n", total);
  CHECK(cudaFreeAsync(c, s));
  CHECK(cudaStreamSynchronize(s));
  CHECK(cudaMemPoolGetAttribute(mine, cudaMemPoolAttrUsedMemCurrent, &used));
  std::printf("the program's pool in use after the free: %llu\n", used);
  CHECK(cudaMemPoolDestroy(mine));
  const cudaError_t bad = cudaMemPoolSetAttribute(pool, cudaMemPoolAttrUsedMemHigh, &threshold);
  std::printf("setting the used high-water mark to non-zero: %s\n", cudaGetErrorName(bad));

  // A graph of one kernel node; its parameters changed in the executable graph, then in the graph
  // and carried over by cudaGraphExecUpdate (CUDA 11's four-argument form).
  cudaGraph_t graph;
  CHECK(cudaGraphCreate(&graph, 0));
  float k = 4.0f;
  int count = n;
  void* args[] = {&a, &b, &k, &count};
  cudaKernelNodeParams p = {};
  p.func = reinterpret_cast<void*>(scale);
  p.gridDim = dim3(n / 256);
  p.blockDim = dim3(256);
  p.kernelParams = args;
  cudaGraphNode_t node;
  CHECK(cudaGraphAddKernelNode(&node, graph, nullptr, 0, &p));
  cudaGraphExec_t exec;
  CHECK(cudaGraphInstantiate(&exec, graph, 0));
  k = 100.0f;  // the node copied its arguments when it was made
  CHECK(cudaGraphLaunch(exec, s));
  CHECK(cudaStreamSynchronize(s));
  if (sum_of(b, n, &total) != 0) return 1;
  std::printf("graph, 4x: %.1f\n", total);
  k = 5.0f;
  CHECK(cudaGraphExecKernelNodeSetParams(exec, node, &p));
  CHECK(cudaGraphLaunch(exec, s));
  CHECK(cudaStreamSynchronize(s));
  if (sum_of(b, n, &total) != 0) return 1;
  std::printf("executable graph's node set to 5x: %.1f\n", total);
  k = 6.0f;
  count = n / 2;
  CHECK(cudaGraphKernelNodeSetParams(node, &p));
  cudaGraphNode_t error_node = nullptr;
  cudaGraphExecUpdateResult result = cudaGraphExecUpdateError;
  CHECK(cudaGraphExecUpdate(exec, graph, &error_node, &result));
  std::printf("update: %s\n", result == cudaGraphExecUpdateSuccess ? "success" : "failed");
  CHECK(cudaMemset(b, 0, sizeof(float) * n));
  CHECK(cudaGraphLaunch(exec, s));
  CHECK(cudaStreamSynchronize(s));
  if (sum_of(b, n, &total) != 0) return 1;
  std::printf("graph's node set to 6x over half: %.1f\n", total);
  CHECK(cudaGraphExecDestroy(exec));
  CHECK(cudaGraphDestroy(graph));
  CHECK(cudaFreeAsync(a, s));
  CHECK(cudaFreeAsync(b, s));
  CHECK(cudaStreamSynchronize(s));
  CHECK(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemCurrent, &used));
  std::printf("default pool in use at the end: %llu\n", used);
  CHECK(cudaStreamDestroy(s));
  return 0;
}
