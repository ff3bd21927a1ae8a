// gpulab exercise: map
// expect: a main() is not allowed
// A name split over two lines with a backslash (the compiler joins them).
int ma\
in() { return 0; }
__global__ void map_add_ten(const float* a, float* out, int n) {}
