// Cooperative launches on gpulab's emulator (included by cuda_runtime.h; implemented in
// src/run/runtime/launch.cpp and cooperative.cpp): cudaLaunchCooperativeKernel, whose blocks are
// all resident at once so that cooperative_groups::this_grid().sync() works. A kernel named by its
// address is found among those gpulab's rewrite registers (gpulab_graphs.h); the typed form
// (cuda_runtime.h) needs no registration. Its arguments are an array of pointers to them, as in
// CUDA.
#pragma once

cudaError_t cudaLaunchCooperativeKernel(
    const void* func, dim3 grid, dim3 block, void** args, size_t shared_bytes = 0,
    cudaStream_t stream = 0, std::source_location where = std::source_location::current());
