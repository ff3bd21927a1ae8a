// gpulab exercise: map
// expect: '__builtin_memcpy' is not allowed
// A copy the recorder does not see as the kernel's stores.
__global__ void map_add_ten(const float* a, float* out, int n) {
  __builtin_memcpy(out, a, n * sizeof(float));
}
