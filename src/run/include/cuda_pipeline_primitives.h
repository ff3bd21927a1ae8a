// cuda_pipeline_primitives.h for programs built by gpulab run: the primitives behind
// memcpy_async (__pipeline_memcpy_async, __pipeline_commit, __pipeline_wait_prior), as CUDA's
// programming guide shows them.
//
// A copy is made when it is issued (docs/run.md, <cuda/pipeline>): by the time a thread's
// __pipeline_wait_prior returns, its copies have landed. `zfill` bytes at the end of the
// destination are set to zero instead of copied, as on a GPU.
#pragma once

#include <cstddef>
#include <cstring>

inline void __pipeline_memcpy_async(void* dst, const void* src, std::size_t size_and_align,
                                    std::size_t zfill = 0) {
  const std::size_t copied = zfill < size_and_align ? size_and_align - zfill : 0;
  std::memcpy(dst, src, copied);
  std::memset(static_cast<char*>(dst) + copied, 0, size_and_align - copied);
}
inline void __pipeline_commit() {}
inline void __pipeline_wait_prior(std::size_t prior) {
  static_cast<void>(prior);
}
