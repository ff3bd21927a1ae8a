// gpulab exercise: map
// expect: host code
// The host computes the answer; the kernel does nothing.
void answer(const float* a, float* out, int n) {
  for (int i = 0; i < n; ++i) out[i] = a[i] + 10.0f;
}
__global__ void map_add_ten(const float* a, float* out, int n) {}
