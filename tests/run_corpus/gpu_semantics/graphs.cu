// CUDA graphs: a stream capture (memset, two kernels, a copy back, with a second stream joined by
// events) and an explicit graph (memset, kernel, host and empty nodes with dependencies), each
// launched several times, then updated with cudaGraphExecUpdate. Checked against the host.
#include <cstdio>

__global__ void add(float* v, float x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) v[i] += x;
}

__global__ void scale(float* v, float x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) v[i] *= x;
}

int host_calls = 0;
void count_call(void* data) {
  ++host_calls;
  *static_cast<int*>(data) += 10;
}

int check(const float* h, int n, float expected) {
  int wrong = 0;
  for (int i = 0; i < n; ++i) wrong += h[i] != expected;
  return wrong;
}

int main() {
  const int n = 1000;
  float *d, *e;
  cudaMalloc(&d, n * sizeof(float));
  cudaMalloc(&e, n * sizeof(float));
  float* h = nullptr;  // pinned: the captured copy back goes to page-locked memory
  cudaMallocHost(&h, n * sizeof(float));
  cudaStream_t s, side;
  cudaStreamCreate(&s);
  cudaStreamCreate(&side);
  cudaEvent_t fork, join;
  cudaEventCreate(&fork);
  cudaEventCreate(&join);

  // Captured: d = (0 + 1) * 3 + 2 (the +2 on the side stream), copied back.
  cudaGraph_t captured;
  printf("begin capture: %s\n", cudaGetErrorName(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal)));
  cudaStreamCaptureStatus status;
  cudaStreamIsCapturing(s, &status);
  printf("capturing: %s\n", status == cudaStreamCaptureStatusActive ? "yes" : "no");
  cudaMemsetAsync(d, 0, n * sizeof(float), s);
  add<<<4, 256, 0, s>>>(d, 1.0f, n);
  scale<<<4, 256, 0, s>>>(d, 3.0f, n);
  cudaEventRecord(fork, s);
  cudaStreamWaitEvent(side, fork, 0);
  add<<<4, 256, 0, side>>>(d, 2.0f, n);
  cudaEventRecord(join, side);
  cudaStreamWaitEvent(s, join, 0);
  cudaMemcpyAsync(h, d, n * sizeof(float), cudaMemcpyDeviceToHost, s);
  printf("end capture: %s\n", cudaGetErrorName(cudaStreamEndCapture(s, &captured)));
  size_t nodes = 0;
  cudaGraphGetNodes(captured, nullptr, &nodes);
  printf("captured nodes: %zu\n", nodes);
  h[0] = -1;
  printf("nothing ran while capturing: %s\n", h[0] == -1 ? "yes" : "no");
  cudaGraphExec_t exec;
  printf("instantiate: %s\n", cudaGetErrorName(cudaGraphInstantiate(&exec, captured, 0)));
  for (int r = 0; r < 3; ++r) {
    cudaGraphLaunch(exec, s);
    cudaStreamSynchronize(s);
    printf("captured graph, launch %d: %d wrong\n", r, check(h, n, 5.0f));
  }

  // Captured again with other values: the same topology, so the executable graph is updated.
  cudaGraph_t again;
  cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);
  cudaMemsetAsync(d, 0, n * sizeof(float), s);
  add<<<4, 256, 0, s>>>(d, 2.0f, n);
  scale<<<4, 256, 0, s>>>(d, 5.0f, n);
  cudaEventRecord(fork, s);
  cudaStreamWaitEvent(side, fork, 0);
  add<<<4, 256, 0, side>>>(d, 1.0f, n);
  cudaEventRecord(join, side);
  cudaStreamWaitEvent(s, join, 0);
  cudaMemcpyAsync(h, d, n * sizeof(float), cudaMemcpyDeviceToHost, s);
  cudaStreamEndCapture(s, &again);
  cudaGraphExecUpdateResultInfo info;
  printf("update: %s\n", cudaGetErrorName(cudaGraphExecUpdate(exec, again, &info)));
  cudaGraphLaunch(exec, s);
  cudaStreamSynchronize(s);
  printf("updated graph: %d wrong\n", check(h, n, 11.0f));

  // Explicit: memset e to 0 -> kernel e += 4 -> host node and empty node -> kernel e *= 2.
  cudaGraph_t g;
  cudaGraphCreate(&g, 0);
  cudaGraphNode_t set, first, host, empty, second;
  cudaMemsetParams mp = {};
  mp.dst = e;
  mp.value = 0;
  mp.elementSize = 4;
  mp.width = n;
  mp.height = 1;
  cudaGraphAddMemsetNode(&set, g, nullptr, 0, &mp);
  float four = 4.0f, two = 2.0f;
  int count = n;
  void* add_args[] = {&e, &four, &count};
  cudaKernelNodeParams kp = {};
  kp.func = (void*)add;
  kp.gridDim = dim3(4);
  kp.blockDim = dim3(256);
  kp.kernelParams = add_args;
  printf("kernel node: %s\n", cudaGetErrorName(cudaGraphAddKernelNode(&first, g, &set, 1, &kp)));
  four = 100.0f;  // the node keeps the values it was given
  int host_data = 0;
  cudaHostNodeParams hp = {count_call, &host_data};
  cudaGraphAddHostNode(&host, g, &first, 1, &hp);
  cudaGraphAddEmptyNode(&empty, g, &first, 1);
  void* scale_args[] = {&e, &two, &count};
  kp.func = (void*)scale;
  kp.kernelParams = scale_args;
  cudaGraphNode_t both[] = {host, empty};
  cudaGraphAddKernelNode(&second, g, both, 2, &kp);
  cudaGraphExec_t gexec;
  cudaGraphInstantiate(&gexec, g, 0);
  for (int r = 0; r < 2; ++r) cudaGraphLaunch(gexec, s);
  cudaStreamSynchronize(s);
  cudaMemcpy(h, e, n * sizeof(float), cudaMemcpyDeviceToHost);
  printf("explicit graph: %d wrong, host node ran %d times (data %d)\n", check(h, n, 8.0f),
         host_calls, host_data);

  cudaGraphExecDestroy(exec);
  cudaGraphExecDestroy(gexec);
  cudaGraphDestroy(captured);
  cudaGraphDestroy(again);
  cudaGraphDestroy(g);
  cudaStreamDestroy(s);
  cudaStreamDestroy(side);
  cudaEventDestroy(fork);
  cudaEventDestroy(join);
  cudaFree(d);
  cudaFree(e);
  cudaFreeHost(h);
  printf("last error: %s\n", cudaGetErrorName(cudaGetLastError()));
  return 0;
}
