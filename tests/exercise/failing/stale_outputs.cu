// gpulab exercise: map
// expect: never written
// Writing only in the first test (n = 1) and hoping later tests find an earlier answer left in
// device memory: every output is poisoned right before each launch.
__global__ void map_add_ten(const float* a, float* out, int n) {
  if (n == 1) out[0] = a[0] + 10.0f;
}
