// What the runtime's API files share with runtime.cpp, which keeps the emulator's state: the last
// error, the sticky context error, waiting for the device, allocations and copies. The files that
// add API (host_memory.cpp, occupancy.cpp, memory_more.cpp, streams_more.cpp, device_more.cpp)
// call these instead of reaching into runtime.cpp's state.
#pragma once

#include <cstddef>
#include <source_location>

#include "cuda_runtime.h"
#include "simt/memory_check.hpp"

namespace gpulab::rt {

// The call's error: cudaGetLastError and cudaPeekAtLastError return it (cudaSuccess is not
// recorded). Returns `e`.
cudaError_t record_error(cudaError_t e);
// A kernel fault made the context unusable: *e is its error (recorded), true.
bool context_broken(cudaError_t* e);
// Every launch has ended; with `flush_output`, kernel printf is printed.
void wait_for_device(bool flush_output);
// The emulated device's SMs: one per worker thread.
unsigned emulated_sms();
// cudaMalloc & co. (kind says which) and cudaFree & co.; errors recorded.
cudaError_t allocate_memory(void** ptr, size_t size, simt::AllocationKind kind,
                            const std::source_location& where);
cudaError_t free_memory(void* ptr, simt::AllocationKind kind);
// One copy, with cudaMemcpy's checks; `blocking` waits for the device first.
cudaError_t copy_memory(void* dst, const void* src, size_t count, cudaMemcpyKind kind,
                        bool blocking, const std::source_location& where);
// Handles the program made and has not destroyed.
bool stream_known(cudaStream_t stream);
bool event_known(cudaEvent_t event);

// Called by runtime.cpp for what its own switch statements do not hold.
// cudaDeviceGetAttribute: the attributes beyond the basic ones; false for an unknown one.
bool more_device_attribute(cudaDeviceAttr attr, int* value);
// cudaGetDeviceProperties: the fields beyond the basic ones (and those CUDA 13 removed).
void more_device_properties(cudaDeviceProp* p);
// cudaDeviceSetLimit / GetLimit for the limits beyond printf, heap and stack.
cudaError_t set_more_limit(cudaLimit limit, size_t value);
cudaError_t get_more_limit(cudaLimit limit, size_t* value);
// A stream's flags and priority (cudaStreamCreateWithFlags/WithPriority); forgotten on destroy.
void note_stream(cudaStream_t stream, unsigned flags, int priority);
void forget_stream(cudaStream_t stream);
// cudaHostGetDevicePointer and cudaPointerGetAttributes: memory the host registered.
bool host_registered(const void* p);

}  // namespace gpulab::rt
