// gpulab exercise: map
// expect: __attribute__
// A constructor that runs before main and writes a passing result.
__attribute__((constructor)) static void cheat() {}
__global__ void map_add_ten(const float* a, float* out, int n) {}
