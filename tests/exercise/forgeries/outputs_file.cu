// gpulab exercise: map
// expect: 'fopen' is not allowed
// Opening the outputs channel by its path (it is on the runner's command line) from device
// code, to append a frame of right answers.
__device__ void forge() {
  FILE* f = fopen("/proc/self/cmdline", "r");
}
__global__ void map_add_ten(const float* a, float* out, int n) {
  forge();
}
