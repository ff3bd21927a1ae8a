// gpulab exercise: map
// expect: object declared with its type
struct Cheat {
  int x;
} cheat;
__global__ void map_add_ten(const float* a, float* out, int n) {}
