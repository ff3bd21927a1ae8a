// The host's answer, compiled as plain C++ (nvcc hands .cpp files to the host compiler).
#include "scale.cuh"

#ifndef OFFSET
#error "built without -DOFFSET"
#endif

int host_check(const int* h, int n) {
  for (int i = 0; i < n; ++i) {
    if (h[i] != 3 * i + OFFSET) return 0;
  }
  return 1;
}
