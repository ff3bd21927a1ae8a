// A graph replays each kind of kernel as a direct launch runs it: a two-dimensional block, a block
// that waits at a barrier, a warp shuffle, a by-value argument with its own copy constructor (its
// bytes are the parameter), a template, and a kernel node added by address. Each is captured or
// added once and the graph launched four times; every result is checked against the host.
#include <cstdio>

__global__ void grid2d(int* v, int width, int height) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < width && y < height) v[y * width + x] += y * width + x;
}

__global__ void block_sums(const int* in, int* out) {
  __shared__ int s[128];
  s[threadIdx.x] = in[blockIdx.x * blockDim.x + threadIdx.x];
  __syncthreads();
  for (int stride = blockDim.x / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride) s[threadIdx.x] += s[threadIdx.x + stride];
    __syncthreads();
  }
  if (threadIdx.x == 0) out[blockIdx.x] += s[0];
}

__global__ void warp_sums(const int* in, int* out) {
  int v = in[blockIdx.x * blockDim.x + threadIdx.x];
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffffu, v, offset);
  if (threadIdx.x % 32 == 0) out[(blockIdx.x * blockDim.x + threadIdx.x) / 32] += v;
}

struct Step {
  int by;
  __host__ __device__ explicit Step(int b) : by(b) {}
  __host__ __device__ Step(const Step& o) : by(o.by) {}
};

__global__ void add_step(int* v, Step step, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) v[i] += step.by;
}

template <int Times>
__global__ void times(int* v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) v[i] = v[i] * Times % 1000003;
}

__global__ void by_address(int* v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) v[i] += 7;
}

int main() {
  const int width = 37, height = 19, cells = width * height;
  const int n = 1024;  // 8 blocks of 128
  int *d2, *in, *bsum, *wsum, *v;
  cudaMalloc(&d2, cells * sizeof(int));
  cudaMalloc(&in, n * sizeof(int));
  cudaMalloc(&bsum, 8 * sizeof(int));
  cudaMalloc(&wsum, 32 * sizeof(int));
  cudaMalloc(&v, n * sizeof(int));
  int h_in[n];
  for (int i = 0; i < n; ++i) h_in[i] = (i * 37) % 101 - 50;
  cudaMemcpy(in, h_in, sizeof h_in, cudaMemcpyHostToDevice);
  cudaMemset(d2, 0, cells * sizeof(int));
  cudaMemset(bsum, 0, 8 * sizeof(int));
  cudaMemset(wsum, 0, 32 * sizeof(int));
  cudaMemset(v, 0, n * sizeof(int));

  cudaStream_t stream;
  cudaStreamCreate(&stream);
  cudaGraph_t graph;
  cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal);
  grid2d<<<dim3(5, 5), dim3(8, 4), 0, stream>>>(d2, width, height);
  block_sums<<<8, 128, 0, stream>>>(in, bsum);
  warp_sums<<<8, 128, 0, stream>>>(in, wsum);
  add_step<<<8, 128, 0, stream>>>(v, Step(3), n);
  times<5><<<8, 128, 0, stream>>>(v, n);
  cudaStreamEndCapture(stream, &graph);

  // A kernel node by address, after the captured nodes.
  size_t count = 0;
  cudaGraphGetNodes(graph, nullptr, &count);
  cudaGraphNode_t nodes[8];
  cudaGraphGetNodes(graph, nodes, &count);
  void* args[] = {&v, const_cast<int*>(&n)};
  cudaKernelNodeParams p = {};
  p.func = reinterpret_cast<void*>(by_address);
  p.gridDim = dim3(8);
  p.blockDim = dim3(128);
  p.kernelParams = args;
  cudaGraphNode_t last;
  cudaGraphAddKernelNode(&last, graph, &nodes[count - 1], 1, &p);

  cudaGraphExec_t exec;
  cudaGraphInstantiate(&exec, graph, nullptr, nullptr, 0);
  const int replays = 4;
  for (int r = 0; r < replays; ++r) cudaGraphLaunch(exec, stream);
  cudaStreamSynchronize(stream);
  printf("graph: %zu nodes, launched %d times: %s\n", count + 1, replays,
         cudaGetErrorString(cudaGetLastError()));

  int h2[cells], hb[8], hw[32], hv[n];
  cudaMemcpy(h2, d2, sizeof h2, cudaMemcpyDeviceToHost);
  cudaMemcpy(hb, bsum, sizeof hb, cudaMemcpyDeviceToHost);
  cudaMemcpy(hw, wsum, sizeof hw, cudaMemcpyDeviceToHost);
  cudaMemcpy(hv, v, sizeof hv, cudaMemcpyDeviceToHost);

  int wrong = 0;
  for (int i = 0; i < cells; ++i) wrong += h2[i] != replays * i;
  printf("two-dimensional blocks: %d of %d cells wrong\n", wrong, cells);
  wrong = 0;
  for (int b = 0; b < 8; ++b) {
    int s = 0;
    for (int i = 0; i < 128; ++i) s += h_in[b * 128 + i];
    wrong += hb[b] != replays * s;
  }
  printf("barrier: %d of 8 block sums wrong (block 0: %d)\n", wrong, hb[0]);
  wrong = 0;
  for (int w = 0; w < 32; ++w) {
    int s = 0;
    for (int i = 0; i < 32; ++i) s += h_in[w * 32 + i];
    wrong += hw[w] != replays * s;
  }
  printf("warp shuffle: %d of 32 warp sums wrong (warp 0: %d)\n", wrong, hw[0]);
  long long expected = 0;
  for (int r = 0; r < replays; ++r) expected = ((expected + 3) * 5 % 1000003) + 7;
  wrong = 0;
  for (int i = 0; i < n; ++i) wrong += hv[i] != expected;
  printf("by-value argument, template, kernel node: %d of %d wrong (each %d)\n", wrong, n, hv[0]);

  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
  cudaStreamDestroy(stream);
  cudaFree(d2);
  cudaFree(in);
  cudaFree(bsum);
  cudaFree(wsum);
  cudaFree(v);
  return 0;
}
