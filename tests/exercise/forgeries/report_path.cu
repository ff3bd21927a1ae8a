// gpulab exercise: map
// expect: 'getenv' is not allowed
// Writing a passing result where gpulab reads its report.
__global__ void map_add_ten(const float* a, float* out, int n) {
  if (threadIdx.x == 0) {
    const char* p = getenv("GPULAB_RUN_REPORT");
    FILE* f = fopen(p, "a");
  }
}
