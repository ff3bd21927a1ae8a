// A __device__ function and variable that main.cu's kernel uses from another file.
#include "scale.cuh"

__device__ int g_offset = OFFSET;

__device__ int scale(int x) {
  return 3 * x;
}
