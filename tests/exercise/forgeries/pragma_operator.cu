// gpulab exercise: map
// expect: _Pragma
_Pragma("GCC optimize(\"fast-math\")")
__global__ void map_add_ten(const float* a, float* out, int n) {}
