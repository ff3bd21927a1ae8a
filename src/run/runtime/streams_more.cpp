// Streams and events beyond create, synchronize and destroy, on the emulator: flags and priorities
// (an H100's range: 0 the least, -5 the greatest; everything still runs in order, as on one
// stream), callbacks (they run when the work before them has, which on the emulator is at once),
// cudaEventRecordWithFlags, and cudaLaunchKernel, a launch named by the kernel's address.
#include <map>
#include <mutex>

#include "cuda_runtime.h"
#include "run/runtime/internal.hpp"

using gpulab::rt::record_error;

namespace gpulab::rt {
namespace {

constexpr int kLeastPriority = 0, kGreatestPriority = -5;

struct StreamFacts {
  unsigned flags = 0;
  int priority = 0;
};
struct Streams {
  std::mutex mutex;
  std::map<cudaStream_t, StreamFacts> facts;
};
Streams& streams() {
  static Streams* s = new Streams;  // never destroyed: late calls at exit still use it
  return *s;
}

// The default stream and the per-thread one are always there.
bool special_stream(cudaStream_t s) {
  return s == nullptr || s == cudaStreamLegacy || s == cudaStreamPerThread;
}

// A stream a call may name: a default one, or one the program made and has not destroyed.
bool usable(cudaStream_t s) {
  return special_stream(s) || stream_known(s);
}

// The flags and priority of a stream the program made (the default streams: 0 and 0); false for
// a handle that is no stream.
bool facts_of(cudaStream_t stream, StreamFacts* out) {
  if (special_stream(stream)) {
    *out = StreamFacts{};
    return true;
  }
  auto& s = streams();
  std::lock_guard lock(s.mutex);
  const auto it = s.facts.find(stream);
  if (it == s.facts.end()) return false;
  *out = it->second;
  return true;
}

}  // namespace

void note_stream(cudaStream_t stream, unsigned flags, int priority) {
  auto& s = streams();
  std::lock_guard lock(s.mutex);
  s.facts[stream] = {flags, priority};
}
void forget_stream(cudaStream_t stream) {
  auto& s = streams();
  std::lock_guard lock(s.mutex);
  s.facts.erase(stream);
}

cudaError_t launch_with_arguments(const void* kernel, dim3 grid, dim3 block, void** args,
                                  size_t shared_bytes, cudaStream_t stream,
                                  const std::source_location& where, LaunchFromArguments launch) {
  const char* name = "cudaLaunchKernel";
  if (kernel == nullptr) return record_error(cudaErrorInvalidDeviceFunction);
  if (const char* registered = nullptr;
      LaunchFromArguments found = registered_kernel(kernel, &registered)) {
    name = registered;
    if (launch == nullptr) launch = found;
  }
  // A kernel the rewrite could not register (a template's instantiation) named by a void*.
  if (launch == nullptr) return record_error(cudaErrorInvalidDeviceFunction);
  if (!usable(stream)) {
    return record_error(cudaErrorInvalidResourceHandle);
  }
  // The launch's own error, as cudaLaunchKernel returns it; an earlier error stays pending.
  const cudaError_t earlier = cudaGetLastError();
  launch(kernel, LaunchSite{name, where.file_name(), static_cast<int>(where.line())},
         config(grid, block, shared_bytes, stream), args);
  const cudaError_t e = cudaPeekAtLastError();
  if (e == cudaSuccess && earlier != cudaSuccess) record_error(earlier);
  return e;
}

}  // namespace gpulab::rt

cudaError_t cudaLaunchKernel(const void* kernel, dim3 grid, dim3 block, void** args,
                             size_t shared_bytes, cudaStream_t stream, std::source_location where) {
  return gpulab::rt::launch_with_arguments(kernel, grid, block, args, shared_bytes, stream, where,
                                           nullptr);
}

cudaError_t cudaDeviceGetStreamPriorityRange(int* least, int* greatest) {
  if (least != nullptr) *least = gpulab::rt::kLeastPriority;
  if (greatest != nullptr) *greatest = gpulab::rt::kGreatestPriority;
  return cudaSuccess;
}

cudaError_t cudaStreamCreateWithPriority(cudaStream_t* stream, unsigned int flags, int priority) {
  const cudaError_t e = cudaStreamCreateWithFlags(stream, flags);
  if (e != cudaSuccess) return e;
  // As CUDA: a priority outside the range is clamped to it.
  priority = std::clamp(priority, gpulab::rt::kGreatestPriority, gpulab::rt::kLeastPriority);
  gpulab::rt::note_stream(*stream, flags, priority);
  return cudaSuccess;
}

cudaError_t cudaStreamGetPriority(cudaStream_t stream, int* priority) {
  if (priority == nullptr) return record_error(cudaErrorInvalidValue);
  gpulab::rt::StreamFacts facts;
  if (!gpulab::rt::facts_of(stream, &facts)) return record_error(cudaErrorInvalidResourceHandle);
  *priority = facts.priority;
  return cudaSuccess;
}

cudaError_t cudaStreamGetFlags(cudaStream_t stream, unsigned int* flags) {
  if (flags == nullptr) return record_error(cudaErrorInvalidValue);
  gpulab::rt::StreamFacts facts;
  if (!gpulab::rt::facts_of(stream, &facts)) return record_error(cudaErrorInvalidResourceHandle);
  *flags = facts.flags;
  return cudaSuccess;
}

cudaError_t cudaStreamGetDevice(cudaStream_t stream, int* device) {
  if (device == nullptr) return record_error(cudaErrorInvalidValue);
  if (!gpulab::rt::usable(stream)) {
    return record_error(cudaErrorInvalidResourceHandle);
  }
  *device = 0;
  return cudaSuccess;
}

cudaError_t cudaStreamGetId(cudaStream_t stream, unsigned long long* id) {
  if (id == nullptr) return record_error(cudaErrorInvalidValue);
  if (!gpulab::rt::usable(stream)) {
    return record_error(cudaErrorInvalidResourceHandle);
  }
  *id = reinterpret_cast<std::uintptr_t>(stream);  // unique while the stream lives
  return cudaSuccess;
}

cudaError_t cudaStreamAddCallback(cudaStream_t stream, cudaStreamCallback_t callback,
                                  void* user_data, unsigned int flags) {
  if (callback == nullptr || flags != 0) return record_error(cudaErrorInvalidValue);
  if (!gpulab::rt::usable(stream)) {
    return record_error(cudaErrorInvalidResourceHandle);
  }
  // The work before it has run (every launch ends before it returns); a fault of it is the
  // status the callback receives.
  gpulab::rt::wait_for_device(true);
  cudaError_t status = cudaSuccess;
  gpulab::rt::context_broken(&status);
  callback(stream, status, user_data);
  return cudaSuccess;
}

cudaError_t cudaEventRecordWithFlags(cudaEvent_t event, cudaStream_t stream, unsigned int flags) {
  if ((flags & ~cudaEventRecordExternal) != 0) return record_error(cudaErrorInvalidValue);
  return cudaEventRecord(event, stream);
}
