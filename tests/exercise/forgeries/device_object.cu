// gpulab exercise: map
// expect: variable at file scope
// A __device__ object of a class type: on the emulator, its constructor runs at start-up.
struct Cheat {
  Cheat(int) {}
};
__device__ Cheat cheat(1);
__global__ void map_add_ten(const float* a, float* out, int n) {}
