// gpulab exercise: map
// expect: extern
// Switching the rule recorder off from the student's file.
extern "C" void gpulab_rt_record(int level);
__global__ void map_add_ten(const float* a, float* out, int n) {
  gpulab_rt_record(0);
  out[threadIdx.x] = a[threadIdx.x] + 10.0f;
}
