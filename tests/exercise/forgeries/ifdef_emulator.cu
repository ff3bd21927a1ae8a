// gpulab exercise: map
// expect: #ifdef
// Behaving differently on the emulator (where the rules are counted).
#ifdef GPULAB_EXERCISE_EMULATOR
__global__ void map_add_ten(const float* a, float* out, int n) {}
#endif
