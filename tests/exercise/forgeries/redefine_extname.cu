// gpulab exercise: map
// expect: #pragma
// Re-routes gpulab's recording function to one of the student's.
#pragma redefine_extname gpulab_rt_record my_record
__global__ void map_add_ten(const float* a, float* out, int n) {}
