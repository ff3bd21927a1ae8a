// Memcpy nodes of 3-D copies (cudaGraphAddMemcpyNode with a cudaMemcpy3DParms), as NVIDIA's
// simpleCudaGraphs makes them: a 4x3 window of a host matrix goes into a pitched device matrix at
// (1 column, 2 rows) in, a kernel node adds 100 to the device matrix, a second memcpy node brings
// the device matrix back; a clone of the graph runs too. Then the same copy captured from a
// stream (cudaMemcpy3DAsync) and a node with no parameters.
#include <cstdio>

__global__ void add(int* m, size_t pitch, int width, int height) {
  int x = threadIdx.x, y = blockIdx.x;
  if (x < width && y < height) {
    int* row = (int*)((char*)m + y * pitch);
    row[x] += 100;
  }
}

const int W = 8, H = 6;  // the device matrix, in ints
const int SW = 4, SH = 3;  // the window copied from the host

int main() {
  int src[SH][SW];
  for (int y = 0; y < SH; ++y)
    for (int x = 0; x < SW; ++x) src[y][x] = 10 * y + x + 1;
  int* d;
  size_t pitch;
  cudaMallocPitch((void**)&d, &pitch, W * sizeof(int), H);
  cudaMemset2D(d, pitch, 0, W * sizeof(int), H);
  int back[H][W];

  cudaGraph_t graph;
  cudaGraphCreate(&graph, 0);
  cudaGraphNode_t in, kernel, out;
  cudaMemcpy3DParms p = {0};
  p.srcPtr = make_cudaPitchedPtr(src, SW * sizeof(int), SW, SH);
  p.srcPos = make_cudaPos(0, 0, 0);
  p.dstPtr = make_cudaPitchedPtr(d, pitch, W, H);
  p.dstPos = make_cudaPos(1 * sizeof(int), 2, 0);
  p.extent = make_cudaExtent(SW * sizeof(int), SH, 1);
  p.kind = cudaMemcpyHostToDevice;
  printf("memcpy node in: %s\n", cudaGetErrorName(cudaGraphAddMemcpyNode(&in, graph, nullptr, 0, &p)));

  int width = W, height = H;
  void* args[] = {&d, &pitch, &width, &height};
  cudaKernelNodeParams k = {};
  k.func = (void*)add;
  k.gridDim = dim3(H);
  k.blockDim = dim3(32);
  k.kernelParams = args;
  cudaGraphAddKernelNode(&kernel, graph, &in, 1, &k);

  cudaMemcpy3DParms q = {0};
  q.srcPtr = make_cudaPitchedPtr(d, pitch, W, H);
  q.dstPtr = make_cudaPitchedPtr(back, W * sizeof(int), W, H);
  q.extent = make_cudaExtent(W * sizeof(int), H, 1);
  q.kind = cudaMemcpyDeviceToHost;
  printf("memcpy node out: %s\n",
         cudaGetErrorName(cudaGraphAddMemcpyNode(&out, graph, &kernel, 1, &q)));
  printf("no parameters: %s\n",
         cudaGetErrorName(cudaGraphAddMemcpyNode(&out, graph, nullptr, 0, nullptr)));

  cudaGraphExec_t exec;
  cudaGraphInstantiate(&exec, graph, 0);
  printf("launch: %s\n", cudaGetErrorName(cudaGraphLaunch(exec, 0)));
  cudaStreamSynchronize(0);
  for (int y = 0; y < H; ++y) {
    for (int x = 0; x < W; ++x) printf(" %3d", back[y][x]);
    printf("\n");
  }

  // A clone runs the same nodes: every element once more + 100, the window copied again first.
  cudaGraph_t clone;
  printf("clone: %s\n", cudaGetErrorName(cudaGraphClone(&clone, graph)));
  size_t nodes = 0;
  cudaGraphGetNodes(clone, nullptr, &nodes);
  printf("clone's nodes: %zu\n", nodes);
  cudaGraphExec_t clone_exec;
  cudaGraphInstantiate(&clone_exec, clone, 0);
  cudaGraphLaunch(clone_exec, 0);
  cudaStreamSynchronize(0);
  printf("after the clone: corner %d, window's first %d\n", back[0][0], back[2][1]);

  // The copy from a capturing stream is recorded, not run, until the graph is launched.
  cudaStream_t s;
  cudaStreamCreate(&s);
  cudaMemset2D(d, pitch, 0, W * sizeof(int), H);
  cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);
  cudaMemcpy3DAsync(&p, s);
  cudaGraph_t captured;
  cudaStreamEndCapture(s, &captured);
  int probe = -1;
  cudaMemcpy(&probe, (char*)d + 2 * pitch + sizeof(int), sizeof(int), cudaMemcpyDeviceToHost);
  printf("captured, not run yet: %d\n", probe);
  cudaGraphExec_t captured_exec;
  cudaGraphInstantiate(&captured_exec, captured, 0);
  cudaGraphLaunch(captured_exec, s);
  cudaStreamSynchronize(s);
  cudaMemcpy(&probe, (char*)d + 2 * pitch + sizeof(int), sizeof(int), cudaMemcpyDeviceToHost);
  printf("after the launch: %d\n", probe);

  cudaGraphExecDestroy(exec);
  cudaGraphExecDestroy(clone_exec);
  cudaGraphExecDestroy(captured_exec);
  cudaGraphDestroy(graph);
  cudaGraphDestroy(clone);
  cudaGraphDestroy(captured);
  cudaStreamDestroy(s);
  cudaFree(d);
  return 0;
}
