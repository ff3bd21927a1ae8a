// The notes' "fused" Linear + bias + GELU, as written there (one thread per output), for the bench.
#pragma once
#include "kernels/prelude.cuh"

// out[b][o] = gelu_tanh(bias[o] + sum over i of in[b][i] * weight[o][i]), weight in nn.Linear's
// (out, in) layout. Kept naive on purpose: neighbouring threads have neighbouring o and so read
// weight rows I floats apart (32 cache lines per warp load), nothing is reused through shared
// memory and no Tensor Core is used. bench/torch_ops.py measures how far that is from cuBLAS.
__global__ void fused_linear_gelu(const float* in, const float* weight, const float* bias,
                                  float* out, int rows, int in_features, int out_features) {
  const int idx = (int)(blockIdx.x * blockDim.x + threadIdx.x);
  if (idx >= rows * out_features) return;
  const int b = idx / out_features;
  const int o = idx % out_features;
  float sum = bias[o];
  for (int i = 0; i < in_features; i++) {
    sum += in[b * in_features + i] * weight[o * in_features + i];
  }
  // GELU, tanh form: 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))), as
  // nn.GELU(approximate="tanh"); nn.GELU() is the erf form.
  const float x = sum;
  out[idx] = 0.5f * x * (1.0f + tanhf(0.7978845608028654f * x * (1.0f + 0.044715f * x * x)));
}
