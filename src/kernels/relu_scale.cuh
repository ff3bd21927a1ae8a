// The notes' fused ReLU + scale, y = max(x, 0) * alpha, and its backward, for the PyTorch bridge.
#pragma once
#include "kernels/prelude.cuh"

// One element. A NaN stays NaN, as in torch.relu (the notes' fmaxf(x, 0.0f) turns it into 0).
__device__ __forceinline__ float relu_scale_one(float v, float alpha) {
  return (v > 0.0f || v != v ? v : 0.0f) * alpha;
}

// d y / d x is alpha where x > 0 and 0 where x <= 0 (0 at x = 0, as torch.relu's backward, which
// also lets the gradient of a NaN through).
__device__ __forceinline__ float relu_scale_grad_one(float g, float v, float alpha) {
  return v <= 0.0f ? 0.0f : g * alpha;
}

// One pass: read x once, write y once. Unfused, torch.relu(x) * alpha reads and writes the whole
// tensor twice, which is why fusing two element-wise steps halves the time of a memory-bound op.
// Grid-stride loop, any grid; when both pointers are 16-byte aligned each thread moves 4 floats
// per load and store (float4), so that one thread keeps 16 bytes in flight instead of 4, then
// the last n % 4 elements go one at a time (all of them when a pointer is not aligned, e.g. a
// view that starts at element 1).
__global__ void relu_scale_forward(const float* x, float* y, long long n, float alpha) {
  const long long stride = (long long)gridDim.x * blockDim.x;
  const long long first = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  long long done = 0;
  if ((((unsigned long long)x | (unsigned long long)y) & 15) == 0) {
    const float4* x4 = (const float4*)x;
    float4* y4 = (float4*)y;
    const long long n4 = n / 4;
    for (long long i = first; i < n4; i += stride) {
      const float4 v = x4[i];
      y4[i] = make_float4(relu_scale_one(v.x, alpha), relu_scale_one(v.y, alpha),
                          relu_scale_one(v.z, alpha), relu_scale_one(v.w, alpha));
    }
    done = n4 * 4;
  }
  for (long long i = done + first; i < n; i += stride) y[i] = relu_scale_one(x[i], alpha);
}

// grad_x = grad_y * alpha where x > 0, else 0. It needs x: autograd saves it in the forward.
__global__ void relu_scale_backward(const float* grad_y, const float* x, float* grad_x, long long n,
                                    float alpha) {
  const long long stride = (long long)gridDim.x * blockDim.x;
  const long long first = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  long long done = 0;
  if ((((unsigned long long)grad_y | (unsigned long long)x | (unsigned long long)grad_x) & 15) ==
      0) {
    const float4* g4 = (const float4*)grad_y;
    const float4* x4 = (const float4*)x;
    float4* gx4 = (float4*)grad_x;
    const long long n4 = n / 4;
    for (long long i = first; i < n4; i += stride) {
      const float4 g = g4[i];
      const float4 v = x4[i];
      gx4[i] =
          make_float4(relu_scale_grad_one(g.x, v.x, alpha), relu_scale_grad_one(g.y, v.y, alpha),
                      relu_scale_grad_one(g.z, v.z, alpha), relu_scale_grad_one(g.w, v.w, alpha));
    }
    done = n4 * 4;
  }
  for (long long i = done + first; i < n; i += stride) {
    grad_x[i] = relu_scale_grad_one(grad_y[i], x[i], alpha);
  }
}
