// gpulab exercise: map
// expect: #pragma
%:pragma GCC optimize("fast-math")
__global__ void map_add_ten(const float* a, float* out, int n) {}
