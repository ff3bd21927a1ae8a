// gpulab exercise: twonorm
// expect: after sum_squares
// The second kernel does all the work and the first writes nothing: each launch's outputs are
// compared right after it, so sum_squares must leave the sum of squares.
__global__ void sum_squares(const float* x, float* sum, int n) {}
__global__ void finish(float* sum) {
  *sum = 0.0f;
}
