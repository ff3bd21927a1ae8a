// Kernel printf with the formats NVIDIA's simplePrintf sample and the course use: integers,
// widths, hex, floats, strings and characters, from one warp (whose lines come in lane order).
#include <cstdio>

__global__ void show(float scale) {
  const int t = threadIdx.x;
  printf("[%2d] int %-3d| hex 0x%04x | float %7.3f | sci %.2e | %s %c%%\n", t, t * 7, t * 255,
         t * scale, t * scale * 1000.0f, t % 2 == 0 ? "even" : "odd", 'a' + t);
}

int main() {
  printf("launching 4 threads\n");
  show<<<1, 4>>>(1.25f);
  cudaDeviceSynchronize();
  printf("done\n");
  return 0;
}
