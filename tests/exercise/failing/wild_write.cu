// gpulab exercise: map
// expect: illegal address
// Storing far outside the outputs (where the runner's or the recorder's own memory might be):
// every store of the student's code is checked, and one outside the device buffers fails.
__global__ void map_add_ten(const float* a, float* out, int n) {
  out[threadIdx.x] = a[threadIdx.x] + 10.0f;
  if (threadIdx.x == 0) out[n + (1 << 28)] = 1.0f;
}
