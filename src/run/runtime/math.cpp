// The math functions a GPU computes with exact arithmetic: in a kernel the GPU's results
// (simt/cuda_math.hpp), in host code the C library's, as a program built with nvcc gets them.
#include <math.h>

#include "simt/cuda_math.hpp"
#include "simt/scheduler.hpp"

namespace {

bool in_kernel() {
  return gpulab::simt::detail::tl_runner != nullptr;
}

}  // namespace

float gpulab_rt_sinf(float x) {
  return in_kernel() ? gpulab::simt::cuda_sinf(x) : ::sinf(x);
}
float gpulab_rt_cosf(float x) {
  return in_kernel() ? gpulab::simt::cuda_cosf(x) : ::cosf(x);
}
void gpulab_rt_sincosf(float x, float* s, float* c) {
  if (in_kernel()) return gpulab::simt::cuda_sincosf(x, s, c);
  ::sincosf(x, s, c);
}
float gpulab_rt_logf(float x) {
  return in_kernel() ? gpulab::simt::cuda_logf(x) : ::logf(x);
}
float gpulab_rt_log2f(float x) {
  return in_kernel() ? gpulab::simt::cuda_log2f(x) : ::log2f(x);
}
float gpulab_rt_log10f(float x) {
  return in_kernel() ? gpulab::simt::cuda_log10f(x) : ::log10f(x);
}
float gpulab_rt_log1pf(float x) {
  return in_kernel() ? gpulab::simt::cuda_log1pf(x) : ::log1pf(x);
}
float gpulab_rt_atan2f(float y, float x) {
  return in_kernel() ? gpulab::simt::cuda_atan2f(y, x) : ::atan2f(y, x);
}
float gpulab_rt_hypotf(float a, float b) {
  return in_kernel() ? gpulab::simt::cuda_hypotf(a, b) : ::hypotf(a, b);
}
