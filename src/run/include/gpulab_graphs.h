// CUDA graphs on gpulab's emulator (included by cuda_runtime.h; implemented in
// src/run/runtime/graph.cpp): stream capture and explicit graphs of kernel, memcpy, memset, host,
// empty and child graph nodes, run in dependency order. Types and values are CUDA 13's.
#pragma once

struct CUgraph_st;
typedef struct CUgraph_st* cudaGraph_t;
struct CUgraphExec_st;
typedef struct CUgraphExec_st* cudaGraphExec_t;
struct CUgraphNode_st;
typedef struct CUgraphNode_st* cudaGraphNode_t;

enum cudaStreamCaptureMode {
  cudaStreamCaptureModeGlobal = 0,
  cudaStreamCaptureModeThreadLocal = 1,
  cudaStreamCaptureModeRelaxed = 2,
};
enum cudaStreamCaptureStatus {
  cudaStreamCaptureStatusNone = 0,
  cudaStreamCaptureStatusActive = 1,
  cudaStreamCaptureStatusInvalidated = 2,
};
enum cudaGraphNodeType {
  cudaGraphNodeTypeKernel = 0x00,
  cudaGraphNodeTypeMemcpy = 0x01,
  cudaGraphNodeTypeMemset = 0x02,
  cudaGraphNodeTypeHost = 0x03,
  cudaGraphNodeTypeGraph = 0x04,
  cudaGraphNodeTypeEmpty = 0x05,
  cudaGraphNodeTypeMemAlloc = 0x0a,
  cudaGraphNodeTypeMemFree = 0x0b,
  cudaGraphNodeTypeConditional = 0x0d,
};
enum cudaGraphExecUpdateResult {
  cudaGraphExecUpdateSuccess = 0x0,
  cudaGraphExecUpdateError = 0x1,
  cudaGraphExecUpdateErrorTopologyChanged = 0x2,
  cudaGraphExecUpdateErrorNodeTypeChanged = 0x3,
  cudaGraphExecUpdateErrorFunctionChanged = 0x4,
  cudaGraphExecUpdateErrorParametersChanged = 0x5,
  cudaGraphExecUpdateErrorNotSupported = 0x6,
};
struct cudaGraphExecUpdateResultInfo {
  enum cudaGraphExecUpdateResult result;
  cudaGraphNode_t errorNode;
  cudaGraphNode_t errorFromNode;
};

struct cudaKernelNodeParams {
  void* func;
  dim3 gridDim;
  dim3 blockDim;
  unsigned int sharedMemBytes;
  void** kernelParams;
  void** extra;
};
struct cudaMemsetParams {
  void* dst;
  size_t pitch;
  unsigned int value;
  unsigned int elementSize;
  size_t width;
  size_t height;
};
typedef void (*cudaHostFn_t)(void* userData);
struct cudaHostNodeParams {
  cudaHostFn_t fn;
  void* userData;
};

// Conditional nodes (CUDA 12.4's IF, WHILE and SWITCH): a handle's value, set by
// cudaGraphSetConditional in a kernel of the graph, decides which body graph runs, at the node's
// turn in the launch. With cudaGraphCondAssignDefault the value is set back to its default at
// each launch of the graph; without, it starts at the default and keeps what a kernel set.
typedef unsigned long long cudaGraphConditionalHandle;
enum cudaGraphConditionalHandleFlags { cudaGraphCondAssignDefault = 1 };
enum cudaGraphConditionalNodeType {
  cudaGraphCondTypeIf = 0,
  cudaGraphCondTypeWhile = 1,
  cudaGraphCondTypeSwitch = 2,
};
struct cudaConditionalNodeParams {
  cudaGraphConditionalHandle handle;
  enum cudaGraphConditionalNodeType type;
  unsigned int size;         // bodies: 1 (IF, WHILE), 2 (IF/ELSE), n (SWITCH)
  cudaGraph_t* phGraph_out;  // the node's body graphs, owned by the node
};
struct cudaKernelNodeParamsV2 {
  void* func;
  dim3 gridDim;
  dim3 blockDim;
  unsigned int sharedMemBytes;
  void** kernelParams;
  void** extra;
};
struct cudaChildGraphNodeParams {
  cudaGraph_t graph;
};
struct cudaGraphEdgeData {
  unsigned char from_port;
  unsigned char to_port;
  unsigned char type;
  unsigned char reserved[5];
};
// cudaGraphAddNode's parameters, one member per node type (the emulator takes kernel, host,
// child graph, empty and conditional nodes this way).
struct cudaGraphNodeParams {
  enum cudaGraphNodeType type;
  int reserved0[3];
  union {
    long long reserved1[29];
    struct cudaKernelNodeParamsV2 kernel;
    struct cudaHostNodeParams host;
    struct cudaChildGraphNodeParams graph;
    struct cudaConditionalNodeParams conditional;
  };
  long long reserved2;
};
cudaError_t cudaGraphConditionalHandleCreate(cudaGraphConditionalHandle* handle, cudaGraph_t graph,
                                             unsigned int default_value = 0,
                                             unsigned int flags = 0);
// In a kernel: the handle's value from now on.
void cudaGraphSetConditional(cudaGraphConditionalHandle handle, unsigned int value);
cudaError_t cudaGraphAddNode(cudaGraphNode_t* node, cudaGraph_t graph,
                             const cudaGraphNode_t* dependencies,
                             const struct cudaGraphEdgeData* edge_data, size_t count,
                             struct cudaGraphNodeParams* params,
                             std::source_location where = std::source_location::current());

cudaError_t cudaStreamBeginCapture(cudaStream_t stream, enum cudaStreamCaptureMode mode);
// A capture into a graph that exists (a conditional node's body), after `dependencies`; its
// cudaStreamEndCapture may pass nullptr for the graph.
cudaError_t cudaStreamBeginCaptureToGraph(cudaStream_t stream, cudaGraph_t graph,
                                          const cudaGraphNode_t* dependencies,
                                          const struct cudaGraphEdgeData* edge_data, size_t count,
                                          enum cudaStreamCaptureMode mode);
cudaError_t cudaStreamEndCapture(cudaStream_t stream, cudaGraph_t* graph);
cudaError_t cudaStreamIsCapturing(cudaStream_t stream, enum cudaStreamCaptureStatus* status);
// CUDA 13's form: the capture's graph and the stream's last nodes, to add nodes by hand.
cudaError_t cudaStreamGetCaptureInfo(cudaStream_t stream, enum cudaStreamCaptureStatus* status,
                                     unsigned long long* id, cudaGraph_t* graph,
                                     const cudaGraphNode_t** dependencies,
                                     const struct cudaGraphEdgeData** edge_data, size_t* count);
enum cudaStreamUpdateCaptureDependenciesFlags {
  cudaStreamAddCaptureDependencies = 0x0,
  cudaStreamSetCaptureDependencies = 0x1,
};
cudaError_t cudaStreamUpdateCaptureDependencies(cudaStream_t stream, cudaGraphNode_t* dependencies,
                                                const struct cudaGraphEdgeData* edge_data,
                                                size_t count, unsigned int flags);
cudaError_t cudaLaunchHostFunc(cudaStream_t stream, cudaHostFn_t fn, void* userData);

cudaError_t cudaGraphCreate(cudaGraph_t* graph, unsigned int flags);
cudaError_t cudaGraphDestroy(cudaGraph_t graph);
cudaError_t cudaGraphAddKernelNode(cudaGraphNode_t* node, cudaGraph_t graph,
                                   const cudaGraphNode_t* dependencies, size_t count,
                                   const struct cudaKernelNodeParams* params,
                                   std::source_location where = std::source_location::current());
// A kernel node's launch shape and arguments changed, in a graph or in an instantiated graph (its
// kernel stays the one the node was made with).
cudaError_t cudaGraphKernelNodeSetParams(
    cudaGraphNode_t node, const struct cudaKernelNodeParams* params,
    std::source_location where = std::source_location::current());
cudaError_t cudaGraphExecKernelNodeSetParams(
    cudaGraphExec_t exec, cudaGraphNode_t node, const struct cudaKernelNodeParams* params,
    std::source_location where = std::source_location::current());
cudaError_t cudaGraphAddMemcpyNode1D(cudaGraphNode_t* node, cudaGraph_t graph,
                                     const cudaGraphNode_t* dependencies, size_t count, void* dst,
                                     const void* src, size_t bytes, enum cudaMemcpyKind kind);
cudaError_t cudaGraphAddMemcpyNode(cudaGraphNode_t* node, cudaGraph_t graph,
                                   const cudaGraphNode_t* dependencies, size_t count,
                                   const struct cudaMemcpy3DParms* params);
cudaError_t cudaGraphAddMemsetNode(cudaGraphNode_t* node, cudaGraph_t graph,
                                   const cudaGraphNode_t* dependencies, size_t count,
                                   const struct cudaMemsetParams* params);
cudaError_t cudaGraphAddHostNode(cudaGraphNode_t* node, cudaGraph_t graph,
                                 const cudaGraphNode_t* dependencies, size_t count,
                                 const struct cudaHostNodeParams* params);
cudaError_t cudaGraphAddEmptyNode(cudaGraphNode_t* node, cudaGraph_t graph,
                                  const cudaGraphNode_t* dependencies, size_t count);
// Graph memory nodes: the address is chosen when the node is made (params->dptr), as CUDA does;
// the memory is the program's from the allocation node's run until a free node, cudaFree or
// cudaFreeAsync frees it (--check knows it as device memory in between).
struct cudaMemAccessDesc;
struct cudaMemAllocNodeParams {
  struct cudaMemPoolProps poolProps;
  const struct cudaMemAccessDesc* accessDescs;
  size_t accessDescCount;
  size_t bytesize;
  void* dptr;
};
cudaError_t cudaGraphAddMemAllocNode(cudaGraphNode_t* node, cudaGraph_t graph,
                                     const cudaGraphNode_t* dependencies, size_t count,
                                     struct cudaMemAllocNodeParams* params,
                                     std::source_location where = std::source_location::current());
cudaError_t cudaGraphAddMemFreeNode(cudaGraphNode_t* node, cudaGraph_t graph,
                                    const cudaGraphNode_t* dependencies, size_t count, void* dptr);
cudaError_t cudaGraphAddChildGraphNode(cudaGraphNode_t* node, cudaGraph_t graph,
                                       const cudaGraphNode_t* dependencies, size_t count,
                                       cudaGraph_t child);
cudaError_t cudaGraphAddDependencies(cudaGraph_t graph, const cudaGraphNode_t* from,
                                     const cudaGraphNode_t* to, size_t count);
cudaError_t cudaGraphClone(cudaGraph_t* clone, cudaGraph_t original);
cudaError_t cudaGraphGetNodes(cudaGraph_t graph, cudaGraphNode_t* nodes, size_t* count);
cudaError_t cudaGraphNodeGetType(cudaGraphNode_t node, enum cudaGraphNodeType* type);
cudaError_t cudaGraphInstantiate(cudaGraphExec_t* exec, cudaGraph_t graph,
                                 unsigned long long flags = 0);
// CUDA 11's form, which cuda_runtime.h still offers C++ programs: no error node or log is given.
inline cudaError_t cudaGraphInstantiate(cudaGraphExec_t* exec, cudaGraph_t graph,
                                        cudaGraphNode_t* error_node, char* log, size_t log_bytes) {
  (void)error_node;
  (void)log;
  (void)log_bytes;
  return cudaGraphInstantiate(exec, graph, 0ULL);
}
cudaError_t cudaGraphExecUpdate(cudaGraphExec_t exec, cudaGraph_t graph,
                                cudaGraphExecUpdateResultInfo* result);
// CUDA 11's form, which CUDA 12 and 13 keep in C++: the node and the result apart.
inline cudaError_t cudaGraphExecUpdate(cudaGraphExec_t exec, cudaGraph_t graph,
                                       cudaGraphNode_t* error_node,
                                       enum cudaGraphExecUpdateResult* result) {
  cudaGraphExecUpdateResultInfo info{};
  const cudaError_t status = cudaGraphExecUpdate(exec, graph, &info);
  if (error_node != nullptr) *error_node = info.errorNode;
  if (result != nullptr) *result = info.result;
  return status;
}
cudaError_t cudaGraphLaunch(cudaGraphExec_t exec, cudaStream_t stream);
cudaError_t cudaGraphExecDestroy(cudaGraphExec_t exec);

namespace gpulab::rt {

// Kernels a program defines, by address, so that a kernel node (or any launch that names the
// kernel by a `void*`) can be made from an array of pointers to its arguments. gpulab's rewrite
// registers every kernel where it is defined, and a template's instantiation where it is named.
using LaunchFromArguments = void (*)(const void* kernel, const LaunchSite& site,
                                     const LaunchConfig& config, void** arguments);
bool register_kernel_erased(const void* address, const char* name, LaunchFromArguments launch);
// The kernel registered at `address` (its name in *name), or nullptr.
LaunchFromArguments registered_kernel(const void* address, const char** name);
// cudaLaunchKernel and cudaLaunchCooperativeKernel (`cooperative`: every block resident at once):
// with `launch` when the caller knows the kernel's type, else the registered kernel's; the
// launch's error, as cudaGetLastError would give it.
cudaError_t launch_with_arguments(const void* kernel, dim3 grid, dim3 block, void** args,
                                  size_t shared_bytes, cudaStream_t stream,
                                  const std::source_location& where, LaunchFromArguments launch,
                                  bool cooperative);

template <class... P>
struct RegisteredKernel {
  using Kernel = void (*)(P...);
  static void launch(const void* kernel, const LaunchSite& site, const LaunchConfig& config,
                     void** arguments) {
    launch_indexed(reinterpret_cast<Kernel>(const_cast<void*>(kernel)), site, config, arguments,
                   std::index_sequence_for<P...>{});
  }
  template <size_t... I>
  static void launch_indexed(Kernel kernel, const LaunchSite& site, const LaunchConfig& config,
                             void** arguments, std::index_sequence<I...>) {
    Launcher<UnnamedKernel, Kernel>{site, kernel, UnnamedKernel{},
                                    config}(*static_cast<std::remove_cv_t<P>*>(arguments[I])...);
  }
};

template <class... P>
bool register_kernel(void (*kernel)(P...), const char* name) {
  return register_kernel_erased(reinterpret_cast<const void*>(kernel), name,
                                &RegisteredKernel<P...>::launch);
}
// A kernel template's instantiation where the program names it as a value: registered, and
// given back as it was (gpulab's rewrite wraps `k<T>` and `&k<T>` in it).
template <class... P>
auto registered(void (*kernel)(P...), const char* name) {
  register_kernel(kernel, name);
  return kernel;
}

}  // namespace gpulab::rt
