// gpulab exercise: map
// expect: #define main
#define main fake_main
__global__ void map_add_ten(const float* a, float* out, int n) {}
