// gpulab exercise: map
// expect: #define cudaMemcpy
#define cudaMemcpy(dst, src, bytes, kind) 0
__global__ void map_add_ten(const float* a, float* out, int n) {}
