// gpulab exercise: map
// expect: 'read' is not allowed
// Reading the runner's inputs channel before the kernel runs (its descriptor or its file), to
// compute every answer in advance.
__device__ float peek(int fd) {
  char buf[4096];
  return read(fd, buf, sizeof buf) > 0 ? buf[0] : 0.0f;
}
__global__ void map_add_ten(const float* a, float* out, int n) {
  out[threadIdx.x] = peek(3);
}
