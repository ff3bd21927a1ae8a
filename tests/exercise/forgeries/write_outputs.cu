// gpulab exercise: map
// expect: 'syscall' is not allowed
// Writing the outputs channel directly (a raw system call on an inherited descriptor) instead
// of storing through the kernel.
__device__ void forge(int fd) {
  const float answer[1] = {10.0f};
  syscall(1, fd, answer, sizeof answer);
}
__global__ void map_add_ten(const float* a, float* out, int n) {
  if (threadIdx.x == 0) forge(4);
}
