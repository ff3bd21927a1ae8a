// Streams and events: accepted with their flags and priorities (an H100's range: 0 the least, -5
// the greatest); every operation runs at once, in order (the default stream), and callbacks run
// when the work before them has, which is at once. Events record the host's clock, so
// cudaEventElapsedTime measures what ran between them. On a capturing stream, events and waits go
// to the graph being built (graph.cpp).
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <mutex>

#include "run/runtime/graph.hpp"
#include "run/runtime/handles.hpp"
#include "run/runtime/state.hpp"

using gpulab::rt::broken;
using gpulab::rt::destroy_handle;
using gpulab::rt::is_live;
using gpulab::rt::keep_handle;
using gpulab::rt::set_error;
using gpulab::rt::state;
using gpulab::rt::wait_for_device;

struct CUstream_st {
  int id;
  unsigned flags = 0;
  int priority = 0;
};

namespace {

constexpr int kLeastPriority = 0, kGreatestPriority = -5;

// The default stream and the per-thread one are always there.
bool special_stream(cudaStream_t s) {
  return s == nullptr || s == cudaStreamLegacy || s == cudaStreamPerThread;
}
// A stream the program made and has not destroyed.
bool made_stream(cudaStream_t s) {
  return is_live(state().mutex, state().streams, s);
}
// An event the program made and has not destroyed.
bool made_event(cudaEvent_t e) {
  return is_live(state().mutex, state().events, e);
}
// A stream a call may name: a default one or one the program made.
bool usable(cudaStream_t s) {
  return special_stream(s) || made_stream(s);
}

}  // namespace
struct CUevent_st {
  std::chrono::steady_clock::time_point when;
  bool recorded = false;
  bool timing = true;
};

cudaError_t cudaStreamCreate(cudaStream_t* stream) {
  return cudaStreamCreateWithFlags(stream, cudaStreamDefault);
}
cudaError_t cudaStreamCreateWithFlags(cudaStream_t* stream, unsigned int flags) {
  if (stream == nullptr || (flags & ~cudaStreamNonBlocking) != 0) {
    return set_error(cudaErrorInvalidValue);
  }
  *stream = new CUstream_st{0, flags, 0};
  keep_handle(state().mutex, state().streams, *stream);
  return cudaSuccess;
}
cudaError_t cudaStreamDestroy(cudaStream_t stream) {
  const bool live = destroy_handle(state().mutex, state().streams, stream);
  return live ? cudaSuccess : set_error(cudaErrorInvalidResourceHandle);
}
cudaError_t cudaStreamSynchronize(cudaStream_t) {
  return wait_for_device(true);
}
cudaError_t cudaStreamQuery(cudaStream_t) {
  // Every launch has ended when the host asks: a fault of one surfaces here.
  return wait_for_device(false);
}
cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event, unsigned int) {
  gpulab::rt::graph_wait_event(stream, event);  // joins a capture when the event was captured
  return cudaSuccess;
}

cudaError_t cudaEventCreate(cudaEvent_t* event) {
  return cudaEventCreateWithFlags(event, cudaEventDefault);
}
cudaError_t cudaEventCreateWithFlags(cudaEvent_t* event, unsigned int flags) {
  // An interprocess event must not record times.
  if (event == nullptr ||
      (flags & ~(cudaEventBlockingSync | cudaEventDisableTiming | cudaEventInterprocess)) != 0 ||
      ((flags & cudaEventInterprocess) != 0 && (flags & cudaEventDisableTiming) == 0)) {
    return set_error(cudaErrorInvalidValue);
  }
  *event = new CUevent_st{};
  (*event)->timing = (flags & cudaEventDisableTiming) == 0;
  keep_handle(state().mutex, state().events, *event);
  return cudaSuccess;
}
cudaError_t cudaEventDestroy(cudaEvent_t event) {
  const bool live = destroy_handle(state().mutex, state().events, event);
  return live ? cudaSuccess : set_error(cudaErrorInvalidResourceHandle);
}
cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream) {
  if (!made_event(event)) return set_error(cudaErrorInvalidResourceHandle);
  if (gpulab::rt::graph_record_event(event, stream)) return cudaSuccess;
  // Launches have finished when they return: the time is the CPU's, after the emulated work.
  event->when = std::chrono::steady_clock::now();
  event->recorded = true;
  return cudaSuccess;
}
cudaError_t cudaEventSynchronize(cudaEvent_t event) {
  if (!made_event(event)) return set_error(cudaErrorInvalidResourceHandle);
  return wait_for_device(true);
}
cudaError_t cudaEventQuery(cudaEvent_t event) {
  if (!made_event(event)) return set_error(cudaErrorInvalidResourceHandle);
  return wait_for_device(false);
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
cudaError_t cudaEventRecordWithFlags(cudaEvent_t event, cudaStream_t stream, unsigned int flags) {
  if ((flags & ~cudaEventRecordExternal) != 0) return set_error(cudaErrorInvalidValue);
  return cudaEventRecord(event, stream);
}

// ---- Priorities, flags, callbacks

cudaError_t cudaDeviceGetStreamPriorityRange(int* least, int* greatest) {
  if (least != nullptr) *least = kLeastPriority;
  if (greatest != nullptr) *greatest = kGreatestPriority;
  return cudaSuccess;
}

cudaError_t cudaStreamCreateWithPriority(cudaStream_t* stream, unsigned int flags, int priority) {
  const cudaError_t e = cudaStreamCreateWithFlags(stream, flags);
  if (e != cudaSuccess) return e;
  // As CUDA: a priority outside the range is clamped to it.
  (*stream)->priority = std::clamp(priority, kGreatestPriority, kLeastPriority);
  return cudaSuccess;
}

cudaError_t cudaStreamGetPriority(cudaStream_t stream, int* priority) {
  if (priority == nullptr) return set_error(cudaErrorInvalidValue);
  if (!usable(stream)) return set_error(cudaErrorInvalidResourceHandle);
  *priority = special_stream(stream) ? 0 : stream->priority;
  return cudaSuccess;
}

cudaError_t cudaStreamGetFlags(cudaStream_t stream, unsigned int* flags) {
  if (flags == nullptr) return set_error(cudaErrorInvalidValue);
  if (!usable(stream)) return set_error(cudaErrorInvalidResourceHandle);
  *flags = special_stream(stream) ? 0 : stream->flags;
  return cudaSuccess;
}

cudaError_t cudaStreamGetDevice(cudaStream_t stream, int* device) {
  if (device == nullptr) return set_error(cudaErrorInvalidValue);
  if (!usable(stream)) return set_error(cudaErrorInvalidResourceHandle);
  *device = 0;
  return cudaSuccess;
}

cudaError_t cudaStreamGetId(cudaStream_t stream, unsigned long long* id) {
  if (id == nullptr) return set_error(cudaErrorInvalidValue);
  if (!usable(stream)) return set_error(cudaErrorInvalidResourceHandle);
  *id = reinterpret_cast<std::uintptr_t>(stream);  // unique while the stream lives
  return cudaSuccess;
}

cudaError_t cudaStreamAddCallback(cudaStream_t stream, cudaStreamCallback_t callback,
                                  void* user_data, unsigned int flags) {
  if (callback == nullptr || flags != 0) return set_error(cudaErrorInvalidValue);
  if (!usable(stream)) return set_error(cudaErrorInvalidResourceHandle);
  // The work before it has run (every launch ends before it returns); a fault of it is the
  // status the callback receives.
  gpulab::rt::synchronized(true);
  cudaError_t status = cudaSuccess;
  broken(&status);
  callback(stream, status, user_data);
  return cudaSuccess;
}

cudaError_t cudaStreamAttachMemAsync(cudaStream_t stream, void* ptr, size_t length,
                                     unsigned int flags) {
  if (flags != cudaMemAttachGlobal && flags != cudaMemAttachHost && flags != cudaMemAttachSingle) {
    return set_error(cudaErrorInvalidValue);
  }
  if (!usable(stream)) return set_error(cudaErrorInvalidResourceHandle);
  const auto a = gpulab::simt::find_allocation(ptr);
  if (!a || a->kind != gpulab::simt::AllocationKind::managed ||
      (length != 0 && reinterpret_cast<std::uintptr_t>(ptr) + length > a->begin + a->bytes)) {
    return set_error(cudaErrorInvalidValue);
  }
  return cudaSuccess;
}
