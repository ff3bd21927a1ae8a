// The work of the occupancy sweep's kernels: N accumulators live in registers, so N sets the
// register pressure; caps (__launch_bounds__, __maxnreg__, -maxrregcount) then force the count.
#pragma once

#include <cuda_runtime.h>

template <int N>
__device__ __forceinline__ void occ_body(const float* in, float* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  float acc[N];
#pragma unroll
  for (int k = 0; k < N; ++k) acc[k] = in[(i + 7 * k) % n];
#pragma unroll
  for (int r = 0; r < 4; ++r) {
#pragma unroll
    for (int k = 0; k < N; ++k) acc[k] = fmaf(acc[k], acc[(k + r + 1) % N], 1.0f);
  }
  float s = 0;
#pragma unroll
  for (int k = 0; k < N; ++k) s += acc[k] * static_cast<float>(k + 1);
  if (i < n) out[i] = s;
}
