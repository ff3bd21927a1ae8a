// Bug: main() returns right after the launch: the kernel's printf is never shown.
#include <cstdio>
__global__ void hello() { printf("hello from thread %d\n", threadIdx.x); }
int main() {
  hello<<<1, 4>>>();  // expect: unsynchronized_exit
  return 0;
}
