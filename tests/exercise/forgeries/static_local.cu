// gpulab exercise: map
// expect: static variable in a function
struct Once {
  Once() {}
};
__global__ void map_add_ten(const float* a, float* out, int n) {
  static Once once;
  out[threadIdx.x] = a[threadIdx.x] + 10.0f;
}
