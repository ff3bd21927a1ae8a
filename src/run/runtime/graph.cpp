// CUDA graphs (declared in src/run/include/gpulab_graphs.h): stream capture and explicit graphs.
//
// A graph is its nodes in the order they were made, each with the nodes it depends on. A kernel
// node keeps the launch as gpulab's launch code made it (the kernel, the shape, the function that
// runs one CUDA thread) and a byte copy of its arguments, taken when the node was made, as CUDA
// does. Instantiating orders the nodes so that each comes after the nodes it depends on (among
// ready nodes, the earliest made first); a launch runs them in that order, each as the same call
// on the default stream would: kernels through the ordinary launch (report, faults, printf).
#include "run/runtime/graph.hpp"
#include "run/runtime/handles.hpp"
#include "run/runtime/state.hpp"

#include <algorithm>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <new>
#include <set>
#include <string>
#include <vector>

#include "simt/memory_check.hpp"

#undef printf
#undef malloc
#undef free

struct CUgraphNode_st {
  cudaGraphNodeType type = cudaGraphNodeTypeEmpty;
  std::vector<cudaGraphNode_t> dependencies;
  // Kernel.
  gpulab::rt::LaunchSite site{"", "", 0};
  const void* kernel = nullptr;
  gpulab::rt::LaunchConfig config;
  void (*run_thread)(const void*) = nullptr;
  // The block's thread loop compiled with the kernel (nullptr: the loop over run_thread); a
  // replay runs as fast as the launch it was recorded from.
  void (*run_threads)(const void*, gpulab::simt::detail::ThreadLoop&) = nullptr;
  std::shared_ptr<std::max_align_t[]> closure;  // the arguments' bytes
  size_t closure_bytes = 0;
  // Memcpy: a linear copy (dst, src, count, kind), or with `pitched` the 3-D copy of
  // cudaGraphAddMemcpyNode and of cudaMemcpy3DAsync on a capturing stream.
  void* dst = nullptr;
  const void* src = nullptr;
  size_t count = 0;
  cudaMemcpyKind kind = cudaMemcpyDefault;
  bool pitched = false;
  cudaMemcpy3DParms copy3d{};
  // Memset.
  cudaMemsetParams memset{};
  // Host; a library call's work (graph_record_work) runs as one, through host.fn.
  cudaHostNodeParams host{};
  std::shared_ptr<const std::function<void()>> work;
  // Child graph: a copy of the child's nodes in the order they run, taken when the node was made.
  std::shared_ptr<const std::vector<CUgraphNode_st>> child;
  // Memory allocation or free: the block (its address chosen when the allocation node was made).
  void* block = nullptr;
  size_t block_bytes = 0;
  std::string block_site;    // where the allocation node was made, for --check's reports
  bool block_taken = false;  // a free node whose block a later allocation node of its graph reuses
  // Conditional: the handle, the kind and the body graphs (the node's own); once instantiated,
  // each body's nodes in the order they run.
  cudaGraphConditionalHandle handle = 0;
  cudaGraphConditionalNodeType conditional = cudaGraphCondTypeIf;
  std::shared_ptr<std::vector<cudaGraph_t>> bodies;
  std::shared_ptr<const std::vector<std::vector<CUgraphNode_st>>> body_runs;
};

struct CUgraph_st {
  std::vector<std::unique_ptr<CUgraphNode_st>> nodes;  // in the order they were made
};

struct CUgraphExec_st {
  std::vector<CUgraphNode_st> nodes;  // copies, in the order they run
  std::vector<const CUgraphNode_st*> made_from;
  // The conditional handles of the graph and its bodies: those made with cudaGraphCondAssignDefault
  // take their default value at each launch.
  std::vector<cudaGraphConditionalHandle> handles;
};

namespace gpulab::rt {

namespace {

// A stream capture: the graph being built and, per stream taking part, its last nodes.
struct Capture {
  cudaGraph_t graph = nullptr;
  std::map<cudaStream_t, std::vector<cudaGraphNode_t>> tails;
  bool into_existing = false;  // cudaStreamBeginCaptureToGraph: the graph is the program's
  unsigned long long id = 0;
};

struct Graphs {
  std::mutex mutex;
  std::map<cudaStream_t, std::shared_ptr<Capture>> capturing;  // stream -> its capture
  std::map<cudaEvent_t, std::pair<std::shared_ptr<Capture>, std::vector<cudaGraphNode_t>>> events;
  std::map<const void*, std::pair<const char*, LaunchFromArguments>> kernels;
  std::set<cudaGraph_t> graphs;
  std::set<cudaGraphExec_t> execs;
  // The blocks of graph allocation nodes, by address: their bytes. Kept for the process's life
  // (CUDA reserves the address for the graph; a block outlives the graph that made it).
  std::map<void*, size_t> blocks;
  // Conditional handles: handle h is handles[h - 1].
  struct Handle {
    cudaGraph_t graph;
    unsigned int default_value, flags, value;
  };
  std::vector<Handle> handles;
};
Graphs& graphs() {
  static Graphs* g = new Graphs;  // never destroyed: late calls still use it
  return *g;
}

// The node a kernel launch is being recorded into (cudaGraphAddKernelNode), on this thread.
thread_local CUgraphNode_st* t_kernel_node = nullptr;

// Appends a node to the capture of `stream`, after the stream's last nodes (lock held).
cudaGraphNode_t capture_node(Capture& c, cudaStream_t stream, std::unique_ptr<CUgraphNode_st> n) {
  n->dependencies = c.tails[stream];
  cudaGraphNode_t node = n.get();
  c.graph->nodes.push_back(std::move(n));
  c.tails[stream] = {node};
  return node;
}

std::shared_ptr<Capture> capture_of(Graphs& g, cudaStream_t stream) {
  const auto it = g.capturing.find(stream);
  return it == g.capturing.end() ? nullptr : it->second;
}

bool owns(cudaGraph_t graph, cudaGraphNode_t node) {
  for (const auto& n : graph->nodes)
    if (n.get() == node) return true;
  return false;
}

unsigned long long capture_ids = 0;  // (graphs().mutex held)

// Edge data the emulator takes: none, or every edge a default one (ports and type 0).
bool default_edges(const cudaGraphEdgeData* edges, size_t count) {
  if (edges == nullptr) return true;
  for (size_t i = 0; i < count; ++i) {
    if (edges[i].from_port != 0 || edges[i].to_port != 0 || edges[i].type != 0) return false;
  }
  return true;
}

// Adds node n to `graph` after `dependencies`, all checked; then, with the lock held and the
// dependencies in place, finish(g, n) completes the node (one whose making reads the graphs'
// tables or its own dependencies) and may refuse it with its error.
template <class Finish>
cudaError_t add_finished_node(cudaGraphNode_t* out, cudaGraph_t graph,
                              const cudaGraphNode_t* dependencies, size_t count,
                              std::unique_ptr<CUgraphNode_st> n, Finish finish) {
  Graphs& g = graphs();
  std::lock_guard lock(g.mutex);
  if (out == nullptr || g.graphs.count(graph) == 0 || (count > 0 && dependencies == nullptr)) {
    return cudaErrorInvalidValue;
  }
  for (size_t i = 0; i < count; ++i) {
    if (!owns(graph, dependencies[i])) return cudaErrorInvalidValue;
    n->dependencies.push_back(dependencies[i]);
  }
  if (const cudaError_t e = finish(g, *n); e != cudaSuccess) return e;
  *out = n.get();
  graph->nodes.push_back(std::move(n));
  return cudaSuccess;
}

cudaError_t add_node(cudaGraphNode_t* out, cudaGraph_t graph, const cudaGraphNode_t* dependencies,
                     size_t count, std::unique_ptr<CUgraphNode_st> n) {
  return add_finished_node(out, graph, dependencies, count, std::move(n),
                           [](Graphs&, CUgraphNode_st&) { return cudaSuccess; });
}

// A new node of `type`, its parameters set by fill(node), added as add_node does.
template <class Fill>
cudaError_t add_new_node(cudaGraphNode_t* out, cudaGraph_t graph,
                         const cudaGraphNode_t* dependencies, size_t count, cudaGraphNodeType type,
                         Fill fill) {
  auto n = std::make_unique<CUgraphNode_st>();
  n->type = type;
  fill(*n);
  return add_node(out, graph, dependencies, count, std::move(n));
}

cudaError_t run_memset(const cudaMemsetParams& p) {
  if (p.elementSize != 1 && p.elementSize != 2 && p.elementSize != 4) return cudaErrorInvalidValue;
  const size_t row = p.width * p.elementSize;
  const size_t pitch = p.height > 1 ? p.pitch : row;
  if (p.height > 1 && pitch < row) return cudaErrorInvalidValue;
  for (size_t y = 0; y < p.height; ++y) {
    auto* at = static_cast<unsigned char*>(p.dst) + y * pitch;
    const auto a = simt::find_allocation(at);
    if (!a || reinterpret_cast<std::uintptr_t>(at) + row > a->begin + a->bytes) {
      return cudaErrorInvalidValue;
    }
    for (size_t x = 0; x < p.width; ++x) {
      std::memcpy(at + x * p.elementSize, &p.value, p.elementSize);  // little-endian: low bytes
    }
    simt::mark_initialized(at, row);
  }
  return cudaSuccess;
}

// Each node after every node it depends on; among the ready ones, the earliest made.
std::vector<const CUgraphNode_st*> run_order(const CUgraph_st& graph, bool* cycle) {
  std::map<const CUgraphNode_st*, size_t> index;
  for (size_t i = 0; i < graph.nodes.size(); ++i) index[graph.nodes[i].get()] = i;
  std::vector<size_t> waiting(graph.nodes.size(), 0);
  std::vector<std::vector<size_t>> after(graph.nodes.size());
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    for (cudaGraphNode_t d : graph.nodes[i]->dependencies) {
      ++waiting[i];
      after[index[d]].push_back(i);
    }
  }
  std::set<size_t> ready;
  for (size_t i = 0; i < graph.nodes.size(); ++i)
    if (waiting[i] == 0) ready.insert(i);
  std::vector<const CUgraphNode_st*> order;
  while (!ready.empty()) {
    const size_t i = *ready.begin();
    ready.erase(ready.begin());
    order.push_back(graph.nodes[i].get());
    for (size_t j : after[i])
      if (--waiting[j] == 0) ready.insert(j);
  }
  *cycle = order.size() != graph.nodes.size();
  return order;
}

// A node as an instantiated graph keeps it (lock held): a conditional node with each body's nodes
// in their order, a child graph's conditional nodes too; false for a body with a cycle. The
// handles of the bodies are added to *handles.
bool instantiate_node(const Graphs& g, const CUgraphNode_st& n, CUgraphNode_st* out,
                      std::vector<cudaGraphConditionalHandle>* handles);

// A graph's nodes in their order, instantiated; false for a cycle.
bool instantiate_graph(const Graphs& g, const CUgraph_st& graph, std::vector<CUgraphNode_st>* out,
                       std::vector<const CUgraphNode_st*>* made_from,
                       std::vector<cudaGraphConditionalHandle>* handles) {
  bool cycle = false;
  const auto order = run_order(graph, &cycle);
  if (cycle) return false;
  for (size_t h = 0; h < g.handles.size(); ++h) {
    if (g.handles[h].graph == &graph) handles->push_back(h + 1);
  }
  for (const CUgraphNode_st* n : order) {
    out->emplace_back();
    if (!instantiate_node(g, *n, &out->back(), handles)) return false;
    if (made_from != nullptr) made_from->push_back(n);
  }
  return true;
}

bool instantiate_node(const Graphs& g, const CUgraphNode_st& n, CUgraphNode_st* out,
                      std::vector<cudaGraphConditionalHandle>* handles) {
  *out = n;
  if (n.type == cudaGraphNodeTypeConditional) {
    auto runs = std::make_shared<std::vector<std::vector<CUgraphNode_st>>>();
    for (const cudaGraph_t body : *n.bodies) {
      runs->emplace_back();
      if (!instantiate_graph(g, *body, &runs->back(), nullptr, handles)) return false;
    }
    out->body_runs = std::move(runs);
  } else if (n.type == cudaGraphNodeTypeGraph) {
    auto nodes = std::make_shared<std::vector<CUgraphNode_st>>();
    for (const CUgraphNode_st& c : *n.child) {
      nodes->emplace_back();
      if (!instantiate_node(g, c, &nodes->back(), handles)) return false;
    }
    out->child = std::move(nodes);
  }
  return true;
}

}  // namespace

bool register_kernel_erased(const void* address, const char* name, LaunchFromArguments launch) {
  Graphs& g = graphs();
  std::lock_guard lock(g.mutex);
  g.kernels[address] = {name, launch};
  return true;
}

LaunchFromArguments registered_kernel(const void* address, const char** name) {
  Graphs& g = graphs();
  std::lock_guard lock(g.mutex);
  const auto it = g.kernels.find(address);
  if (it == g.kernels.end()) return nullptr;
  *name = it->second.first;
  return it->second.second;
}

bool graph_record_launch(const LaunchSite& site, const void* kernel, const LaunchConfig& config,
                         void (*run_thread)(const void*), const void* closure, size_t closure_bytes,
                         void (*run_threads)(const void*, simt::detail::ThreadLoop&)) {
  CUgraphNode_st* into = t_kernel_node;
  std::unique_ptr<CUgraphNode_st> made;
  Graphs& g = graphs();
  std::lock_guard lock(g.mutex);
  std::shared_ptr<Capture> c;
  if (into == nullptr) {
    c = capture_of(g, config.stream);
    if (!c) return false;
    made = std::make_unique<CUgraphNode_st>();
    into = made.get();
  }
  into->type = cudaGraphNodeTypeKernel;
  into->site = site;
  into->kernel = kernel;
  into->config = config;
  into->config.stream = nullptr;
  into->run_thread = run_thread;
  into->run_threads = run_threads;
  const size_t words = (closure_bytes + sizeof(std::max_align_t) - 1) / sizeof(std::max_align_t);
  into->closure = std::shared_ptr<std::max_align_t[]>(new std::max_align_t[words]);
  std::memcpy(into->closure.get(), closure, closure_bytes);
  into->closure_bytes = closure_bytes;
  if (made) capture_node(*c, config.stream, std::move(made));
  return true;
}

// A node that `fill` makes, appended to the capture of `stream` when it has one: true.
template <class Fill>
bool record_node(cudaStream_t stream, Fill fill) {
  Graphs& g = graphs();
  std::lock_guard lock(g.mutex);
  const auto c = capture_of(g, stream);
  if (!c) return false;
  auto n = std::make_unique<CUgraphNode_st>();
  fill(*n);
  capture_node(*c, stream, std::move(n));
  return true;
}

bool graph_record_copy(void* dst, const void* src, size_t count, cudaMemcpyKind kind,
                       cudaStream_t stream) {
  return record_node(stream, [&](CUgraphNode_st& n) {
    n.type = cudaGraphNodeTypeMemcpy;
    n.dst = dst;
    n.src = src;
    n.count = count;
    n.kind = kind;
  });
}

bool graph_record_copy_3d(const cudaMemcpy3DParms& p, cudaStream_t stream) {
  return record_node(stream, [&](CUgraphNode_st& n) {
    n.type = cudaGraphNodeTypeMemcpy;
    n.pitched = true;
    n.copy3d = p;
  });
}

namespace {

// An allocation node's block (lock held): the block of a free node among the node's ancestors in
// its graph, large enough and not reused yet, as CUDA reuses an address freed before the
// allocation in the graph's order; else a new one. nullptr when out of memory.
void* graph_block(Graphs& g, const std::vector<cudaGraphNode_t>& dependencies, size_t bytes) {
  std::vector<cudaGraphNode_t> todo = dependencies;
  std::set<cudaGraphNode_t> seen;
  while (!todo.empty()) {
    const cudaGraphNode_t n = todo.back();
    todo.pop_back();
    if (!seen.insert(n).second) continue;
    if (n->type == cudaGraphNodeTypeMemFree && !n->block_taken && n->block_bytes >= bytes) {
      n->block_taken = true;
      return n->block;
    }
    todo.insert(todo.end(), n->dependencies.begin(), n->dependencies.end());
  }
  void* block = ::operator new (std::max<size_t>(bytes, 1), std::align_val_t{256}, std::nothrow);
  if (block != nullptr) g.blocks[block] = bytes;
  return block;
}

// Fills an allocation node (lock held): false when out of memory.
bool fill_alloc(Graphs& g, CUgraphNode_st& n, size_t bytes, const std::source_location& where) {
  n.type = cudaGraphNodeTypeMemAlloc;
  n.block = graph_block(g, n.dependencies, bytes);
  n.block_bytes = bytes;
  n.block_site = site_text(where.file_name(), static_cast<int>(where.line()));
  return n.block != nullptr;
}

// The bytes of a graph allocation's block, 0 when `p` is not one (lock held).
size_t block_bytes(Graphs& g, const void* p) {
  const auto it = g.blocks.find(const_cast<void*>(p));
  return it == g.blocks.end() ? 0 : it->second;
}

}  // namespace

bool graph_record_alloc(void** ptr, size_t bytes, cudaStream_t stream,
                        const std::source_location& where, cudaError_t* error) {
  Graphs& g = graphs();
  std::lock_guard lock(g.mutex);
  const auto c = capture_of(g, stream);
  if (!c) return false;
  if (ptr == nullptr || bytes == 0) {
    *error = cudaErrorInvalidValue;
    return true;
  }
  auto n = std::make_unique<CUgraphNode_st>();
  n->dependencies = c->tails[stream];
  if (!fill_alloc(g, *n, bytes, where)) {
    *error = cudaErrorMemoryAllocation;
    return true;
  }
  *ptr = n->block;
  capture_node(*c, stream, std::move(n));
  *error = cudaSuccess;
  return true;
}

bool graph_record_free(void* ptr, cudaStream_t stream, cudaError_t* error) {
  Graphs& g = graphs();
  std::lock_guard lock(g.mutex);
  const auto c = capture_of(g, stream);
  if (!c) return false;
  const size_t bytes = block_bytes(g, ptr);
  if (bytes == 0) {
    // Only a graph's own allocations are freed inside a graph.
    *error = cudaErrorInvalidValue;
    return true;
  }
  auto n = std::make_unique<CUgraphNode_st>();
  n->type = cudaGraphNodeTypeMemFree;
  n->block = ptr;
  n->block_bytes = bytes;
  capture_node(*c, stream, std::move(n));
  *error = cudaSuccess;
  return true;
}

bool graph_record_memset(void* dst, int value, size_t count, cudaStream_t stream) {
  return record_node(stream, [&](CUgraphNode_st& n) {
    n.type = cudaGraphNodeTypeMemset;
    n.memset = cudaMemsetParams{dst, 0, static_cast<unsigned>(value) & 0xffu, 1, count, 1};
  });
}

bool graph_record_work(cudaStream_t stream, std::function<void()> work) {
  return record_node(stream, [&](CUgraphNode_st& n) {
    n.type = cudaGraphNodeTypeHost;
    n.work = std::make_shared<const std::function<void()>>(std::move(work));
    n.host.fn = [](void* w) { (*static_cast<const std::function<void()>*>(w))(); };
    n.host.userData = const_cast<std::function<void()>*>(n.work.get());
  });
}

bool graph_record_event(cudaEvent_t event, cudaStream_t stream) {
  Graphs& g = graphs();
  std::lock_guard lock(g.mutex);
  const auto c = capture_of(g, stream);
  if (!c) {
    g.events.erase(event);
    return false;
  }
  g.events[event] = {c, c->tails[stream]};
  return true;
}

bool graph_wait_event(cudaStream_t stream, cudaEvent_t event) {
  Graphs& g = graphs();
  std::lock_guard lock(g.mutex);
  const auto it = g.events.find(event);
  if (it == g.events.end()) return false;
  const auto& [c, nodes] = it->second;
  // The waiting stream joins the capture: its next node comes after the event's nodes.
  auto& tail = c->tails[stream];
  if (capture_of(g, stream) != c) tail.clear();
  for (cudaGraphNode_t n : nodes)
    if (std::find(tail.begin(), tail.end(), n) == tail.end()) tail.push_back(n);
  g.capturing[stream] = c;
  return true;
}

}  // namespace gpulab::rt

using gpulab::rt::graphs;

// ---- Stream capture

cudaError_t cudaStreamBeginCapture(cudaStream_t stream, cudaStreamCaptureMode mode) {
  // The legacy default stream cannot be captured.
  if (stream == nullptr || stream == cudaStreamLegacy) return cudaErrorStreamCaptureUnsupported;
  if (mode < cudaStreamCaptureModeGlobal || mode > cudaStreamCaptureModeRelaxed) {
    return cudaErrorInvalidValue;
  }
  auto& g = graphs();
  std::lock_guard lock(g.mutex);
  if (g.capturing.count(stream) != 0) return cudaErrorIllegalState;
  auto c = std::make_shared<gpulab::rt::Capture>();
  c->graph = new CUgraph_st;
  g.graphs.insert(c->graph);
  c->tails[stream] = {};
  c->id = ++gpulab::rt::capture_ids;
  g.capturing[stream] = c;
  return cudaSuccess;
}

cudaError_t cudaStreamBeginCaptureToGraph(cudaStream_t stream, cudaGraph_t graph,
                                          const cudaGraphNode_t* dependencies,
                                          const cudaGraphEdgeData* edge_data, size_t count,
                                          cudaStreamCaptureMode mode) {
  if (stream == nullptr || stream == cudaStreamLegacy) return cudaErrorStreamCaptureUnsupported;
  if (mode < cudaStreamCaptureModeGlobal || mode > cudaStreamCaptureModeRelaxed) {
    return cudaErrorInvalidValue;
  }
  if (!gpulab::rt::default_edges(edge_data, count)) return cudaErrorNotSupported;
  auto& g = graphs();
  std::lock_guard lock(g.mutex);
  if (g.graphs.count(graph) == 0 || (count > 0 && dependencies == nullptr)) {
    return cudaErrorInvalidValue;
  }
  if (g.capturing.count(stream) != 0) return cudaErrorIllegalState;
  auto c = std::make_shared<gpulab::rt::Capture>();
  c->graph = graph;
  c->into_existing = true;
  for (size_t i = 0; i < count; ++i) {
    if (!gpulab::rt::owns(graph, dependencies[i])) return cudaErrorInvalidValue;
    c->tails[stream].push_back(dependencies[i]);
  }
  c->tails[stream];  // the stream takes part even with no dependency
  c->id = ++gpulab::rt::capture_ids;
  g.capturing[stream] = c;
  return cudaSuccess;
}

cudaError_t cudaStreamEndCapture(cudaStream_t stream, cudaGraph_t* graph) {
  auto& g = graphs();
  std::lock_guard lock(g.mutex);
  const auto c = gpulab::rt::capture_of(g, stream);
  if (!c) return graph == nullptr ? cudaErrorInvalidValue : cudaErrorIllegalState;
  // A capture into a graph of the program's may end without asking for it.
  if (graph == nullptr && !c->into_existing) return cudaErrorInvalidValue;
  for (auto it = g.capturing.begin(); it != g.capturing.end();) {
    it = it->second == c ? g.capturing.erase(it) : std::next(it);
  }
  if (graph != nullptr) *graph = c->graph;
  return cudaSuccess;
}

cudaError_t cudaStreamGetCaptureInfo(cudaStream_t stream, cudaStreamCaptureStatus* status,
                                     unsigned long long* id, cudaGraph_t* graph,
                                     const cudaGraphNode_t** dependencies,
                                     const cudaGraphEdgeData** edge_data, size_t* count) {
  if (status == nullptr) return cudaErrorInvalidValue;
  auto& g = graphs();
  std::lock_guard lock(g.mutex);
  const auto c = gpulab::rt::capture_of(g, stream);
  *status = c ? cudaStreamCaptureStatusActive : cudaStreamCaptureStatusNone;
  if (!c) return cudaSuccess;
  const std::vector<cudaGraphNode_t>& tails = c->tails[stream];
  if (id != nullptr) *id = c->id;
  if (graph != nullptr) *graph = c->graph;
  if (dependencies != nullptr) *dependencies = tails.empty() ? nullptr : tails.data();
  if (edge_data != nullptr) *edge_data = nullptr;  // every edge a default one
  if (count != nullptr) *count = tails.size();
  return cudaSuccess;
}

cudaError_t cudaStreamUpdateCaptureDependencies(cudaStream_t stream, cudaGraphNode_t* dependencies,
                                                const cudaGraphEdgeData* edge_data, size_t count,
                                                unsigned int flags) {
  if (flags != cudaStreamAddCaptureDependencies && flags != cudaStreamSetCaptureDependencies) {
    return cudaErrorInvalidValue;
  }
  if (!gpulab::rt::default_edges(edge_data, count)) return cudaErrorNotSupported;
  auto& g = graphs();
  std::lock_guard lock(g.mutex);
  const auto c = gpulab::rt::capture_of(g, stream);
  if (!c) return cudaErrorIllegalState;
  if (count > 0 && dependencies == nullptr) return cudaErrorInvalidValue;
  std::vector<cudaGraphNode_t>& tails = c->tails[stream];
  if (flags == cudaStreamSetCaptureDependencies) tails.clear();
  for (size_t i = 0; i < count; ++i) {
    if (!gpulab::rt::owns(c->graph, dependencies[i])) return cudaErrorInvalidValue;
    if (std::find(tails.begin(), tails.end(), dependencies[i]) == tails.end()) {
      tails.push_back(dependencies[i]);
    }
  }
  return cudaSuccess;
}

cudaError_t cudaStreamIsCapturing(cudaStream_t stream, cudaStreamCaptureStatus* status) {
  if (status == nullptr) return cudaErrorInvalidValue;
  auto& g = graphs();
  std::lock_guard lock(g.mutex);
  *status =
      g.capturing.count(stream) != 0 ? cudaStreamCaptureStatusActive : cudaStreamCaptureStatusNone;
  return cudaSuccess;
}

cudaError_t cudaLaunchHostFunc(cudaStream_t stream, cudaHostFn_t fn, void* userData) {
  if (fn == nullptr) return cudaErrorInvalidValue;
  {
    auto& g = graphs();
    std::lock_guard lock(g.mutex);
    if (const auto c = gpulab::rt::capture_of(g, stream)) {
      auto n = std::make_unique<CUgraphNode_st>();
      n->type = cudaGraphNodeTypeHost;
      n->host = cudaHostNodeParams{fn, userData};
      gpulab::rt::capture_node(*c, stream, std::move(n));
      return cudaSuccess;
    }
  }
  // Everything before it on the stream has run: the function runs now.
  fn(userData);
  return cudaSuccess;
}

// ---- Explicit graphs

cudaError_t cudaGraphCreate(cudaGraph_t* graph, unsigned int flags) {
  if (graph == nullptr || flags != 0) return cudaErrorInvalidValue;
  *graph = new CUgraph_st;
  gpulab::rt::keep_handle(graphs().mutex, graphs().graphs, *graph);
  return cudaSuccess;
}

cudaError_t cudaGraphDestroy(cudaGraph_t graph) {
  const bool live = gpulab::rt::destroy_handle(graphs().mutex, graphs().graphs, graph);
  return live ? cudaSuccess : cudaErrorInvalidValue;
}

namespace gpulab::rt {
namespace {

// A kernel node made from `params` as a launch recorded into it (its argument bytes copied).
cudaError_t make_kernel_node(const cudaKernelNodeParams* params, const std::source_location& where,
                             std::unique_ptr<CUgraphNode_st>* out) {
  if (params == nullptr || params->func == nullptr) return cudaErrorInvalidValue;
  gpulab::rt::LaunchFromArguments launch = nullptr;
  const char* name = "";
  {
    auto& g = graphs();
    std::lock_guard lock(g.mutex);
    const auto it = g.kernels.find(params->func);
    if (it == g.kernels.end()) return cudaErrorInvalidDeviceFunction;
    name = it->second.first;
    launch = it->second.second;
  }
  if (params->kernelParams == nullptr && params->extra != nullptr) return cudaErrorNotSupported;
  auto n = std::make_unique<CUgraphNode_st>();
  t_kernel_node = n.get();
  // The node's launches are reported at the line that made the node.
  launch(params->func, LaunchSite{name, where.file_name(), static_cast<int>(where.line())},
         config(params->gridDim, params->blockDim, params->sharedMemBytes), params->kernelParams);
  t_kernel_node = nullptr;
  if (n->type != cudaGraphNodeTypeKernel) return cudaErrorInvalidValue;
  *out = std::move(n);
  return cudaSuccess;
}

// `made` takes `node`'s place: its kernel, launch shape and argument bytes, not its dependencies.
// A node's kernel stays the one it was made with (CUDA's cudaErrorInvalidValue otherwise).
cudaError_t replace_kernel(CUgraphNode_st& node, CUgraphNode_st& made) {
  if (node.type != cudaGraphNodeTypeKernel || made.kernel != node.kernel) {
    return cudaErrorInvalidValue;
  }
  made.dependencies = std::move(node.dependencies);
  node = std::move(made);
  return cudaSuccess;
}

}  // namespace
}  // namespace gpulab::rt

cudaError_t cudaGraphAddKernelNode(cudaGraphNode_t* node, cudaGraph_t graph,
                                   const cudaGraphNode_t* dependencies, size_t count,
                                   const cudaKernelNodeParams* params, std::source_location where) {
  std::unique_ptr<CUgraphNode_st> n;
  if (const cudaError_t e = gpulab::rt::make_kernel_node(params, where, &n); e != cudaSuccess) {
    return e;
  }
  return gpulab::rt::add_node(node, graph, dependencies, count, std::move(n));
}

cudaError_t cudaGraphKernelNodeSetParams(cudaGraphNode_t node, const cudaKernelNodeParams* params,
                                         std::source_location where) {
  std::unique_ptr<CUgraphNode_st> n;
  if (const cudaError_t e = gpulab::rt::make_kernel_node(params, where, &n); e != cudaSuccess) {
    return e;
  }
  auto& g = gpulab::rt::graphs();
  std::lock_guard lock(g.mutex);
  for (cudaGraph_t graph : g.graphs) {
    if (gpulab::rt::owns(graph, node)) return gpulab::rt::replace_kernel(*node, *n);
  }
  return cudaErrorInvalidValue;
}

cudaError_t cudaGraphExecKernelNodeSetParams(cudaGraphExec_t exec, cudaGraphNode_t node,
                                             const cudaKernelNodeParams* params,
                                             std::source_location where) {
  std::unique_ptr<CUgraphNode_st> n;
  if (const cudaError_t e = gpulab::rt::make_kernel_node(params, where, &n); e != cudaSuccess) {
    return e;
  }
  auto& g = gpulab::rt::graphs();
  std::lock_guard lock(g.mutex);
  if (g.execs.count(exec) == 0) return cudaErrorInvalidValue;
  for (size_t i = 0; i < exec->nodes.size(); ++i) {
    if (exec->made_from[i] == node) return gpulab::rt::replace_kernel(exec->nodes[i], *n);
  }
  return cudaErrorInvalidValue;
}

cudaError_t cudaGraphAddMemcpyNode1D(cudaGraphNode_t* node, cudaGraph_t graph,
                                     const cudaGraphNode_t* dependencies, size_t count, void* dst,
                                     const void* src, size_t bytes, cudaMemcpyKind kind) {
  return gpulab::rt::add_new_node(node, graph, dependencies, count, cudaGraphNodeTypeMemcpy,
                                  [&](CUgraphNode_st& n) {
                                    n.dst = dst;
                                    n.src = src;
                                    n.count = bytes;
                                    n.kind = kind;
                                  });
}

cudaError_t cudaGraphAddMemcpyNode(cudaGraphNode_t* node, cudaGraph_t graph,
                                   const cudaGraphNode_t* dependencies, size_t count,
                                   const cudaMemcpy3DParms* params) {
  // As CUDA checks a node's copy when it is made: both pointers, an extent, rows no wider than
  // their pitch. CUDA arrays (textures' memory) are not on the emulator.
  if (params == nullptr || params->srcArray != nullptr || params->dstArray != nullptr ||
      params->srcPtr.ptr == nullptr || params->dstPtr.ptr == nullptr || params->extent.width == 0 ||
      params->extent.height == 0 || params->extent.depth == 0 ||
      params->extent.width > params->srcPtr.pitch || params->extent.width > params->dstPtr.pitch) {
    return cudaErrorInvalidValue;
  }
  return gpulab::rt::add_new_node(node, graph, dependencies, count, cudaGraphNodeTypeMemcpy,
                                  [&](CUgraphNode_st& n) {
                                    n.pitched = true;
                                    n.copy3d = *params;
                                  });
}

cudaError_t cudaGraphAddMemsetNode(cudaGraphNode_t* node, cudaGraph_t graph,
                                   const cudaGraphNode_t* dependencies, size_t count,
                                   const cudaMemsetParams* params) {
  if (params == nullptr) return cudaErrorInvalidValue;
  return gpulab::rt::add_new_node(node, graph, dependencies, count, cudaGraphNodeTypeMemset,
                                  [&](CUgraphNode_st& n) { n.memset = *params; });
}

cudaError_t cudaGraphAddHostNode(cudaGraphNode_t* node, cudaGraph_t graph,
                                 const cudaGraphNode_t* dependencies, size_t count,
                                 const cudaHostNodeParams* params) {
  if (params == nullptr || params->fn == nullptr) return cudaErrorInvalidValue;
  return gpulab::rt::add_new_node(node, graph, dependencies, count, cudaGraphNodeTypeHost,
                                  [&](CUgraphNode_st& n) { n.host = *params; });
}

cudaError_t cudaGraphAddEmptyNode(cudaGraphNode_t* node, cudaGraph_t graph,
                                  const cudaGraphNode_t* dependencies, size_t count) {
  return gpulab::rt::add_node(node, graph, dependencies, count, std::make_unique<CUgraphNode_st>());
}

cudaError_t cudaGraphAddMemAllocNode(cudaGraphNode_t* node, cudaGraph_t graph,
                                     const cudaGraphNode_t* dependencies, size_t count,
                                     cudaMemAllocNodeParams* params, std::source_location where) {
  // Pinned memory of device 0. Memory elsewhere (the host) is not supported, as an H100's CUDA
  // 13 answers (tests/run_corpus/gpu_semantics/graph_memory_nodes.cu).
  if (params == nullptr || params->bytesize == 0 ||
      params->poolProps.allocType != cudaMemAllocationTypePinned) {
    return cudaErrorInvalidValue;
  }
  if (params->poolProps.location.type != cudaMemLocationTypeDevice) return cudaErrorNotSupported;
  if (params->poolProps.location.id != 0) return cudaErrorInvalidDevice;
  // The address is chosen knowing the node's dependencies (a free before it may be reused).
  return gpulab::rt::add_finished_node(
      node, graph, dependencies, count, std::make_unique<CUgraphNode_st>(),
      [&](gpulab::rt::Graphs& g, CUgraphNode_st& n) {
        if (!gpulab::rt::fill_alloc(g, n, params->bytesize, where)) {
          return cudaErrorMemoryAllocation;
        }
        params->dptr = n.block;
        return cudaSuccess;
      });
}

cudaError_t cudaGraphAddMemFreeNode(cudaGraphNode_t* node, cudaGraph_t graph,
                                    const cudaGraphNode_t* dependencies, size_t count, void* dptr) {
  return gpulab::rt::add_finished_node(node, graph, dependencies, count,
                                       std::make_unique<CUgraphNode_st>(),
                                       [&](gpulab::rt::Graphs& g, CUgraphNode_st& n) {
                                         // Only what a graph allocation node allocated is freed by
                                         // a free node.
                                         n.block_bytes = gpulab::rt::block_bytes(g, dptr);
                                         if (n.block_bytes == 0) return cudaErrorInvalidValue;
                                         n.type = cudaGraphNodeTypeMemFree;
                                         n.block = dptr;
                                         return cudaSuccess;
                                       });
}

cudaError_t cudaGraphConditionalHandleCreate(cudaGraphConditionalHandle* handle, cudaGraph_t graph,
                                             unsigned int default_value, unsigned int flags) {
  if (handle == nullptr || (flags & ~unsigned{cudaGraphCondAssignDefault}) != 0) {
    return cudaErrorInvalidValue;
  }
  auto& g = graphs();
  std::lock_guard lock(g.mutex);
  if (g.graphs.count(graph) == 0) return cudaErrorInvalidValue;
  g.handles.push_back({graph, default_value, flags, default_value});
  *handle = g.handles.size();
  return cudaSuccess;
}

void cudaGraphSetConditional(cudaGraphConditionalHandle handle, unsigned int value) {
  auto& g = graphs();
  std::lock_guard lock(g.mutex);
  if (handle >= 1 && handle <= g.handles.size()) g.handles[handle - 1].value = value;
}

cudaError_t cudaGraphAddNode(cudaGraphNode_t* node, cudaGraph_t graph,
                             const cudaGraphNode_t* dependencies,
                             const cudaGraphEdgeData* edge_data, size_t count,
                             cudaGraphNodeParams* params, std::source_location where) {
  if (params == nullptr) return cudaErrorInvalidValue;
  if (!gpulab::rt::default_edges(edge_data, count)) return cudaErrorNotSupported;
  switch (params->type) {
    case cudaGraphNodeTypeKernel: {
      const cudaKernelNodeParamsV2& k = params->kernel;
      const cudaKernelNodeParams old{k.func,           k.gridDim,      k.blockDim,
                                     k.sharedMemBytes, k.kernelParams, k.extra};
      return cudaGraphAddKernelNode(node, graph, dependencies, count, &old, where);
    }
    case cudaGraphNodeTypeHost:
      return cudaGraphAddHostNode(node, graph, dependencies, count, &params->host);
    case cudaGraphNodeTypeGraph:
      return cudaGraphAddChildGraphNode(node, graph, dependencies, count, params->graph.graph);
    case cudaGraphNodeTypeEmpty:
      return cudaGraphAddEmptyNode(node, graph, dependencies, count);
    case cudaGraphNodeTypeConditional:
      break;
    default:
      return cudaErrorNotSupported;  // the other node types: through their own cudaGraphAdd*Node
  }
  cudaConditionalNodeParams& c = params->conditional;
  const bool size_ok = c.type == cudaGraphCondTypeIf       ? c.size == 1 || c.size == 2
                       : c.type == cudaGraphCondTypeWhile  ? c.size == 1
                       : c.type == cudaGraphCondTypeSwitch ? c.size >= 1
                                                           : false;
  if (!size_ok) return cudaErrorInvalidValue;
  return gpulab::rt::add_finished_node(node, graph, dependencies, count,
                                       std::make_unique<CUgraphNode_st>(),
                                       [&](gpulab::rt::Graphs& g, CUgraphNode_st& n) {
                                         if (c.handle < 1 || c.handle > g.handles.size())
                                           return cudaErrorInvalidValue;
                                         n.type = cudaGraphNodeTypeConditional;
                                         n.handle = c.handle;
                                         n.conditional = c.type;
                                         n.bodies = std::make_shared<std::vector<cudaGraph_t>>();
                                         for (unsigned int i = 0; i < c.size; ++i) {
                                           n.bodies->push_back(new CUgraph_st);
                                           g.graphs.insert(n.bodies->back());
                                         }
                                         c.phGraph_out = n.bodies->data();
                                         return cudaSuccess;
                                       });
}

cudaError_t cudaGraphAddChildGraphNode(cudaGraphNode_t* node, cudaGraph_t graph,
                                       const cudaGraphNode_t* dependencies, size_t count,
                                       cudaGraph_t child) {
  auto n = std::make_unique<CUgraphNode_st>();
  n->type = cudaGraphNodeTypeGraph;
  {
    // As CUDA does, the child graph is copied: changing it later changes nothing here.
    auto& g = graphs();
    std::lock_guard lock(g.mutex);
    if (g.graphs.count(child) == 0 || child == graph) return cudaErrorInvalidValue;
    bool cycle = false;
    const auto order = gpulab::rt::run_order(*child, &cycle);
    if (cycle) return cudaErrorInvalidValue;
    auto nodes = std::make_shared<std::vector<CUgraphNode_st>>();
    for (const CUgraphNode_st* c : order) nodes->push_back(*c);
    n->child = std::move(nodes);
  }
  return gpulab::rt::add_node(node, graph, dependencies, count, std::move(n));
}

cudaError_t cudaGraphAddDependencies(cudaGraph_t graph, const cudaGraphNode_t* from,
                                     const cudaGraphNode_t* to, size_t count) {
  auto& g = graphs();
  std::lock_guard lock(g.mutex);
  if (g.graphs.count(graph) == 0 || (count > 0 && (from == nullptr || to == nullptr))) {
    return cudaErrorInvalidValue;
  }
  for (size_t i = 0; i < count; ++i) {
    if (!gpulab::rt::owns(graph, from[i]) || !gpulab::rt::owns(graph, to[i])) {
      return cudaErrorInvalidValue;
    }
    to[i]->dependencies.push_back(from[i]);
  }
  return cudaSuccess;
}

cudaError_t cudaGraphClone(cudaGraph_t* clone, cudaGraph_t original) {
  auto& g = graphs();
  std::lock_guard lock(g.mutex);
  if (clone == nullptr || g.graphs.count(original) == 0) return cudaErrorInvalidValue;
  // Every node copied, each dependency pointing at the copy of the node it named.
  auto* made = new CUgraph_st;
  std::map<const CUgraphNode_st*, cudaGraphNode_t> copy_of;
  for (const auto& n : original->nodes) {
    made->nodes.push_back(std::make_unique<CUgraphNode_st>(*n));
    copy_of[n.get()] = made->nodes.back().get();
  }
  for (const auto& n : made->nodes)
    for (cudaGraphNode_t& d : n->dependencies) d = copy_of.at(d);
  g.graphs.insert(made);
  *clone = made;
  return cudaSuccess;
}

cudaError_t cudaGraphGetNodes(cudaGraph_t graph, cudaGraphNode_t* nodes, size_t* count) {
  auto& g = graphs();
  std::lock_guard lock(g.mutex);
  if (g.graphs.count(graph) == 0 || count == nullptr) return cudaErrorInvalidValue;
  if (nodes == nullptr) {
    *count = graph->nodes.size();
    return cudaSuccess;
  }
  const size_t n = std::min(*count, graph->nodes.size());
  for (size_t i = 0; i < n; ++i) nodes[i] = graph->nodes[i].get();
  for (size_t i = n; i < *count; ++i) nodes[i] = nullptr;
  *count = n;
  return cudaSuccess;
}

cudaError_t cudaGraphNodeGetType(cudaGraphNode_t node, cudaGraphNodeType* type) {
  if (node == nullptr || type == nullptr) return cudaErrorInvalidValue;
  *type = node->type;
  return cudaSuccess;
}

cudaError_t cudaGraphInstantiate(cudaGraphExec_t* exec, cudaGraph_t graph, unsigned long long) {
  auto& g = graphs();
  std::lock_guard lock(g.mutex);
  if (exec == nullptr || g.graphs.count(graph) == 0) return cudaErrorInvalidValue;
  auto e = std::make_unique<CUgraphExec_st>();
  if (!gpulab::rt::instantiate_graph(g, *graph, &e->nodes, &e->made_from, &e->handles)) {
    return cudaErrorInvalidValue;
  }
  g.execs.insert(e.get());
  *exec = e.release();
  return cudaSuccess;
}

cudaError_t cudaGraphExecUpdate(cudaGraphExec_t exec, cudaGraph_t graph,
                                cudaGraphExecUpdateResultInfo* result) {
  auto& g = graphs();
  std::lock_guard lock(g.mutex);
  if (g.execs.count(exec) == 0 || g.graphs.count(graph) == 0) return cudaErrorInvalidValue;
  const auto fail = [&](cudaGraphExecUpdateResult why, cudaGraphNode_t node) {
    if (result != nullptr) *result = {why, node, nullptr};
    return cudaErrorGraphExecUpdateFailure;
  };
  // The same topology: as many nodes, of the same types, with the same dependencies, in the same
  // order of making. Then the new graph's parameters replace the old ones.
  if (graph->nodes.size() != exec->nodes.size()) {
    return fail(cudaGraphExecUpdateErrorTopologyChanged, nullptr);
  }
  bool cycle = false;
  const auto order = gpulab::rt::run_order(*graph, &cycle);
  if (cycle) return fail(cudaGraphExecUpdateErrorTopologyChanged, nullptr);
  std::map<const CUgraphNode_st*, size_t> old_index, new_index;
  for (size_t i = 0; i < exec->nodes.size(); ++i) old_index[exec->made_from[i]] = i;
  for (size_t i = 0; i < order.size(); ++i) new_index[order[i]] = i;
  for (size_t i = 0; i < order.size(); ++i) {
    const CUgraphNode_st& now = *order[i];
    const CUgraphNode_st& was = exec->nodes[i];
    if (now.type != was.type) {
      return fail(cudaGraphExecUpdateErrorNodeTypeChanged, const_cast<cudaGraphNode_t>(&now));
    }
    if (now.dependencies.size() != was.dependencies.size()) {
      return fail(cudaGraphExecUpdateErrorTopologyChanged, const_cast<cudaGraphNode_t>(&now));
    }
    for (size_t d = 0; d < now.dependencies.size(); ++d) {
      if (new_index[now.dependencies[d]] != old_index[was.dependencies[d]]) {
        return fail(cudaGraphExecUpdateErrorTopologyChanged, const_cast<cudaGraphNode_t>(&now));
      }
    }
    if (now.type == cudaGraphNodeTypeKernel && now.kernel != was.kernel) {
      return fail(cudaGraphExecUpdateErrorFunctionChanged, const_cast<cudaGraphNode_t>(&now));
    }
  }
  std::vector<CUgraphNode_st> nodes;
  std::vector<const CUgraphNode_st*> made_from;
  std::vector<cudaGraphConditionalHandle> handles;
  if (!gpulab::rt::instantiate_graph(g, *graph, &nodes, &made_from, &handles)) {
    return fail(cudaGraphExecUpdateErrorTopologyChanged, nullptr);
  }
  exec->nodes = std::move(nodes);
  exec->made_from = std::move(made_from);
  exec->handles = std::move(handles);
  if (result != nullptr) *result = {cudaGraphExecUpdateSuccess, nullptr, nullptr};
  return cudaSuccess;
}

namespace gpulab::rt {
namespace {
cudaError_t run_nodes(const std::vector<CUgraphNode_st>& nodes);

unsigned int conditional_value(cudaGraphConditionalHandle h) {
  Graphs& g = graphs();
  std::lock_guard lock(g.mutex);
  return h >= 1 && h <= g.handles.size() ? g.handles[h - 1].value : 0;
}

// A conditional node at its turn: IF runs its first body when the handle's value is not 0, its
// second (if any) when it is; WHILE runs its body as long as the value is not 0, tested before
// each turn; SWITCH runs body number `value`, none past the last. A fault in a body stops the loop
// (the context is broken: no kernel runs any more, as on a GPU).
cudaError_t run_conditional(const CUgraphNode_st& n) {
  const std::vector<std::vector<CUgraphNode_st>>& runs = *n.body_runs;
  const unsigned int value = conditional_value(n.handle);
  switch (n.conditional) {
    case cudaGraphCondTypeIf:
      if (value != 0) return run_nodes(runs[0]);
      return runs.size() > 1 ? run_nodes(runs[1]) : cudaSuccess;
    case cudaGraphCondTypeWhile:
      for (unsigned int v = value; v != 0; v = conditional_value(n.handle)) {
        if (cudaError_t e = cudaSuccess; broken(&e)) return cudaSuccess;  // sticky, as on a GPU
        if (const cudaError_t e = run_nodes(runs[0]); e != cudaSuccess) return e;
      }
      return cudaSuccess;
    case cudaGraphCondTypeSwitch:
      return value < runs.size() ? run_nodes(runs[value]) : cudaSuccess;
  }
  return cudaSuccess;
}

// Runs nodes in their order, a child graph's where its node stands.
cudaError_t run_nodes(const std::vector<CUgraphNode_st>& nodes) {
  for (const CUgraphNode_st& n : nodes) {
    cudaError_t e = cudaSuccess;
    switch (n.type) {
      case cudaGraphNodeTypeKernel:
        gpulab::rt::launch_erased(n.site, n.kernel, n.config, n.run_thread, n.closure.get(),
                                  n.closure_bytes, n.run_threads);
        break;
      case cudaGraphNodeTypeMemcpy:
        e = n.pitched ? cudaMemcpy3DAsync(&n.copy3d, nullptr)
                      : cudaMemcpyAsync(n.dst, n.src, n.count, n.kind, nullptr);
        break;
      case cudaGraphNodeTypeMemset:
        e = gpulab::rt::run_memset(n.memset);
        break;
      case cudaGraphNodeTypeHost:
        n.host.fn(n.host.userData);
        break;
      case cudaGraphNodeTypeGraph:
        e = run_nodes(*n.child);
        break;
      case cudaGraphNodeTypeMemAlloc:
        // The block is the program's from here (a relaunch before it was freed keeps it).
        if (const auto a = simt::find_allocation(n.block);
            !a || a->begin != reinterpret_cast<std::uintptr_t>(n.block)) {
          simt::register_allocation(n.block, n.block_bytes, simt::AllocationKind::device,
                                    n.block_site);
        }
        break;
      case cudaGraphNodeTypeConditional:
        e = run_conditional(n);
        break;
      case cudaGraphNodeTypeMemFree:
        // Freed once: a block freed already (cudaFree, another graph) is an error, as on a GPU.
        if (!simt::release(n.block, simt::AllocationKind::device)) e = cudaErrorInvalidValue;
        break;
      default:
        break;
    }
    if (e != cudaSuccess) return e;
  }
  return cudaSuccess;
}
}  // namespace
}  // namespace gpulab::rt

cudaError_t cudaGraphLaunch(cudaGraphExec_t exec, cudaStream_t stream) {
  {
    auto& g = graphs();
    std::lock_guard lock(g.mutex);
    if (g.execs.count(exec) == 0) return cudaErrorInvalidValue;
    if (gpulab::rt::capture_of(g, stream)) return cudaErrorNotSupported;
    for (const cudaGraphConditionalHandle h : exec->handles) {
      auto& handle = g.handles[h - 1];
      if ((handle.flags & cudaGraphCondAssignDefault) != 0) handle.value = handle.default_value;
    }
  }
  return gpulab::rt::run_nodes(exec->nodes);
}

cudaError_t cudaGraphExecDestroy(cudaGraphExec_t exec) {
  const bool live = gpulab::rt::destroy_handle(graphs().mutex, graphs().execs, exec);
  return live ? cudaSuccess : cudaErrorInvalidValue;
}
