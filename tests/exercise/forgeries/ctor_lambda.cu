// gpulab exercise: map
// expect: computed
// A constructor in the student's unit: a file-scope constant whose value is computed by a call
// (a lambda run at start-up).
const int started = [] { return 1; }();
__global__ void map_add_ten(const float* a, float* out, int n) {}
