// Cooperative launches in gpulab run's runtime (cooperative.cpp): how many blocks of a kernel the
// emulated device holds at once, and the check a cooperative launch must pass.
#pragma once

#include "cuda_runtime.h"

namespace gpulab::rt {

// Blocks of `kernel` one "SM" of the emulated device holds at once: the occupancy calculator's
// answer (calc/occupancy) for an H100 (compute capability 9.0), whose limits the emulator
// enforces, with the kernel's static and dynamic shared memory; registers are not counted (the
// emulator allocates none). 0 when the block cannot launch at all.
int blocks_per_sm(const void* kernel, int block_threads, size_t dynamic_shared_bytes);

// A cooperative launch's blocks must all be resident at once: throws CudaError
// (cudaErrorCooperativeLaunchTooLarge) naming the numbers when the grid has more blocks than
// blocks_per_sm x the device's 132 SMs (an H100's).
void check_cooperative_fits(const void* kernel, const LaunchConfig& config);

}  // namespace gpulab::rt
