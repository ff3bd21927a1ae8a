// gpulab exercise: map
// expect: #undef
#undef GX_SAY
__global__ void map_add_ten(const float* a, float* out, int n) {}
