// Conditional graph nodes: IF with one and two bodies, WHILE (its value reset at each launch, or
// set by a kernel before it), SWITCH, a body filled by capturing a stream into it, and a node added
// by hand to a stream capture. Kernels record what ran in a log; the host prints it after each
// launch. The expected output is what CUDA's documentation of these nodes says (the emulator
// prints it); it is still to be compared with a GPU's (bench/run_semantics.sh).
#include <cstdio>

#define CHECK(call)                                                            \
  do {                                                                         \
    cudaError_t e_ = (call);                                                   \
    if (e_ != cudaSuccess) {                                                   \
      std::printf("line %d: %s: %s\n", __LINE__, #call, cudaGetErrorName(e_)); \
      return 1;                                                                \
    }                                                                          \
  } while (0)

__device__ int g_log[64];
__device__ int g_count;
__device__ int g_counter;

__global__ void note(int what) {
  if (g_count < 64) g_log[g_count++] = what;
}

__global__ void set_from(const int* value, cudaGraphConditionalHandle h) {
  cudaGraphSetConditional(h, static_cast<unsigned>(*value));
}

// Counts g_counter down; the loop goes on while it is above 0.
__global__ void step(cudaGraphConditionalHandle h) {
  if (g_count < 64) g_log[g_count++] = 100 + g_counter;
  --g_counter;
  cudaGraphSetConditional(h, g_counter > 0 ? 1u : 0u);
}

int show(const char* what) {
  int count = 0, log[64];
  if (cudaMemcpyFromSymbol(&count, g_count, sizeof count) != cudaSuccess) return 1;
  if (cudaMemcpyFromSymbol(log, g_log, sizeof log) != cudaSuccess) return 1;
  std::printf("%s:", what);
  for (int i = 0; i < count && i < 64; ++i) std::printf(" %d", log[i]);
  std::printf("\n");
  const int zero = 0;
  return cudaMemcpyToSymbol(g_count, &zero, sizeof zero) == cudaSuccess ? 0 : 1;
}

// Launches the graph, waits, and prints the log under `label` followed by `n`.
int launch_and_show(cudaGraphExec_t exec, cudaStream_t stream, const char* label, int n) {
  if (cudaGraphLaunch(exec, stream) != cudaSuccess) return 1;
  if (cudaStreamSynchronize(stream) != cudaSuccess) return 1;
  char what[48];
  std::snprintf(what, sizeof what, "%s %d", label, n);
  return show(what);
}

cudaError_t add_kernel(cudaGraphNode_t* node, cudaGraph_t graph, const cudaGraphNode_t* deps,
                       size_t count, void* func, void** args) {
  cudaGraphNodeParams p = {cudaGraphNodeTypeKernel};
  p.kernel.func = func;
  p.kernel.gridDim = dim3(1);
  p.kernel.blockDim = dim3(1);
  p.kernel.kernelParams = args;
  return cudaGraphAddNode(node, graph, deps, nullptr, count, &p);
}

int main() {
  int* value;
  CHECK(cudaMalloc(&value, sizeof(int)));
  cudaStream_t stream;
  CHECK(cudaStreamCreate(&stream));

  // IF with an else body: a kernel sets the handle from *value.
  {
    cudaGraph_t graph;
    CHECK(cudaGraphCreate(&graph, 0));
    cudaGraphConditionalHandle h;
    CHECK(cudaGraphConditionalHandleCreate(&h, graph));
    cudaGraphNode_t set, cond, body;
    void* set_args[] = {&value, &h};
    CHECK(add_kernel(&set, graph, nullptr, 0, reinterpret_cast<void*>(set_from), set_args));
    cudaGraphNodeParams c = {cudaGraphNodeTypeConditional};
    c.conditional.handle = h;
    c.conditional.type = cudaGraphCondTypeIf;
    c.conditional.size = 2;
    CHECK(cudaGraphAddNode(&cond, graph, &set, nullptr, 1, &c));
    int then_mark = 1, else_mark = 2;
    void* then_args[] = {&then_mark};
    void* else_args[] = {&else_mark};
    CHECK(add_kernel(&body, c.conditional.phGraph_out[0], nullptr, 0, reinterpret_cast<void*>(note),
                     then_args));
    CHECK(add_kernel(&body, c.conditional.phGraph_out[1], nullptr, 0, reinterpret_cast<void*>(note),
                     else_args));
    cudaGraphExec_t exec;
    CHECK(cudaGraphInstantiate(&exec, graph, 0));
    for (int v : {0, 7}) {
      CHECK(cudaMemcpy(value, &v, sizeof v, cudaMemcpyHostToDevice));
      if (launch_and_show(exec, stream, "if/else, value", v) != 0) return 1;
    }
    CHECK(cudaGraphExecDestroy(exec));
    CHECK(cudaGraphDestroy(graph));
  }

  // WHILE, its value 1 at each launch (cudaGraphCondAssignDefault); the body is captured.
  {
    cudaGraph_t graph;
    CHECK(cudaGraphCreate(&graph, 0));
    cudaGraphConditionalHandle h;
    CHECK(cudaGraphConditionalHandleCreate(&h, graph, 1, cudaGraphCondAssignDefault));
    cudaGraphNode_t cond;
    cudaGraphNodeParams c = {cudaGraphNodeTypeConditional};
    c.conditional.handle = h;
    c.conditional.type = cudaGraphCondTypeWhile;
    c.conditional.size = 1;
    CHECK(cudaGraphAddNode(&cond, graph, nullptr, nullptr, 0, &c));
    cudaStream_t capture;
    CHECK(cudaStreamCreate(&capture));
    CHECK(cudaStreamBeginCaptureToGraph(capture, c.conditional.phGraph_out[0], nullptr, nullptr, 0,
                                        cudaStreamCaptureModeGlobal));
    step<<<1, 1, 0, capture>>>(h);
    CHECK(cudaStreamEndCapture(capture, nullptr));
    CHECK(cudaStreamDestroy(capture));
    cudaGraphExec_t exec;
    CHECK(cudaGraphInstantiate(&exec, graph, 0));
    for (int start : {3, 0}) {
      CHECK(cudaMemcpyToSymbol(g_counter, &start, sizeof start));
      if (launch_and_show(exec, stream, "do-while from", start) != 0) return 1;
    }
    CHECK(cudaGraphExecDestroy(exec));
    CHECK(cudaGraphDestroy(graph));
  }

  // SWITCH over three bodies; values past the last run none.
  {
    cudaGraph_t graph;
    CHECK(cudaGraphCreate(&graph, 0));
    cudaGraphConditionalHandle h;
    CHECK(cudaGraphConditionalHandleCreate(&h, graph));
    cudaGraphNode_t set, cond, body;
    void* set_args[] = {&value, &h};
    CHECK(add_kernel(&set, graph, nullptr, 0, reinterpret_cast<void*>(set_from), set_args));
    cudaGraphNodeParams c = {cudaGraphNodeTypeConditional};
    c.conditional.handle = h;
    c.conditional.type = cudaGraphCondTypeSwitch;
    c.conditional.size = 3;
    CHECK(cudaGraphAddNode(&cond, graph, &set, nullptr, 1, &c));
    int marks[3] = {10, 11, 12};
    void* args[3][1] = {{&marks[0]}, {&marks[1]}, {&marks[2]}};
    for (int i = 0; i < 3; ++i) {
      CHECK(add_kernel(&body, c.conditional.phGraph_out[i], nullptr, 0,
                       reinterpret_cast<void*>(note), args[i]));
    }
    cudaGraphExec_t exec;
    CHECK(cudaGraphInstantiate(&exec, graph, 0));
    for (int v : {2, 0, 5}) {
      CHECK(cudaMemcpy(value, &v, sizeof v, cudaMemcpyHostToDevice));
      if (launch_and_show(exec, stream, "switch, value", v) != 0) return 1;
    }
    CHECK(cudaGraphExecDestroy(exec));
    CHECK(cudaGraphDestroy(graph));
  }

  // A conditional node added by hand to a stream capture, between two captured kernels.
  {
    cudaStream_t capture;
    CHECK(cudaStreamCreate(&capture));
    CHECK(cudaStreamBeginCapture(capture, cudaStreamCaptureModeGlobal));
    cudaStreamCaptureStatus status;
    cudaGraph_t graph;
    const cudaGraphNode_t* deps = nullptr;
    size_t count = 0;
    CHECK(cudaStreamGetCaptureInfo(capture, &status, nullptr, &graph, &deps, nullptr, &count));
    std::printf("capturing: %s, %zu dependencies\n",
                status == cudaStreamCaptureStatusActive ? "yes" : "no", count);
    cudaGraphConditionalHandle h;
    CHECK(cudaGraphConditionalHandleCreate(&h, graph));
    set_from<<<1, 1, 0, capture>>>(value, h);
    CHECK(cudaStreamGetCaptureInfo(capture, &status, nullptr, &graph, &deps, nullptr, &count));
    std::printf("after a kernel: %zu dependency\n", count);
    cudaGraphNode_t cond, body;
    cudaGraphNodeParams c = {cudaGraphNodeTypeConditional};
    c.conditional.handle = h;
    c.conditional.type = cudaGraphCondTypeIf;
    c.conditional.size = 1;
    CHECK(cudaGraphAddNode(&cond, graph, deps, nullptr, count, &c));
    int mark = 20;
    void* args[] = {&mark};
    CHECK(add_kernel(&body, c.conditional.phGraph_out[0], nullptr, 0, reinterpret_cast<void*>(note),
                     args));
    CHECK(cudaStreamUpdateCaptureDependencies(capture, &cond, nullptr, 1,
                                              cudaStreamSetCaptureDependencies));
    note<<<1, 1, 0, capture>>>(21);
    cudaGraph_t captured;
    CHECK(cudaStreamEndCapture(capture, &captured));
    size_t nodes = 0;
    CHECK(cudaGraphGetNodes(captured, nullptr, &nodes));
    std::printf("captured graph: %zu nodes\n", nodes);
    cudaGraphExec_t exec;
    CHECK(cudaGraphInstantiate(&exec, captured, 0));
    for (int v : {1, 0}) {
      CHECK(cudaMemcpy(value, &v, sizeof v, cudaMemcpyHostToDevice));
      if (launch_and_show(exec, stream, "captured if, value", v) != 0) return 1;
    }
    CHECK(cudaGraphExecDestroy(exec));
    CHECK(cudaGraphDestroy(captured));
    CHECK(cudaStreamDestroy(capture));
  }

  CHECK(cudaStreamDestroy(stream));
  CHECK(cudaFree(value));
  std::printf("done\n");
  return 0;
}
