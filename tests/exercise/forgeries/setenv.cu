// gpulab exercise: map
// expect: 'setenv' is not allowed
__global__ void map_add_ten(const float* a, float* out, int n) {
  setenv("GPULAB_RUN_CHECK", "0", 1);
  out[threadIdx.x] = a[threadIdx.x] + 10.0f;
}
