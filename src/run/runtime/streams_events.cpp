// Streams and events: accepted; every operation runs at once, in order (the default stream).
// Events record the host's clock, so cudaEventElapsedTime measures what ran between them. On a
// capturing stream, events and waits go to the graph being built (graph.cpp).
#include <chrono>
#include <mutex>

#include "run/runtime/graph.hpp"
#include "run/runtime/state.hpp"

using gpulab::rt::broken;
using gpulab::rt::set_error;
using gpulab::rt::state;

struct CUstream_st {
  int id;
};
struct CUevent_st {
  std::chrono::steady_clock::time_point when;
  bool recorded = false;
  bool timing = true;
};

cudaError_t cudaStreamCreate(cudaStream_t* stream) {
  return cudaStreamCreateWithFlags(stream, cudaStreamDefault);
}
cudaError_t cudaStreamCreateWithFlags(cudaStream_t* stream, unsigned int) {
  if (stream == nullptr) return set_error(cudaErrorInvalidValue);
  *stream = new CUstream_st{0};
  auto& s = state();
  std::lock_guard lock(s.mutex);
  s.streams.insert(*stream);
  return cudaSuccess;
}
cudaError_t cudaStreamDestroy(cudaStream_t stream) {
  auto& s = state();
  std::lock_guard lock(s.mutex);
  if (s.streams.erase(stream) == 0) return set_error(cudaErrorInvalidResourceHandle);
  delete stream;
  return cudaSuccess;
}
cudaError_t cudaStreamSynchronize(cudaStream_t) {
  gpulab::rt::synchronized(true);
  cudaError_t e;
  if (broken(&e)) return e;
  return cudaSuccess;
}
cudaError_t cudaStreamQuery(cudaStream_t) {
  // Every launch has ended when the host asks: a fault of one surfaces here.
  gpulab::rt::synchronized(false);
  cudaError_t e;
  if (broken(&e)) return e;
  return cudaSuccess;
}
cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event, unsigned int) {
  gpulab::rt::graph_wait_event(stream, event);  // joins a capture when the event was captured
  return cudaSuccess;
}

cudaError_t cudaEventCreate(cudaEvent_t* event) {
  return cudaEventCreateWithFlags(event, cudaEventDefault);
}
cudaError_t cudaEventCreateWithFlags(cudaEvent_t* event, unsigned int flags) {
  if (event == nullptr) return set_error(cudaErrorInvalidValue);
  *event = new CUevent_st{};
  (*event)->timing = (flags & cudaEventDisableTiming) == 0;
  auto& s = state();
  std::lock_guard lock(s.mutex);
  s.events.insert(*event);
  return cudaSuccess;
}
cudaError_t cudaEventDestroy(cudaEvent_t event) {
  auto& s = state();
  std::lock_guard lock(s.mutex);
  if (s.events.erase(event) == 0) return set_error(cudaErrorInvalidResourceHandle);
  delete event;
  return cudaSuccess;
}
cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream) {
  {
    auto& s = state();
    std::lock_guard lock(s.mutex);
    if (s.events.count(event) == 0) return set_error(cudaErrorInvalidResourceHandle);
  }
  if (gpulab::rt::graph_record_event(event, stream)) return cudaSuccess;
  // Launches have finished when they return: the time is the CPU's, after the emulated work.
  event->when = std::chrono::steady_clock::now();
  event->recorded = true;
  return cudaSuccess;
}
cudaError_t cudaEventSynchronize(cudaEvent_t event) {
  {
    auto& s = state();
    std::lock_guard lock(s.mutex);
    if (s.events.count(event) == 0) return set_error(cudaErrorInvalidResourceHandle);
  }
  gpulab::rt::synchronized(true);
  cudaError_t e;
  if (broken(&e)) return e;
  return cudaSuccess;
}
cudaError_t cudaEventQuery(cudaEvent_t event) {
  {
    auto& s = state();
    std::lock_guard lock(s.mutex);
    if (s.events.count(event) == 0) return set_error(cudaErrorInvalidResourceHandle);
  }
  gpulab::rt::synchronized(false);
  cudaError_t e;
  if (broken(&e)) return e;
  return cudaSuccess;
}
cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t start, cudaEvent_t end) {
  if (ms == nullptr) return set_error(cudaErrorInvalidValue);
  {
    auto& s = state();
    std::lock_guard lock(s.mutex);
    if (s.events.count(start) == 0 || s.events.count(end) == 0) {
      return set_error(cudaErrorInvalidResourceHandle);
    }
  }
  if (!start->recorded || !end->recorded) return set_error(cudaErrorInvalidResourceHandle);
  if (!start->timing || !end->timing) return set_error(cudaErrorInvalidResourceHandle);
  *ms = std::chrono::duration<float, std::milli>(end->when - start->when).count();
  return cudaSuccess;
}
