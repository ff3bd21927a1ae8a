// gpulab exercise: map
// expect: #include
#include <unistd.h>
__global__ void map_add_ten(const float* a, float* out, int n) {}
