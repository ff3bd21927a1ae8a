// A graph inside a graph: a child graph (add one, then double) is copied into a parent graph after
// a memset node and before a host node, and runs there each time the parent runs. A node added to
// the child afterwards changes nothing in the parent, as CUDA copies the child when the node is made.
#include <cstdio>

__global__ void add_one(int* v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) v[i] += 1;
}

__global__ void twice(int* v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) v[i] *= 2;
}

struct Check {
  int* device;
  int* host;
  int n;
  int runs;
};

// Counts only: a GPU runs host nodes on a thread of its own, so their output's place among the
// program's own lines is not fixed.
void report(void* data) {
  ++static_cast<Check*>(data)->runs;
}

int main() {
  int n = 1000;
  int* d;
  cudaMalloc(&d, n * sizeof(int));

  cudaGraph_t child;
  cudaGraphCreate(&child, 0);
  cudaGraphNode_t k1, k2;
  void* args[] = {&d, &n};
  cudaKernelNodeParams p = {};
  p.func = (void*)add_one;
  p.gridDim = dim3((n + 255) / 256);
  p.blockDim = dim3(256);
  p.kernelParams = args;
  cudaGraphAddKernelNode(&k1, child, nullptr, 0, &p);
  p.func = (void*)twice;
  cudaGraphAddKernelNode(&k2, child, &k1, 1, &p);

  cudaGraph_t parent;
  cudaGraphCreate(&parent, 0);
  cudaGraphNode_t zero, sub, host;
  cudaMemsetParams m = {};
  m.dst = d;
  m.value = 0;
  m.elementSize = 1;
  m.width = n * sizeof(int);
  m.height = 1;
  cudaGraphAddMemsetNode(&zero, parent, nullptr, 0, &m);
  printf("child node: %s\n",
         cudaGetErrorName(cudaGraphAddChildGraphNode(&sub, parent, &zero, 1, child)));
  Check check = {d, nullptr, n, 0};
  cudaHostNodeParams h = {report, &check};
  cudaGraphAddHostNode(&host, parent, &sub, 1, &h);

  // Added to the child after the copy: not in the parent.
  cudaGraphNode_t k3;
  p.func = (void*)add_one;
  cudaGraphAddKernelNode(&k3, child, &k2, 1, &p);

  cudaGraphExec_t exec;
  printf("instantiate: %s\n", cudaGetErrorName(cudaGraphInstantiate(&exec, parent, 0)));
  for (int run = 0; run < 2; ++run) {
    printf("launch: %s\n", cudaGetErrorName(cudaGraphLaunch(exec, 0)));
    printf("synchronize: %s\n", cudaGetErrorName(cudaStreamSynchronize(0)));
  }
  int* out = new int[n];
  cudaMemcpy(out, d, n * sizeof(int), cudaMemcpyDeviceToHost);
  int wrong = 0;
  for (int i = 0; i < n; ++i) wrong += out[i] != 2;
  printf("every element (0 + 1) * 2: %d wrong\n", wrong);
  printf("host node ran %d times\n", check.runs);
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(parent);
  cudaGraphDestroy(child);
  cudaFree(d);
  delete[] out;
  return 0;
}
