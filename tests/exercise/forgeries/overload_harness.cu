// gpulab exercise: map
// expect: 'gx' is not allowed
// An overload of the harness's input generator.
namespace gx {
__device__ double uniform(unsigned long long stream, unsigned long long i) { return 0; }
}
__global__ void map_add_ten(const float* a, float* out, int n) {}
