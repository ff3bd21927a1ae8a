// gpulab exercise: map
// expect: 'program_invocation_name' is not allowed
// Reading the command line (where the seed was) from the kernel.
extern __shared__ float pad[];
__global__ void map_add_ten(const float* a, float* out, int n) {
  const char* name = program_invocation_name;
}
