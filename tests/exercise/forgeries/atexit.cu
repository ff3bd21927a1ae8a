// gpulab exercise: map
// expect: atexit
__device__ void report() {}
__global__ void map_add_ten(const float* a, float* out, int n) {
  atexit(report);
}
