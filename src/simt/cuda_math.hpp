// CUDA's math library as a GPU computes it, bit for bit: the functions whose CUDA implementation is
// exact integer and IEEE arithmetic (fma, add, mul rounded to nearest), written again from the
// instruction sequence nvcc 13 emits for sm_90 (without -use_fast_math or -ftz) and checked
// against an H100 (tests/run_corpus/gpu_semantics/math_functions.cu).
//
// The host's libm gives other last bits (glibc's sinf is correctly rounded, CUDA's is within 2
// ulp), so a kernel that prints a sine's error printed another number on the emulator. Functions
// built on the GPU's approximate hardware instructions (expf's ex2.approx, powf's rcp.approx)
// cannot be written this way: they stay the host's (docs/simt.md).
#pragma once

namespace gpulab::simt {

float cuda_sinf(float x);
float cuda_cosf(float x);
void cuda_sincosf(float x, float* s, float* c);
float cuda_logf(float x);
float cuda_log2f(float x);
float cuda_log10f(float x);
float cuda_log1pf(float x);
float cuda_atan2f(float y, float x);
float cuda_hypotf(float a, float b);

}  // namespace gpulab::simt
