// gpulab exercise: map
// expect: static data member
struct Holder {
  static inline int counter = 0;
};
__global__ void map_add_ten(const float* a, float* out, int n) {}
