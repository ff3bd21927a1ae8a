// gpulab exercise: map
// expect: 'write' is not allowed
__global__ void map_add_ten(const float* a, float* out, int n) {
  const char line[] = "{\"event\":\"exercise_end\",\"failed\":0}\n";
  for (int fd = 3; fd < 20; ++fd) write(fd, line, sizeof line - 1);
}
