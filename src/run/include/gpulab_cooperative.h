// Launches by the kernel's address on gpulab's emulator (included by cuda_runtime.h; implemented in
// src/run/runtime/runtime.cpp and cooperative.cpp): cudaLaunchKernel and
// cudaLaunchCooperativeKernel, whose blocks are all resident at once so that
// cooperative_groups::this_grid().sync() works. The kernel is found among those gpulab's rewrite
// registers (every kernel that is no template: gpulab_graphs.h); its arguments are an array of
// pointers to them, as in CUDA.
#pragma once

cudaError_t cudaLaunchKernel(const void* func, dim3 grid, dim3 block, void** args,
                             size_t shared_bytes = 0, cudaStream_t stream = 0,
                             std::source_location where = std::source_location::current());
cudaError_t cudaLaunchCooperativeKernel(
    const void* func, dim3 grid, dim3 block, void** args, size_t shared_bytes = 0,
    cudaStream_t stream = 0, std::source_location where = std::source_location::current());

template <class T>
inline cudaError_t cudaLaunchKernel(T* func, dim3 grid, dim3 block, void** args,
                                    size_t shared_bytes = 0, cudaStream_t stream = 0,
                                    std::source_location where = std::source_location::current()) {
  return cudaLaunchKernel((const void*)(func), grid, block, args, shared_bytes, stream, where);
}
template <class T>
inline cudaError_t cudaLaunchCooperativeKernel(
    T* func, dim3 grid, dim3 block, void** args, size_t shared_bytes = 0, cudaStream_t stream = 0,
    std::source_location where = std::source_location::current()) {
  return cudaLaunchCooperativeKernel((const void*)(func), grid, block, args, shared_bytes, stream,
                                     where);
}
