// CUDA graphs in gpulab run's runtime (graph.cpp): the hooks the launch and stream calls use.
#pragma once

#include <functional>

#include "cuda_runtime.h"

namespace gpulab::rt {

// A launch that belongs to a graph being built (on a capturing stream, or a kernel node being
// added) is recorded, with a byte copy of its arguments, instead of run: true.
bool graph_record_launch(const LaunchSite& site, const void* kernel, const LaunchConfig& config,
                         void (*run_thread)(const void*), const void* closure, size_t closure_bytes,
                         void (*run_threads)(const void*, simt::detail::ThreadLoop&));
// cudaMemcpyAsync, cudaMemcpy3DAsync and cudaMemsetAsync on a capturing stream: recorded, true.
bool graph_record_copy(void* dst, const void* src, size_t count, cudaMemcpyKind kind,
                       cudaStream_t stream);
bool graph_record_copy_3d(const cudaMemcpy3DParms& p, cudaStream_t stream);
bool graph_record_memset(void* dst, int value, size_t count, cudaStream_t stream);
// A library call (cuBLAS) on a capturing stream: `work` becomes a node that runs each time the
// graph does, true; false when the stream is not capturing (the caller runs it now).
bool graph_record_work(cudaStream_t stream, std::function<void()> work);
// cudaEventRecord on a capturing stream marks the event with the stream's last nodes (true: it
// was captured); cudaStreamWaitEvent on such an event makes the waiting stream join the capture.
bool graph_record_event(cudaEvent_t event, cudaStream_t stream);
// cudaMallocAsync and cudaFreeAsync on a capturing stream: an allocation or a free node (true);
// false when the stream is not capturing. *error: what the call returns when it was recorded.
bool graph_record_alloc(void** ptr, size_t bytes, cudaStream_t stream,
                        const std::source_location& where, cudaError_t* error);
bool graph_record_free(void* ptr, cudaStream_t stream, cudaError_t* error);
bool graph_wait_event(cudaStream_t stream, cudaEvent_t event);

}  // namespace gpulab::rt
