// gpulab exercise: map
// expect: object
// A global object: its constructor and destructor run outside the kernel.
struct Cheat {
  Cheat() {}
  ~Cheat() {}
};
Cheat cheat;
__global__ void map_add_ten(const float* a, float* out, int n) {}
