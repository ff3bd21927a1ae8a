// gpulab exercise: map
// expect: __attribute__
// A constructor in the student's unit through the .init_array section (runs before main, before
// the runner reads its inputs).
static void early() {}
__attribute__((section(".init_array"), used)) static void (*run_early)() = early;
__global__ void map_add_ten(const float* a, float* out, int n) {}
