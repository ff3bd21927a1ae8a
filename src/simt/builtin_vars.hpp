// CUDA's built-in variables (threadIdx, blockIdx, blockDim, gridDim): one copy per OS thread.
#pragma once

#include "simt/vector_types.hpp"

// The emulator runs one block per OS thread at a time and sets threadIdx before it runs or resumes
// each CUDA thread, so a kernel reads them exactly as on a GPU. Being inline, constant-initialized
// and trivially destructible, they compile to one %fs-relative load: no TLS wrapper call on the hot
// path. In the global namespace, as in CUDA.
inline thread_local uint3 threadIdx{0, 0, 0};
inline thread_local uint3 blockIdx{0, 0, 0};
inline thread_local dim3 blockDim{1, 1, 1};
inline thread_local dim3 gridDim{1, 1, 1};
