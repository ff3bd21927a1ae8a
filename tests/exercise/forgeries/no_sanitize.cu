// gpulab exercise: map
// expect: __attribute__
__attribute__((no_sanitize("thread"))) __global__ void map_add_ten(const float* a, float* out,
                                                                   int n) {
  out[threadIdx.x] = a[threadIdx.x] + 10.0f;
}
