// The device heap of gpulab run's runtime: malloc and free in a kernel (heap.cpp).
#pragma once

#include <cstddef>

namespace gpulab::rt {

// cudaLimitMallocHeapSize: 8 MiB unless the program sets it.
std::size_t heap_limit();
// False (nothing changes) once a kernel has allocated from the heap, as CUDA refuses it then.
bool set_heap_limit(std::size_t bytes);
// cudaDeviceReset: the heap's blocks were released with the context's memory; the limit is the
// default again and may be set before the next kernel.
void reset_heap();
// A launch ended: the blocks its kernels freed go back to the host now. Until then their addresses
// are not handed out again, so that --check never takes two threads' blocks for one.
void heap_launch_ended();

}  // namespace gpulab::rt
